/* Per-environment state (instance data): the main thread and every worker
 * that loads cprof get their own, torn down by a cleanup hook. */
#ifndef CPROF_ADDON_H
#define CPROF_ADDON_H

#include <node_api.h>
#include <stdint.h>

#include "inspector.h"
#include "job.h"
#include "signal.h"
#include "timer.h"

/* One sampling controller; CPU and heap each have one, so both can run at
 * once. */
typedef struct {
  cprof_insp_t *insp;   /* open while a profile runs through the inspector */
  napi_ref v8heap;      /* or the handle of v8.startHeapProfile (v8heap.h) */
  cprof_timer_t *timer; /* the timeout, if any */
} cprof_ctl_t;

#define CPROF_SIGNAL_SLOTS 3

typedef struct {
  napi_env env;
  int exiting; /* set by the cleanup hook: late callbacks return early */
  cprof_ctl_t cpu;
  cprof_ctl_t heap;
  cprof_signal_t *signals[CPROF_SIGNAL_SLOTS]; /* the signal triggers (CPU, heap, dump) */
  struct cprof_rec_s *recorder;                /* the flight recorder (recorder.h), or NULL */
} cprof_addon_t;

/* An inspector command and its params (JSON text or NULL). */
typedef struct {
  const char *method;
  const char *params;
} cprof_cmd_t;

/* The calling environment's state; throws and returns NULL if missing. */
cprof_addon_t *cprof__addon(napi_env env);

/* Stops a controller's timer and closes its session. */
void cprof__ctl_reset(napi_env env, cprof_ctl_t *ctl);

/* The same without calling into JS: for environment teardown. */
void cprof__ctl_abandon(napi_env env, cprof_ctl_t *ctl);

/* Opens a session, posts cmds in order, arms on_timeout after timeout_ms
 * (if > 0). Returns the transport's name; throws ERR_CPROF_BUSY when ctl
 * already runs ("a <what> profile is already running"). */
napi_value cprof__ctl_start(napi_env env, cprof_ctl_t *ctl, const char *what,
                            const cprof_cmd_t *cmds, size_t ncmds, double timeout_ms,
                            napi_value on_timeout);

/* The same through v8.startHeapProfile (see v8heap.h); transport "v8". */
napi_value cprof__ctl_start_v8heap(napi_env env, cprof_ctl_t *ctl, double interval, double depth,
                                   bool collected, bool force_gc, double timeout_ms,
                                   napi_value on_timeout);

/* Posts stop_method (or stops the v8.startHeapProfile handle), closes the session, queues the job
 * on the reply text. Takes ownership of in. ERR_CPROF_NOT_STARTED when ctl is idle. */
napi_value cprof__ctl_stop(napi_env env, cprof_ctl_t *ctl, const char *what,
                           const char *stop_method, cprof_job_in_t *in);

napi_value cprof__cpu_start(napi_env env, napi_callback_info info);
napi_value cprof__cpu_stop(napi_env env, napi_callback_info info);
napi_value cprof__heap_start(napi_env env, napi_callback_info info);
napi_value cprof__heap_stop(napi_env env, napi_callback_info info);
napi_value cprof__analyze(napi_env env, napi_callback_info info);

#endif

/* A sampling controller (ctl.c): the session or v8 handle of one running
 * profile and its timeout. CPU and heap each have one in the environment's
 * state (addon.h); cpu.c and heap.c give it their commands. */
#ifndef CPROF_CTL_H
#define CPROF_CTL_H

#include <node_api.h>
#include <stdbool.h>
#include <stddef.h>

#include "../core/cprof.h"
#include "inspector.h"
#include "timer.h"

/* One sampling controller; CPU and heap each have one, so both can run at
 * once. */
typedef struct {
  cprof_insp_t *insp;   /* open while a profile runs through the inspector */
  napi_ref v8_handle;   /* or the profile handle of v8.startHeapProfile (heap, v8heap.h) or
                           v8.startCpuProfile (CPU, v8cpu.h): both stop() to JSON text */
  cprof_timer_t *timer; /* the timeout, if any */
} cprof_ctl_t;

/* Whether a profile runs, through either path. */
static inline int cprof__ctl_running(const cprof_ctl_t *ctl) {
  return ctl->insp != NULL || ctl->v8_handle != NULL;
}

/* An inspector command and its params (JSON text or NULL). */
typedef struct {
  const char *method;
  const char *params;
} cprof_cmd_t;

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

/* The same through v8.startCpuProfile (see v8cpu.h); transport "v8". */
napi_value cprof__ctl_start_v8cpu(napi_env env, cprof_ctl_t *ctl, double interval_us,
                                  double timeout_ms, napi_value on_timeout);

/* Posts stop_method (or stops the v8.startHeapProfile handle), closes the session, queues the job
 * on the reply text. Takes ownership of in. ERR_CPROF_NOT_STARTED when ctl is idle. */
napi_value cprof__ctl_stop(napi_env env, cprof_ctl_t *ctl, const char *what,
                           const char *stop_method, cprof_job_in_t *in);

#endif

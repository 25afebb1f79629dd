/* Per-environment state (instance data): the main thread and every worker
 * that loads cprof get their own, torn down by a cleanup hook. */
#ifndef CPROF_ADDON_H
#define CPROF_ADDON_H

#include <node_api.h>
#include <stdint.h>

#include "inspector.h"
#include "timer.h"

/* One sampling controller: CPU now, heap beside it later. */
typedef struct {
  cprof_insp_t *insp;   /* open while a profile runs */
  cprof_timer_t *timer; /* the timeout, if any */
} cprof_ctl_t;

typedef struct {
  napi_env env;
  int exiting; /* set by the cleanup hook: late callbacks return early */
  cprof_ctl_t cpu;
} cprof_addon_t;

/* The calling environment's state; throws and returns NULL if missing. */
cprof_addon_t *cprof__addon(napi_env env);

/* Stops a controller's timer and closes its session. */
void cprof__ctl_reset(napi_env env, cprof_ctl_t *ctl);

napi_value cprof__cpu_start(napi_env env, napi_callback_info info);
napi_value cprof__cpu_stop(napi_env env, napi_callback_info info);
napi_value cprof__analyze(napi_env env, napi_callback_info info);

#endif

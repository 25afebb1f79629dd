/* A one-shot, unref'd uv timer that calls a JS function: the timeout and
 * maximum-duration triggers. It never keeps the process alive. The handle
 * lives in its own heap block, freed only in its close callback. */
#ifndef CPROF_TIMER_H
#define CPROF_TIMER_H

#include <node_api.h>
#include <stdint.h>

typedef struct cprof_timer_s cprof_timer_t;

/* Arms a timer that calls fn() once after ms milliseconds. NULL (and a
 * thrown error) on failure. */
cprof_timer_t *cprof__timer_start(napi_env env, uint64_t ms, napi_value fn);

/* Disarms and releases the timer. Safe with NULL and after it fired. */
void cprof__timer_stop(cprof_timer_t *t);

#endif

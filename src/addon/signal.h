/* The signal trigger: an unref'd uv_signal_t that calls a JS function each
 * time the process receives a signal. It never keeps the process alive. The
 * handle lives in its own heap block, freed only in its close callback.
 * Signals are process-wide: lib/ installs it from the main thread only. */
#ifndef CPROF_SIGNAL_H
#define CPROF_SIGNAL_H

#include <node_api.h>

typedef struct cprof_signal_s cprof_signal_t;

/* Why signum cannot be a trigger ("" when it can): Node's own signals, the
 * ones nobody can catch, V8's sampler signal and the synchronous faults. */
const char *cprof__signal_refusal(int signum);

/* Watches signum and calls fn() on the loop's thread at each delivery. NULL
 * (and a thrown ERR_CPROF_INVALID_ARG or internal error) on failure. */
cprof_signal_t *cprof__signal_start(napi_env env, int signum, napi_value fn);

/* Stops watching and releases the handle. Safe with NULL. */
void cprof__signal_stop(cprof_signal_t *s);

#endif

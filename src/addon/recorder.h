/* The flight recorder at the Node-API boundary: CPU sampling in windows
 * over one in-process inspector session, each finished window converted off
 * the main thread into the native model and kept in the core's ring
 * (src/core/ring.h); dumps merge windows on a worker thread.
 *
 * Rotation: V8's profiler agent runs console profiles
 * (console.profile(title) / console.profileEnd(title), here through
 * node:inspector's console, V8's own) side by side on one CpuProfiler. A
 * window ends by starting the next console profile, then ending the
 * current one, whose profile arrives as a Profiler.consoleProfileFinished
 * notification. The CpuProfiler and its sampler thread stay up across
 * rotations, so V8 neither stops its sampler nor logs all code again:
 * measured 1-3 ms per rotation where Profiler.stop + Profiler.start costs
 * 47-100 ms (see docs/recorder.md). */
#ifndef CPROF_RECORDER_H
#define CPROF_RECORDER_H

#include <node_api.h>

typedef struct cprof_rec_s cprof_rec_t;

/* 1 while a recording runs in this environment. */
int cprof__rec_running(napi_env env);

/* 1 while a recording with heap windows runs in this environment. */
int cprof__rec_heap_running(napi_env env);

/* Environment teardown: no JS may run; in-flight jobs finish on their own. */
void cprof__rec_abandon(napi_env env);

napi_value cprof__rec_start(napi_env env, napi_callback_info info);
napi_value cprof__rec_rotate(napi_env env, napi_callback_info info);
napi_value cprof__rec_stop(napi_env env, napi_callback_info info);
napi_value cprof__rec_status(napi_env env, napi_callback_info info);
napi_value cprof__rec_dump(napi_env env, napi_callback_info info);

#endif

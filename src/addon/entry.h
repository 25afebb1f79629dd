/* The JS entry points binding.c registers, one per exported function:
 * cpu.c, heap.c (the controllers), analyze.c (the job on profile files)
 * watch.c (the signal trigger slots), recorder_api.c (the flight
 * recorder) and snapshot.c (cprof snapshot). */
#ifndef CPROF_ENTRY_H
#define CPROF_ENTRY_H

#include <node_api.h>

napi_value cprof__cpu_start(napi_env env, napi_callback_info info);
napi_value cprof__cpu_stop(napi_env env, napi_callback_info info);
napi_value cprof__heap_start(napi_env env, napi_callback_info info);
napi_value cprof__heap_stop(napi_env env, napi_callback_info info);
napi_value cprof__analyze(napi_env env, napi_callback_info info);
napi_value cprof__convert(napi_env env, napi_callback_info info);
napi_value cprof__diff(napi_env env, napi_callback_info info);
napi_value cprof__merge(napi_env env, napi_callback_info info);
napi_value cprof__signal_watch(napi_env env, napi_callback_info info);
napi_value cprof__signal_unwatch(napi_env env, napi_callback_info info);
napi_value cprof__recorder_start(napi_env env, napi_callback_info info);
napi_value cprof__recorder_rotate(napi_env env, napi_callback_info info);
napi_value cprof__recorder_stop(napi_env env, napi_callback_info info);
napi_value cprof__recorder_status(napi_env env, napi_callback_info info);
napi_value cprof__recorder_dump(napi_env env, napi_callback_info info);
napi_value cprof__snapshot_report(napi_env env, napi_callback_info info);
napi_value cprof__snapshot_diff(napi_env env, napi_callback_info info);
napi_value cprof__snapshot_view(napi_env env, napi_callback_info info);

#endif

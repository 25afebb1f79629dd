/* V8's sampling heap profiler through Node's v8.startHeapProfile (Node.js
 * >= 26), the heap controller's first choice. Unlike the inspector's
 * HeapProfiler.stopSampling, which always runs a full GC first (V8 starts
 * the inspector's sampler with kSamplingForceGC), its stop collects garbage
 * only when asked (forceGC), and returns the profile as JSON text. */
#ifndef CPROF_V8HEAP_H
#define CPROF_V8HEAP_H

#include <node_api.h>
#include <stdbool.h>
#include <stddef.h>

/* 1 when v8.startHeapProfile exists and CPROF_TRANSPORT does not ask for
 * the inspector (any value does). Never throws. */
int cprof__v8heap_usable(napi_env env);

/* Starts sampling; *handle refers to the SyncHeapProfileHandle. 0, or -1
 * after throwing ERR_CPROF_INSPECTOR (e.g. V8's sampler is taken). */
int cprof__v8heap_start(napi_env env, double interval, double depth, bool collected, bool force_gc,
                        napi_ref *handle);

/* Stops and gives the profile's JSON text (malloc'd, the caller's); frees
 * the handle either way. 0, or -1 after throwing. */
int cprof__v8heap_stop(napi_env env, napi_ref handle, char **json, size_t *len);

/* Stops and drops the profile. Never throws. */
void cprof__v8heap_discard(napi_env env, napi_ref handle);

#endif

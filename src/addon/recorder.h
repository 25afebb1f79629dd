/* The flight recorder's engine at the Node-API boundary: CPU (and, with
 * heap, heap) sampling in windows over one in-process inspector session,
 * each finished window converted off the main thread into the native model
 * and kept in the core's ring (src/core/ring.h); dumps merge windows on a
 * worker thread. recorder_api.c holds the JS entry points; this unit knows
 * nothing of the environment's state (addon.h), so teardown (addon.c) can
 * call it without a circle.
 *
 * Rotation: V8's profiler agent runs console profiles
 * (console.profile(title) / console.profileEnd(title), here through
 * node:inspector's console, V8's own) side by side on one CpuProfiler. A
 * window ends by starting the next console profile, then ending the
 * current one, whose profile arrives as a Profiler.consoleProfileFinished
 * notification. The CpuProfiler and its sampler thread stay up across
 * rotations, so V8 neither stops its sampler nor logs all code again:
 * measured 1-3 ms per rotation where Profiler.stop + Profiler.start costs
 * 47-100 ms (docs/recorder.md). */
#ifndef CPROF_RECORDER_H
#define CPROF_RECORDER_H

#include <node_api.h>
#include <stdbool.h>

typedef struct cprof_rec_s cprof_rec_t;

typedef struct {
  double interval_us;   /* CPU sampling interval */
  double keep_ms;       /* ring: age limit (0: none) */
  double max_bytes;     /* ring: byte limit per kind (0: none) */
  double heap_interval; /* heap sampling interval in bytes; 0: no heap windows */
  double trend_windows; /* heap windows in the heap trend (src/core/trend.h); 0: the default */
} cprof_rec_opts_t;

/* Opens the session and starts the first window. store: undefined or
 * { dir, cpuprofile, pprof, maxAge, maxBytes }; push: undefined or
 * { maxSamples, maxBytes } (each window's info then carries push: the
 * window as gzip'd pprof parts within those limits); on_window(info) runs
 * after each window is kept. NULL after throwing. */
cprof_rec_t *cprof__rec_start(napi_env env, const cprof_rec_opts_t *o, napi_value store,
                              napi_value push, napi_value on_window);

/* 1 while rec records (NULL-safe); the second: with heap windows. */
int cprof__rec_running(const cprof_rec_t *rec);
int cprof__rec_heap_running(const cprof_rec_t *rec);

/* "connection" or "session" while running. */
const char *cprof__rec_transport(const cprof_rec_t *rec);

/* Ends the current window (starting the next first): the number of the
 * window ended, 0 if it was lost. Throws ERR_CPROF_NOT_STARTED when idle. */
napi_value cprof__rec_rotate(napi_env env, cprof_rec_t *rec);

/* Ends the last window and closes the session; the rings stay. */
napi_value cprof__rec_stop(napi_env env, cprof_rec_t *rec);

/* { running, windows, bytes, from, to, evicted, lost, failed,
 * evictedForSpace, trimmed, pending, current, heap? } (heap.trend: the live
 * heap's trend by site, docs/recorder.md), or null for rec NULL. */
napi_value cprof__rec_status(napi_env env, cprof_rec_t *rec);

/* Chooses the newest windows covering last ms (0: all) of one kind and
 * queues their merge: argv = (dir, name, top, exportOpts) as the job takes
 * them. → { promise, from, to, windows }. */
napi_value cprof__rec_dump(napi_env env, cprof_rec_t *rec, napi_value *argv, double last,
                           bool heap);

/* Drops a stopped recorder: its JS callback and the caller's reference;
 * conversions still in flight finish into its ring, then it is freed. */
void cprof__rec_release(napi_env env, cprof_rec_t *rec);

/* Environment teardown: no JS may run; in-flight jobs finish on their own. */
void cprof__rec_abandon(napi_env env, cprof_rec_t *rec);

#endif

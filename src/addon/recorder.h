/* The flight recorder's engine at the Node-API boundary: CPU (and, with
 * heap, heap) sampling in windows over one in-process inspector session,
 * each finished window converted off the main thread into the native model
 * and kept in the core's ring (src/core/window.h, ring.h); dumps merge
 * windows on a worker thread. This unit is the engine: the session, the
 * rotation and the queue of windows to convert. It reads and makes no JS
 * value: recorder_api.c, the binding, reads the arguments, builds every
 * result and window info, and holds the environment's recorder; this unit
 * knows nothing of the environment's state (addon.h), so teardown (addon.c)
 * can call it without a circle.
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

#include "../core/cprof.h"

typedef struct cprof_rec_s cprof_rec_t;

typedef struct {
  cprof_window_cfg_t cfg; /* sampling intervals, store, push (owned strings move in);
                             cfg.heap_interval 0: no heap windows */
  double keep_ms;         /* ring: age limit (0: none) */
  double max_bytes;       /* ring: byte limit per kind (0: none) */
  double trend_windows;   /* heap windows in the heap trend (src/core/trend.h); 0: the default */
} cprof_rec_opts_t;

/* A converted window, as the binding hands it to JS. */
typedef struct {
  uint64_t seq;
  int heap;
  const cprof_window_made_t *made;
  int err;            /* CPROF_OK, or why it was not kept, stored or pushed */
  const char *errmsg; /* then: what went wrong */
} cprof_rec_window_t;

/* Runs on the main thread after each window's conversion, inside a handle
 * scope; fn is the on_window reference given to cprof__rec_start. An
 * exception it leaves is cleared: never into the app. */
typedef void (*cprof_rec_notify_fn)(napi_env env, napi_ref fn, const cprof_rec_window_t *w);

/* Opens the session and starts the first window; o's strings are the
 * recorder's from here on, also on failure. on_window (a reference the
 * recorder owns from here on, deleted at release) goes to notify after
 * each window. NULL after throwing. */
cprof_rec_t *cprof__rec_start(napi_env env, cprof_rec_opts_t *o, cprof_rec_notify_fn notify,
                              napi_ref on_window);

/* 1 while rec records (NULL-safe); the second: with heap windows. */
int cprof__rec_running(const cprof_rec_t *rec);
int cprof__rec_heap_running(const cprof_rec_t *rec);

/* "connection" or "session" while running. */
const char *cprof__rec_transport(const cprof_rec_t *rec);

/* Ends the current window (starting the next first), and with heap the
 * heap window too (its live heap: a full GC): *ended is the number of the
 * window ended, 0 if it was lost. 0, or -1 after throwing
 * (ERR_CPROF_NOT_STARTED when idle). */
int cprof__rec_rotate(napi_env env, cprof_rec_t *rec, bool heap, uint64_t *ended);

/* The label switches (labels.h) of the window the next rotate or stop ends,
 * owned from here (NULL: none). */
void cprof__rec_set_labels(cprof_rec_t *rec, cprof_labels_t *labels);

/* Ends the last window and closes the session; the rings stay. As rotate. */
int cprof__rec_stop(napi_env env, cprof_rec_t *rec, uint64_t *ended);

/* What status() shows (docs/recorder.md). */
typedef struct {
  int running;
  cprof_ring_stats_t cpu, heap;
  uint64_t lost;              /* windows whose profile never arrived */
  uint64_t failed;            /* windows that could not be converted */
  uint64_t evicted_for_space; /* store files deleted to make room on a full disk */
  unsigned pending;           /* windows waiting for, or in, conversion */
  uint64_t current;           /* the window being recorded (0: stopped) */
  int has_heap;               /* heap windows are recorded; then: */
  double heap_interval;       /* bytes */
  cprof_trend_t *trend;       /* the live heap's trend by site (trend.h) */
} cprof_rec_status_t;

/* rec's status, evicting by age first while it runs. */
void cprof__rec_status(cprof_rec_t *rec, cprof_rec_status_t *s);

/* A dump's windows: the span they cover. */
typedef struct {
  int64_t from_ms, to_ms;
  size_t windows;
} cprof_rec_span_t;

/* Chooses the newest windows covering last ms (0: all) of one kind (heap:
 * the newest one alone) and makes in a produce job that merges them on the
 * worker thread. 0, or -1 after throwing (ERR_CPROF_NOT_STARTED: never
 * started, no heap windows, or none finished). */
int cprof__rec_select(napi_env env, cprof_rec_t *rec, double last, bool heap, cprof_job_in_t *in,
                      cprof_rec_span_t *span);

/* Drops a stopped recorder: its JS callback and the caller's reference;
 * conversions still in flight finish into its ring, then it is freed. */
void cprof__rec_release(napi_env env, cprof_rec_t *rec);

/* Environment teardown: no JS may run; in-flight jobs finish on their own. */
void cprof__rec_abandon(napi_env env, cprof_rec_t *rec);

#endif

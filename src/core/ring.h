/* The flight recorder's ring: the last finished windows of sampling, each a
 * profile in the native model, evicted whole and oldest first by age and by
 * bytes. The newest window is always kept, whatever the limits.
 *
 * Thread-safe: the recorder pushes from a worker thread (after converting a
 * window off the main thread) while the main thread evicts or reads stats
 * and a dump merges on another worker. Windows are reference counted, so a
 * dump holds its own references and eviction never frees a window a dump is
 * still reading. Pure C11 plus POSIX threads: no Node-API here. */
#ifndef CPROF_RING_H
#define CPROF_RING_H

#include <stddef.h>
#include <stdint.h>

#include "labelset.h"
#include "profile.h"

typedef struct cprof_window_s cprof_window_t;

struct cprof_window_s {
  cprof_profile_t *profile; /* owned; read-only once pushed */
  int64_t from_ms, to_ms;   /* wall clock, ms since the epoch */
  size_t bytes;             /* the model's real allocation (cprof_profile_bytes) */
  uint64_t seq;             /* the recorder's window number */
  cprof_labels_t *labels;   /* owned, joined to profile's samples (set before the push); NULL */
  _Atomic unsigned refs;    /* cprof_window_ref / cprof_window_unref */
};

/* A window holding p (ownership moves in), with one reference (the
 * caller's). NULL when out of memory (p is then freed). */
cprof_window_t *cprof_window_new(cprof_profile_t *p, int64_t from_ms, int64_t to_ms, size_t bytes,
                                 uint64_t seq);

/* Takes another reference; returns w. */
cprof_window_t *cprof_window_ref(cprof_window_t *w);

/* Drops a reference; the last one frees the window, its profile and its labels. Safe
 * with NULL, from any thread. */
void cprof_window_unref(cprof_window_t *w);

typedef struct cprof_ring_s cprof_ring_t;

typedef struct {
  uint32_t windows; /* kept now */
  size_t bytes;     /* their bytes, summed */
  int64_t from_ms;  /* oldest window's start (0 when empty) */
  int64_t to_ms;    /* newest window's end (0 when empty) */
  uint64_t evicted; /* windows evicted so far */
  uint64_t trimmed; /* samples dropped as overlap so far */
} cprof_ring_stats_t;

/* keep_ms: windows that ended more than keep_ms before the newest window's
 * end are evicted (0: no age limit). max_bytes: the oldest windows are
 * evicted while the sum is above it (0: no byte limit). NULL when out of
 * memory. */
cprof_ring_t *cprof_ring_new(int64_t keep_ms, size_t max_bytes);

/* Drops the ring's references; windows a dump still holds live on. */
void cprof_ring_free(cprof_ring_t *r);

/* Appends w, taking the caller's reference, then evicts. A CPU window that
 * overlaps the newest one kept (the next profile starts before the current
 * one stops, so both saw the samples in between) first loses its samples
 * taken before that window's end, and starts there: consecutive windows
 * touch, with no sample lost or counted twice (its labels lose the same
 * samples' sets). CPROF_OK or CPROF_ENOMEM
 * (then w is released). */
int cprof_ring_push(cprof_ring_t *r, cprof_window_t *w);

/* Evicts by the limits, against now_ms for age (the ring's newest end is
 * used by push). Returns how many windows went. */
uint32_t cprof_ring_evict(cprof_ring_t *r, int64_t now_ms);

/* The newest windows that together cover the last last_ms milliseconds
 * before the newest window's end (last_ms <= 0: every window), oldest
 * first, each with a reference the caller drops with cprof_window_unref;
 * *out is malloc'd (free it). *n may be 0. CPROF_OK or CPROF_ENOMEM. */
int cprof_ring_select(cprof_ring_t *r, int64_t last_ms, cprof_window_t ***out, size_t *n);

void cprof_ring_stats(cprof_ring_t *r, cprof_ring_stats_t *s);

/* Drops the samples of a CPU profile taken at or before t_us (V8's clock), sets
 * its start_time to t_us when it was earlier, and recomputes self, total
 * and hit counts. Returns how many samples went. */
uint32_t cprof_profile_trim_before(cprof_profile_t *p, int64_t t_us);

#endif

#define _POSIX_C_SOURCE 200809L /* pthreads */

#include "ring.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"

struct cprof_ring_s {
  pthread_mutex_t lock;
  cprof_window_t **w; /* oldest first */
  size_t n, cap;
  size_t bytes;
  int64_t keep_ms;
  size_t max_bytes;
  uint64_t evicted, trimmed;
};

cprof_window_t *cprof_window_new(cprof_profile_t *p, int64_t from_ms, int64_t to_ms, size_t bytes,
                                 uint64_t seq) {
  cprof_window_t *w = calloc(1, sizeof *w);
  if (w == NULL) {
    cprof_profile_free(p);
    return NULL;
  }
  *w = (cprof_window_t){
      .profile = p, .from_ms = from_ms, .to_ms = to_ms, .bytes = bytes, .seq = seq};
  atomic_init(&w->refs, 1);
  return w;
}

cprof_window_t *cprof_window_ref(cprof_window_t *w) {
  atomic_fetch_add_explicit(&w->refs, 1, memory_order_relaxed);
  return w;
}

void cprof_window_unref(cprof_window_t *w) {
  if (w == NULL) return;
  /* acq_rel: the freeing thread sees every write made before other unrefs. */
  if (atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) != 1) return;
  cprof_profile_free(w->profile);
  cprof_labels_free(w->labels);
  free(w);
}

cprof_ring_t *cprof_ring_new(int64_t keep_ms, size_t max_bytes) {
  cprof_ring_t *r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  if (pthread_mutex_init(&r->lock, NULL) != 0) {
    free(r);
    return NULL;
  }
  r->keep_ms = keep_ms > 0 ? keep_ms : 0;
  r->max_bytes = max_bytes;
  return r;
}

void cprof_ring_free(cprof_ring_t *r) {
  if (r == NULL) return;
  for (size_t i = 0; i < r->n; i++)
    cprof_window_unref(r->w[i]);
  free(r->w);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

/* Drops the oldest window. Called with the lock held and n > 1. */
static void drop_oldest(cprof_ring_t *r) {
  cprof_window_t *old = r->w[0];
  r->bytes -= old->bytes;
  memmove(r->w, r->w + 1, (r->n - 1) * sizeof *r->w);
  r->n--;
  r->evicted++;
  cprof_window_unref(old);
}

static uint32_t evict_locked(cprof_ring_t *r, int64_t now_ms) {
  uint32_t gone = 0;
  while (r->n > 1 && r->keep_ms > 0 && r->w[0]->to_ms < now_ms - r->keep_ms) {
    drop_oldest(r);
    gone++;
  }
  while (r->n > 1 && r->max_bytes > 0 && r->bytes > r->max_bytes) {
    drop_oldest(r);
    gone++;
  }
  return gone;
}

uint32_t cprof_ring_evict(cprof_ring_t *r, int64_t now_ms) {
  pthread_mutex_lock(&r->lock);
  uint32_t gone = evict_locked(r, now_ms);
  pthread_mutex_unlock(&r->lock);
  return gone;
}

/* A sample's absolute time is start_time plus every delta up to it. */
uint32_t cprof_profile_trim_before(cprof_profile_t *p, int64_t t_us) {
  uint32_t k = 0;
  int64_t t = p->start_time;
  if (p->kind != CPROF_KIND_CPU || t_us <= p->start_time) return 0;
  while (k < p->nsamples && cprof__sat_add(t, p->time_deltas[k]) <= t_us) {
    t = cprof__sat_add(t, p->time_deltas[k]);
    cprof_node_t *n = &p->nodes[p->samples[k]];
    if (n->hit_count > 0) n->hit_count--;
    k++;
  }
  if (k < p->nsamples) {
    /* The first kept sample's delta now counts from the new start. */
    p->time_deltas[k] = cprof__sat_sub(cprof__sat_add(t, p->time_deltas[k]), t_us);
    memmove(p->samples, p->samples + k, (size_t)(p->nsamples - k) * sizeof *p->samples);
    memmove(p->time_deltas, p->time_deltas + k, (size_t)(p->nsamples - k) * sizeof *p->time_deltas);
  }
  p->nsamples -= k;
  p->start_time = t_us;
  if (p->end_time < t_us) p->end_time = t_us;
  cprof__profile_finish(p); /* self from the kept samples' weights, then totals */
  return k;
}

static int reserve(cprof_ring_t *r) {
  if (r->n < r->cap) return CPROF_OK;
  size_t cap = r->cap ? r->cap * 2 : 8;
  cprof_window_t **w = realloc(r->w, cap * sizeof *w);
  if (w == NULL) return CPROF_ENOMEM;
  r->w = w;
  r->cap = cap;
  return CPROF_OK;
}

int cprof_ring_push(cprof_ring_t *r, cprof_window_t *w) {
  pthread_mutex_lock(&r->lock);
  if (reserve(r) != CPROF_OK) {
    pthread_mutex_unlock(&r->lock);
    cprof_window_unref(w);
    return CPROF_ENOMEM;
  }
  cprof_window_t *prev = r->n ? r->w[r->n - 1] : NULL;
  if (prev && prev->profile->kind == CPROF_KIND_CPU && w->profile->kind == CPROF_KIND_CPU) {
    /* Only this thread writes w's profile: no reader has it yet. */
    uint32_t k = cprof_profile_trim_before(w->profile, prev->profile->end_time);
    cprof_labels_drop_leading(w->labels, k);
    r->trimmed += k;
    if (w->from_ms < prev->to_ms) w->from_ms = prev->to_ms;
    if (w->to_ms < w->from_ms) w->to_ms = w->from_ms;
  }
  r->w[r->n++] = w;
  r->bytes += w->bytes;
  evict_locked(r, w->to_ms);
  pthread_mutex_unlock(&r->lock);
  return CPROF_OK;
}

int cprof_ring_select(cprof_ring_t *r, int64_t last_ms, cprof_window_t ***out, size_t *n) {
  size_t first;
  *out = NULL;
  *n = 0;
  pthread_mutex_lock(&r->lock);
  first = r->n;
  if (r->n > 0) {
    int64_t since = r->w[r->n - 1]->to_ms - last_ms;
    /* Walk back until a window starts at or before the point asked for. */
    while (first > 0) {
      first--;
      if (last_ms > 0 && r->w[first]->from_ms <= since) break;
    }
  }
  size_t count = r->n - first;
  cprof_window_t **sel = count ? malloc(count * sizeof *sel) : NULL;
  if (count && sel == NULL) {
    pthread_mutex_unlock(&r->lock);
    return CPROF_ENOMEM;
  }
  for (size_t i = 0; i < count; i++)
    sel[i] = cprof_window_ref(r->w[first + i]);
  pthread_mutex_unlock(&r->lock);
  *out = sel;
  *n = count;
  return CPROF_OK;
}

void cprof_ring_stats(cprof_ring_t *r, cprof_ring_stats_t *s) {
  pthread_mutex_lock(&r->lock);
  *s = (cprof_ring_stats_t){.windows = (uint32_t)r->n,
                            .bytes = r->bytes,
                            .from_ms = r->n ? r->w[0]->from_ms : 0,
                            .to_ms = r->n ? r->w[r->n - 1]->to_ms : 0,
                            .evicted = r->evicted,
                            .trimmed = r->trimmed};
  pthread_mutex_unlock(&r->lock);
}

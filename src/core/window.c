/* A finished recorder window's conversion (window.h): parse, keep, trend,
 * push parts, store with retention and room on a full disk. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getpid */
#include "window.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "error.h"
#include "format.h"
#include "fsutil.h"
#include "merge.h"
#include "note.h"
#include "store.h"

void cprof_window_cfg_free(cprof_window_cfg_t *cfg) {
  free(cfg->store.dir);
  free(cfg->push.cwd);
  cfg->store.dir = cfg->push.cwd = NULL;
}

void cprof_window_made_free(cprof_window_made_t *m) {
  free(m->files[0]);
  free(m->files[1]);
  cprof_blobs_free(m->parts, m->nparts);
  m->files[0] = m->files[1] = NULL;
  m->parts = NULL;
  m->nparts = 0;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One conversion's state: what it reads and where it writes. */
typedef struct {
  const cprof_window_cfg_t *cfg;
  const cprof_window_text_t *t;
  cprof_window_made_t *out;
  char *errbuf;
  size_t errlen;
  const cprof_labels_t *labels; /* t's, once joined to the kept window's samples */
  cprof_analysis_t analysis;    /* the kept window's, shared by its push and its store */
} conv_t;

/* The export options of the window's pprof, stored or pushed: its sampling
 * interval and span (a heap profile carries neither). */
static cprof_export_opts_t pprof_opts(const conv_t *c, int heap) {
  return (cprof_export_opts_t){.interval =
                                   heap ? (int64_t)c->cfg->heap_interval : c->cfg->interval_us,
                               .start_time_ms = c->out->from_ms,
                               .duration_us = heap ? (c->out->to_ms - c->out->from_ms) * 1000 : 0,
                               .labels = heap ? NULL : c->labels};
}

static int store_one(conv_t *c, const cprof_profile_t *p, int pprof) {
  const cprof_window_store_t *st = &c->cfg->store;
  char name[160];
  long long size = 0;
  int heap = p->kind == CPROF_KIND_HEAP;
  int rc = cprof_store_name(name, sizeof name, heap ? "heap" : "cpu", (long)getpid(),
                            c->out->from_ms, c->out->to_ms,
                            pprof  ? "pb.gz"
                            : heap ? "heapprofile"
                                   : "cpuprofile");
  if (rc != CPROF_OK) return rc;
  if (pprof) {
    cprof_export_opts_t o = pprof_opts(c, heap);
    o.pprof_lines = st->lines;
    rc = cprof_write_analysis(st->dir, name, CPROF_FORMAT_PPROF, &c->analysis, &o, &size, c->errbuf,
                              c->errlen);
  } else {
    rc =
        cprof_write_atomic(st->dir, name, heap ? cprof_export_heapprofile : cprof_export_cpuprofile,
                           p, &size, c->errbuf, c->errlen);
  }
  if (rc == CPROF_OK && !(c->out->files[pprof] = cprof_path_join(st->dir, name))) rc = CPROF_ENOMEM;
  return rc;
}

static int no_space(int e) {
#ifdef EDQUOT
  if (e == EDQUOT) return 1;
#endif
  return e == ENOSPC;
}

/* store_one; on a full disk (ENOSPC, or a quota) the store's oldest windows
 * make room, so the newest minutes are the ones kept: retention alone runs
 * only after a window is written, and would keep the old ones for good.
 * Each round frees at least as much as all rounds before it (one file the
 * first time), so a window much larger than the old ones costs a few
 * retries, not one per file. Only store files that ended before this
 * window are deleted, never anything else on the disk. */
static int store_room(conv_t *c, const cprof_profile_t *p, int pprof) {
  const char *dir = c->cfg->store.dir;
  unsigned long long freed = 0;
  int rc;
  while ((rc = store_one(c, p, pprof)) == CPROF_EIO && no_space(errno)) {
    cprof_store_prune_t ev;
    char ignored[256];
    if (cprof_store_evict(dir, c->out->from_ms, freed, &ev, ignored, sizeof ignored) != CPROF_OK ||
        ev.deleted == 0)
      break; /* nothing of ours left to delete: the ENOSPC error stands */
    c->out->evicted += ev.deleted;
    freed += ev.bytes;
  }
  return rc;
}

static int store_window(conv_t *c, const cprof_profile_t *p) {
  const cprof_window_store_t *st = &c->cfg->store;
  cprof_store_prune_t pr;
  /* The rule for a directory the user named, as at recorder.start() (lib/dirs.js): it
   * may have been replaced since. */
  int rc = cprof_dir_prepare(st->dir, 0, c->errbuf, c->errlen);
  if (rc == CPROF_OK && st->cpuprofile) rc = store_room(c, p, 0);
  if (rc == CPROF_OK && st->pprof) rc = store_room(c, p, 1);
  if (rc != CPROF_OK) return rc;
  rc = cprof_store_prune(st->dir, now_ms(), st->max_age_ms, st->max_bytes, c->out->to_ms, &pr,
                         c->errbuf, c->errlen);
  c->out->pruned = pr.deleted;
  return rc;
}

/* The window as pprof parts for push, as Pyroscope reads them
 * (docs/pyroscope.md): heap counts named inuse_objects, as its memory
 * profile type wants; CPU without (idle); frames named file:name:line, as
 * its tree builder keys frames on the name alone. */
static int push_parts(conv_t *c, const cprof_profile_t *p) {
  const cprof_window_push_t *pu = &c->cfg->push;
  int heap = p->kind == CPROF_KIND_HEAP;
  cprof_export_opts_t o = pprof_opts(c, heap);
  o.pprof_objects = 1;
  o.pprof_skip_idle = 1;
  o.pprof_unique_names = 1;
  o.pprof_cwd = pu->cwd;
  o.pprof_cpu_cap_us = heap ? 0 : c->t->cpu_us;
  o.pprof_lines = pu->lines;
  int rc = cprof__export_pprof_parts(&c->analysis, &o, pu->max_samples, pu->max_bytes,
                                     &c->out->parts, &c->out->nparts);
  if (rc != CPROF_OK)
    snprintf(c->errbuf, c->errlen, "cannot encode the window as pprof for push: %s",
             cprof_strerror(rc));
  return rc;
}

/* A heap window into the trend. A failure (out of memory; two windows
 * ending in the same ms) leaves the trend as it was: the window is still
 * kept, stored and pushed. */
static void trend_add(const conv_t *c, cprof_trend_t *trend, const cprof_window_t *w) {
  cprof_trend_opts_t o;
  if (!trend) return;
  cprof_trend_opts_default(&o);
  o.min_growth = (int64_t)(CPROF_TREND_MIN_GROWTH_SAMPLES * c->cfg->heap_interval);
  (void)cprof_trend_add(trend, w->profile, w->to_ms, &o);
}

/* The window's text parsed; the text is freed either way. */
static int parse(conv_t *c, cprof_window_text_t *t, cprof_profile_t **p) {
  size_t off = 0, n = t->len, tlen;
  const char *title;
  int rc = CPROF_OK;
  if (!t->heap) /* a heap window is V8's reply or profile text: the parser takes either */
    rc = cprof_note_profile_span(t->json, t->len, &off, &n, &title, &tlen, c->errbuf, c->errlen);
  if (rc == CPROF_OK) rc = cprof_profile_parse(t->json + off, n, p, c->errbuf, c->errlen);
  free(t->json); /* never hold a window twice */
  t->json = NULL;
  return rc;
}

/* The kept window stored and pushed. */
static int keep(conv_t *c, cprof_trend_t *trend, const cprof_window_t *w) {
  c->out->from_ms = w->from_ms;
  c->out->to_ms = w->to_ms;
  c->out->samples = w->profile->nsamples;
  if (c->t->heap) trend_add(c, trend, w);
  cprof_analysis_init(&c->analysis, w->profile);
  int prc = c->cfg->push.on ? push_parts(c, w->profile) : CPROF_OK;
  int rc = c->cfg->store.dir ? store_window(c, w->profile) : CPROF_OK;
  cprof_analysis_free(&c->analysis);
  return rc == CPROF_OK ? prc : rc;
}

/* A CPU window's labels, joined to its samples and kept with it (the
 * stored and pushed pprof, and a dump, carry them): only the sets its
 * samples use. NULL: none (a failed join, out of memory: no labels). */
static cprof_labels_t *window_labels(cprof_window_text_t *t, const cprof_profile_t *p) {
  cprof_labels_t *l = NULL;
  if (!t->labels || t->heap || cprof_labels_join(t->labels, p) != CPROF_OK) return NULL;
  const cprof_labels_t *in = t->labels;
  if (cprof_labels_merge(&in, &p->nsamples, 1, &l) != CPROF_OK) return NULL;
  cprof_labels_free(t->labels); /* the whole table: the window keeps what it uses */
  t->labels = NULL;
  return l;
}

static int convert(conv_t *c, cprof_window_text_t *t, cprof_ring_t *ring, cprof_trend_t *trend) {
  cprof_profile_t *p = NULL;
  int rc = parse(c, t, &p);
  if (rc != CPROF_OK) return rc;
  cprof_labels_t *l = window_labels(t, p);
  c->out->bytes = cprof_profile_bytes(p) + cprof_labels_bytes(l);
  cprof_window_t *w = cprof_window_new(p, t->from_ms, t->to_ms, c->out->bytes, t->seq);
  if (!w) {
    cprof_labels_free(l);
    return CPROF_ENOMEM;
  }
  w->labels = l;       /* before the push: a dump may read the window from then on */
  cprof_window_ref(w); /* ours, while the store writes it: eviction may come first */
  if ((rc = cprof_ring_push(ring, w)) == CPROF_OK) {
    c->labels = w->labels; /* the ring's trim dropped the same samples' sets */
    rc = keep(c, trend, w);
  }
  cprof_window_unref(w);
  return rc;
}

int cprof_window_convert(const cprof_window_cfg_t *cfg, cprof_window_text_t *t, cprof_ring_t *ring,
                         cprof_trend_t *trend, cprof_window_made_t *out, char *errbuf,
                         size_t errlen) {
  conv_t c = {cfg, t, out, errbuf, errlen, NULL, {0}};
  *out = (cprof_window_made_t){.from_ms = t->from_ms, .to_ms = t->to_ms};
  if (errlen) errbuf[0] = '\0';
  int rc = convert(&c, t, ring, trend);
  if (rc != CPROF_OK && errlen && !errbuf[0]) snprintf(errbuf, errlen, "%s", cprof_strerror(rc));
  return rc;
}

int cprof_window_merge(cprof_window_t *const *w, size_t n, cprof_profile_t **out,
                       cprof_labels_t **labels, char *errbuf, size_t errlen) {
  cprof_profile_t **in = malloc((n ? n : 1) * sizeof *in);
  const cprof_labels_t **ls = malloc((n ? n : 1) * sizeof *ls);
  uint32_t *counts = malloc((n ? n : 1) * sizeof *counts);
  int rc = in && ls && counts ? CPROF_OK : CPROF_ENOMEM;
  for (size_t i = 0; rc == CPROF_OK && i < n; i++) {
    in[i] = w[i]->profile;
    ls[i] = w[i]->labels;
    counts[i] = w[i]->profile->nsamples;
  }
  if (labels) *labels = NULL;
  if (rc == CPROF_OK) rc = cprof_profile_merge(in, n, out);
  if (rc == CPROF_OK && labels && (*out)->kind == CPROF_KIND_CPU &&
      (rc = cprof_labels_merge(ls, counts, n, labels)) != CPROF_OK) {
    cprof_profile_free(*out);
    *out = NULL;
  }
  free(in);
  free(ls);
  free(counts);
  if (rc != CPROF_OK)
    snprintf(errbuf, errlen, "cannot merge the recorder's windows: %s", cprof_strerror(rc));
  return rc;
}

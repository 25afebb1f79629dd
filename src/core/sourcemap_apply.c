/* Mapping a profile's call frames through their scripts' source maps, with
 * a process-wide cache of decoded maps bounded in bytes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup, strndup, O_CLOEXEC, st_mtim */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "error.h"
#include "internal.h"
#include "source.h"
#include "sourcemap.h"
#include "sourcemap_apply.h"
#include "sourcemap_find.h"
#include "sourcemap_url.h"

/* ---- the cache ---- */

/* A script's map, or the fact that it has none (map NULL; err set when one
 * was found but could not be used). refs counts the cache's own reference
 * and every job using it, so eviction never frees a map in use. */
typedef struct entry_s {
  struct entry_s *prev, *next; /* most recently used first */
  char *path;
  cprof_sm_origin_t origin;
  cprof_sourcemap_t *map;
  int err;
  char msg[320];
  size_t bytes;
  unsigned refs;
} entry_t;

struct cprof_smcache_s {
  entry_t *head, *tail;
  size_t bytes, max, count;
  void (*lock)(void *);
  void (*unlock)(void *);
  void *lock_ctx;
};

cprof_smcache_t *cprof_smcache_new(size_t max_bytes, void (*lock)(void *), void (*unlock)(void *),
                                   void *lock_ctx) {
  cprof_smcache_t *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->max = max_bytes;
  c->lock = lock;
  c->unlock = unlock;
  c->lock_ctx = lock_ctx;
  return c;
}

static void lock(cprof_smcache_t *c) {
  if (c->lock) c->lock(c->lock_ctx);
}

static void unlock(cprof_smcache_t *c) {
  if (c->unlock) c->unlock(c->lock_ctx);
}

static void entry_free(entry_t *e) {
  cprof_sourcemap_free(e->map);
  free(e->path);
  free(e);
}

/* Drops one reference; the caller holds the lock when e may be shared. */
static void entry_unref(entry_t *e) {
  if (--e->refs == 0) entry_free(e);
}

static void unlink_entry(cprof_smcache_t *c, entry_t *e) {
  if (e->prev)
    e->prev->next = e->next;
  else
    c->head = e->next;
  if (e->next)
    e->next->prev = e->prev;
  else
    c->tail = e->prev;
  e->prev = e->next = NULL;
  c->bytes -= e->bytes;
  c->count--;
}

void cprof_smcache_free(cprof_smcache_t *c) {
  if (!c) return;
  while (c->head) {
    entry_t *e = c->head;
    unlink_entry(c, e);
    entry_unref(e);
  }
  free(c);
}

void cprof_smcache_usage(cprof_smcache_t *c, size_t *maps, size_t *bytes) {
  lock(c);
  *maps = c->count;
  *bytes = c->bytes;
  unlock(c);
}

/* The cached entry for path with a reference taken, or NULL. */
static entry_t *cache_get(cprof_smcache_t *c, const char *path) {
  entry_t *e;
  lock(c);
  for (e = c->head; e && strcmp(e->path, path) != 0; e = e->next) {
  }
  if (e) {
    e->refs++;
    if (e != c->head) { /* most recently used first */
      size_t b = e->bytes;
      unlink_entry(c, e);
      e->next = c->head;
      if (c->head) c->head->prev = e;
      c->head = e;
      if (!c->tail) c->tail = e;
      c->bytes += b;
      c->count++;
    }
  }
  unlock(c);
  return e;
}

/* Keeps e (replacing any entry for the same path), then evicts the least
 * recently used entries over the bound. A map alone over the bound is not
 * kept. */
static void cache_put(cprof_smcache_t *c, entry_t *e) {
  lock(c);
  for (entry_t *o = c->head; o; o = o->next) {
    if (strcmp(o->path, e->path) == 0) {
      unlink_entry(c, o);
      entry_unref(o);
      break;
    }
  }
  if (e->bytes <= c->max) {
    e->refs++;
    e->next = c->head;
    if (c->head) c->head->prev = e;
    c->head = e;
    if (!c->tail) c->tail = e;
    c->bytes += e->bytes;
    c->count++;
    while (c->bytes > c->max && c->tail) {
      entry_t *old = c->tail;
      unlink_entry(c, old);
      entry_unref(old);
    }
  }
  unlock(c);
}

static void release(cprof_smcache_t *c, entry_t *e) {
  if (c) lock(c);
  entry_unref(e);
  if (c) unlock(c);
}

/* path's entry: the cache's if still fresh, else a fresh load (NULL only
 * when out of memory). */
static entry_t *acquire(cprof_smcache_t *c, const char *path, const cprof_sm_limits_t *lim) {
  entry_t *e = c ? cache_get(c, path) : NULL;
  if (e && cprof_sourcemap_origin_fresh(path, &e->origin)) return e;
  if (e) release(c, e);
  if (!(e = calloc(1, sizeof *e)) || !(e->path = strdup(path))) {
    free(e);
    return NULL;
  }
  e->refs = 1;
  e->err = cprof_sourcemap_find(path, lim, &e->map, &e->origin, e->msg, sizeof e->msg);
  if (e->err == CPROF_ENOMEM) {
    entry_free(e);
    return NULL;
  }
  e->bytes = sizeof *e + strlen(path) + 1 + cprof_sourcemap_bytes(e->map);
  if (c) cache_put(c, e);
  return e;
}

/* ---- mapped frames ---- */

struct cprof_sm_frames_s {
  cprof_frame_t *held;           /* V8's frames after apply; the mapped ones after a swap */
  cprof_line_tick_t *held_ticks; /* the same for positionTicks' lines */
  cprof__arena_t strings;        /* the mapped frames' strings */
  cprof_source_texts_t texts;    /* sourcesContent of the original files not on disk */
  int mapped_in;                 /* 1 while p->frames are the mapped ones */
};

static int url_safe(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         strchr("-._~/!$&'()*+,;=:@", c) != NULL;
}

/* A source as the frame's url style has it: a file: URL when V8 named the
 * script by one (ES modules, Node >= 20 CPU profiles), else the path. */
static const char *styled_source(cprof_sm_frames_t *f, const char *v8_url, const char *src) {
  if (strncmp(v8_url, "file://", 7) != 0 || src[0] != '/')
    return cprof__arena_strdup(&f->strings, src, strlen(src));
  size_t n = strlen(src);
  char *tmp = malloc(7 + n * 3 + 1), *o = tmp;
  if (!tmp) return NULL;
  memcpy(o, "file://", 7);
  o += 7;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)src[i];
    if (url_safe(c)) {
      *o++ = (char)c;
    } else {
      o += sprintf(o, "%%%02X", c);
    }
  }
  const char *out = cprof__arena_strdup(&f->strings, tmp, (size_t)(o - tmp));
  free(tmp);
  return out;
}

/* The job's own table from script url to entry, so each script is looked
 * up (and stat'ed) once per profile. */
typedef struct {
  const char *url;
  entry_t *e;
  int none;   /* url names no file */
  int hidden; /* its script or map is not readable by the profile's owner: not used */
} slot_t;

typedef struct {
  slot_t *slots;
  uint32_t cap;
} scripts_t;

static slot_t *script_slot(scripts_t *t, const char *url) {
  uint32_t i = (uint32_t)cprof__hash_str(CPROF__HASH_SEED, url) & (t->cap - 1);
  while (t->slots[i].url && strcmp(t->slots[i].url, url) != 0)
    i = (i + 1) & (t->cap - 1);
  return &t->slots[i];
}

static void note_error(cprof_sm_stats_t *st, const entry_t *e) {
  st->map_errors++;
  for (int i = 0; i < CPROF_SM_ERRORS; i++) {
    if (st->errors[i][0] == '\0') {
      snprintf(st->errors[i], sizeof st->errors[i], "%s", e->msg[0] ? e->msg : "unusable map");
      return;
    }
  }
}

/* A map not used for this profile: its script or map file is closed to the
 * profile's owner. */
static void note_msg(cprof_sm_stats_t *st, const char *script, const char *why) {
  st->map_errors++;
  for (int i = 0; i < CPROF_SM_ERRORS; i++) {
    if (st->errors[i][0] == '\0') {
      snprintf(st->errors[i], sizeof st->errors[i], "the source map of %s is not used: %s", script,
               why);
      return;
    }
  }
}

/* The slot for a frame's url, loading its map on first sight. */
static int script_for(scripts_t *t, cprof_smcache_t *c, const cprof_sm_limits_t *lim,
                      const char *url, cprof_sm_stats_t *st, slot_t **out) {
  slot_t *s = script_slot(t, url);
  *out = s;
  if (s->url) return CPROF_OK;
  s->url = url;
  char *path = cprof__sm_url_to_path(url);
  if (!path) {
    s->none = 1;
    return CPROF_OK;
  }
  s->e = acquire(c, path, lim);
  if (!s->e) {
    free(path);
    return CPROF_ENOMEM;
  }
  st->scripts++;
  char why[200] = "";
  if (s->e->map && lim &&
      (!cprof__source_owners_may_read(path, lim->owners, why, sizeof why) ||
       (s->e->origin.map_path[0] &&
        !cprof__source_owners_may_read(s->e->origin.map_path, lim->owners, why, sizeof why)))) {
    s->hidden = 1; /* the cache keeps it for readers who may */
    note_msg(st, path, why);
  } else if (s->e->map) {
    st->scripts_with_map++;
  } else if (s->e->err != CPROF_OK) {
    note_error(st, s->e);
  }
  free(path);
  return CPROF_OK;
}

static int map_frame(cprof_sm_frames_t *f, const cprof_frame_t *fr, const slot_t *s,
                     cprof_frame_t *out, cprof_sm_stats_t *st) {
  cprof_sm_pos_t pos;
  st->frames++;
  if (!s->e->map || s->hidden || fr->line < 0 ||
      !cprof_sourcemap_lookup(s->e->map, fr->line, fr->column, &pos))
    return CPROF_OK;
  const char *url = styled_source(f, fr->url, pos.source);
  const char *name =
      pos.name ? cprof__arena_strdup(&f->strings, pos.name, strlen(pos.name)) : fr->name;
  if (!url || !name) return CPROF_ENOMEM;
  if (pos.content && cprof__source_texts_add(&f->texts, pos.content, url, pos.content) != CPROF_OK)
    return CPROF_ENOMEM;
  *out = (cprof_frame_t){name, url, fr->script_id, pos.line, pos.column};
  st->mapped++;
  return CPROF_OK;
}

/* Where each frame's function ends on its start line as far as the
 * profile tells: the next start of another function of the same script on
 * that line (its frames), else INT32_MAX (the rest of the line). Nested
 * functions cut their parent's span short: the span is only used to keep a
 * line's ticks off mappings that belong to the functions after it. */
typedef struct {
  const char *url;
  int32_t line, col;
  uint32_t frame;
} start_t;

static int start_cmp(const void *va, const void *vb) {
  const start_t *a = va, *b = vb;
  int c = strcmp(a->url, b->url);
  if (c != 0) return c;
  if (a->line != b->line) return a->line < b->line ? -1 : 1;
  return a->col < b->col ? -1 : a->col > b->col;
}

static int32_t *frame_ends(const cprof_profile_t *p) {
  start_t *s = malloc(((size_t)p->nframes + 1) * sizeof *s);
  int32_t *end = malloc(((size_t)p->nframes + 1) * sizeof *end);
  uint32_t n = 0;
  if (!s || !end) {
    free(s);
    free(end);
    return NULL;
  }
  for (uint32_t i = 0; i < p->nframes; i++) {
    const cprof_frame_t *fr = &p->frames[i];
    end[i] = INT32_MAX;
    if (fr->url[0] && fr->line >= 0 && fr->column >= 0)
      s[n++] = (start_t){fr->url, fr->line, fr->column, i};
  }
  qsort(s, n, sizeof *s, start_cmp);
  for (uint32_t i = 0, j; i < n; i = j) { /* each group of equal starts */
    for (j = i + 1; j < n && start_cmp(&s[j], &s[i]) == 0;)
      j++;
    if (j < n && s[j].line == s[i].line && strcmp(s[j].url, s[i].url) == 0)
      for (uint32_t k = i; k < j; k++)
        end[s[k].frame] = s[j].col;
  }
  free(s);
  return end;
}

/* Each positionTicks line through the map of its node's script (V8's
 * frame). positionTicks name a generated line and no column, and a
 * minified line holds many functions: on the function's own start line
 * the ticks read as the first mapping inside the function (from its start
 * column up to the next function's start, ends[]), or when there is none
 * as the function's own start; on its later lines, as the line's first
 * mapping. So one function's ticks never land in another function that
 * shares its line, but all of its ticks on one generated line read as one
 * original line (docs/sourcemaps.md). A line the map does not cover keeps
 * V8's file and line, named explicitly, since the frame itself may now
 * name the original. */
static int map_ticks(cprof_profile_t *p, cprof_sm_frames_t *f, scripts_t *t, const int32_t *ends,
                     cprof_line_tick_t *out) {
  for (uint32_t i = 0; i < p->nline_ticks; i++) {
    uint32_t fi = p->nodes[p->line_ticks[i].node].frame;
    const cprof_frame_t *fr = &p->frames[fi];
    const slot_t *s = script_slot(t, fr->url);
    cprof_sm_pos_t pos;
    out[i] = p->line_ticks[i];
    if (!out[i].url) out[i].url = fr->url;
    if (!s->url || s->none || !s->e || !s->e->map || s->hidden || out[i].line <= 0) continue;
    const cprof_sourcemap_t *m = s->e->map;
    int32_t g = out[i].line - 1;
    int found = g == fr->line && fr->column >= 0
                    ? cprof_sourcemap_lookup_in(m, g, fr->column, ends[fi], &pos) ||
                          cprof_sourcemap_lookup(m, fr->line, fr->column, &pos)
                    : cprof_sourcemap_lookup(m, g, 0, &pos);
    if (!found) continue;
    if (!(out[i].url = styled_source(f, fr->url, pos.source))) return CPROF_ENOMEM;
    out[i].line = pos.line + 1;
    if (pos.content &&
        cprof__source_texts_add(&f->texts, pos.content, out[i].url, pos.content) != CPROF_OK)
      return CPROF_ENOMEM;
  }
  return CPROF_OK;
}

static void frames_free(cprof_sm_frames_t *f) {
  cprof__arena_free(&f->strings);
  cprof__source_texts_free(&f->texts);
  free(f->held_ticks);
  free(f->held);
  free(f);
}

int cprof_sourcemap_apply(cprof_profile_t *p, cprof_smcache_t *cache, const cprof_sm_limits_t *lim,
                          cprof_sm_frames_t **out, cprof_sm_stats_t *stats) {
  cprof_sm_frames_t *f = calloc(1, sizeof *f);
  cprof_frame_t *mapped = malloc(((size_t)p->nframes + 1) * sizeof *mapped);
  scripts_t t = {NULL, 16};
  int rc = CPROF_ENOMEM;
  memset(stats, 0, sizeof *stats);
  *out = NULL;
  while (t.cap < (uint64_t)p->nframes * 2)
    t.cap *= 2;
  if (!f || !mapped || !(t.slots = calloc(t.cap, sizeof *t.slots))) goto done;
  f->strings = (cprof__arena_t)CPROF__ARENA_INIT(16384);
  if (p->nframes) memcpy(mapped, p->frames, (size_t)p->nframes * sizeof *mapped);
  rc = CPROF_OK;
  for (uint32_t i = 0; i < p->nframes && rc == CPROF_OK; i++) {
    slot_t *s;
    rc = script_for(&t, cache, lim, p->frames[i].url, stats, &s);
    if (rc == CPROF_OK && !s->none) rc = map_frame(f, &p->frames[i], s, &mapped[i], stats);
  }
  stats->unmapped = stats->frames - stats->mapped;
  if (rc == CPROF_OK && p->nline_ticks) {
    int32_t *ends = frame_ends(p);
    if (!ends || !(f->held_ticks = malloc((size_t)p->nline_ticks * sizeof *f->held_ticks)))
      rc = CPROF_ENOMEM;
    else
      rc = map_ticks(p, f, &t, ends, f->held_ticks);
    free(ends);
  }
done:
  for (uint32_t i = 0; t.slots && i < t.cap; i++)
    if (t.slots[i].e) release(cache, t.slots[i].e);
  free(t.slots);
  if (rc != CPROF_OK) {
    free(mapped);
    if (f) frames_free(f);
    return rc;
  }
  f->held = p->frames;
  p->frames = mapped;
  if (f->held_ticks) { /* the mapped lines in, V8's held */
    cprof_line_tick_t *v8 = p->line_ticks;
    p->line_ticks = f->held_ticks;
    f->held_ticks = v8;
  }
  f->mapped_in = 1;
  *out = f;
  return CPROF_OK;
}

void cprof_sourcemap_swap(cprof_profile_t *p, cprof_sm_frames_t *f) {
  cprof_frame_t *t = p->frames;
  p->frames = f->held;
  f->held = t;
  if (f->held_ticks) {
    cprof_line_tick_t *lt = p->line_ticks;
    p->line_ticks = f->held_ticks;
    f->held_ticks = lt;
  }
  f->mapped_in = !f->mapped_in;
}

void cprof_sourcemap_release(cprof_profile_t *p, cprof_sm_frames_t *f) {
  if (!f) return;
  if (f->mapped_in) cprof_sourcemap_swap(p, f); /* p frees its own (V8's) array */
  frames_free(f);
}

const cprof_source_texts_t *cprof_sourcemap_texts(const cprof_sm_frames_t *f) {
  return f && f->texts.n ? &f->texts : NULL;
}

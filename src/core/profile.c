/* The profile model: ownership, string and frame interning, sample weights
 * and the self/total pass. Parsers build a profile through the cprof__
 * functions declared in internal.h. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "error.h"
#include "internal.h"
#include "profile.h"

#define ARENA_BLOCK (64 * 1024)
#define TABLE_MIN 64

struct cprof__internal_s {
  cprof__arena_t strings; /* every string of the profile */
  /* Parse-time only, freed by cprof__profile_finish. */
  const char **strs; /* open addressing; NULL = empty slot */
  uint32_t str_cap;
  uint32_t nstrs;
  uint32_t *frame_slots; /* open addressing; frame index + 1, 0 = empty */
  uint32_t frame_cap;
  uint32_t frames_alloc; /* capacity of p->frames */
  uint32_t dropped;
};

cprof_profile_t *cprof__profile_new(cprof_kind_t kind) {
  cprof_profile_t *p = calloc(1, sizeof(*p));
  if (p == NULL) return NULL;
  p->internal = calloc(1, sizeof(*p->internal));
  if (p->internal == NULL) {
    free(p);
    return NULL;
  }
  p->internal->strings = (cprof__arena_t)CPROF__ARENA_INIT(ARENA_BLOCK);
  p->kind = kind;
  return p;
}

static void free_tables(struct cprof__internal_s *in) {
  free(in->strs);
  free(in->frame_slots);
  in->strs = NULL;
  in->frame_slots = NULL;
  in->str_cap = in->frame_cap = in->nstrs = 0;
}

void cprof_profile_free(cprof_profile_t *p) {
  if (p == NULL) return;
  if (p->internal != NULL) {
    cprof__arena_free(&p->internal->strings);
    free_tables(p->internal);
    free(p->internal);
  }
  free(p->frames);
  free(p->nodes);
  free(p->samples);
  free(p->time_deltas);
  free(p->sample_sizes);
  free(p->sample_ordinals);
  free(p->line_ticks);
  free(p);
}

uint32_t cprof_profile_dropped_samples(const cprof_profile_t *p) {
  return p != NULL && p->internal != NULL ? p->internal->dropped : 0;
}

void cprof__profile_set_dropped(cprof_profile_t *p, uint32_t dropped) {
  p->internal->dropped = dropped;
}

/* Grows an open-addressing table of pointers or indices to keep load <= 1/2.
 * Returns the new capacity, 0 on overflow. */
static uint32_t grown_cap(uint32_t cap, uint32_t count) {
  if (cap == 0) return TABLE_MIN;
  if ((uint64_t)(count + 1) * 2 <= cap) return cap;
  return cap >= (UINT32_C(1) << 31) ? 0 : cap * 2;
}

static int str_table_grow(struct cprof__internal_s *in) {
  uint32_t cap = grown_cap(in->str_cap, in->nstrs);
  if (cap == 0) return CPROF_ENOMEM;
  if (cap == in->str_cap) return 0;
  const char **strs = calloc(cap, sizeof(*strs));
  if (strs == NULL) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < in->str_cap; i++) {
    const char *s = in->strs[i];
    if (s == NULL) continue;
    uint32_t j = (uint32_t)cprof__hash_str(CPROF__HASH_SEED, s) & (cap - 1);
    while (strs[j] != NULL)
      j = (j + 1) & (cap - 1);
    strs[j] = s;
  }
  free(in->strs);
  in->strs = strs;
  in->str_cap = cap;
  return 0;
}

/* Interned strings let frames compare by pointer; URLs repeat a lot. s
 * holds no NUL within len (JSON strings cannot). */
static const char *intern_strn(struct cprof__internal_s *in, const char *s, size_t len) {
  if (str_table_grow(in) != 0) return NULL;
  uint32_t mask = in->str_cap - 1;
  /* As cprof__hash_str, terminator included, so the table can rehash. */
  uint64_t h = cprof__hash_bytes(CPROF__HASH_SEED, s, len) * 0x100000001b3ull;
  uint32_t j = (uint32_t)h & mask;
  for (; in->strs[j] != NULL; j = (j + 1) & mask)
    if (strncmp(in->strs[j], s, len) == 0 && in->strs[j][len] == '\0') return in->strs[j];
  const char *copy = cprof__arena_strdup(&in->strings, s, len);
  if (copy == NULL) return NULL;
  in->strs[j] = copy;
  in->nstrs++;
  return copy;
}

static const char *intern_str(struct cprof__internal_s *in, const char *s) {
  if (s == NULL) s = "";
  return intern_strn(in, s, strlen(s));
}

const char *cprof__profile_intern_str(cprof_profile_t *p, const char *s, size_t len) {
  return intern_strn(p->internal, s, len);
}

static uint32_t frame_hash(const cprof_frame_t *f) {
  uint64_t h = CPROF__HASH_SEED;
  h = cprof__hash_bytes(h, &f->name, sizeof(f->name));
  h = cprof__hash_bytes(h, &f->url, sizeof(f->url));
  h = cprof__hash_bytes(h, &f->script_id, sizeof(f->script_id));
  h = cprof__hash_bytes(h, &f->line, sizeof(f->line));
  h = cprof__hash_bytes(h, &f->column, sizeof(f->column));
  return (uint32_t)(h ^ (h >> 32));
}

static int frame_eq(const cprof_frame_t *a, const cprof_frame_t *b) {
  return a->name == b->name && a->url == b->url && a->script_id == b->script_id &&
         a->line == b->line && a->column == b->column;
}

static int frame_table_grow(cprof_profile_t *p) {
  struct cprof__internal_s *in = p->internal;
  uint32_t cap = grown_cap(in->frame_cap, p->nframes);
  if (cap == 0) return CPROF_ENOMEM;
  if (cap == in->frame_cap) return 0;
  uint32_t *slots = calloc(cap, sizeof(*slots));
  if (slots == NULL) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < p->nframes; i++) {
    uint32_t j = frame_hash(&p->frames[i]) & (cap - 1);
    while (slots[j] != 0)
      j = (j + 1) & (cap - 1);
    slots[j] = i + 1;
  }
  free(in->frame_slots);
  in->frame_slots = slots;
  in->frame_cap = cap;
  return 0;
}

static int frames_reserve(cprof_profile_t *p) {
  struct cprof__internal_s *in = p->internal;
  if (p->nframes < in->frames_alloc) return 0;
  if (in->frames_alloc >= UINT32_MAX / 2) return CPROF_ENOMEM;
  uint32_t n = in->frames_alloc == 0 ? TABLE_MIN : in->frames_alloc * 2;
  cprof_frame_t *frames = realloc(p->frames, (size_t)n * sizeof(*frames));
  if (frames == NULL) return CPROF_ENOMEM;
  p->frames = frames;
  in->frames_alloc = n;
  return 0;
}

int cprof__profile_add_frame(cprof_profile_t *p, const cprof_frame_t *f, uint32_t *index_out) {
  struct cprof__internal_s *in = p->internal;
  if (frame_table_grow(p) != 0) return CPROF_ENOMEM;
  uint32_t mask = in->frame_cap - 1;
  uint32_t j = frame_hash(f) & mask;
  for (; in->frame_slots[j] != 0; j = (j + 1) & mask) {
    if (frame_eq(&p->frames[in->frame_slots[j] - 1], f)) {
      *index_out = in->frame_slots[j] - 1;
      return 0;
    }
  }
  if (frames_reserve(p) != 0) return CPROF_ENOMEM;
  p->frames[p->nframes] = *f;
  in->frame_slots[j] = p->nframes + 1;
  *index_out = p->nframes++;
  return 0;
}

int cprof__profile_intern_frame(cprof_profile_t *p, const char *name, const char *url,
                                const char *script_id, int32_t line, int32_t column,
                                uint32_t *index_out) {
  struct cprof__internal_s *in = p->internal;
  cprof_frame_t f = {intern_str(in, name), intern_str(in, url), intern_str(in, script_id), line,
                     column};
  if (f.name == NULL || f.url == NULL || f.script_id == NULL) return CPROF_ENOMEM;
  return cprof__profile_add_frame(p, &f, index_out);
}

/* Timestamp of the last sample: startTime plus every delta. */
static int64_t last_timestamp(const cprof_profile_t *p) {
  int64_t t = p->start_time;
  for (uint32_t i = 0; i < p->nsamples; i++)
    t = cprof__sat_add(t, p->time_deltas[i]);
  return t;
}

int64_t cprof_sample_weight(const cprof_profile_t *p, uint32_t i) {
  if (p == NULL || i >= p->nsamples) return 0;
  if (p->kind == CPROF_KIND_HEAP) return p->sample_sizes != NULL ? p->sample_sizes[i] : 0;
  if (p->time_deltas == NULL) return 0;
  /* A delta is the gap before its sample, so sample i lasts until i+1. */
  int64_t w =
      i + 1 < p->nsamples ? p->time_deltas[i + 1] : cprof__sat_sub(p->end_time, last_timestamp(p));
  return w < 0 ? 0 : w;
}

int64_t cprof_profile_total(const cprof_profile_t *p) {
  int64_t sum = 0;
  if (p == NULL) return 0;
  for (uint32_t i = 0; i < p->nnodes; i++)
    sum = cprof__sat_add(sum, p->nodes[i].self);
  return sum;
}

static void cpu_self(cprof_profile_t *p) {
  for (uint32_t i = 0; i < p->nnodes; i++)
    p->nodes[i].self = 0;
  for (uint32_t i = 0; i < p->nsamples; i++) {
    cprof_node_t *n = &p->nodes[p->samples[i]];
    n->self = cprof__sat_add(n->self, cprof_sample_weight(p, i));
  }
}

void cprof__profile_finish(cprof_profile_t *p) {
  struct cprof__internal_s *in = p->internal;
  free_tables(in);
  if (p->nframes > 0 && p->nframes < in->frames_alloc) {
    cprof_frame_t *frames = realloc(p->frames, (size_t)p->nframes * sizeof(*frames));
    if (frames != NULL) { /* shrinking failed: keeping the larger block is fine */
      p->frames = frames;
      in->frames_alloc = p->nframes;
    }
  }
  cprof__profile_fill_values(p);
}

void cprof__profile_fill_values(cprof_profile_t *p) {
  if (p->kind == CPROF_KIND_CPU) cpu_self(p);
  for (uint32_t i = 0; i < p->nnodes; i++)
    p->nodes[i].total = p->nodes[i].self;
  /* Parents precede children, so one reverse pass sees every child first. */
  for (uint32_t i = p->nnodes; i-- > 1;) {
    cprof_node_t *parent = &p->nodes[p->nodes[i].parent];
    parent->total = cprof__sat_add(parent->total, p->nodes[i].total);
  }
}

int cprof__check_model(const cprof_profile_t *p) {
  uint64_t linked = 0;
  if (p->nnodes == 0 || p->nodes == NULL || p->nodes[0].parent != CPROF_NONE) return CPROF_EINVAL;
  for (uint32_t i = 0; i < p->nnodes; i++) {
    const cprof_node_t *n = &p->nodes[i];
    uint32_t steps = 0;
    if (n->frame >= p->nframes || (i > 0 && n->parent >= i)) return CPROF_EINVAL;
    for (uint32_t c = n->first_child; c != CPROF_NONE; c = p->nodes[c].next_sibling)
      if (c >= p->nnodes || p->nodes[c].parent != i || ++steps >= p->nnodes) return CPROF_EINVAL;
    linked += steps;
  }
  if (linked != p->nnodes - 1 || (p->nsamples > 0 && p->samples == NULL)) return CPROF_EINVAL;
  for (uint32_t i = 0; i < p->nsamples; i++)
    if (p->samples[i] >= p->nnodes) return CPROF_EINVAL;
  for (uint32_t i = 0; i < p->nline_ticks; i++)
    if (p->line_ticks[i].node >= p->nnodes) return CPROF_EINVAL;
  return 0;
}

/* ---- cprof_profile_bytes ---- */

size_t cprof_profile_bytes(const cprof_profile_t *p) {
  if (p == NULL) return 0;
  size_t n = cprof__block_bytes(p, sizeof(*p));
  n += cprof__block_bytes(p->frames, (size_t)p->nframes * sizeof(*p->frames));
  n += cprof__block_bytes(p->nodes, (size_t)p->nnodes * sizeof(*p->nodes));
  n += cprof__block_bytes(p->samples, (size_t)p->nsamples * sizeof(*p->samples));
  n += cprof__block_bytes(p->time_deltas, (size_t)p->nsamples * sizeof(*p->time_deltas));
  n += cprof__block_bytes(p->sample_sizes, (size_t)p->nsamples * sizeof(*p->sample_sizes));
  n += cprof__block_bytes(p->sample_ordinals, (size_t)p->nsamples * sizeof(*p->sample_ordinals));
  n += cprof__block_bytes(p->line_ticks, (size_t)p->nline_ticks * sizeof(*p->line_ticks));
  const struct cprof__internal_s *in = p->internal;
  if (in == NULL) return n;
  n += cprof__block_bytes(in, sizeof(*in));
  n += cprof__block_bytes(in->strs, (size_t)in->str_cap * sizeof(*in->strs));
  n += cprof__block_bytes(in->frame_slots, (size_t)in->frame_cap * sizeof(*in->frame_slots));
  n += cprof__arena_bytes(&in->strings);
  return n;
}

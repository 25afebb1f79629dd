/* The flat profile: call-tree nodes merged per function, and top-N. */
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "error.h"
#include "internal.h"

/* A function ignores script_id: the same code reloaded under a new script
 * is still the same function to a reader. */
static uint32_t func_hash(const cprof_frame_t *f) {
  uint64_t h = cprof__hash_str(CPROF__HASH_SEED, f->name);
  h = cprof__hash_str(h, f->url);
  h = cprof__hash_bytes(h, &f->line, sizeof(f->line));
  h = cprof__hash_bytes(h, &f->column, sizeof(f->column));
  return (uint32_t)(h ^ (h >> 32));
}

static int func_eq(const cprof_frame_t *a, const cprof_frame_t *b) {
  return a->line == b->line && a->column == b->column && strcmp(a->name, b->name) == 0 &&
         strcmp(a->url, b->url) == 0;
}

/* Fills func_of[frame] and out->funcs with one entry per distinct function. */
static int map_functions(const cprof_profile_t *p, cprof_flat_t *out, uint32_t *func_of) {
  uint32_t cap = 16;
  while (cap < (uint64_t)p->nframes * 2)
    cap *= 2;
  uint32_t *slots = calloc(cap, sizeof(*slots)); /* func index + 1, 0 = empty */
  if (slots == NULL) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < p->nframes; i++)
    func_of[i] = CPROF_NONE;
  /* Only frames some node names become functions: a frame table can hold
   * frames no node uses any more (after cprof_profile_limit_depth). */
  for (uint32_t n = 0; n < p->nnodes; n++) {
    uint32_t i = p->nodes[n].frame;
    if (func_of[i] != CPROF_NONE) continue;
    uint32_t j = func_hash(&p->frames[i]) & (cap - 1);
    while (slots[j] != 0 && !func_eq(&p->frames[out->funcs[slots[j] - 1].frame], &p->frames[i]))
      j = (j + 1) & (cap - 1);
    if (slots[j] == 0) {
      out->funcs[out->nfuncs] = (cprof_func_t){.frame = i};
      slots[j] = ++out->nfuncs;
    }
    func_of[i] = slots[j] - 1;
  }
  free(slots);
  return 0;
}

/* Preorder walk over the links (no stack): a node adds its total to its
 * function only when no ancestor is the same function, so recursion counts
 * each sample once. on_stack counts a function's nodes on the current path.
 * The tree was checked by cprof__check_model. */
static void add_totals(const cprof_profile_t *p, const uint32_t *func_of, cprof_func_t *funcs,
                       uint32_t *on_stack) {
  uint32_t cur = 0;
  for (;;) {
    const cprof_node_t *n = &p->nodes[cur];
    uint32_t f = func_of[n->frame];
    if (on_stack[f]++ == 0) funcs[f].total = cprof__sat_add(funcs[f].total, n->total);
    if (n->first_child != CPROF_NONE) {
      cur = n->first_child;
      continue;
    }
    /* Leave cur and every ancestor whose last child it was. */
    for (;;) {
      on_stack[func_of[p->nodes[cur].frame]]--;
      if (cur == 0 || p->nodes[cur].next_sibling != CPROF_NONE) break;
      cur = p->nodes[cur].parent;
    }
    if (cur == 0) return;
    cur = p->nodes[cur].next_sibling;
  }
}

static int flat_fill(const cprof_profile_t *p, cprof_flat_t *out, uint32_t *func_of,
                     uint32_t *on_stack) {
  int rc = map_functions(p, out, func_of);
  if (rc != 0) return rc;
  for (uint32_t i = 0; i < p->nnodes; i++) {
    cprof_func_t *f = &out->funcs[func_of[p->nodes[i].frame]];
    f->self = cprof__sat_add(f->self, p->nodes[i].self);
  }
  memset(on_stack, 0, (size_t)out->nfuncs * sizeof(*on_stack));
  add_totals(p, func_of, out->funcs, on_stack);
  return 0;
}

int cprof_flat_build(const cprof_profile_t *p, cprof_flat_t *out) {
  if (out == NULL) return CPROF_EINVAL;
  *out = (cprof_flat_t){0};
  if (p == NULL) return CPROF_EINVAL;
  if (cprof__check_model(p) != 0) return CPROF_EINVAL;
  out->total = cprof_profile_total(p);
  uint32_t *func_of = malloc((size_t)p->nframes * sizeof(*func_of));
  uint32_t *on_stack = malloc((size_t)p->nframes * sizeof(*on_stack));
  out->funcs = malloc((size_t)p->nframes * sizeof(*out->funcs));
  int rc = func_of && on_stack && out->funcs ? flat_fill(p, out, func_of, on_stack) : CPROF_ENOMEM;
  /* Kept: the lines (lines.c) sum each node's into its function. */
  out->func_of = func_of;
  out->nframes = p->nframes;
  free(on_stack);
  if (rc != 0) {
    cprof_flat_free(out);
    return rc;
  }
  /* Functions are usually far fewer than frames: give the rest back. */
  cprof_func_t *shrunk = realloc(out->funcs, (size_t)out->nfuncs * sizeof(*shrunk));
  if (shrunk != NULL) out->funcs = shrunk;
  return 0;
}

void cprof_flat_free(cprof_flat_t *flat) {
  if (flat == NULL) return;
  free(flat->funcs);
  free(flat->func_of);
  *flat = (cprof_flat_t){0};
}

/* ---- top-N ---- */

/* Sort keys copied out so qsort needs no context (C11 has no qsort_r). */
typedef struct {
  int64_t self;
  int64_t total;
  const cprof_frame_t *frame;
  uint32_t func;
} rank_t;

/* Best first: self, then total, then name; url, line and column make the
 * order total, so results do not depend on hash order. */
static int rank_cmp(const void *va, const void *vb) {
  const rank_t *a = va, *b = vb;
  int c;
  if (a->self != b->self) return a->self > b->self ? -1 : 1;
  if (a->total != b->total) return a->total > b->total ? -1 : 1;
  if ((c = strcmp(a->frame->name, b->frame->name)) != 0) return c;
  if ((c = strcmp(a->frame->url, b->frame->url)) != 0) return c;
  if (a->frame->line != b->frame->line) return a->frame->line < b->frame->line ? -1 : 1;
  if (a->frame->column != b->frame->column) return a->frame->column < b->frame->column ? -1 : 1;
  return a->func < b->func ? -1 : a->func > b->func;
}

static void swap(rank_t *a, rank_t *b) {
  rank_t t = *a;
  *a = *b;
  *b = t;
}

/* Lomuto partition around a median-of-three pivot; returns its position. */
static size_t partition(rank_t *a, size_t lo, size_t hi) {
  size_t mid = lo + (hi - lo) / 2, last = hi - 1, store = lo;
  if (rank_cmp(&a[mid], &a[lo]) < 0) swap(&a[mid], &a[lo]);
  if (rank_cmp(&a[last], &a[lo]) < 0) swap(&a[last], &a[lo]);
  if (rank_cmp(&a[last], &a[mid]) < 0) swap(&a[last], &a[mid]);
  swap(&a[mid], &a[last]);
  for (size_t i = lo; i < last; i++)
    if (rank_cmp(&a[i], &a[last]) < 0) swap(&a[i], &a[store++]);
  swap(&a[store], &a[last]);
  return store;
}

/* Quickselect: afterwards a[0..k) holds the k best, in no order. */
static void select_best(rank_t *a, size_t len, size_t k) {
  size_t lo = 0, hi = len;
  while (hi - lo > 1) {
    size_t pos = partition(a, lo, hi);
    if (pos == k) return;
    if (pos < k)
      lo = pos + 1;
    else
      hi = pos;
  }
}

static int skipped(const cprof_frame_t *f, unsigned skip) {
  if (f->url[0] != '\0') return 0;
  return ((skip & CPROF_TOP_SKIP_ROOT) && strcmp(f->name, "(root)") == 0) ||
         ((skip & CPROF_TOP_SKIP_IDLE) && strcmp(f->name, "(idle)") == 0);
}

size_t cprof_flat_top(const cprof_flat_t *flat, const cprof_profile_t *p, unsigned skip,
                      cprof_func_t *out, size_t n) {
  size_t len = 0;
  if (flat == NULL || p == NULL || out == NULL || n == 0 || flat->nfuncs == 0) return 0;
  rank_t *r = malloc((size_t)flat->nfuncs * sizeof(*r));
  if (r == NULL) return 0;
  for (uint32_t i = 0; i < flat->nfuncs; i++) {
    const cprof_func_t *f = &flat->funcs[i];
    if (f->frame >= p->nframes || skipped(&p->frames[f->frame], skip)) continue;
    r[len++] = (rank_t){f->self, f->total, &p->frames[f->frame], i};
  }
  if (n < len) select_best(r, len, n);
  if (n > len) n = len;
  qsort(r, n, sizeof(*r), rank_cmp);
  for (size_t i = 0; i < n; i++)
    out[i] = flat->funcs[r[i].func];
  free(r);
  return n;
}

int64_t cprof_flat_special(const cprof_flat_t *flat, const cprof_profile_t *p, const char *name) {
  int64_t sum = 0;
  if (flat == NULL || p == NULL || name == NULL) return 0;
  for (uint32_t i = 0; i < flat->nfuncs; i++) {
    const cprof_func_t *f = &flat->funcs[i];
    if (f->frame >= p->nframes) continue;
    const cprof_frame_t *fr = &p->frames[f->frame];
    if (fr->url[0] == '\0' && strcmp(fr->name, name) == 0) sum = cprof__sat_add(sum, f->self);
  }
  return sum;
}

/* Classes of a snapshot as DevTools' Summary view has them
 * (HeapSnapshot.ts: buildAggregates, calculateClassesRetainedSize): an
 * object or native node's class is its name (the constructor), any other
 * node's is its type ("(string)", "(closure)", "(system)" for hidden...).
 * Count and shallow size add up every object; the retained size adds only
 * objects no other object of the same class dominates, so a class's
 * retained size never counts a byte twice (a linked list of Sessions
 * retains its tail through its head). Objects of size 0 (after
 * snapshot_shallow.c gave owned arrays' sizes to their owners) are left
 * out, as DevTools does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "snapshot.h"

uint32_t cprof__snap_class_key(const cprof__snap_t *s, uint32_t n) {
  uint32_t t = cprof__snap_ntype(s, n), name = cprof__snap_nname(s, n);
  if (t == s->t_native && s->detached != NULL && s->detached[n])
    return s->str_count + s->ntypes.count + name;
  if (t == s->t_object || t == s->t_native) return name;
  return s->str_count + t;
}

const char *cprof__snap_class_name(const cprof__snap_t *s, uint32_t key, char *buf, size_t len) {
  if (key < s->str_count) return cprof__snap_name(s, key, NULL, NULL);
  if (key - s->str_count >= s->ntypes.count)
    return cprof__snap_name(s, key - s->str_count - s->ntypes.count, "Detached ", NULL);
  uint32_t t = key - s->str_count;
  if (t == s->t_hidden) return "(system)";
  if (t == s->t_code) return "(compiled code)";
  if (t == s->t_closure) return "Function";
  if (t == s->t_regexp) return "RegExp";
  snprintf(buf, len, "(%s)", t < s->ntypes.count ? s->ntypes.names[t] : "?");
  return buf;
}

/* ids[key]: the class's index in cls for each key that has objects,
 * numbered in node order; returns how many. */
static uint32_t number_classes(const cprof__snap_t *s, uint32_t *ids) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->node_count; i++) {
    if (!cprof__snap_counted(s, i)) continue;
    uint32_t key = cprof__snap_class_key(s, i);
    if (ids[key] == CPROF__SNAP_NONE) ids[key] = n++;
  }
  return n;
}

/* Count, shallow size, least distance and largest object of each class
 * (cls zeroed: a class is set up at its first object). */
static void aggregate(const cprof__snap_t *s, const uint32_t *ids, cprof__snap_class_t *cls) {
  for (uint32_t i = 0; i < s->node_count; i++) {
    if (!cprof__snap_counted(s, i)) continue;
    uint32_t key = cprof__snap_class_key(s, i);
    cprof__snap_class_t *c = &cls[ids[key]];
    if (c->count == 0) *c = (cprof__snap_class_t){.key = key, .largest = i, .distance = s->dist[i]};
    c->count++;
    c->self += cprof__snap_self(s, i);
    if (s->dist[i] < c->distance) c->distance = s->dist[i];
    if (s->retained[i] > s->retained[c->largest]) c->largest = i;
  }
}

/* The class of each counted node, as a bucket for
 * cprof__snap_bucket_retained. */
typedef struct {
  const cprof__snap_t *s;
  const uint32_t *ids;
} class_ctx_t;

static uint32_t class_bucket(const void *ctx, uint32_t n) {
  const class_ctx_t *c = ctx;
  return cprof__snap_counted(c->s, n) ? c->ids[cprof__snap_class_key(c->s, n)] : CPROF__SNAP_NONE;
}

/* A node on the walk's path: its next child and whether it set on_path. */
typedef struct {
  uint32_t node, child;
  uint8_t setter;
} frame_t;

/* Depth first down the dominator tree, with on_path[bucket] set while an
 * object of that bucket is an ancestor: its retained size already holds
 * the descendant's. The path grows as deep as the tree (tens of levels in
 * real heaps, a node count at worst), not sized for the worst up front. */
int cprof__snap_bucket_retained(const cprof__snap_t *s, cprof__snap_bucket_fn bucket,
                                const void *ctx, uint64_t *sums, uint32_t buckets) {
  size_t cap = 1024, top = 0;
  frame_t *path = malloc(cap * sizeof *path);
  uint8_t *on_path = calloc(buckets ? buckets : 1, 1);
  if (!path || !on_path) {
    free(path), free(on_path);
    return CPROF_ENOMEM;
  }
  path[top++] = (frame_t){s->root, s->dom_child[s->root], 0};
  for (int pre = 1; top > 0;) {
    frame_t *f = &path[top - 1];
    uint32_t n = f->node, c = bucket(ctx, n);
    if (pre && c != CPROF__SNAP_NONE && !on_path[c]) {
      sums[c] += s->retained[n];
      if (s->dom_child[n] != CPROF__SNAP_NONE) on_path[c] = f->setter = 1;
    }
    if (f->child != CPROF__SNAP_NONE) {
      uint32_t child = f->child;
      f->child = s->dom_next[child];
      if (top == cap) {
        frame_t *grown = realloc(path, 2 * cap * sizeof *path);
        if (grown == NULL) {
          free(path), free(on_path);
          return CPROF_ENOMEM;
        }
        path = grown, cap *= 2;
      }
      path[top++] = (frame_t){child, s->dom_child[child], 0};
      pre = 1;
      continue;
    }
    if (f->setter) on_path[c] = 0;
    top--;
    pre = 0;
  }
  free(path), free(on_path);
  return CPROF_OK;
}

static int class_retained(const cprof__snap_t *s, const uint32_t *ids, cprof__snap_class_t *cls,
                          uint32_t n) {
  uint64_t *sums = calloc(n ? n : 1, sizeof *sums);
  if (sums == NULL) return CPROF_ENOMEM;
  class_ctx_t ctx = {s, ids};
  int rc = cprof__snap_bucket_retained(s, class_bucket, &ctx, sums, n);
  for (uint32_t i = 0; i < n; i++)
    cls[i].retained = sums[i];
  free(sums);
  return rc;
}

static int by_retained(const void *a, const void *b) {
  const cprof__snap_class_t *x = a, *y = b;
  if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
  if (x->self != y->self) return x->self < y->self ? 1 : -1;
  return x->key < y->key ? -1 : x->key > y->key;
}

int cprof__snap_classes(const cprof__snap_t *s, cprof__snap_class_t **out, uint32_t *count) {
  uint64_t keys = 2 * (uint64_t)s->str_count + s->ntypes.count;
  uint32_t *ids = malloc((size_t)keys * sizeof *ids);
  if (ids == NULL) return CPROF_ENOMEM;
  memset(ids, 0xff, (size_t)keys * sizeof *ids);
  /* counted first, so the table is the classes' size, not the keys' */
  uint32_t n = number_classes(s, ids);
  cprof__snap_class_t *cls = calloc(n ? n : 1, sizeof *cls);
  if (cls == NULL) {
    free(ids);
    return CPROF_ENOMEM;
  }
  aggregate(s, ids, cls);
  int rc = class_retained(s, ids, cls, n);
  free(ids);
  if (rc != CPROF_OK) {
    free(cls);
    return rc;
  }
  qsort(cls, n, sizeof *cls, by_retained);
  *out = cls;
  *count = n;
  return CPROF_OK;
}

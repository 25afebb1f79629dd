/* .heapprofile (V8 inspector HeapProfiler.SamplingHeapProfile): a nested
 * tree under "head" and samples naming nodes by id. The tree is read
 * without recursion, each node numbered in preorder as its object opens, so
 * parents precede children whatever order an object's members come in. */
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "internal.h"
#include "idmap.h"
#include "parse_heap.h"
#include "parse_value.h"

#define FAIL(...) cprof__rd_fail(r, CPROF_ESCHEMA, __VA_ARGS__)
#define NOMEM(what) cprof__rd_fail(r, CPROF_ENOMEM, "out of memory for %s", (what))

/* Bits in the order of NODE_KEYS. */
enum { SEEN_ID = 1, SEEN_FRAME = 2, SEEN_SELF = 4, SEEN_KIDS = 8 };
static const char *const NODE_KEYS[] = {"id", "callFrame", "selfSize", "children", NULL};

/* A node whose object is open: the reader is in its members, or in its
 * children array. */
struct cprof__heap_open_s {
  uint32_t k;
  unsigned seen;
  int first; /* no member read yet */
};

static int reserve(cprof_profile_t *p, cprof__heap_t *h) {
  uint32_t need = p->nnodes + 1;
  if (p->nnodes >= UINT32_MAX - 1) return CPROF_ENOMEM;
  if (need <= h->nodes_cap) return 0;
  uint32_t cap = h->nodes_cap;
  if (cprof__grow((void **)&p->nodes, &cap, need, sizeof *p->nodes) != 0) return CPROF_ENOMEM;
  cap = h->nodes_cap;
  if (cprof__grow((void **)&h->last_child, &cap, need, sizeof *h->last_child) != 0)
    return CPROF_ENOMEM;
  cap = h->nodes_cap;
  if (cprof__grow((void **)&h->has_id, &cap, need, sizeof *h->has_id) != 0) return CPROF_ENOMEM;
  h->nodes_cap = cap;
  return 0;
}

/* Opens the node object at the reader as a child of parent. */
static int begin_node(cprof__rd_t *r, cprof_profile_t *p, cprof__heap_t *h, uint32_t parent) {
  uint32_t k = p->nnodes;
  int rc;
  if (cprof__rd_peek(r) != '{') return FAIL("heap node #%u is not an object", k);
  if (reserve(p, h) != 0 ||
      cprof__grow((void **)&h->open, &h->open_cap, h->depth + 1, sizeof *h->open) != 0)
    return NOMEM("the heap tree");
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  p->nodes[k] = (cprof_node_t){.id = k + 1,
                               .parent = parent,
                               .first_child = CPROF_NONE,
                               .next_sibling = CPROF_NONE,
                               .frame = CPROF_NONE};
  h->last_child[k] = CPROF_NONE;
  h->has_id[k] = 0;
  if (parent != CPROF_NONE) {
    uint32_t last = h->last_child[parent];
    if (last == CPROF_NONE)
      p->nodes[parent].first_child = k;
    else
      p->nodes[last].next_sibling = k;
    h->last_child[parent] = k;
  }
  p->nnodes++;
  h->open[h->depth++] = (cprof__heap_open_t){.k = k, .first = 1};
  return 0;
}

/* "children": 1 when a first child was opened, 0 when there is none. */
static int children(cprof__rd_t *r, cprof_profile_t *p, cprof__heap_t *h, uint32_t k) {
  int first = 1, rc;
  if (cprof__rd_null(r)) return 0;
  if (cprof__rd_peek(r) != '[')
    return FAIL("heap node %u: children is not an array", p->nodes[k].id);
  if ((rc = cprof__rd_open(r, '[')) != 0) return rc;
  if ((rc = cprof__rd_elem(r, &first)) != 1) return rc;
  return (rc = begin_node(r, p, h, k)) == 0 ? 1 : rc;
}

/* One member of the innermost open node. 1 when it opened a child. */
static int member(cprof__rd_t *r, cprof_profile_t *p, cprof__heap_t *h, const char *key,
                  size_t klen) {
  cprof__heap_open_t *o = &h->open[h->depth - 1];
  cprof_node_t *n = &p->nodes[o->k];
  char what[48];
  unsigned bit = cprof__rd_key_bit(key, klen, NODE_KEYS);
  if (bit == 0 || (o->seen & bit)) return cprof__rd_skip(r); /* the first of a key wins */
  o->seen |= bit;
  snprintf(what, sizeof what, "heap node %u", n->id);
  switch (bit) {
  case SEEN_ID:
    if (cprof__rd_null(r)) return 0;
    h->has_id[o->k] = 1;
    if (cprof__rd_u32(r, &n->id)) return 0;
    return FAIL("heap node #%u: id is not an integer in 0..4294967295", o->k);
  case SEEN_FRAME:
    if (cprof__rd_peek(r) != '{') return FAIL("%s has no callFrame object", what);
    return cprof__parse_call_frame(r, p, (cprof__who_t){"heap node %u", n->id}, &n->frame);
  case SEEN_SELF:
    if (cprof__rd_size(r, &n->self)) return 0;
    return FAIL("%s: selfSize is missing or not an integer in 0..2^53", what);
  default:
    return children(r, p, h, o->k);
  }
}

static int close_node(cprof__rd_t *r, const cprof_profile_t *p, const cprof__heap_open_t *o) {
  uint32_t id = p->nodes[o->k].id;
  if (!(o->seen & SEEN_FRAME)) return FAIL("heap node %u has no callFrame object", id);
  if (!(o->seen & SEEN_SELF))
    return FAIL("heap node %u: selfSize is missing or not an integer in 0..2^53", id);
  return 0;
}

/* After a node closes, its parent's children array goes on: 1 when a
 * sibling was opened, 0 when the array ended. */
static int next_sibling(cprof__rd_t *r, cprof_profile_t *p, cprof__heap_t *h) {
  int first = 0, rc;
  if ((rc = cprof__rd_elem(r, &first)) != 1) return rc;
  return (rc = begin_node(r, p, h, h->open[h->depth - 1].k)) == 0 ? 1 : rc;
}

int cprof__heap_tree(cprof__rd_t *r, cprof_profile_t *p, cprof__heap_t *h) {
  const char *key;
  size_t klen;
  int rc;
  if (cprof__rd_peek(r) != '{') return FAIL("head is not an object");
  if ((rc = begin_node(r, p, h, CPROF_NONE)) != 0) return rc;
  while (h->depth > 0) {
    cprof__heap_open_t *o = &h->open[h->depth - 1];
    rc = cprof__rd_member(r, &o->first, &key, &klen);
    if (rc == 1) {
      if ((rc = member(r, p, h, key, klen)) < 0) return rc;
      continue;
    }
    if (rc < 0 || (rc = close_node(r, p, o)) != 0) return rc;
    /* Closed: the parent's children array goes on (a sibling opens, or it
     * ends and the parent's members go on), or the tree is done. */
    if (--h->depth > 0 && (rc = next_sibling(r, p, h)) < 0) return rc;
  }
  return 0;
}

/* ---- samples ---- */

/* Bits in the order of SAMPLE_KEYS. */
enum { SEEN_SIZE = 1, SEEN_NODE = 2, SEEN_ORDINAL = 4 };
static const char *const SAMPLE_KEYS[] = {"size", "nodeId", "ordinal", NULL};

static int sample_member(cprof__rd_t *r, cprof__heap_t *h, uint32_t i, unsigned *seen,
                         const char *key, size_t klen) {
  unsigned bit = cprof__rd_key_bit(key, klen, SAMPLE_KEYS);
  int64_t ordinal;
  if (bit == 0 || (*seen & bit)) return cprof__rd_skip(r);
  *seen |= bit;
  switch (bit) {
  case SEEN_SIZE:
    if (cprof__rd_size(r, &h->sizes[i])) return 0;
    return FAIL("heap sample %u: size is missing or not an integer in 0..2^53", i);
  case SEEN_NODE:
    if (cprof__rd_u32(r, &h->ids[i])) return 0;
    return FAIL("heap sample %u: nodeId is not an integer in 0..4294967295", i);
  default:
    if (cprof__rd_null(r)) return 0;
    if (!cprof__rd_size(r, &ordinal))
      return FAIL("heap sample %u: ordinal is not an integer in 0..2^53", i);
    h->ordinals[i] = (uint64_t)ordinal;
    return 0;
  }
}

static int grow_samples(cprof__heap_t *h, uint32_t need) {
  return cprof__grow((void **)&h->ids, &h->ids_cap, need, sizeof *h->ids) ||
         cprof__grow((void **)&h->sizes, &h->sizes_cap, need, sizeof *h->sizes) ||
         cprof__grow((void **)&h->ordinals, &h->ordinals_cap, need, sizeof *h->ordinals);
}

static int read_sample(cprof__rd_t *r, cprof__heap_t *h, uint32_t i) {
  const char *key;
  size_t klen;
  unsigned seen = 0;
  int first = 1, rc;
  if (cprof__rd_peek(r) != '{') return FAIL("heap sample %u is not an object", i);
  if (grow_samples(h, i + 1) != 0) return NOMEM("heap samples");
  h->ordinals[i] = 0;
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1)
    if ((rc = sample_member(r, h, i, &seen, key, klen)) != 0) return rc;
  if (rc != 0) return rc;
  if (!(seen & SEEN_SIZE))
    return FAIL("heap sample %u: size is missing or not an integer in 0..2^53", i);
  if (!(seen & SEEN_NODE))
    return FAIL("heap sample %u: nodeId is not an integer in 0..4294967295", i);
  h->nsamples = i + 1;
  return 0;
}

int cprof__heap_samples(cprof__rd_t *r, cprof__heap_t *h) {
  int first = 1, rc;
  if (cprof__rd_null(r)) return 0;
  if (cprof__rd_peek(r) != '[') return FAIL("samples is not an array");
  if ((rc = cprof__rd_open(r, '[')) != 0) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1)
    if ((rc = read_sample(r, h, h->nsamples)) != 0) return rc;
  return rc;
}

/* ---- finish ---- */

/* Ids are on every node or on none (older Node): then numbered 1.. in
 * preorder, which begin_node already did. */
static int check_ids(cprof__rd_t *r, const cprof_profile_t *p, const cprof__heap_t *h) {
  for (uint32_t k = 1; k < p->nnodes; k++)
    if (h->has_id[k] != h->has_id[0])
      return FAIL("heap node #%u: ids must be on every node or on none", k);
  return 0;
}

/* Samples naming a node the tree lacks are dropped and counted: V8 writes
 * them. The arrays move into p. */
static void emit_samples(cprof_profile_t *p, cprof__heap_t *h, const cprof__idmap_t *ids) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < h->nsamples; i++) {
    uint32_t k = cprof__idmap_get(ids, h->ids[i]);
    if (k == CPROF_NONE) continue;
    h->ids[kept] = k;
    h->sizes[kept] = h->sizes[i];
    h->ordinals[kept] = h->ordinals[i];
    kept++;
  }
  cprof__profile_set_dropped(p, h->nsamples - kept);
  if (kept == 0) return;
  p->samples = h->ids;
  p->sample_sizes = h->sizes;
  p->sample_ordinals = h->ordinals;
  p->nsamples = kept;
  h->ids = NULL;
  h->sizes = NULL;
  h->ordinals = NULL;
}

int cprof__heap_finish(cprof__rd_t *r, cprof_profile_t *p, cprof__heap_t *h) {
  cprof__idmap_t ids = {0};
  int rc = check_ids(r, p, h);
  if (rc != 0) return rc;
  if (cprof__idmap_init(&ids, p->nnodes) != 0) {
    cprof__idmap_free(&ids);
    return NOMEM("the heap tree");
  }
  for (uint32_t k = 0; k < p->nnodes && rc == 0; k++)
    if (cprof__idmap_put(&ids, p->nodes[k].id, k) != CPROF_NONE)
      rc = FAIL("duplicate heap node id %u", p->nodes[k].id);
  if (rc == 0) emit_samples(p, h, &ids);
  cprof__idmap_free(&ids);
  return rc;
}

void cprof__heap_free(cprof__heap_t *h) {
  free(h->last_child);
  free(h->has_id);
  free(h->open);
  free(h->ids);
  free(h->sizes);
  free(h->ordinals);
  *h = (cprof__heap_t){0};
}

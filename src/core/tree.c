/* The function tree (see tree.h). */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"

/* ---- function tree ---- */

/* Open-addressing tables: fns by identity, children by (parent, fn). */
struct cprof__tindex_s {
  uint32_t *fn_slots; /* fn index + 1, 0 = empty */
  uint32_t fn_mask;
  uint32_t *kid_slots; /* node index + 1, 0 = empty; key read from the node */
  uint32_t kid_mask;
};

static uint32_t fn_hash(const cprof_frame_t *f) {
  uint64_t h = cprof__hash_str(CPROF__HASH_SEED, f->name);
  h = cprof__hash_str(h, f->url);
  h = cprof__hash_bytes(h, &f->line, sizeof(f->line));
  h = cprof__hash_bytes(h, &f->column, sizeof(f->column));
  return (uint32_t)(h ^ (h >> 32));
}

static int fn_eq(const cprof_frame_t *a, const cprof_frame_t *b) {
  return a->line == b->line && a->column == b->column && strcmp(a->name, b->name) == 0 &&
         strcmp(a->url, b->url) == 0;
}

static uint32_t kid_hash(uint32_t parent, uint32_t fn) {
  uint64_t k = ((uint64_t)parent << 32) | fn;
  k *= UINT64_C(0x9E3779B97F4A7C15);
  return (uint32_t)(k >> 32);
}

/* Grows a table to hold want entries at load <= 1/2. */
static int table_fit(uint32_t **slots, uint32_t *mask, uint32_t want) {
  uint64_t cap = 16;
  while (cap < (uint64_t)want * 2)
    cap *= 2;
  if (*slots != NULL && cap <= (uint64_t)*mask + 1) return 0;
  if (cap > UINT32_MAX) return CPROF_ENOMEM;
  uint32_t *s = calloc((size_t)cap, sizeof(*s));
  if (s == NULL) return CPROF_ENOMEM;
  free(*slots);
  *slots = s;
  *mask = (uint32_t)(cap - 1);
  return 1; /* rehash needed */
}

static void rehash(cprof__tree_t *t, int fns, int kids) {
  struct cprof__tindex_s *ix = t->index;
  if (fns)
    for (uint32_t i = 0; i < t->nfns; i++) {
      uint32_t j = fn_hash(t->fns[i].frame) & ix->fn_mask;
      while (ix->fn_slots[j] != 0)
        j = (j + 1) & ix->fn_mask;
      ix->fn_slots[j] = i + 1;
    }
  if (kids)
    for (uint32_t i = 1; i < t->nnodes; i++) {
      uint32_t j = kid_hash(t->nodes[i].parent, t->nodes[i].fn) & ix->kid_mask;
      while (ix->kid_slots[j] != 0)
        j = (j + 1) & ix->kid_mask;
      ix->kid_slots[j] = i + 1;
    }
}

/* Makes room for more functions and nodes before an add. */
static int tree_reserve(cprof__tree_t *t, uint32_t more_fns, uint32_t more_nodes) {
  struct cprof__tindex_s *ix = t->index;
  uint64_t want_fns = (uint64_t)t->nfns + more_fns, want_nodes = (uint64_t)t->nnodes + more_nodes;
  if (want_fns >= UINT32_MAX / 4 || want_nodes >= UINT32_MAX / 4) return CPROF_ENOMEM;
  if (want_fns > t->fns_cap) {
    cprof__fn_t *f = realloc(t->fns, (size_t)want_fns * sizeof(*f));
    if (f == NULL) return CPROF_ENOMEM;
    t->fns = f;
    t->fns_cap = (uint32_t)want_fns;
  }
  if (want_nodes > t->nodes_cap) {
    cprof__tnode_t *n = realloc(t->nodes, (size_t)want_nodes * sizeof(*n));
    if (n == NULL) return CPROF_ENOMEM;
    t->nodes = n;
    t->nodes_cap = (uint32_t)want_nodes;
  }
  int r1 = table_fit(&ix->fn_slots, &ix->fn_mask, (uint32_t)want_fns);
  if (r1 < 0) return r1;
  int r2 = table_fit(&ix->kid_slots, &ix->kid_mask, (uint32_t)want_nodes);
  if (r2 < 0) return r2;
  rehash(t, r1, r2);
  return 0;
}

static int fn_of(cprof__tree_t *t, const cprof_frame_t *fr, uint32_t *out) {
  struct cprof__tindex_s *ix = t->index;
  uint32_t j = fn_hash(fr) & ix->fn_mask;
  while (ix->fn_slots[j] != 0 && !fn_eq(t->fns[ix->fn_slots[j] - 1].frame, fr))
    j = (j + 1) & ix->fn_mask;
  if (ix->fn_slots[j] == 0) {
    cprof__fn_t *fn = &t->fns[t->nfns];
    fn->frame = fr;
    fn->kind = cprof__frame_kind(fr);
    if ((fn->label = cprof__frame_label(fr)) == NULL) return CPROF_ENOMEM;
    ix->fn_slots[j] = ++t->nfns;
  }
  *out = ix->fn_slots[j] - 1;
  return 0;
}

static uint32_t new_node(cprof__tree_t *t, uint32_t parent, uint32_t fn) {
  uint32_t i = t->nnodes++;
  cprof__tnode_t *n = &t->nodes[i];
  *n = (cprof__tnode_t){.fn = fn,
                        .parent = parent,
                        .first_child = CPROF_NONE,
                        .next_sibling = CPROF_NONE,
                        .depth = parent == CPROF_NONE ? 0 : t->nodes[parent].depth + 1};
  if (parent != CPROF_NONE) { /* unsorted until finish: prepend */
    n->next_sibling = t->nodes[parent].first_child;
    t->nodes[parent].first_child = i;
    if (n->depth > t->max_depth) t->max_depth = n->depth;
  }
  return i;
}

static uint32_t child_of(cprof__tree_t *t, uint32_t parent, uint32_t fn) {
  struct cprof__tindex_s *ix = t->index;
  uint32_t j = kid_hash(parent, fn) & ix->kid_mask;
  for (; ix->kid_slots[j] != 0; j = (j + 1) & ix->kid_mask) {
    const cprof__tnode_t *n = &t->nodes[ix->kid_slots[j] - 1];
    if (n->parent == parent && n->fn == fn) return ix->kid_slots[j] - 1;
  }
  uint32_t i = new_node(t, parent, fn);
  ix->kid_slots[j] = i + 1;
  return i;
}

static int tree_fill(cprof__tree_t *t, const cprof_profile_t *p, int slot, uint32_t *frame_fn,
                     uint32_t *node_map) {
  int rc;
  for (uint32_t i = 0; i < p->nframes; i++)
    if ((rc = fn_of(t, &p->frames[i], &frame_fn[i])) != 0) return rc;
  if (t->nnodes == 0) new_node(t, CPROF_NONE, frame_fn[p->nodes[0].frame]);
  node_map[0] = 0;
  for (uint32_t i = 1; i < p->nnodes; i++)
    node_map[i] = child_of(t, node_map[p->nodes[i].parent], frame_fn[p->nodes[i].frame]);
  for (uint32_t i = 0; i < p->nnodes; i++) {
    cprof__tnode_t *n = &t->nodes[node_map[i]];
    n->self[slot] = cprof__sat_add(n->self[slot], p->nodes[i].self);
  }
  for (uint32_t i = 0; i < p->nsamples; i++)
    t->nodes[node_map[p->samples[i]]].count[slot]++;
  t->samples[slot] += p->nsamples;
  return 0;
}

int cprof__tree_add(cprof__tree_t *t, const cprof_profile_t *p, int slot) {
  return cprof__tree_add_mapped(t, p, slot, NULL);
}

int cprof__tree_add_mapped(cprof__tree_t *t, const cprof_profile_t *p, int slot, uint32_t *map) {
  if (t == NULL || p == NULL || slot < 0 || slot > 1 || cprof__check_model(p) != 0)
    return CPROF_EINVAL;
  if (t->nnodes > 0 && t->kind != p->kind) return CPROF_EINVAL;
  t->kind = p->kind;
  if (t->index == NULL && (t->index = calloc(1, sizeof(*t->index))) == NULL) return CPROF_ENOMEM;
  int rc = tree_reserve(t, p->nframes, p->nnodes);
  if (rc != 0) return rc;
  uint32_t *frame_fn = malloc(((size_t)p->nframes + 1) * sizeof(*frame_fn));
  uint32_t *node_map = malloc((size_t)p->nnodes * sizeof(*node_map));
  rc = frame_fn && node_map ? tree_fill(t, p, slot, frame_fn, node_map) : CPROF_ENOMEM;
  free(frame_fn);
  /* map: the caller's copy (the viewer's timeline, export_html.c). */
  if (rc == 0 && map) memcpy(map, node_map, (size_t)p->nnodes * sizeof(*node_map));
  /* Kept: node indexes do not change in finish, and pprof's per-line
   * samples (export_pprof.c) go from a profile node to its tree node. */
  free(t->node_of);
  t->node_of = rc == 0 ? node_map : NULL;
  t->nnode_of = rc == 0 ? p->nnodes : 0;
  if (rc != 0) free(node_map);
  return rc;
}

typedef struct {
  const char *label;
  uint32_t fn;
  uint32_t node;
} kid_t;

static int kid_cmp(const void *va, const void *vb) {
  const kid_t *a = va, *b = vb;
  int c = strcmp(a->label, b->label);
  if (c != 0) return c;
  return a->fn < b->fn ? -1 : a->fn > b->fn;
}

int cprof__tree_finish(cprof__tree_t *t) {
  if (t->index != NULL) {
    free(t->index->fn_slots);
    free(t->index->kid_slots);
    free(t->index);
    t->index = NULL;
  }
  if (t->nnodes == 0) return CPROF_EINVAL;
  kid_t *kids = malloc((size_t)t->nnodes * sizeof(*kids));
  if (kids == NULL) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < t->nnodes; i++) {
    uint32_t n = 0;
    for (uint32_t c = t->nodes[i].first_child; c != CPROF_NONE; c = t->nodes[c].next_sibling)
      kids[n++] = (kid_t){t->fns[t->nodes[c].fn].label, t->nodes[c].fn, c};
    if (n < 2) continue;
    qsort(kids, n, sizeof(*kids), kid_cmp);
    t->nodes[i].first_child = kids[0].node;
    for (uint32_t k = 0; k < n; k++)
      t->nodes[kids[k].node].next_sibling = k + 1 < n ? kids[k + 1].node : CPROF_NONE;
  }
  free(kids);
  t->total[0] = t->total[1] = 0;
  for (uint32_t i = 0; i < t->nnodes; i++)
    for (int s = 0; s < 2; s++) {
      t->nodes[i].total[s] = t->nodes[i].self[s];
      t->total[s] = cprof__sat_add(t->total[s], t->nodes[i].self[s]);
    }
  for (uint32_t i = t->nnodes; i-- > 1;)
    for (int s = 0; s < 2; s++) {
      cprof__tnode_t *parent = &t->nodes[t->nodes[i].parent];
      parent->total[s] = cprof__sat_add(parent->total[s], t->nodes[i].total[s]);
    }
  return 0;
}

void cprof__tree_free(cprof__tree_t *t) {
  if (t == NULL) return;
  for (uint32_t i = 0; i < t->nfns; i++)
    free(t->fns[i].label);
  free(t->fns);
  free(t->nodes);
  free(t->node_of);
  if (t->index != NULL) {
    free(t->index->fn_slots);
    free(t->index->kid_slots);
    free(t->index);
  }
  *t = (cprof__tree_t){0};
}

int cprof__tree_build(cprof__tree_t *t, const cprof_profile_t *p) {
  *t = (cprof__tree_t){0};
  int rc = cprof__tree_add(t, p, 0);
  if (rc == 0) rc = cprof__tree_finish(t);
  if (rc != 0) cprof__tree_free(t);
  return rc;
}

uint32_t cprof__tree_find_fns(const cprof__tree_t *t, const char *name, uint32_t *out,
                              uint32_t max) {
  uint32_t n = 0;
  for (int pass = 0; pass < 2 && n == 0; pass++)
    for (uint32_t i = 0; i < t->nfns && n < max; i++) {
      const cprof_frame_t *f = t->fns[i].frame;
      const char *display = f->name[0] ? f->name : "(anonymous)";
      if (pass == 0 ? strcmp(display, name) == 0 : strstr(t->fns[i].label, name) != NULL)
        out[n++] = i;
    }
  return n;
}

/* cprof_profile_limit_depth: V8's stackDepth applied after the fact.
 *
 * A node at depth d <= max_depth stays. A deeper node stands for a stack
 * whose innermost max_depth frames are those of its max_depth - 1 nearest
 * ancestors and itself; its weight moves to the node for that path under
 * the root, found or created through a (parent, frame) -> child table, so
 * equal paths merge, with each other and with the nodes that stayed.
 *
 * Deep nodes without weight (no self, no hits, no samples) are only the
 * outer frames of deeper stacks and go away with them, as they would in V8;
 * so do kept nodes left with no weight and no children, except nodes that
 * were leaves before (not ours to drop). Everything is built aside and only
 * swapped in at the end: on failure the profile is untouched. No recursion;
 * O(nodes * max_depth) at worst. */
#include "depth.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "profile.h"

/* flags on a node of the new tree */
#define F_WEIGHT 1u /* self, hits or a sample of its own */
#define F_LEAF 2u   /* kept from the old tree, where it had no children */
#define F_NEW 4u    /* created here: gets a fresh id */
#define F_KEEP 8u
#define F_KID 16u /* some child is kept */

typedef struct {
  uint32_t parent, frame, child; /* child == CPROF_NONE: empty slot */
} slot_t;

typedef struct {
  /* old tree */
  const cprof_profile_t *p;
  uint32_t *depth;  /* per old node */
  uint32_t *map;    /* old node -> new index, CPROF_NONE when dropped */
  uint8_t *sampled; /* per old node */
  /* new tree */
  cprof_node_t *nodes;
  uint8_t *flags;
  uint32_t *last; /* last child per new node, to append in order */
  uint32_t n, cap;
  slot_t *slots;
  uint32_t mask, used;
  uint32_t *path; /* max_depth frames, outermost first */
} ctx_t;

static void ctx_free(ctx_t *c) {
  free(c->depth);
  free(c->map);
  free(c->sampled);
  free(c->nodes);
  free(c->flags);
  free(c->last);
  free(c->slots);
  free(c->path);
}

static uint32_t slot_of(const ctx_t *c, uint32_t parent, uint32_t frame) {
  uint32_t key[2] = {parent, frame};
  uint64_t h = cprof__hash_bytes(CPROF__HASH_SEED, key, sizeof(key));
  uint32_t j = (uint32_t)(h ^ (h >> 32)) & c->mask;
  while (c->slots[j].child != CPROF_NONE &&
         (c->slots[j].parent != parent || c->slots[j].frame != frame))
    j = (j + 1) & c->mask;
  return j;
}

static int table_init(ctx_t *c, uint32_t n) {
  uint64_t cap = 64;
  while (cap < (uint64_t)n * 2)
    cap *= 2;
  if (cap > (UINT64_C(1) << 31)) return CPROF_ENOMEM;
  c->slots = malloc((size_t)cap * sizeof(*c->slots));
  if (c->slots == NULL) return CPROF_ENOMEM;
  memset(c->slots, 0xff, (size_t)cap * sizeof(*c->slots));
  c->mask = (uint32_t)cap - 1;
  return 0;
}

/* Keeps the load at most 1/2. */
static int table_grow(ctx_t *c) {
  uint32_t cap = c->mask + 1;
  if ((uint64_t)(c->used + 1) * 2 <= cap) return 0;
  if (cap >= (UINT32_C(1) << 31)) return CPROF_ENOMEM;
  slot_t *old = c->slots;
  if (table_init(c, cap) != 0) {
    c->slots = old;
    return CPROF_ENOMEM;
  }
  for (uint32_t i = 0; i < cap; i++)
    if (old[i].child != CPROF_NONE) c->slots[slot_of(c, old[i].parent, old[i].frame)] = old[i];
  free(old);
  return 0;
}

/* The first child with this frame wins; later equal siblings are left out
 * of the table (a file may have them; V8 does not). */
static int table_put(ctx_t *c, uint32_t parent, uint32_t frame, uint32_t child) {
  if (table_grow(c) != 0) return CPROF_ENOMEM;
  uint32_t j = slot_of(c, parent, frame);
  if (c->slots[j].child != CPROF_NONE) return 0;
  c->slots[j] = (slot_t){parent, frame, child};
  c->used++;
  return 0;
}

static int nodes_reserve(ctx_t *c) {
  if (c->n < c->cap) return 0;
  if (c->n >= UINT32_MAX - 1) return CPROF_ENOMEM; /* CPROF_NONE is not an index */
  uint32_t cap = c->cap >= UINT32_MAX / 2 ? UINT32_MAX - 1 : c->cap * 2;
  cprof_node_t *nodes = realloc(c->nodes, (size_t)cap * sizeof(*nodes));
  if (nodes == NULL) return CPROF_ENOMEM;
  c->nodes = nodes;
  uint8_t *flags = realloc(c->flags, (size_t)cap * sizeof(*flags));
  if (flags == NULL) return CPROF_ENOMEM;
  c->flags = flags;
  uint32_t *last = realloc(c->last, (size_t)cap * sizeof(*last));
  if (last == NULL) return CPROF_ENOMEM;
  c->last = last;
  c->cap = cap;
  return 0;
}

/* Appends a node to the new tree as the last child of parent. */
static int add_node(ctx_t *c, const cprof_node_t *from, uint32_t parent, uint32_t frame,
                    uint8_t flags, uint32_t *out) {
  if (nodes_reserve(c) != 0) return CPROF_ENOMEM;
  uint32_t k = c->n++;
  cprof_node_t *n = &c->nodes[k];
  *n = (cprof_node_t){.id = from ? from->id : 0,
                      .parent = parent,
                      .frame = frame,
                      .first_child = CPROF_NONE,
                      .next_sibling = CPROF_NONE,
                      .hit_count = from ? from->hit_count : 0,
                      .self = from ? from->self : 0};
  c->flags[k] = flags;
  c->last[k] = CPROF_NONE;
  if (parent != CPROF_NONE) {
    if (c->last[parent] == CPROF_NONE)
      c->nodes[parent].first_child = k;
    else
      c->nodes[c->last[parent]].next_sibling = k;
    c->last[parent] = k;
  }
  *out = k;
  return 0;
}

/* F_WEIGHT or 0 for an old node. */
static uint8_t weight(const ctx_t *c, uint32_t i) {
  const cprof_node_t *n = &c->p->nodes[i];
  return n->self != 0 || n->hit_count != 0 || c->sampled[i] ? F_WEIGHT : 0;
}

/* The nodes within max_depth, each appended with its siblings when its
 * parent comes up (parents first); chains are walked, not indexes, so
 * sibling order survives whatever the old numbering. */
static int copy_shallow(ctx_t *c, uint32_t max_depth) {
  const cprof_profile_t *p = c->p;
  for (uint32_t i = 0; i < p->nnodes; i++)
    c->map[i] = CPROF_NONE;
  for (uint32_t i = 0; i < p->nnodes; i++) {
    const cprof_node_t *o = &p->nodes[i];
    if (c->depth[i] > max_depth) continue;
    if (i == 0) {
      uint32_t k;
      if (add_node(c, o, CPROF_NONE, o->frame, weight(c, 0), &k) != 0) return CPROF_ENOMEM;
      c->map[0] = k;
    }
    if (c->depth[i] == max_depth) continue; /* its children are all deep */
    for (uint32_t ch = o->first_child; ch != CPROF_NONE; ch = p->nodes[ch].next_sibling) {
      const cprof_node_t *oc = &p->nodes[ch];
      uint8_t f = weight(c, ch) | (oc->first_child == CPROF_NONE ? F_LEAF : 0);
      if (add_node(c, oc, c->map[i], oc->frame, f, &c->map[ch]) != 0 ||
          table_put(c, c->map[i], oc->frame, c->map[ch]) != 0)
        return CPROF_ENOMEM;
    }
  }
  return 0;
}

static uint32_t sat_add_u32(uint32_t a, uint32_t b) {
  return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* A deep node with weight: find or create the node for its innermost
 * max_depth frames, and move its weight there. */
static int map_deep(ctx_t *c, uint32_t i, uint32_t max_depth) {
  const cprof_profile_t *p = c->p;
  uint32_t cur = 0, a = i;
  for (uint32_t k = max_depth; k-- > 0; a = p->nodes[a].parent)
    c->path[k] = p->nodes[a].frame;
  for (uint32_t k = 0; k < max_depth; k++) {
    uint32_t j = slot_of(c, cur, c->path[k]);
    if (c->slots[j].child != CPROF_NONE) {
      cur = c->slots[j].child;
      continue;
    }
    uint32_t next;
    if (add_node(c, NULL, cur, c->path[k], F_NEW, &next) != 0 ||
        table_put(c, cur, c->path[k], next) != 0)
      return CPROF_ENOMEM;
    cur = next;
  }
  cprof_node_t *to = &c->nodes[cur];
  const cprof_node_t *from = &p->nodes[i];
  to->self = cprof__sat_add(to->self, from->self);
  to->hit_count = sat_add_u32(to->hit_count, from->hit_count);
  c->flags[cur] |= F_WEIGHT;
  c->map[i] = cur;
  return 0;
}

/* Marks what stays (reverse order: children before parents) and unlinks
 * the rest from the sibling chains. */
static void prune(ctx_t *c) {
  cprof_node_t *N = c->nodes;
  for (uint32_t k = c->n; k-- > 0;) {
    if (k == 0 || (c->flags[k] & (F_WEIGHT | F_LEAF | F_KID)) != 0) c->flags[k] |= F_KEEP;
    if (k > 0 && (c->flags[k] & F_KEEP) != 0) c->flags[N[k].parent] |= F_KID;
  }
  for (uint32_t k = 0; k < c->n; k++) {
    uint32_t prev = CPROF_NONE, ch = N[k].first_child;
    if ((c->flags[k] & F_KEEP) == 0) continue;
    N[k].first_child = CPROF_NONE;
    while (ch != CPROF_NONE) {
      uint32_t next = N[ch].next_sibling;
      if ((c->flags[ch] & F_KEEP) != 0) {
        if (prev == CPROF_NONE)
          N[k].first_child = ch;
        else
          N[prev].next_sibling = ch;
        prev = ch;
      }
      ch = next;
    }
    if (prev != CPROF_NONE) N[prev].next_sibling = CPROF_NONE;
  }
}

/* Numbers the kept nodes in preorder, as the parser would number the
 * exported result, into fin (reusing last). Returns the count. */
static uint32_t number(ctx_t *c) {
  const cprof_node_t *N = c->nodes;
  uint32_t *fin = c->last, m = 0, cur = 0;
  for (uint32_t k = 0; k < c->n; k++)
    fin[k] = CPROF_NONE;
  for (;;) {
    fin[cur] = m++;
    if (N[cur].first_child != CPROF_NONE) {
      cur = N[cur].first_child;
      continue;
    }
    while (cur != 0 && N[cur].next_sibling == CPROF_NONE)
      cur = N[cur].parent;
    if (cur == 0) return m;
    cur = N[cur].next_sibling;
  }
}

#define FIN(fin, x) ((x) == CPROF_NONE ? CPROF_NONE : (fin)[x])

/* The final array: kept nodes in preorder, links renumbered. */
static cprof_node_t *permute(ctx_t *c, uint32_t m) {
  const uint32_t *fin = c->last;
  cprof_node_t *out = malloc((size_t)m * sizeof(*out));
  if (out == NULL) return NULL;
  for (uint32_t k = 0; k < c->n; k++) {
    if (fin[k] == CPROF_NONE) continue;
    cprof_node_t n = c->nodes[k];
    n.parent = FIN(fin, n.parent);
    n.first_child = FIN(fin, n.first_child);
    n.next_sibling = FIN(fin, n.next_sibling);
    out[fin[k]] = n;
  }
  return out;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Created nodes that stay get ids above every old id; if that would pass
 * UINT32_MAX (ids are arbitrary uint32), the smallest ids no other node
 * that stays uses. */
static int assign_ids(ctx_t *c) {
  uint32_t max = 0, fresh = 0, old = 0;
  for (uint32_t i = 0; i < c->p->nnodes; i++)
    if (c->p->nodes[i].id > max) max = c->p->nodes[i].id;
  for (uint32_t k = 0; k < c->n; k++)
    if ((c->flags[k] & (F_KEEP | F_NEW)) == (F_KEEP | F_NEW))
      fresh++;
    else if ((c->flags[k] & F_KEEP) != 0)
      old++;
  if (fresh <= UINT32_MAX - max) {
    for (uint32_t k = 0; k < c->n; k++)
      if ((c->flags[k] & (F_KEEP | F_NEW)) == (F_KEEP | F_NEW)) c->nodes[k].id = ++max;
    return 0;
  }
  uint32_t *ids = malloc((size_t)old * sizeof(*ids)), cand = 0, j = 0;
  if (ids == NULL) return CPROF_ENOMEM;
  old = 0;
  for (uint32_t k = 0; k < c->n; k++)
    if ((c->flags[k] & (F_KEEP | F_NEW)) == F_KEEP) ids[old++] = c->nodes[k].id;
  qsort(ids, old, sizeof(*ids), cmp_u32);
  /* Fewer than UINT32_MAX nodes in all: the candidates never run out. */
  for (uint32_t k = 0; k < c->n; k++) {
    if ((c->flags[k] & (F_KEEP | F_NEW)) != (F_KEEP | F_NEW)) continue;
    while (j < old && ids[j] <= cand)
      if (ids[j++] == cand) cand++;
    c->nodes[k].id = cand++;
  }
  free(ids);
  return 0;
}

/* Self (CPU: from the samples, as the parser does) and total. */
static void sums(const cprof_profile_t *p, cprof_node_t *nodes, uint32_t n, const uint32_t *map) {
  if (p->kind == CPROF_KIND_CPU) {
    for (uint32_t k = 0; k < n; k++)
      nodes[k].self = 0;
    for (uint32_t s = 0; s < p->nsamples; s++) {
      cprof_node_t *to = &nodes[map[p->samples[s]]];
      to->self = cprof__sat_add(to->self, cprof_sample_weight(p, s));
    }
  }
  for (uint32_t k = 0; k < n; k++)
    nodes[k].total = nodes[k].self;
  /* Parents precede children: one reverse pass sees every child first. */
  for (uint32_t k = n; k-- > 1;)
    nodes[nodes[k].parent].total = cprof__sat_add(nodes[nodes[k].parent].total, nodes[k].total);
}

/* The new tree, in *out with *count nodes; c->map then maps every old
 * node that had weight to its final index. */
static int build(ctx_t *c, uint32_t max_depth, cprof_node_t **out, uint32_t *count) {
  const cprof_profile_t *p = c->p;
  uint32_t shallow = 0;
  for (uint32_t i = 0; i < p->nnodes; i++)
    shallow += c->depth[i] <= max_depth;
  c->cap = shallow < 1024 ? 1024 : shallow;
  c->nodes = malloc((size_t)c->cap * sizeof(*c->nodes));
  c->flags = malloc((size_t)c->cap * sizeof(*c->flags));
  c->last = malloc((size_t)c->cap * sizeof(*c->last));
  c->path = malloc((size_t)max_depth * sizeof(*c->path));
  if (c->nodes == NULL || c->flags == NULL || c->last == NULL || c->path == NULL ||
      table_init(c, shallow) != 0 || copy_shallow(c, max_depth) != 0)
    return CPROF_ENOMEM;
  for (uint32_t i = 1; i < p->nnodes; i++)
    if (c->depth[i] > max_depth && weight(c, i) && map_deep(c, i, max_depth) != 0)
      return CPROF_ENOMEM;
  prune(c);
  if (assign_ids(c) != 0) return CPROF_ENOMEM;
  *count = number(c);
  if ((*out = permute(c, *count)) == NULL) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < p->nnodes; i++)
    c->map[i] = FIN(c->last, c->map[i]);
  return 0;
}

int cprof_profile_limit_depth(cprof_profile_t *p, uint32_t max_depth) {
  ctx_t c = {.p = p};
  cprof_node_t *nodes = NULL;
  uint32_t deepest = 0, count = 0;
  int rc;
  if (p == NULL) return CPROF_EINVAL;
  if (max_depth == 0) return CPROF_OK;
  if (cprof__check_model(p) != 0) return CPROF_EINVAL;
  c.depth = malloc((size_t)p->nnodes * sizeof(*c.depth));
  if (c.depth == NULL) return CPROF_ENOMEM;
  c.depth[0] = 0;
  for (uint32_t i = 1; i < p->nnodes; i++) {
    c.depth[i] = c.depth[p->nodes[i].parent] + 1;
    if (c.depth[i] > deepest) deepest = c.depth[i];
  }
  if (deepest <= max_depth) {
    free(c.depth);
    return CPROF_OK;
  }
  c.map = malloc((size_t)p->nnodes * sizeof(*c.map));
  c.sampled = calloc(p->nnodes, sizeof(*c.sampled));
  rc = c.map == NULL || c.sampled == NULL ? CPROF_ENOMEM : 0;
  if (rc == 0) {
    for (uint32_t s = 0; s < p->nsamples; s++)
      c.sampled[p->samples[s]] = 1;
    rc = build(&c, max_depth, &nodes, &count);
  }
  if (rc == 0) {
    /* Nothing fails from here on: p changes all at once. */
    sums(p, nodes, count, c.map);
    for (uint32_t s = 0; s < p->nsamples; s++)
      p->samples[s] = c.map[p->samples[s]];
    free(p->nodes);
    p->nodes = nodes;
    p->nnodes = count;
    /* Moved nodes merge: their lines no longer split one node's self. A
     * depth limit is the heap profiles' (which have none) anyway. */
    free(p->line_ticks);
    p->line_ticks = NULL;
    p->nline_ticks = 0;
  }
  ctx_free(&c);
  return rc;
}

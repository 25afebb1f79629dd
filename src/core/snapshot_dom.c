/* The dominator tree of a snapshot and the retained sizes, by DevTools'
 * rules (HeapSnapshot.ts: calculateDominatorsAndRetainedSizes), so the
 * numbers agree with the Memory panel's:
 *  - the tree grows from the root along essential edges only
 *    (snapshot_graph.c: essential; weak edges never retain);
 *  - nodes the root does not reach: those with no essential retainer
 *    (orphans) hang from the root with what they reach; the rest (cycles
 *    only unreachable nodes hold) are given to the root, and their edges
 *    change no one else's dominator.
 *
 * The algorithm is Lengauer and Tarjan's, "A Fast Algorithm for Finding
 * Dominators in a Flowgraph" (ACM TOPLAS 1(1), 1979), its simple version
 * (path compression without balancing: O(m log n) on every shape), as
 * DevTools has it now. (Before, Cooper, Harvey and Kennedy's iteration
 * climbed a dominator chain per retainer: quadratic on a long linked list,
 * 255 s for 200,000 entries.) Two changes from the paper, for memory:
 *  - a vertex's bucket is emptied when the loop reaches the vertex
 *    itself, not after each child is linked: the forest's path from a
 *    bucket's member up to the vertex is the same then (the tree path,
 *    all of it linked), and a bucket's head can live in the vertex's
 *    label, unused until it is linked;
 *  - the predecessor lists are read from their end as the loop goes down
 *    the preorder numbers, and every list has an entry (an orphan's is the
 *    root), so the part read has a free word per vertex linked: the
 *    semidominators are kept there.
 * Besides the lists (a word per essential edge), the loop takes 3 words a
 * node (ancestor, label, dominator): the 12 bytes a node and 4 an edge the
 * iteration took before. Everything is an array, nothing recurses (a
 * 1e6-deep chain is a 1e6-deep DFS). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "snapshot.h"

#define NOMEM()                                                                                    \
  cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory analysing the heap snapshot")

/* The top bit of a list entry marks a list's first entry; of a dominator,
 * one to be read through the vertex named (LT's relative dominator).
 * Preorder numbers stay below it (cprof__snap_dominators refuses more). */
#define FIRST 0x80000000u
#define MASK 0x7fffffffu

static int bit(const uint8_t *bits, uint32_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}

static void set_bit(uint8_t *bits, uint32_t i) {
  bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* ---- preorder numbers ---- */

/* A depth-first numbering along essential edges, DevTools' order: from
 * the root, then from each orphan (held: the nodes some essential edge
 * points to), then the rest one by one. Run twice (the second time for
 * pre2node only, once the loop's arrays are gone), so it is the same walk
 * both times. Outputs may be NULL. */
typedef struct {
  const cprof__snap_t *s;
  const uint8_t *held;
  uint8_t *seen;
  uint32_t *stack, *cursor;               /* the walk: node, next edge */
  uint32_t *node2pre, *parent, *pre2node; /* parent: by preorder number */
  uint32_t count, from_root, tree;        /* numbered; by the root's walk; in a tree */
} walk_t;

static void visit(walk_t *w, uint32_t node, uint32_t parent) {
  set_bit(w->seen, node);
  if (w->node2pre) w->node2pre[node] = w->count;
  if (w->parent) w->parent[w->count] = parent;
  if (w->pre2node) w->pre2node[w->count] = node;
  w->count++;
}

static void dfs(walk_t *w, uint32_t start, uint32_t parent) {
  const cprof__snap_t *s = w->s;
  uint32_t top = 0;
  visit(w, start, parent);
  w->stack[top] = start, w->cursor[top++] = s->first_edge[start];
  while (top > 0) {
    uint32_t n = w->stack[top - 1], e = w->cursor[top - 1], end = s->first_edge[n + 1];
    while (e < end && (!cprof__snap_essential(s, e) || bit(w->seen, cprof__snap_to(s, e))))
      e++;
    if (e == end) {
      top--;
      continue;
    }
    w->cursor[top - 1] = e + 1;
    uint32_t to = cprof__snap_to(s, e);
    visit(w, to, w->node2pre ? w->node2pre[n] : 0);
    w->stack[top] = to, w->cursor[top++] = s->first_edge[to];
  }
}

static void number(walk_t *w) {
  uint32_t n = w->s->node_count;
  dfs(w, w->s->root, CPROF__SNAP_NONE);
  w->from_root = w->count;
  for (uint32_t i = 0; i < n && w->count < n; i++)
    if (!bit(w->seen, i) && !bit(w->held, i)) dfs(w, i, 0);
  w->tree = w->count;
  for (uint32_t i = 0; i < n && w->count < n; i++)
    if (!bit(w->seen, i)) visit(w, i, 0);
}

/* The walk with its own scratch arrays, freed after. */
static int walk(walk_t *w) {
  size_t n = w->s->node_count;
  w->seen = calloc(n / 8 + 1, 1);
  w->stack = malloc(n * sizeof *w->stack);
  w->cursor = malloc(n * sizeof *w->cursor);
  int ok = w->seen && w->stack && w->cursor;
  if (ok) number(w);
  free(w->seen), free(w->stack), free(w->cursor);
  w->seen = NULL, w->stack = w->cursor = NULL;
  return ok ? CPROF_OK : CPROF_ENOMEM;
}

static uint8_t *held_bits(const cprof__snap_t *s) {
  uint8_t *held = calloc(s->node_count / 8 + 1, 1);
  if (held == NULL) return NULL;
  for (uint32_t e = 0; e < s->edge_count; e++)
    if (cprof__snap_essential(s, e)) set_bit(held, cprof__snap_to(s, e));
  return held;
}

/* ---- predecessor lists ---- */

/* The essential edges between tree vertices, by target's preorder number
 * (1 .. tree - 1; the root's is not needed), as their sources' numbers:
 * a counting sort, then each list's first entry marked. An orphan's list
 * is the root (0), as DevTools has it. *len: the entries. */
static uint32_t *predecessors(const cprof__snap_t *s, const uint32_t *node2pre, uint32_t tree,
                              size_t *len) {
  uint32_t *at = calloc((size_t)tree + 1, sizeof *at), *ret = NULL;
  if (at == NULL) return NULL;
  for (uint32_t from = 0; from < s->node_count; from++) {
    if (node2pre[from] >= tree) continue;
    for (uint32_t e = s->first_edge[from]; e < s->first_edge[from + 1]; e++) {
      uint32_t p = cprof__snap_essential(s, e) ? node2pre[cprof__snap_to(s, e)] : 0;
      if (p > 0 && p < tree) at[p + 1]++;
    }
  }
  for (uint32_t p = 1; p < tree; p++)
    at[p + 1] += at[p] + (at[p + 1] == 0); /* an orphan: the root */
  *len = at[tree];
  if ((ret = calloc(*len + 1, sizeof *ret)) != NULL) {
    for (uint32_t p = 1; p < tree; p++)
      ret[at[p]] = FIRST; /* and the root, left there in an orphan's */
    for (uint32_t from = 0; from < s->node_count; from++) {
      uint32_t q = node2pre[from];
      if (q >= tree) continue;
      for (uint32_t e = s->first_edge[from]; e < s->first_edge[from + 1]; e++) {
        uint32_t p = cprof__snap_essential(s, e) ? node2pre[cprof__snap_to(s, e)] : 0;
        if (p > 0 && p < tree) ret[at[p]++] |= q;
      }
    }
  }
  free(at);
  return ret;
}

/* ---- Lengauer-Tarjan ---- */

typedef struct {
  uint32_t *anc;   /* the DFS tree's parent, then the forest's compressed ancestor */
  uint32_t *label; /* linked: the vertex of least semi on its path; else its bucket */
  uint32_t *dom;   /* in a bucket: the next member; then the dominator (FIRST: relative) */
  uint32_t *ret;   /* predecessor lists; the part read holds semi */
  size_t len;      /* entries in ret */
  uint32_t tree;   /* vertices 1 .. tree - 1 are the loop's */
  uint32_t w;      /* the vertex the loop is at: those above it are linked */
} lt_t;

/* v's semidominator: kept past the lists' unread part once v is linked
 * (at ret[len - tree + v], at or above v's own list: every list of v ..
 * tree - 1 has an entry), v itself before. */
static uint32_t semi(const lt_t *t, uint32_t v) {
  return v > t->w ? t->ret[t->len + v - t->tree] : v;
}

/* The paper's COMPRESS without recursion or a stack: up the path,
 * reversing its ancestor pointers, then down again, labels from above and
 * every ancestor set to the path's top. */
static void compress(lt_t *t, uint32_t v) {
  uint32_t below = CPROF__SNAP_NONE, x = v;
  while (t->anc[x] > t->w) {
    uint32_t up = t->anc[x];
    t->anc[x] = below;
    below = x, x = up;
  }
  uint32_t top = t->anc[x], upper = x;
  while (below != CPROF__SNAP_NONE) {
    uint32_t next = t->anc[below];
    if (semi(t, t->label[upper]) < semi(t, t->label[below])) t->label[below] = t->label[upper];
    t->anc[below] = top;
    upper = below, below = next;
  }
}

static uint32_t eval(lt_t *t, uint32_t v) {
  if (v <= t->w) return v;
  compress(t, v);
  return t->label[v];
}

/* Step 3 for the bucket of p (the vertices whose semidominator is p). */
static void drain(lt_t *t, uint32_t p) {
  for (uint32_t v = t->label[p]; v != CPROF__SNAP_NONE;) {
    uint32_t next = t->dom[v], u = eval(t, v);
    t->dom[v] = semi(t, u) < semi(t, v) ? u | FIRST : p;
    v = next;
  }
}

/* Steps 2 and 3, then 4 (relative dominators resolved, in preorder). */
static void dominators(lt_t *t, uint32_t n) {
  size_t at = t->len;
  for (t->w = t->tree - 1; t->w > 0; t->w--) {
    uint32_t w = t->w, best = w, x;
    drain(t, w);
    t->label[w] = w;
    do {
      x = t->ret[--at];
      uint32_t u = eval(t, x & MASK), su = semi(t, u);
      if (su < best) best = su;
    } while (!(x & FIRST));
    t->ret[t->len + w - t->tree] = best;
    t->dom[w] = t->label[best];
    t->label[best] = w;
  }
  drain(t, 0);
  t->dom[0] = 0;
  for (uint32_t p = 1; p < t->tree; p++)
    if (t->dom[p] & FIRST) t->dom[p] = t->dom[t->dom[p] & MASK];
  for (uint32_t p = t->tree; p < n; p++)
    t->dom[p] = 0;
}

/* ---- the result by node ---- */

/* s->dom and s->retained from the dominators by preorder number (freed),
 * with the numbering walked again: a dominator comes before what it
 * dominates, so sizes add up from the last number down. */
static int by_node(cprof__snap_t *s, const uint8_t *held, uint32_t *dom) {
  size_t n = s->node_count;
  walk_t w = {.s = s, .held = held, .pre2node = malloc(n * sizeof(uint32_t))};
  int rc = w.pre2node ? walk(&w) : CPROF_ENOMEM;
  if (rc == CPROF_OK && (s->dom = malloc(n * sizeof *s->dom)) == NULL) rc = CPROF_ENOMEM;
  if (rc == CPROF_OK)
    for (uint32_t p = 0; p < n; p++)
      s->dom[w.pre2node[p]] = w.pre2node[dom[p]];
  free(dom);
  if (rc == CPROF_OK && (s->retained = malloc(n * sizeof *s->retained)) == NULL) rc = CPROF_ENOMEM;
  if (rc == CPROF_OK) {
    for (uint32_t i = 0; i < n; i++)
      s->retained[i] = cprof__snap_self(s, i);
    for (uint32_t p = (uint32_t)n; p-- > 1;) {
      uint32_t node = w.pre2node[p];
      s->retained[s->dom[node]] += s->retained[node];
    }
  }
  free(w.pre2node);
  return rc;
}

/* Numbering, lists, the loop: each step's arrays given back before the
 * next allocates, so the peak is the loop's (see the top). */
static int compute(cprof__snap_t *s, const uint8_t *held, uint32_t **dom_out) {
  size_t n = s->node_count;
  walk_t w = {.s = s, .held = held};
  lt_t t = {0};
  w.node2pre = malloc(n * sizeof(uint32_t));
  w.parent = malloc(n * sizeof(uint32_t));
  int rc = w.node2pre && w.parent ? walk(&w) : CPROF_ENOMEM;
  if (rc == CPROF_OK) {
    s->unreachable = (uint32_t)n - w.from_root;
    t.ret = predecessors(s, w.node2pre, w.tree, &t.len);
  }
  free(w.node2pre);
  t.anc = w.parent, t.tree = w.tree;
  if (rc == CPROF_OK && t.ret != NULL) {
    t.label = malloc(n * sizeof(uint32_t));
    t.dom = malloc(n * sizeof(uint32_t));
  }
  if (rc == CPROF_OK && t.ret && t.label && t.dom) {
    memset(t.label, 0xff, n * sizeof(uint32_t)); /* every bucket empty */
    dominators(&t, (uint32_t)n);
    *dom_out = t.dom;
    t.dom = NULL;
  } else {
    rc = CPROF_ENOMEM;
  }
  free(t.anc), free(t.label), free(t.dom), free(t.ret);
  return rc;
}

int cprof__snap_dominators(cprof__snap_t *s, char *errbuf, size_t errlen) {
  /* preorder numbers below the top bit; list offsets (an entry an edge,
   * one an orphan) in 32 bits */
  if (s->node_count > MASK || (uint64_t)s->edge_count + s->node_count > UINT32_MAX)
    return cprof__errf(errbuf, errlen, CPROF_ENOMEM,
                       "%u nodes and %u edges: the dominator tree takes at most %u nodes and "
                       "%u nodes and edges",
                       s->node_count, s->edge_count, MASK, UINT32_MAX);
  uint8_t *held = held_bits(s);
  uint32_t *dom = NULL;
  int rc = held ? compute(s, held, &dom) : CPROF_ENOMEM;
  if (rc == CPROF_OK) rc = by_node(s, held, dom); /* frees dom */
  free(held);
  return rc == CPROF_OK ? CPROF_OK : NOMEM();
}

/* The dominator tree's children lists: dom_child[d] the first node d
 * dominates, dom_next[n] the next one with n's dominator (CPROF__SNAP_NONE
 * ends a list), in node order. dom_next is written over dom, which each
 * step reads once just before: no array beyond dom_child. */
int cprof__snap_dominated(cprof__snap_t *s, char *errbuf, size_t errlen) {
  uint32_t n = s->node_count;
  if ((s->dom_child = malloc((n ? n : 1) * sizeof *s->dom_child)) == NULL) return NOMEM();
  memset(s->dom_child, 0xff, (size_t)n * sizeof *s->dom_child);
  uint32_t *next = s->dom;
  for (uint32_t i = n; i-- > 0;) {
    if (i == s->root) {
      next[i] = CPROF__SNAP_NONE;
      continue;
    }
    uint32_t d = s->dom[i];
    next[i] = s->dom_child[d];
    s->dom_child[d] = i;
  }
  s->dom_next = next;
  s->dom = NULL;
  return CPROF_OK;
}

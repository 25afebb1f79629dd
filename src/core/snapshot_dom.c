/* The dominator tree of a snapshot and the retained sizes, by DevTools'
 * rules (HeapSnapshot.ts: calculateDominatorsAndRetainedSizes), so the
 * numbers agree with the Memory panel's:
 *  - the tree grows from the root along essential edges only
 *    (snapshot_graph.c: essential; weak edges never retain);
 *  - nodes the root does not reach: first those with no essential
 *    retainer, with what they reach, then the rest, are given to the root.
 * The algorithm is Cooper, Harvey and Kennedy's "A Simple, Fast Dominance
 * Algorithm" (2001) over postorder numbers, on flat arrays. DevTools now
 * uses Lengauer-Tarjan; both give the one dominator tree of the reachable
 * graph. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "snapshot.h"

#define NOMEM()                                                                                    \
  cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory analysing the heap snapshot")

typedef struct {
  uint32_t *post2node, *node2post;
  uint32_t *stack, *cursor; /* DFS: node, next edge */
  uint8_t *visited;
  uint32_t count; /* postorder numbers given */
  /* The retainers, for the iteration only: ret[first_ret[n] ..
   * first_ret[n + 1]) are the postorder numbers of the sources of the
   * essential edges into node n, in the order of their sources. */
  uint32_t *first_ret, *ret;
} order_t;

static void push(const cprof__snap_t *s, order_t *o, uint32_t *top, uint32_t n) {
  o->stack[*top] = n;
  o->cursor[*top] = s->first_edge[n];
  o->visited[n] = 1;
  (*top)++;
}

/* Depth first until the stack is empty, numbering nodes as they finish. */
static void dfs(const cprof__snap_t *s, order_t *o, uint32_t top) {
  while (top > 0) {
    uint32_t n = o->stack[top - 1];
    uint32_t e = o->cursor[top - 1];
    if (e < s->first_edge[n + 1]) {
      o->cursor[top - 1]++;
      uint32_t to = cprof__snap_to(s, e);
      if (!o->visited[to] && cprof__snap_essential(s, e)) push(s, o, &top, to);
      continue;
    }
    o->node2post[n] = o->count;
    o->post2node[o->count++] = n;
    top--;
  }
}

/* DevTools' hasOnlyWeakRetainers: no retaining edge is essential. */
static int only_weak(const order_t *o, uint32_t n) {
  return o->first_ret[n] == o->first_ret[n + 1];
}

/* Counting sort of the essential edges by target, first the counts
 * (first_ret, which the postorder needs), then, once the postorder is
 * known, the sources as postorder numbers (ret): the iteration reads no
 * edge and no node2post, and the other edges take no room (the retainers
 * were 12 bytes an edge, the largest arrays of the iteration's peak). */
static void count_retainers(const cprof__snap_t *s, uint32_t *first_ret) {
  for (uint32_t e = 0; e < s->edge_count; e++)
    if (cprof__snap_essential(s, e)) first_ret[cprof__snap_to(s, e) + 1]++;
  for (uint32_t i = 0; i < s->node_count; i++)
    first_ret[i + 1] += first_ret[i];
}

static void fill_retainers(const cprof__snap_t *s, order_t *o) {
  uint32_t n = s->node_count;
  /* first_ret[i] is used as the fill cursor, then restored */
  for (uint32_t from = 0; from < n; from++)
    for (uint32_t e = s->first_edge[from]; e < s->first_edge[from + 1]; e++)
      if (cprof__snap_essential(s, e))
        o->ret[o->first_ret[cprof__snap_to(s, e)]++] = o->node2post[from];
  memmove(o->first_ret + 1, o->first_ret, (size_t)n * sizeof *o->first_ret);
  o->first_ret[0] = 0;
}

static void postorder(cprof__snap_t *s, order_t *o) {
  uint32_t top = 0;
  push(s, o, &top, s->root);
  dfs(s, o, top);
  if (o->count == s->node_count) return;
  s->unreachable = s->node_count - o->count;
  /* the root back at the bottom of the stack, done with its edges, so it
   * stays last; the orphans with only weak retainers above it */
  o->count--;
  top = 0;
  push(s, o, &top, s->root);
  o->cursor[0] = s->first_edge[s->root + 1];
  for (uint32_t i = 0; i < s->node_count; i++)
    if (!o->visited[i] && only_weak(o, i)) push(s, o, &top, i);
  dfs(s, o, top);
  if (o->count == s->node_count) return;
  o->count--;
  for (uint32_t i = 0; i < s->node_count; i++)
    if (!o->visited[i]) {
      o->node2post[i] = o->count;
      o->post2node[o->count++] = i;
    }
  o->node2post[s->root] = o->count;
  o->post2node[o->count++] = s->root;
}

/* The common dominator of postorder numbers a and b: climb the one with
 * the lower number. The step bound guards against a malformed graph. */
static uint32_t intersect(const uint32_t *dom, uint32_t a, uint32_t b, uint32_t root) {
  uint64_t steps = 0, limit = 4ull * root + 16;
  while (a != b) {
    while (a < b && steps++ < limit)
      a = dom[a];
    while (b < a && steps++ < limit)
      b = dom[b];
    if (steps >= limit || a > root || b > root) return root;
  }
  return a;
}

/* The new dominator of postorder number p from its retainers; `none` when
 * no retainer has one yet. */
static uint32_t from_retainers(const cprof__snap_t *s, const order_t *o, const uint32_t *dom,
                               uint32_t p, uint32_t none) {
  uint32_t n = o->post2node[p], root = s->node_count - 1, best = none;
  if (only_weak(o, n)) return root;
  for (uint32_t i = o->first_ret[n]; i < o->first_ret[n + 1]; i++) {
    uint32_t rp = o->ret[i];
    if (dom[rp] == none) continue;
    best = best == none ? rp : intersect(dom, rp, best, root);
    if (best == root) break;
  }
  return best;
}

/* Sweeps every node in reverse postorder until nothing changes, as Cooper,
 * Harvey and Kennedy do. (DevTools' older worker revisited only the nodes
 * whose retainers had changed; that misses a change further up a
 * retainer's dominator chain, which the intersection walks, and gives a
 * dominator too deep in some cycles of V8's templates: the full sweep
 * costs a few passes more and matches today's DevTools, Lengauer-Tarjan.)
 * An estimate only moves up the tree, so one at the root is final. The
 * pass bound guards against a malformed graph (real heaps take about 4). */
static void iterate(const cprof__snap_t *s, const order_t *o, uint32_t *dom) {
  uint32_t root = s->node_count - 1, none = s->node_count;
  for (int changed = 1, pass = 0; changed && pass < 10000; pass++) {
    changed = 0;
    for (uint32_t p = root; p-- > 0;) {
      if (dom[p] == root) continue;
      uint32_t d = from_retainers(s, o, dom, p, none);
      if (d == none || d == dom[p]) continue;
      dom[p] = d;
      changed = 1;
    }
  }
}

static void retained_sizes(cprof__snap_t *s, const order_t *o) {
  for (uint32_t i = 0; i < s->node_count; i++)
    s->retained[i] = cprof__snap_self(s, i);
  for (uint32_t p = 0; p + 1 < s->node_count; p++) {
    uint32_t n = o->post2node[p];
    s->retained[s->dom[n]] += s->retained[n];
  }
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

static void free_order(order_t *o) {
  free(o->node2post), free(o->stack), free(o->cursor), free(o->visited);
  o->node2post = o->stack = o->cursor = NULL;
  o->visited = NULL;
}

/* The postorder and the retainers (order_t). */
static int order(cprof__snap_t *s, order_t *o) {
  size_t n = s->node_count;
  o->post2node = malloc(n * sizeof(uint32_t));
  o->node2post = malloc(n * sizeof(uint32_t));
  o->stack = malloc(n * sizeof(uint32_t));
  o->cursor = malloc(n * sizeof(uint32_t));
  o->visited = calloc(n, 1);
  o->first_ret = calloc(n + 1, sizeof(uint32_t));
  if (!o->post2node || !o->node2post || !o->stack || !o->cursor || !o->visited || !o->first_ret)
    return CPROF_ENOMEM;
  count_retainers(s, o->first_ret);
  postorder(s, o);
  /* the DFS's arrays go back before the retainers take their room */
  free(o->stack), free(o->cursor), free(o->visited);
  o->stack = o->cursor = NULL;
  o->visited = NULL;
  if ((o->ret = malloc((size_t)o->first_ret[n] * sizeof(uint32_t) + 1)) == NULL)
    return CPROF_ENOMEM;
  fill_retainers(s, o);
  free_order(o);
  return CPROF_OK;
}

/* The immediate dominators by node from the iteration's (by postorder
 * number), and the retained sizes, each array given back as soon as the
 * next step no longer needs it: the peak is the iteration's, not the sum
 * of every step's arrays. */
static int tree(cprof__snap_t *s, order_t *o, uint32_t *dom) {
  size_t n = s->node_count;
  if ((s->dom = malloc(n * sizeof *s->dom)) == NULL) {
    free(dom);
    return CPROF_ENOMEM;
  }
  for (uint32_t p = 0; p < n; p++) /* none left: given to the root, as DevTools' 0 is */
    s->dom[o->post2node[p]] = dom[p] >= n ? s->root : o->post2node[dom[p]];
  free(dom);
  if ((s->retained = malloc(n * sizeof *s->retained)) == NULL) return CPROF_ENOMEM;
  retained_sizes(s, o);
  free(o->post2node);
  o->post2node = NULL;
  return CPROF_OK;
}

int cprof__snap_dominators(cprof__snap_t *s, char *errbuf, size_t errlen) {
  size_t n = s->node_count;
  order_t o = {0};
  uint32_t *dom = NULL;
  int rc = order(s, &o);
  if (rc == CPROF_OK && (dom = malloc(n * sizeof *dom)) == NULL) rc = CPROF_ENOMEM;
  if (rc == CPROF_OK) {
    for (uint32_t p = 0; p + 1 < n; p++)
      dom[p] = (uint32_t)n; /* none yet */
    dom[n - 1] = (uint32_t)n - 1;
    iterate(s, &o, dom);
    free(o.first_ret), free(o.ret);
    o.first_ret = o.ret = NULL;
    rc = tree(s, &o, dom); /* frees dom */
    dom = NULL;
  }
  free_order(&o);
  free(o.post2node), free(o.first_ret), free(o.ret), free(dom);
  return rc == CPROF_OK ? CPROF_OK : NOMEM();
}

/* The snapshot's graph flags and distances, as DevTools' heap-snapshot
 * worker (front_end/entrypoints/heap_snapshot_worker/HeapSnapshot.ts, read
 * in chrome-devtools-frontend 1.0.1705227) computes them: the "page-owned"
 * flags, which edges retain, and the distances from the user roots. Flat
 * arrays only. The first edge of each node comes from the parse, and the
 * retainers, which only the dominator step reads, from that step
 * (snapshot_dom.c). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "snapshot.h"

#define NOMEM()                                                                                    \
  cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory analysing the heap snapshot")

static void *alloc(size_t n, size_t size) {
  return calloc(n ? n : 1, size);
}

uint32_t cprof__snap_edge_source(const cprof__snap_t *s, uint32_t edge) {
  uint32_t lo = 0, hi = s->node_count; /* first_edge[lo] <= edge < first_edge[hi] */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->first_edge[mid] <= edge)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* DevTools' user roots: what the root's edges point to, except synthetic
 * nodes (the "(GC roots)" group and its kind). In Node these are the global
 * objects, reached by the root's shortcut edges. */
static int is_user_root(const cprof__snap_t *s, uint32_t node) {
  return cprof__snap_ntype(s, node) != s->t_synthetic;
}

/* Page-owned nodes (DevTools' pageObject flag): reachable by non-weak edges
 * from the targets of the root's shortcut edges, the user's global objects.
 * The dominator tree then ignores edges from other nodes into these (the
 * debugger's and V8's own references), so a global's objects are dominated
 * through the global, not through some internal cache that also holds them.
 * The "(Document DOM trees)" entry DevTools adds is a browser's; Node has
 * none. */
static int page_flags(cprof__snap_t *s, char *errbuf, size_t errlen) {
  uint32_t *stack = malloc((size_t)s->node_count * sizeof *stack), top = 0;
  if (stack == NULL) return NOMEM();
  for (uint32_t e = s->first_edge[s->root]; e < s->first_edge[s->root + 1]; e++) {
    uint32_t to = cprof__snap_to(s, e);
    if (cprof__snap_etype(s, e) != s->et_shortcut || s->page[to]) continue;
    s->page[to] = 1;
    stack[top++] = to;
  }
  while (top > 0) {
    uint32_t n = stack[--top];
    for (uint32_t e = s->first_edge[n]; e < s->first_edge[n + 1]; e++) {
      uint32_t to = cprof__snap_to(s, e);
      if (s->page[to] || cprof__snap_etype(s, e) == s->et_weak) continue;
      s->page[to] = 1;
      stack[top++] = to;
    }
  }
  free(stack);
  return CPROF_OK;
}

/* A WeakMap entry's value is held by two internal edges, from the key and
 * from the table, named "<n> / part of key (K @k) -> value (V @v) pair in
 * WeakMap (table @<id>)". DevTools keeps the key's edge for the dominator
 * tree (either alone would free the value; the key's makes more useful
 * trees), so the one from the table (the source's id is <id>) is dropped.
 * The table id of such a name, or -1. */
static int64_t weakmap_table(const char *name) {
  static const char mid[] = " / part of key (", val[] = " -> value (",
                    tail[] = " pair in WeakMap (table @";
  const char *p = name;
  if (*p < '0' || *p > '9') return -1;
  while (*p >= '0' && *p <= '9')
    p++;
  if (strncmp(p, mid, sizeof mid - 1) != 0 || strstr(p, val) == NULL) return -1;
  const char *t = strstr(p, tail);
  if (t == NULL) return -1;
  int64_t id = 0;
  for (t += sizeof tail - 1; *t >= '0' && *t <= '9' && id < INT64_MAX / 10; t++)
    id = id * 10 + (*t - '0');
  return t[0] == ')' && t[1] == '\0' ? id : -1;
}

/* DevTools' computeIsEssentialEdge: the edges the dominator tree is built
 * from. Weak edges never retain. Self edges are left out. Shortcut edges
 * only from the root (there they mark the user's global objects). An edge
 * from a node that is not page-owned into one that is does not retain
 * (V8's and the debugger's own references would otherwise take the user's
 * objects from under the globals). And a WeakMap's table does not retain
 * its values (weakmap_table). */
static int essential(const cprof__snap_t *s, uint32_t from, uint32_t e) {
  uint32_t type = cprof__snap_etype(s, e), to = cprof__snap_to(s, e);
  if (type == s->et_weak || to == from) return 0;
  if (type == s->et_internal) {
    int64_t table = weakmap_table(cprof__snap_str(s, cprof__snap_ename(s, e)));
    if (table >= 0 && (uint64_t)table == cprof__snap_nid(s, from)) return 0;
  }
  if (from == s->root) return 1;
  return type != s->et_shortcut && !(s->page[to] && !s->page[from]);
}

static void essential_edges(cprof__snap_t *s) {
  for (uint32_t from = 0; from < s->node_count; from++)
    for (uint32_t e = s->first_edge[from]; e < s->first_edge[from + 1]; e++)
      if (essential(s, from, e)) s->essential[e >> 3] |= (uint8_t)(1u << (e & 7));
}

/* DevTools' distance filter: V8's NativeContext reaches every sloppy
 * function through sloppy_function_map, and a "(map descriptors)" array's
 * descriptor slots (index 3k+1 from 2) may belong to another map: those
 * edges do not count for distances. */
static int distance_edge(const cprof__snap_t *s, uint32_t from, uint32_t e) {
  uint32_t type = cprof__snap_ntype(s, from);
  uint32_t name = cprof__snap_ename(s, e);
  if (type == s->t_hidden) {
    uint32_t et = cprof__snap_etype(s, e);
    if (et == s->et_element || et == s->et_hidden) return 1;
    return strcmp(cprof__snap_str(s, name), "sloppy_function_map") != 0 ||
           strcmp(cprof__snap_str(s, cprof__snap_nname(s, from)), "system / NativeContext") != 0;
  }
  if (type == s->t_array &&
      strcmp(cprof__snap_str(s, cprof__snap_nname(s, from)), "(map descriptors)") == 0) {
    /* the edge's name is its index (element edges), or a string of digits */
    uint32_t et = cprof__snap_etype(s, e);
    uint32_t index = et == s->et_element || et == s->et_hidden
                         ? name
                         : (uint32_t)strtoul(cprof__snap_str(s, name), NULL, 10);
    return index < 2 || index % 3 != 1;
  }
  return 1;
}

/* The WeakMap pairs met so far by the search: a set of the names' hashes
 * (the part after the leading number, which both edges of a pair share),
 * each present or not. Open addressing, grown at half full. */
typedef struct {
  uint64_t *hash; /* 0: empty slot */
  uint8_t *present;
  size_t cap, used;
} pairs_t;

static int pairs_grow(pairs_t *p) {
  size_t cap = p->cap ? p->cap * 2 : 64;
  uint64_t *hash = calloc(cap, sizeof *hash);
  uint8_t *present = calloc(cap, 1);
  if (hash == NULL || present == NULL) {
    free(hash), free(present);
    return -1;
  }
  for (size_t i = 0; i < p->cap; i++) {
    if (p->hash[i] == 0) continue;
    size_t j = p->hash[i] & (cap - 1);
    while (hash[j] != 0)
      j = (j + 1) & (cap - 1);
    hash[j] = p->hash[i];
    present[j] = p->present[i];
  }
  free(p->hash), free(p->present);
  p->hash = hash, p->present = present, p->cap = cap;
  return 0;
}

/* Toggles the pair's presence; returns whether it was present. Out of
 * memory: every edge counts (as if no pair were known). */
static int pairs_toggle(pairs_t *p, uint64_t h) {
  if ((p->used + 1) * 2 > p->cap && pairs_grow(p) != 0) return 1;
  size_t j = h & (p->cap - 1);
  while (p->hash[j] != 0 && p->hash[j] != h)
    j = (j + 1) & (p->cap - 1);
  if (p->hash[j] == 0) {
    p->hash[j] = h;
    p->used++;
  }
  p->present[j] ^= 1;
  return !p->present[j];
}

/* DevTools' distance rule for a WeakMap value's two internal edges (from
 * the table and from the key): the first one the search meets does not
 * count, so the value's distance is the greater of the two, through the
 * key (crbug.com/1290800). */
static int ephemeron_edge(const cprof__snap_t *s, pairs_t *p, uint32_t e) {
  if (cprof__snap_etype(s, e) != s->et_internal) return 1;
  const char *name = cprof__snap_str(s, cprof__snap_ename(s, e));
  if (weakmap_table(name) < 0) return 1;
  while (*name >= '0' && *name <= '9')
    name++;
  uint64_t h = cprof__hash_str(CPROF__HASH_SEED, name) | 1; /* never 0 */
  return pairs_toggle(p, h);
}

static void bfs(cprof__snap_t *s, pairs_t *pairs, uint32_t *queue, uint32_t head, uint32_t tail) {
  while (head < tail) {
    uint32_t n = queue[head++];
    int32_t d = s->dist[n] + 1;
    for (uint32_t e = s->first_edge[n]; e < s->first_edge[n + 1]; e++) {
      uint32_t to = cprof__snap_to(s, e);
      if (cprof__snap_etype(s, e) == s->et_weak || s->dist[to] != CPROF__SNAP_NO_DISTANCE ||
          !distance_edge(s, n, e) || !ephemeron_edge(s, pairs, e))
        continue;
      s->dist[to] = d;
      s->parent_edge[to] = e;
      queue[tail++] = to;
    }
  }
}

/* Breadth first from the user roots (distance 1), then from the root for
 * what they do not reach (distances from CPROF__SNAP_SYSTEM_DISTANCE).
 * parent_edge keeps the edge each node was first reached by: one shortest
 * retainer path per node for free. */
static int distances(cprof__snap_t *s, char *errbuf, size_t errlen) {
  uint32_t *queue = malloc((size_t)s->node_count * sizeof *queue), tail = 0;
  if (queue == NULL) return NOMEM();
  for (uint32_t i = 0; i < s->node_count; i++) {
    s->dist[i] = CPROF__SNAP_NO_DISTANCE;
    s->parent_edge[i] = CPROF__SNAP_NONE;
  }
  for (uint32_t e = s->first_edge[s->root]; e < s->first_edge[s->root + 1]; e++) {
    uint32_t to = cprof__snap_to(s, e);
    if (!is_user_root(s, to) || s->dist[to] == 1 || to == s->root) continue;
    s->dist[to] = 1;
    s->parent_edge[to] = e;
    queue[tail++] = to;
  }
  pairs_t pairs = {0};
  bfs(s, &pairs, queue, 0, tail);
  s->dist[s->root] = tail > 0 ? CPROF__SNAP_SYSTEM_DISTANCE : 0;
  queue[0] = s->root;
  bfs(s, &pairs, queue, 0, 1);
  free(pairs.hash), free(pairs.present);
  free(queue);
  return CPROF_OK;
}

int cprof__snap_graph(cprof__snap_t *s, char *errbuf, size_t errlen) {
  size_t n = s->node_count, e = s->edge_count;
  if (!(s->page = alloc(n, 1)) || !(s->essential = alloc(e / 8 + 1, 1))) return NOMEM();
  int rc = page_flags(s, errbuf, errlen);
  if (rc != CPROF_OK) return rc;
  essential_edges(s);
  /* the page flags serve essential() only */
  free(s->page);
  s->page = NULL;
  return CPROF_OK;
}

int cprof__snap_distances(cprof__snap_t *s, char *errbuf, size_t errlen) {
  size_t n = s->node_count;
  if (!(s->dist = alloc(n, sizeof(int32_t))) || !(s->parent_edge = alloc(n, sizeof(uint32_t))))
    return NOMEM();
  return distances(s, errbuf, errlen);
}

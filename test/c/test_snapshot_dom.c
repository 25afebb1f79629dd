/* The dominator tree (src/core/snapshot_dom.c) on made graphs whose
 * shapes broke the old iteration (a chain with a node held from every
 * depth, a chain with nodes held by its first and last, a wide fan-in),
 * on seeded random graphs, and on nodes no root reaches, each checked
 * against dominators found the slow, obvious way: d dominates v when v is
 * unreachable from the root once d is taken out. */
#include <cjson/cJSON.h>

#include "helpers.h"
#include "snapshot.h"

#define MAX_NODES 400
#define MAX_EDGES 4000

/* Node 0 is the root, 1 the global (root -g-> 1, a shortcut edge, so its
 * objects are the user's); every other edge is a property edge, or weak. */
typedef struct {
  uint32_t n, m;
  uint32_t from[MAX_EDGES], to[MAX_EDGES];
  uint8_t weak[MAX_EDGES];
  uint32_t self[MAX_NODES];
} graph_t;

static void graph_init(graph_t *g, uint32_t n) {
  memset(g, 0, sizeof *g);
  g->n = n;
  for (uint32_t i = 1; i < n; i++)
    g->self[i] = 10 + i;
  g->from[0] = 0, g->to[0] = 1, g->m = 1;
}

static void edge(graph_t *g, uint32_t from, uint32_t to) {
  assert_true(g->m < MAX_EDGES);
  g->from[g->m] = from, g->to[g->m++] = to;
}

/* The snapshot's JSON: edges grouped by source, as V8 writes them. */
static char *to_json(const graph_t *g) {
  size_t cap = 512 + (size_t)g->n * 40 + (size_t)g->m * 30, at = 0;
  char *t = malloc(cap);
  assert_non_null(t);
  at += (size_t)snprintf(
      t, cap,
      "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
      "\"edge_count\"],\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\","
      "\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\"],\"string\",\"number\","
      "\"number\",\"number\"],\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
      "\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\","
      "\"shortcut\",\"weak\"],\"string_or_number\",\"node\"]}},\"nodes\":[");
  for (uint32_t i = 0; i < g->n; i++) {
    uint32_t out = 0;
    for (uint32_t e = 0; e < g->m; e++)
      out += g->from[e] == i;
    at += (size_t)snprintf(t + at, cap - at, "%s%d,%d,%u,%u,%u", i ? "," : "", i ? 3 : 9,
                           i == 1 ? 2 : 3, 2 * i + 1, g->self[i], out);
  }
  at += (size_t)snprintf(t + at, cap - at, "],\"edges\":[");
  int first = 1;
  for (uint32_t i = 0; i < g->n; i++)
    for (uint32_t e = 0; e < g->m; e++) {
      if (g->from[e] != i) continue;
      int type = e == 0 ? 5 : g->weak[e] ? 6 : 2;
      at += (size_t)snprintf(t + at, cap - at, "%s%d,1,%u", first ? "" : ",", type, g->to[e] * 5);
      first = 0;
    }
  snprintf(t + at, cap - at, "],\"strings\":[\"\",\"g\",\"Global\",\"N\"]}");
  return t;
}

/* Reached from the root along non-weak edges without passing `cut`. */
static void reach(const graph_t *g, uint32_t cut, uint8_t *seen) {
  uint32_t stack[MAX_NODES], top = 0;
  memset(seen, 0, g->n);
  if (cut == 0) return;
  seen[0] = 1, stack[top++] = 0;
  while (top > 0) {
    uint32_t v = stack[--top];
    for (uint32_t e = 0; e < g->m; e++) {
      uint32_t w = g->to[e];
      if (g->from[e] != v || g->weak[e] || w == cut || seen[w]) continue;
      seen[w] = 1, stack[top++] = w;
    }
  }
}

/* dominates[d * n + v]: d dominates v (every node reachable). */
static uint8_t *dominance(const graph_t *g) {
  uint8_t *dom = calloc((size_t)g->n * g->n, 1), seen[MAX_NODES];
  assert_non_null(dom);
  for (uint32_t d = 0; d < g->n; d++) {
    reach(g, d, seen);
    for (uint32_t v = 0; v < g->n; v++)
      dom[d * g->n + v] = v == d || !seen[v];
  }
  return dom;
}

/* The immediate dominator: the strict dominator with the most dominators
 * of its own (the nearest). */
static uint32_t idom_of(const graph_t *g, const uint8_t *dom, uint32_t v) {
  uint32_t best = 0, depth = 0;
  for (uint32_t d = 0; d < g->n; d++) {
    if (d == v || !dom[d * g->n + v]) continue;
    uint32_t k = 0;
    for (uint32_t x = 0; x < g->n; x++)
      k += dom[x * g->n + d];
    if (k > depth) best = d, depth = k;
  }
  return best;
}

/* n's immediate dominator, read from the dominated lists. */
static uint32_t dominator_of(const cprof__snap_t *s, uint32_t n) {
  for (uint32_t d = 0; d < s->node_count; d++)
    for (uint32_t k = s->dom_child[d]; k != CPROF__SNAP_NONE; k = s->dom_next[k])
      if (k == n) return d;
  return s->root;
}

static void analyse(const graph_t *g, cprof__snap_t *s, char **text) {
  char err[256] = "";
  *text = to_json(g);
  int rc = cprof__snap_analyse(*text, strlen(*text), NULL, s, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
}

/* Every node's dominator and retained size (the self sizes of the nodes
 * it dominates) as the slow way finds them; all nodes reachable. */
static void check(const graph_t *g) {
  cprof__snap_t s;
  char *text;
  analyse(g, &s, &text);
  uint8_t *dom = dominance(g);
  assert_int_equal(s.unreachable, 0);
  for (uint32_t v = 1; v < g->n; v++) {
    uint64_t retained = 0;
    for (uint32_t x = 0; x < g->n; x++)
      retained += dom[v * g->n + x] ? g->self[x] : 0;
    if (dominator_of(&s, v) != idom_of(g, dom, v) || s.retained[v] != retained)
      fail_msg("node %u: dominator %u, retained %llu; expected %u, %llu", v, dominator_of(&s, v),
               (unsigned long long)s.retained[v], idom_of(g, dom, v), (unsigned long long)retained);
  }
  free(dom);
  cprof__snap_free(&s);
  free(text);
}

/* global -> c2 -> ... -> c(n-2), each link also -> x (the last node): x
 * is held from every depth, so only the global dominates it; each link
 * dominates the rest of the chain. */
static void chain_held_from_every_depth(void **state) {
  (void)state;
  graph_t g;
  uint32_t n = 300, x = n - 1;
  graph_init(&g, n);
  for (uint32_t i = 1; i + 2 < n; i++)
    edge(&g, i, i + 1), edge(&g, i, x);
  edge(&g, n - 2, x);
  check(&g);
  cprof__snap_t s;
  char *text;
  analyse(&g, &s, &text);
  assert_int_equal(dominator_of(&s, x), 1);
  assert_int_equal(dominator_of(&s, 150), 149);
  cprof__snap_free(&s);
  free(text);
}

/* A chain of k links and k nodes each held by its first and last link:
 * the first dominates them all. */
static void chain_first_and_last(void **state) {
  (void)state;
  graph_t g;
  uint32_t k = 150;
  graph_init(&g, 2 + 2 * k);
  for (uint32_t i = 2; i < 2 + k; i++)
    edge(&g, i - 1, i);
  for (uint32_t j = 2 + k; j < 2 + 2 * k; j++)
    edge(&g, 2, j), edge(&g, 1 + k, j);
  check(&g);
}

/* 300 holders of one node, each held by the global: the global dominates
 * it, and each holder retains only itself. */
static void wide_fan_in(void **state) {
  (void)state;
  graph_t g;
  uint32_t n = 303, z = n - 1;
  graph_init(&g, n);
  for (uint32_t i = 2; i < z; i++)
    edge(&g, 1, i), edge(&g, i, z);
  check(&g);
}

/* Seeded random graphs over a spanning chain (every node reachable), with
 * back edges (cycles), weak edges and edges to the chain's far end. */
static void random_graphs(void **state) {
  (void)state;
  uint64_t x = 42;
  for (int round = 0; round < 60; round++) {
    graph_t g;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t n = 3 + (uint32_t)(x >> 33) % 120;
    graph_init(&g, n);
    for (uint32_t i = 2; i < n; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      edge(&g, 1 + (uint32_t)(x >> 33) % (i - 1), i); /* a tree edge from before */
    }
    for (uint32_t e = (n - 2) * 3; e-- > 0;) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t from = 1 + (uint32_t)(x >> 20) % (n - 1), to = 1 + (uint32_t)(x >> 40) % (n - 1);
      if (from == to) continue;
      edge(&g, from, to);
      g.weak[g.m - 1] = (x >> 10) % 7 == 0;
    }
    check(&g);
  }
}

/* Not reached from the root: an orphan (2: nothing holds it) and what it
 * holds (3, 4) hang from the root; a cycle only unreachable nodes hold
 * (5 <-> 6) is given to the root, its edge into the orphan's 3 changing
 * nothing, as DevTools has it. */
static void unreachable_nodes(void **state) {
  (void)state;
  graph_t g;
  graph_init(&g, 7);
  edge(&g, 2, 3), edge(&g, 3, 4), edge(&g, 5, 6), edge(&g, 6, 5), edge(&g, 5, 3);
  cprof__snap_t s;
  char *text;
  analyse(&g, &s, &text);
  static const uint32_t expected[7] = {0, 0, 0, 2, 3, 0, 0};
  for (uint32_t v = 1; v < 7; v++)
    assert_int_equal(dominator_of(&s, v), expected[v]);
  assert_int_equal(s.unreachable, 5);
  assert_int_equal(s.retained[2], g.self[2] + g.self[3] + g.self[4]);
  assert_int_equal(s.retained[5], g.self[5]);
  assert_int_equal(s.retained[0], 11 + 12 + 13 + 14 + 15 + 16);
  cprof__snap_free(&s);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(chain_held_from_every_depth),
      cmocka_unit_test(chain_first_and_last),
      cmocka_unit_test(wide_fan_in),
      cmocka_unit_test(random_graphs),
      cmocka_unit_test(unreachable_nodes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

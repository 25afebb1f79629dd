/* .cpuprofile (V8 inspector Profiler.Profile): nodes with ids, children
 * arrays (or, in older Chrome DevTools files, parent fields), samples and
 * timeDeltas. Nodes are read flat as they come, then linked, checked (one
 * root, no cycles, nothing reached twice) and ordered parent-first. */
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "internal.h"
#include "idmap.h"
#include "parse_cpu.h"
#include "parse_value.h"

#define FAIL(...) cprof__rd_fail(r, CPROF_ESCHEMA, __VA_ARGS__)

struct cprof__cpu_raw_s {
  uint32_t id;
  uint32_t frame;
  uint32_t hit_count;
  uint32_t parent_id;
  uint32_t kids_off, kids_n;
  uint8_t has_parent;
  /* linking, file indexes */
  uint32_t parent, first, last, next;
};

typedef cprof__cpu_raw_t raw_node_t;

/* Bits in the order of NODE_KEYS. */
enum { SEEN_ID = 1, SEEN_FRAME = 2, SEEN_HITS = 4, SEEN_KIDS = 8, SEEN_PARENT = 16, SEEN_POS = 32 };
static const char *const NODE_KEYS[] = {"id",     "callFrame",     "hitCount", "children",
                                        "parent", "positionTicks", NULL};

static cprof__who_t who(const raw_node_t *n, unsigned seen, uint32_t i) {
  return (seen & SEEN_ID) ? (cprof__who_t){"node %u", n->id} : (cprof__who_t){"nodes[%u]", i};
}

static int read_children(cprof__rd_t *r, cprof__cpu_t *c, raw_node_t *n, cprof__who_t w) {
  char what[48];
  int first = 1, rc;
  if (cprof__rd_null(r)) return 0;
  snprintf(what, sizeof what, w.label, w.n);
  if (cprof__rd_peek(r) != '[') return FAIL("%s: children is not an array", what);
  if ((rc = cprof__rd_open(r, '[')) != 0) return rc;
  n->kids_off = c->nkids;
  while ((rc = cprof__rd_elem(r, &first)) == 1) {
    if (cprof__grow((void **)&c->kids, &c->kids_cap, c->nkids + 1, sizeof *c->kids) != 0)
      return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory for child ids");
    if (!cprof__rd_u32(r, &c->kids[c->nkids]))
      return FAIL("%s: a child id is not an integer in 0..4294967295", what);
    c->nkids++;
  }
  n->kids_n = c->nkids - n->kids_off;
  return rc;
}

/* A positionTicks number: 1 with *out when it is an integer in lo..hi, 0
 * when the value is something else (skipped), <0 on a reader error. */
static int tick_number(cprof__rd_t *r, double lo, double hi, double *out) {
  if (cprof__rd_peek(r) != '0') {
    int rc = cprof__rd_skip(r);
    return rc < 0 ? rc : 0;
  }
  int rc = cprof__rd_number(r, out);
  if (rc != CPROF_OK) return rc < 0 ? rc : -1;
  return *out >= lo && *out <= hi && *out == (double)(int64_t)*out;
}

/* One {line, ticks} of node i (file index). An entry that is not of that
 * shape is left out: the lines are extra detail, never a reason to refuse
 * a profile every viewer opens. */
static int read_tick(cprof__rd_t *r, cprof__cpu_t *c, uint32_t i) {
  const char *key;
  size_t klen;
  int first = 1, rc, ok = 0;
  double line = 0, ticks = 0;
  if (cprof__rd_peek(r) != '{') return cprof__rd_skip(r);
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    int got;
    if (CPROF__KEY(key, klen, "line"))
      got = tick_number(r, 0, INT32_MAX, &line);
    else if (CPROF__KEY(key, klen, "ticks"))
      got = tick_number(r, 0, UINT32_MAX, &ticks);
    else
      got = cprof__rd_skip(r) < 0 ? -1 : 0;
    if (got < 0) return got;
    ok += got;
  }
  if (rc != 0 || ok != 2 || ticks == 0) return rc;
  if (cprof__grow((void **)&c->ticks, &c->ticks_cap, c->nticks + 1, sizeof *c->ticks) != 0)
    return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory for positionTicks");
  c->ticks[c->nticks++] =
      (cprof_line_tick_t){.node = i, .line = (int32_t)line, .ticks = (uint32_t)ticks};
  return 0;
}

static int read_ticks(cprof__rd_t *r, cprof__cpu_t *c, uint32_t i) {
  int first = 1, rc;
  if (cprof__rd_peek(r) != '[') return cprof__rd_skip(r);
  if ((rc = cprof__rd_open(r, '[')) != 0) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1)
    if ((rc = read_tick(r, c, i)) != 0) return rc;
  return rc;
}

/* One member of node n (file index i); unknown ones are skipped. */
static int node_member(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c, raw_node_t *n,
                       uint32_t i, unsigned *seen, const char *key, size_t klen) {
  char what[48];
  unsigned bit = cprof__rd_key_bit(key, klen, NODE_KEYS);
  if (bit == 0 || (*seen & bit)) return cprof__rd_skip(r); /* the first of a key wins */
  cprof__who_t w = who(n, *seen, i);
  *seen |= bit;
  switch (bit) {
  case SEEN_ID:
    return cprof__rd_u32(r, &n->id) ? 0
                                    : FAIL("nodes[%u]: id is not an integer in 0..4294967295", i);
  case SEEN_FRAME:
    if (cprof__rd_peek(r) == '{') return cprof__parse_call_frame(r, p, w, &n->frame);
    snprintf(what, sizeof what, w.label, w.n);
    return FAIL("%s has no callFrame object", what);
  case SEEN_HITS:
    if (cprof__rd_null(r) || cprof__rd_u32(r, &n->hit_count)) return 0;
    snprintf(what, sizeof what, w.label, w.n);
    return FAIL("%s: hitCount is not an integer in 0..4294967295", what);
  case SEEN_KIDS:
    return read_children(r, c, n, w);
  case SEEN_POS:
    return read_ticks(r, c, i);
  default:
    if (cprof__rd_null(r)) return 0;
    n->has_parent = 1;
    if (cprof__rd_u32(r, &n->parent_id)) return 0;
    snprintf(what, sizeof what, w.label, w.n);
    return FAIL("%s: parent is not an integer in 0..4294967295", what);
  }
}

static int read_node(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c, uint32_t i) {
  const char *key;
  size_t klen;
  unsigned seen = 0;
  int first = 1, rc;
  if (cprof__rd_peek(r) != '{') return FAIL("nodes[%u] is not an object", i);
  if (cprof__grow((void **)&c->raw, &c->cap, i + 1, sizeof *c->raw) != 0)
    return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory for %u nodes", i + 1);
  raw_node_t *n = &c->raw[i];
  *n = (raw_node_t){
      .parent = CPROF_NONE, .first = CPROF_NONE, .last = CPROF_NONE, .next = CPROF_NONE};
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1)
    if ((rc = node_member(r, p, c, n, i, &seen, key, klen)) != 0) return rc;
  if (rc != 0) return rc;
  if (!(seen & SEEN_ID)) return FAIL("nodes[%u]: id is not an integer in 0..4294967295", i);
  if (!(seen & SEEN_FRAME)) return FAIL("node %u has no callFrame object", n->id);
  c->n = i + 1;
  return 0;
}

int cprof__cpu_nodes(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c) {
  int first = 1, rc;
  if (cprof__rd_peek(r) != '[') return FAIL("nodes is not an array");
  if ((rc = cprof__rd_open(r, '[')) != 0) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1)
    if ((rc = read_node(r, p, c, c->n)) != 0) return rc;
  if (rc == 0 && c->n == 0) return FAIL("nodes is empty: a profile has at least a root");
  return rc;
}

/* An array of numbers (samples, timeDeltas); elem reads element i. */
static int numbers(cprof__rd_t *r, cprof__cpu_t *c, const char *what,
                   int (*elem)(cprof__rd_t *, cprof__cpu_t *, uint32_t)) {
  int first = 1, rc;
  uint32_t i = 0;
  if (cprof__rd_null(r)) return 0;
  if (cprof__rd_peek(r) != '[') return FAIL("%s is not an array", what);
  if ((rc = cprof__rd_open(r, '[')) != 0) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1)
    if ((rc = elem(r, c, i++)) != 0) return rc;
  return rc;
}

static int sample(cprof__rd_t *r, cprof__cpu_t *c, uint32_t i) {
  if (cprof__grow((void **)&c->samples, &c->samples_cap, i + 1, sizeof *c->samples) != 0)
    return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory for %u samples", i + 1);
  if (!cprof__rd_u32(r, &c->samples[i]))
    return FAIL("sample %u is not a node id (an integer in 0..4294967295)", i);
  c->nsamples = i + 1;
  return 0;
}

static int delta(cprof__rd_t *r, cprof__cpu_t *c, uint32_t i) {
  if (cprof__grow((void **)&c->deltas, &c->deltas_cap, i + 1, sizeof *c->deltas) != 0)
    return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory for %u samples", i + 1);
  if (!cprof__rd_i64(r, &c->deltas[i]))
    return FAIL("timeDeltas[%u] is not a number within +-2^53", i);
  c->ndeltas = i + 1;
  return 0;
}

int cprof__cpu_samples(cprof__rd_t *r, cprof__cpu_t *c) {
  return numbers(r, c, "samples", sample);
}

int cprof__cpu_deltas(cprof__rd_t *r, cprof__cpu_t *c) {
  return numbers(r, c, "timeDeltas", delta);
}

/* ---- linking ---- */

typedef struct {
  cprof__idmap_t ids;
  uint32_t *order; /* preorder position -> file index */
  uint32_t *pos;   /* file index -> preorder position */
} link_t;

static void link_child(raw_node_t *raw, uint32_t parent, uint32_t child) {
  raw[child].parent = parent;
  if (raw[parent].first == CPROF_NONE)
    raw[parent].first = child;
  else
    raw[raw[parent].last].next = child;
  raw[parent].last = child;
}

static int map_ids(cprof__rd_t *r, const cprof__cpu_t *c, link_t *l) {
  for (uint32_t i = 0; i < c->n; i++)
    if (cprof__idmap_put(&l->ids, c->raw[i].id, i) != CPROF_NONE)
      return FAIL("duplicate node id %u", c->raw[i].id);
  return 0;
}

/* Links from `children` arrays: the V8 shape. */
static int link_children(cprof__rd_t *r, cprof__cpu_t *c, const link_t *l) {
  for (uint32_t i = 0; i < c->n; i++) {
    const raw_node_t *n = &c->raw[i];
    for (uint32_t j = 0; j < n->kids_n; j++) {
      uint32_t id = c->kids[n->kids_off + j], k = cprof__idmap_get(&l->ids, id);
      if (k == CPROF_NONE)
        return FAIL("node %u lists child %u, which the profile does not have", n->id, id);
      if (k == i) return FAIL("node %u lists itself as a child (a cycle)", n->id);
      if (c->raw[k].parent != CPROF_NONE)
        return FAIL("node %u is reached twice: a child of both node %u and node %u", id,
                    c->raw[c->raw[k].parent].id, n->id);
      link_child(c->raw, i, k);
    }
  }
  return 0;
}

/* Links from `parent` fields (older Chrome DevTools files); children then
 * keep the file order of the nodes. Agreeing with `children` is fine. */
static int link_parents(cprof__rd_t *r, cprof__cpu_t *c, const link_t *l) {
  for (uint32_t i = 0; i < c->n; i++) {
    raw_node_t *n = &c->raw[i];
    if (!n->has_parent) continue;
    uint32_t id = n->parent_id, k = cprof__idmap_get(&l->ids, id);
    if (k == CPROF_NONE)
      return FAIL("node %u names parent %u, which the profile does not have", n->id, id);
    if (k == i) return FAIL("node %u is its own parent (a cycle)", n->id);
    if (n->parent == k) continue;
    if (n->parent != CPROF_NONE)
      return FAIL("node %u is reached twice: parent %u, but a child of node %u", n->id, id,
                  c->raw[n->parent].id);
    link_child(c->raw, k, i);
  }
  return 0;
}

static int find_root(cprof__rd_t *r, const cprof__cpu_t *c, uint32_t *root) {
  uint32_t count = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    if (c->raw[i].parent != CPROF_NONE) continue;
    if (count++ == 0)
      *root = i;
    else
      return FAIL("nodes %u and %u both have no parent: a profile has one root", c->raw[*root].id,
                  c->raw[i].id);
  }
  if (count == 0) return FAIL("every node has a parent: the tree has a cycle");
  return 0;
}

/* Preorder without a stack: first child, else next sibling of the nearest
 * ancestor that has one. Only what hangs from the root is visited; with
 * one parent per node, anything left over sits on a cycle. */
static int order(cprof__rd_t *r, const cprof__cpu_t *c, link_t *l, uint32_t root) {
  const raw_node_t *raw = c->raw;
  uint32_t k = 0, cur = root;
  for (uint32_t i = 0; i < c->n; i++)
    l->pos[i] = CPROF_NONE;
  while (cur != CPROF_NONE) {
    l->pos[cur] = k;
    l->order[k++] = cur;
    if (raw[cur].first != CPROF_NONE) {
      cur = raw[cur].first;
      continue;
    }
    while (cur != root && raw[cur].next == CPROF_NONE)
      cur = raw[cur].parent;
    cur = cur == root ? CPROF_NONE : raw[cur].next;
  }
  if (k == c->n) return 0;
  for (uint32_t i = 0; i < c->n; i++)
    if (l->pos[i] == CPROF_NONE)
      return FAIL("node %u is not reachable from the root: its parents form a cycle", raw[i].id);
  return 0;
}

static uint32_t mapped(const uint32_t *pos, uint32_t i) {
  return i == CPROF_NONE ? CPROF_NONE : pos[i];
}

static int emit_nodes(cprof__rd_t *r, cprof_profile_t *p, const cprof__cpu_t *c, const link_t *l) {
  p->nodes = calloc(c->n, sizeof(*p->nodes));
  if (p->nodes == NULL) return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory for %u nodes", c->n);
  p->nnodes = c->n;
  for (uint32_t k = 0; k < c->n; k++) {
    const raw_node_t *n = &c->raw[l->order[k]];
    p->nodes[k] = (cprof_node_t){.id = n->id,
                                 .parent = mapped(l->pos, n->parent),
                                 .frame = n->frame,
                                 .first_child = mapped(l->pos, n->first),
                                 .next_sibling = mapped(l->pos, n->next),
                                 .hit_count = n->hit_count};
  }
  return 0;
}

/* samples and timeDeltas pair up; a longer one's tail has no partner and
 * is ignored. The arrays move into p. */
static int emit_samples(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c, const link_t *l) {
  uint32_t n = c->nsamples < c->ndeltas ? c->nsamples : c->ndeltas;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t id = c->samples[i], k = cprof__idmap_get(&l->ids, id);
    if (k == CPROF_NONE)
      return FAIL("sample %u names node %u, which the profile does not have", i, id);
    c->samples[i] = l->pos[k];
  }
  if (n == 0) return 0;
  for (uint32_t i = 0; i < c->nticks; i++) /* file index -> node index */
    c->ticks[i].node = l->pos[c->ticks[i].node];
  p->line_ticks = c->ticks;
  p->nline_ticks = c->nticks;
  c->ticks = NULL;
  p->samples = c->samples;
  p->time_deltas = c->deltas;
  p->nsamples = n;
  c->samples = NULL;
  c->deltas = NULL;
  return 0;
}

static int link_all(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c, link_t *l) {
  uint32_t root = 0;
  int rc;
  if ((rc = map_ids(r, c, l)) != 0) return rc;
  if ((rc = link_children(r, c, l)) != 0) return rc;
  if ((rc = link_parents(r, c, l)) != 0) return rc;
  if ((rc = find_root(r, c, &root)) != 0) return rc;
  if ((rc = order(r, c, l, root)) != 0) return rc;
  if ((rc = emit_nodes(r, p, c, l)) != 0) return rc;
  if ((rc = emit_samples(r, p, c, l)) != 0) return rc;
  if (!c->has_start) return FAIL("startTime is missing or not a number within +-2^53");
  if (!c->has_end) return FAIL("endTime is missing or not a number within +-2^53");
  p->start_time = c->start;
  p->end_time = c->end;
  return 0;
}

int cprof__cpu_finish(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c) {
  link_t l = {0};
  int rc;
  l.order = malloc((size_t)c->n * sizeof(*l.order));
  l.pos = malloc((size_t)c->n * sizeof(*l.pos));
  if (l.order == NULL || l.pos == NULL || cprof__idmap_init(&l.ids, c->n) != 0)
    rc = cprof__rd_fail(r, CPROF_ENOMEM, "out of memory for %u nodes", c->n);
  else
    rc = link_all(r, p, c, &l);
  free(l.order);
  free(l.pos);
  cprof__idmap_free(&l.ids);
  return rc;
}

void cprof__cpu_free(cprof__cpu_t *c) {
  free(c->raw);
  free(c->kids);
  free(c->samples);
  free(c->deltas);
  free(c->ticks);
  *c = (cprof__cpu_t){0};
}

/* cprof_profile_parse: JSON text to the profile model. Input is untrusted
 * (files from anywhere, fuzzed): every cJSON type is checked, numbers are
 * range-checked, and no walk recurses. Runs on worker threads, so nothing
 * here touches cJSON's global error pointer. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "internal.h"
#include "profile.h"

/* Integers above 2^53 are not exact in cJSON's doubles: refuse them rather
 * than silently round. */
#define MAX_EXACT 9007199254740992.0

#define ERR(code, ...) cprof__errf(errbuf, errlen, (code), __VA_ARGS__)

typedef struct {
  const cJSON *json; /* the node's object, read again by later passes */
  uint32_t id;
  uint32_t parent; /* file index, CPROF_NONE until linked */
  uint32_t first;  /* children, file indexes, in link order */
  uint32_t last;
  uint32_t next;
  uint32_t frame;
  uint32_t hit_count;
} raw_node_t;

/* id -> index map; ids are arbitrary uint32, so not an array. */
typedef struct {
  uint32_t *keys;
  uint32_t *vals; /* CPROF_NONE = empty slot */
  uint32_t mask;
} idmap_t;

static int idmap_init(idmap_t *m, uint32_t n) {
  uint32_t cap = 16;
  while (cap < (uint64_t)n * 2)
    cap *= 2;
  m->keys = malloc((size_t)cap * sizeof(*m->keys));
  m->vals = malloc((size_t)cap * sizeof(*m->vals));
  if (m->keys == NULL || m->vals == NULL) return CPROF_ENOMEM;
  memset(m->vals, 0xff, (size_t)cap * sizeof(*m->vals));
  m->mask = cap - 1;
  return 0;
}

static void idmap_free(idmap_t *m) {
  free(m->keys);
  free(m->vals);
}

static uint32_t idmap_slot(const idmap_t *m, uint32_t id) {
  uint32_t j = (uint32_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & m->mask;
  while (m->vals[j] != CPROF_NONE && m->keys[j] != id)
    j = (j + 1) & m->mask;
  return j;
}

/* Returns the index already stored under id, or CPROF_NONE after storing. */
static uint32_t idmap_put(idmap_t *m, uint32_t id, uint32_t index) {
  uint32_t j = idmap_slot(m, id);
  if (m->vals[j] != CPROF_NONE) return m->vals[j];
  m->keys[j] = id;
  m->vals[j] = index;
  return CPROF_NONE;
}

static uint32_t idmap_get(const idmap_t *m, uint32_t id) {
  return m->vals[idmap_slot(m, id)];
}

/* ---- typed field access ---- */

static const cJSON *field(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Absent and null read the same: older producers write either. */
static int absent(const cJSON *item) {
  return item == NULL || cJSON_IsNull(item);
}

static int to_u32(const cJSON *item, uint32_t *out) {
  if (!cJSON_IsNumber(item)) return 0;
  double d = item->valuedouble;
  if (!(d >= 0 && d <= (double)UINT32_MAX) || d != (double)(uint32_t)d) return 0;
  *out = (uint32_t)d;
  return 1;
}

static int to_i32(const cJSON *item, int32_t *out) {
  if (!cJSON_IsNumber(item)) return 0;
  double d = item->valuedouble;
  if (!(d >= (double)INT32_MIN && d <= (double)INT32_MAX) || d != (double)(int32_t)d) return 0;
  *out = (int32_t)d;
  return 1;
}

/* Times and sizes: finite, |x| <= 2^53; a fraction rounds to nearest. */
static int to_i64(const cJSON *item, int64_t *out) {
  if (!cJSON_IsNumber(item)) return 0;
  double d = item->valuedouble;
  if (!(d >= -MAX_EXACT && d <= MAX_EXACT)) return 0; /* also rejects NaN */
  *out = (int64_t)(d + (d < 0 ? -0.5 : 0.5));
  return 1;
}

static int to_size(const cJSON *item, int64_t *out) {
  return to_i64(item, out) && *out >= 0;
}

/* ---- call frames ---- */

static int opt_string(const cJSON *obj, const char *key, const char **out) {
  const cJSON *item = field(obj, key);
  if (absent(item)) {
    *out = "";
    return 1;
  }
  if (!cJSON_IsString(item) || item->valuestring == NULL) return 0;
  *out = item->valuestring;
  return 1;
}

static int opt_i32(const cJSON *obj, const char *key, int32_t *out) {
  const cJSON *item = field(obj, key);
  if (absent(item)) {
    *out = -1;
    return 1;
  }
  return to_i32(item, out);
}

/* scriptId is a string in the protocol, a number in some producers. */
static int script_id(const cJSON *frame, char *buf, size_t buflen, const char **out) {
  const cJSON *item = field(frame, "scriptId");
  int64_t v;
  if (cJSON_IsNumber(item)) {
    if (!to_i64(item, &v) || (double)v != item->valuedouble) return 0;
    snprintf(buf, buflen, "%lld", (long long)v);
    *out = buf;
    return 1;
  }
  return opt_string(frame, "scriptId", out);
}

/* `what` names the node in messages ("node 7"). */
static int parse_frame(cprof_profile_t *p, const cJSON *node, const char *what, uint32_t *frame,
                       char *errbuf, size_t errlen) {
  const cJSON *cf = field(node, "callFrame");
  const char *name, *url, *sid;
  char sidbuf[32];
  int32_t line, column;
  if (!cJSON_IsObject(cf)) return ERR(CPROF_ESCHEMA, "%s has no callFrame object", what);
  if (!opt_string(cf, "functionName", &name))
    return ERR(CPROF_ESCHEMA, "%s: callFrame.functionName is not a string", what);
  if (!opt_string(cf, "url", &url))
    return ERR(CPROF_ESCHEMA, "%s: callFrame.url is not a string", what);
  if (!script_id(cf, sidbuf, sizeof(sidbuf), &sid))
    return ERR(CPROF_ESCHEMA, "%s: callFrame.scriptId is neither a string nor an integer", what);
  if (!opt_i32(cf, "lineNumber", &line) || !opt_i32(cf, "columnNumber", &column))
    return ERR(CPROF_ESCHEMA, "%s: callFrame line or column is not a 32-bit integer", what);
  if (cprof__profile_intern_frame(p, name, url, sid, line, column, frame) != 0)
    return ERR(CPROF_ENOMEM, "out of memory interning call frames");
  return 0;
}

/* ---- .cpuprofile ---- */

typedef struct {
  raw_node_t *raw;
  uint32_t n;
  idmap_t ids;
  uint32_t *order; /* preorder position -> file index */
  uint32_t *pos;   /* file index -> preorder position */
} cpu_ctx_t;

static void link_child(raw_node_t *raw, uint32_t parent, uint32_t child) {
  raw[child].parent = parent;
  if (raw[parent].first == CPROF_NONE)
    raw[parent].first = child;
  else
    raw[raw[parent].last].next = child;
  raw[parent].last = child;
}

static int cpu_read_nodes(cprof_profile_t *p, cpu_ctx_t *c, const cJSON *nodes, char *errbuf,
                          size_t errlen) {
  uint32_t i = 0;
  const cJSON *node;
  char what[48];
  cJSON_ArrayForEach(node, nodes) {
    raw_node_t *r = &c->raw[i];
    const cJSON *hits;
    if (!cJSON_IsObject(node)) return ERR(CPROF_ESCHEMA, "nodes[%u] is not an object", i);
    if (!to_u32(field(node, "id"), &r->id))
      return ERR(CPROF_ESCHEMA, "nodes[%u]: id is not an integer in 0..4294967295", i);
    if (idmap_put(&c->ids, r->id, i) != CPROF_NONE)
      return ERR(CPROF_ESCHEMA, "duplicate node id %u", r->id);
    snprintf(what, sizeof(what), "node %u", r->id);
    int rc = parse_frame(p, node, what, &r->frame, errbuf, errlen);
    if (rc != 0) return rc;
    hits = field(node, "hitCount");
    r->hit_count = 0;
    if (!absent(hits) && !to_u32(hits, &r->hit_count))
      return ERR(CPROF_ESCHEMA, "node %u: hitCount is not an integer in 0..4294967295", r->id);
    r->json = node;
    r->parent = r->first = r->last = r->next = CPROF_NONE;
    i++;
  }
  return 0;
}

/* Links from `children` arrays: the V8 shape. */
static int cpu_link_children(cpu_ctx_t *c, char *errbuf, size_t errlen) {
  for (uint32_t i = 0; i < c->n; i++) {
    raw_node_t *r = &c->raw[i];
    const cJSON *kids = field(r->json, "children"), *kid;
    if (absent(kids)) continue;
    if (!cJSON_IsArray(kids)) return ERR(CPROF_ESCHEMA, "node %u: children is not an array", r->id);
    cJSON_ArrayForEach(kid, kids) {
      uint32_t id, k;
      if (!to_u32(kid, &id))
        return ERR(CPROF_ESCHEMA, "node %u: a child id is not an integer in 0..4294967295", r->id);
      k = idmap_get(&c->ids, id);
      if (k == CPROF_NONE)
        return ERR(CPROF_ESCHEMA, "node %u lists child %u, which the profile does not have", r->id,
                   id);
      if (k == i) return ERR(CPROF_ESCHEMA, "node %u lists itself as a child (a cycle)", r->id);
      if (c->raw[k].parent != CPROF_NONE)
        return ERR(CPROF_ESCHEMA, "node %u is reached twice: a child of both node %u and node %u",
                   id, c->raw[c->raw[k].parent].id, r->id);
      link_child(c->raw, i, k);
    }
  }
  return 0;
}

/* Links from `parent` fields (older Chrome DevTools files); children then
 * keep the file order of the nodes. Agreeing with `children` is fine. */
static int cpu_link_parents(cpu_ctx_t *c, char *errbuf, size_t errlen) {
  for (uint32_t i = 0; i < c->n; i++) {
    raw_node_t *r = &c->raw[i];
    const cJSON *item = field(r->json, "parent");
    uint32_t id, k;
    if (absent(item)) continue;
    if (!to_u32(item, &id))
      return ERR(CPROF_ESCHEMA, "node %u: parent is not an integer in 0..4294967295", r->id);
    k = idmap_get(&c->ids, id);
    if (k == CPROF_NONE)
      return ERR(CPROF_ESCHEMA, "node %u names parent %u, which the profile does not have", r->id,
                 id);
    if (k == i) return ERR(CPROF_ESCHEMA, "node %u is its own parent (a cycle)", r->id);
    if (r->parent == k) continue;
    if (r->parent != CPROF_NONE)
      return ERR(CPROF_ESCHEMA, "node %u is reached twice: parent %u, but a child of node %u",
                 r->id, id, c->raw[r->parent].id);
    link_child(c->raw, k, i);
  }
  return 0;
}

static int cpu_find_root(const cpu_ctx_t *c, uint32_t *root, char *errbuf, size_t errlen) {
  uint32_t count = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    if (c->raw[i].parent != CPROF_NONE) continue;
    if (count++ == 0)
      *root = i;
    else
      return ERR(CPROF_ESCHEMA, "nodes %u and %u both have no parent: a profile has one root",
                 c->raw[*root].id, c->raw[i].id);
  }
  if (count == 0) return ERR(CPROF_ESCHEMA, "every node has a parent: the tree has a cycle");
  return 0;
}

/* Preorder without a stack: first child, else next sibling of the nearest
 * ancestor that has one. Only what hangs from the root is visited; with
 * one parent per node, anything left over sits on a cycle. */
static int cpu_order(cpu_ctx_t *c, uint32_t root, char *errbuf, size_t errlen) {
  const raw_node_t *raw = c->raw;
  uint32_t k = 0, cur = root;
  for (uint32_t i = 0; i < c->n; i++)
    c->pos[i] = CPROF_NONE;
  while (cur != CPROF_NONE) {
    c->pos[cur] = k;
    c->order[k++] = cur;
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
    if (c->pos[i] == CPROF_NONE)
      return ERR(CPROF_ESCHEMA, "node %u is not reachable from the root: its parents form a cycle",
                 raw[i].id);
  return 0;
}

static uint32_t mapped(const uint32_t *pos, uint32_t i) {
  return i == CPROF_NONE ? CPROF_NONE : pos[i];
}

static int cpu_emit_nodes(cprof_profile_t *p, const cpu_ctx_t *c) {
  p->nodes = calloc(c->n, sizeof(*p->nodes));
  if (p->nodes == NULL) return CPROF_ENOMEM;
  p->nnodes = c->n;
  for (uint32_t k = 0; k < c->n; k++) {
    const raw_node_t *r = &c->raw[c->order[k]];
    cprof_node_t *n = &p->nodes[k];
    n->id = r->id;
    n->parent = mapped(c->pos, r->parent);
    n->frame = r->frame;
    n->first_child = mapped(c->pos, r->first);
    n->next_sibling = mapped(c->pos, r->next);
    n->hit_count = r->hit_count;
  }
  return 0;
}

static int opt_array(const cJSON *obj, const char *key, const cJSON **out, uint32_t *n) {
  const cJSON *item = field(obj, key);
  *out = NULL;
  *n = 0;
  if (absent(item)) return 1;
  if (!cJSON_IsArray(item)) return 0;
  int size = cJSON_GetArraySize(item);
  *out = item;
  *n = size < 0 ? 0 : (uint32_t)size;
  return 1;
}

/* samples and timeDeltas pair up; a longer one's tail has no partner and
 * is ignored. */
static int cpu_samples(cprof_profile_t *p, const cpu_ctx_t *c, const cJSON *prof, char *errbuf,
                       size_t errlen) {
  const cJSON *samples, *deltas;
  uint32_t ns, nd;
  if (!opt_array(prof, "samples", &samples, &ns))
    return ERR(CPROF_ESCHEMA, "samples is not an array");
  if (!opt_array(prof, "timeDeltas", &deltas, &nd))
    return ERR(CPROF_ESCHEMA, "timeDeltas is not an array");
  uint32_t n = ns < nd ? ns : nd;
  if (n == 0) return 0;
  p->samples = malloc((size_t)n * sizeof(*p->samples));
  p->time_deltas = malloc((size_t)n * sizeof(*p->time_deltas));
  if (p->samples == NULL || p->time_deltas == NULL)
    return ERR(CPROF_ENOMEM, "out of memory for %u samples", n);
  const cJSON *s = samples->child, *d = deltas->child;
  for (uint32_t i = 0; i < n; i++, s = s->next, d = d->next) {
    uint32_t id, k;
    if (!to_u32(s, &id))
      return ERR(CPROF_ESCHEMA, "sample %u is not a node id (an integer in 0..4294967295)", i);
    k = idmap_get(&c->ids, id);
    if (k == CPROF_NONE)
      return ERR(CPROF_ESCHEMA, "sample %u names node %u, which the profile does not have", i, id);
    p->samples[i] = c->pos[k];
    if (!to_i64(d, &p->time_deltas[i]))
      return ERR(CPROF_ESCHEMA, "timeDeltas[%u] is not a number within +-2^53", i);
  }
  p->nsamples = n;
  return 0;
}

static int cpu_times(cprof_profile_t *p, const cJSON *prof, char *errbuf, size_t errlen) {
  if (!to_i64(field(prof, "startTime"), &p->start_time))
    return ERR(CPROF_ESCHEMA, "startTime is missing or not a number within +-2^53");
  if (!to_i64(field(prof, "endTime"), &p->end_time))
    return ERR(CPROF_ESCHEMA, "endTime is missing or not a number within +-2^53");
  return 0;
}

static int cpu_build(cprof_profile_t *p, cpu_ctx_t *c, const cJSON *prof, char *errbuf,
                     size_t errlen) {
  uint32_t root = 0;
  int rc;
  if ((rc = cpu_read_nodes(p, c, field(prof, "nodes"), errbuf, errlen)) != 0) return rc;
  if ((rc = cpu_link_children(c, errbuf, errlen)) != 0) return rc;
  if ((rc = cpu_link_parents(c, errbuf, errlen)) != 0) return rc;
  if ((rc = cpu_find_root(c, &root, errbuf, errlen)) != 0) return rc;
  if ((rc = cpu_order(c, root, errbuf, errlen)) != 0) return rc;
  if (cpu_emit_nodes(p, c) != 0) return ERR(CPROF_ENOMEM, "out of memory for %u nodes", c->n);
  if ((rc = cpu_samples(p, c, prof, errbuf, errlen)) != 0) return rc;
  return cpu_times(p, prof, errbuf, errlen);
}

static int parse_cpu(cprof_profile_t *p, const cJSON *prof, char *errbuf, size_t errlen) {
  const cJSON *nodes = field(prof, "nodes");
  cpu_ctx_t c = {0};
  int rc, size;
  if (!cJSON_IsArray(nodes)) return ERR(CPROF_ESCHEMA, "nodes is not an array");
  size = cJSON_GetArraySize(nodes);
  if (size <= 0) return ERR(CPROF_ESCHEMA, "nodes is empty: a profile has at least a root");
  c.n = (uint32_t)size;
  c.raw = malloc((size_t)c.n * sizeof(*c.raw));
  c.order = malloc((size_t)c.n * sizeof(*c.order));
  c.pos = malloc((size_t)c.n * sizeof(*c.pos));
  if (c.raw == NULL || c.order == NULL || c.pos == NULL || idmap_init(&c.ids, c.n) != 0)
    rc = ERR(CPROF_ENOMEM, "out of memory for %u nodes", c.n);
  else
    rc = cpu_build(p, &c, prof, errbuf, errlen);
  free(c.raw);
  free(c.order);
  free(c.pos);
  idmap_free(&c.ids);
  return rc;
}

/* ---- .heapprofile ---- */

typedef struct {
  const cJSON *json;
  uint32_t parent;
} heap_item_t;

typedef struct {
  heap_item_t *stack;
  size_t depth, stack_cap;
  uint32_t *last_child; /* per node, to append siblings in file order */
  uint32_t nodes_cap;
  int ids; /* 1: every node has an id, 0: none has (older Node) */
} heap_ctx_t;

static int heap_push(heap_ctx_t *h, const cJSON *json, uint32_t parent) {
  if (h->depth == h->stack_cap) {
    size_t cap = h->stack_cap ? h->stack_cap * 2 : 256;
    heap_item_t *s = realloc(h->stack, cap * sizeof(*s));
    if (s == NULL) return CPROF_ENOMEM;
    h->stack = s;
    h->stack_cap = cap;
  }
  h->stack[h->depth++] = (heap_item_t){json, parent};
  return 0;
}

static int heap_reserve(cprof_profile_t *p, heap_ctx_t *h) {
  if (p->nnodes < h->nodes_cap) return 0;
  if (h->nodes_cap >= UINT32_MAX / 2) return CPROF_ENOMEM;
  uint32_t cap = h->nodes_cap ? h->nodes_cap * 2 : 1024;
  cprof_node_t *nodes = realloc(p->nodes, (size_t)cap * sizeof(*nodes));
  if (nodes == NULL) return CPROF_ENOMEM;
  p->nodes = nodes;
  uint32_t *last = realloc(h->last_child, (size_t)cap * sizeof(*last));
  if (last == NULL) return CPROF_ENOMEM;
  h->last_child = last;
  h->nodes_cap = cap;
  return 0;
}

/* Children go on the stack reversed so they pop, and number, in order. */
static int heap_push_children(heap_ctx_t *h, const cJSON *kids, uint32_t parent) {
  size_t base = h->depth;
  const cJSON *kid;
  cJSON_ArrayForEach(kid, kids) {
    if (heap_push(h, kid, parent) != 0) return CPROF_ENOMEM;
  }
  for (size_t a = base, b = h->depth; a + 1 < b; a++, b--) {
    heap_item_t t = h->stack[a];
    h->stack[a] = h->stack[b - 1];
    h->stack[b - 1] = t;
  }
  return 0;
}

static int heap_node_fields(cprof_profile_t *p, heap_ctx_t *h, const cJSON *json, cprof_node_t *n,
                            char *errbuf, size_t errlen) {
  const cJSON *id = field(json, "id");
  uint32_t k = p->nnodes;
  char what[48];
  if (!cJSON_IsObject(json)) return ERR(CPROF_ESCHEMA, "heap node #%u is not an object", k);
  if (absent(id) == h->ids)
    return ERR(CPROF_ESCHEMA, "heap node #%u: ids must be on every node or on none", k);
  if (h->ids && !to_u32(id, &n->id))
    return ERR(CPROF_ESCHEMA, "heap node #%u: id is not an integer in 0..4294967295", k);
  if (!h->ids) n->id = k + 1;
  snprintf(what, sizeof(what), "heap node %u", n->id);
  int rc = parse_frame(p, json, what, &n->frame, errbuf, errlen);
  if (rc != 0) return rc;
  if (!to_size(field(json, "selfSize"), &n->self))
    return ERR(CPROF_ESCHEMA, "%s: selfSize is missing or not an integer in 0..2^53", what);
  return 0;
}

static int heap_visit(cprof_profile_t *p, heap_ctx_t *h, heap_item_t it, char *errbuf,
                      size_t errlen) {
  uint32_t k = p->nnodes;
  cprof_node_t *n;
  const cJSON *kids;
  if (k == UINT32_MAX - 1 || heap_reserve(p, h) != 0)
    return ERR(CPROF_ENOMEM, "out of memory for %u heap nodes", k);
  n = &p->nodes[k];
  *n = (cprof_node_t){.parent = it.parent, .first_child = CPROF_NONE, .next_sibling = CPROF_NONE};
  int rc = heap_node_fields(p, h, it.json, n, errbuf, errlen);
  if (rc != 0) return rc;
  p->nnodes++;
  h->last_child[k] = CPROF_NONE;
  if (it.parent != CPROF_NONE) {
    uint32_t last = h->last_child[it.parent];
    if (last == CPROF_NONE)
      p->nodes[it.parent].first_child = k;
    else
      p->nodes[last].next_sibling = k;
    h->last_child[it.parent] = k;
  }
  kids = field(it.json, "children");
  if (absent(kids)) return 0;
  if (!cJSON_IsArray(kids))
    return ERR(CPROF_ESCHEMA, "heap node %u: children is not an array", n->id);
  if (heap_push_children(h, kids, k) != 0) return ERR(CPROF_ENOMEM, "out of memory walking heap");
  return 0;
}

/* Flattens the nested tree in preorder with an explicit stack. */
static int heap_flatten(cprof_profile_t *p, heap_ctx_t *h, const cJSON *head, char *errbuf,
                        size_t errlen) {
  int rc;
  if (!cJSON_IsObject(head)) return ERR(CPROF_ESCHEMA, "head is not an object");
  h->ids = !absent(field(head, "id"));
  if (heap_push(h, head, CPROF_NONE) != 0) return ERR(CPROF_ENOMEM, "out of memory walking heap");
  while (h->depth > 0) {
    if ((rc = heap_visit(p, h, h->stack[--h->depth], errbuf, errlen)) != 0) return rc;
  }
  return 0;
}

static int heap_sample(cprof_profile_t *p, const idmap_t *ids, const cJSON *s, uint32_t i,
                       char *errbuf, size_t errlen) {
  const cJSON *ord;
  int64_t size, ordinal = 0;
  uint32_t id, k;
  if (!cJSON_IsObject(s)) return ERR(CPROF_ESCHEMA, "heap sample %u is not an object", i);
  if (!to_size(field(s, "size"), &size))
    return ERR(CPROF_ESCHEMA, "heap sample %u: size is missing or not an integer in 0..2^53", i);
  if (!to_u32(field(s, "nodeId"), &id))
    return ERR(CPROF_ESCHEMA, "heap sample %u: nodeId is not an integer in 0..4294967295", i);
  ord = field(s, "ordinal");
  if (!absent(ord) && !to_size(ord, &ordinal))
    return ERR(CPROF_ESCHEMA, "heap sample %u: ordinal is not an integer in 0..2^53", i);
  k = idmap_get(ids, id);
  if (k == CPROF_NONE) return 1; /* V8 does this; dropped, counted by the caller */
  p->samples[p->nsamples] = k;
  p->sample_sizes[p->nsamples] = size;
  p->sample_ordinals[p->nsamples] = (uint64_t)ordinal;
  p->nsamples++;
  return 0;
}

static int heap_samples(cprof_profile_t *p, const cJSON *prof, char *errbuf, size_t errlen) {
  const cJSON *samples, *s;
  uint32_t n, i = 0, dropped = 0;
  idmap_t ids = {0};
  int rc = 0;
  if (!opt_array(prof, "samples", &samples, &n))
    return ERR(CPROF_ESCHEMA, "samples is not an array");
  if (idmap_init(&ids, p->nnodes) != 0) {
    idmap_free(&ids);
    return ERR(CPROF_ENOMEM, "out of memory for %u heap nodes", p->nnodes);
  }
  for (uint32_t k = 0; k < p->nnodes && rc == 0; k++)
    if (idmap_put(&ids, p->nodes[k].id, k) != CPROF_NONE)
      rc = ERR(CPROF_ESCHEMA, "duplicate heap node id %u", p->nodes[k].id);
  if (rc == 0 && n > 0) {
    p->samples = malloc((size_t)n * sizeof(*p->samples));
    p->sample_sizes = malloc((size_t)n * sizeof(*p->sample_sizes));
    p->sample_ordinals = malloc((size_t)n * sizeof(*p->sample_ordinals));
    if (!p->samples || !p->sample_sizes || !p->sample_ordinals)
      rc = ERR(CPROF_ENOMEM, "out of memory for %u heap samples", n);
    for (s = samples->child; rc == 0 && s != NULL && i < n; s = s->next, i++) {
      rc = heap_sample(p, &ids, s, i, errbuf, errlen);
      if (rc == 1) {
        dropped++;
        rc = 0;
      }
    }
  }
  cprof__profile_set_dropped(p, dropped);
  idmap_free(&ids);
  return rc;
}

static int parse_heap(cprof_profile_t *p, const cJSON *prof, char *errbuf, size_t errlen) {
  heap_ctx_t h = {0};
  int rc = heap_flatten(p, &h, field(prof, "head"), errbuf, errlen);
  free(h.stack);
  free(h.last_child);
  if (rc != 0) return rc;
  return heap_samples(p, prof, errbuf, errlen);
}

/* ---- format detection ---- */

static int inspector_error(const cJSON *err, char *errbuf, size_t errlen) {
  const cJSON *code = field(err, "code"), *msg = field(err, "message");
  const char *text = cJSON_IsString(msg) && msg->valuestring ? msg->valuestring : "(no message)";
  if (cJSON_IsNumber(code))
    return ERR(CPROF_EPROTO, "inspector error %.0f: %s", code->valuedouble, text);
  return ERR(CPROF_EPROTO, "inspector error: %s", text);
}

/* Finds the profile object: the document itself, or result.profile of an
 * inspector reply. */
static int find_profile(const cJSON *root, const cJSON **prof, char *errbuf, size_t errlen) {
  static const char neither[] = "neither a .cpuprofile (nodes) nor a .heapprofile (head)";
  const cJSON *err, *result;
  if (!cJSON_IsObject(root)) return ERR(CPROF_ESCHEMA, "not a JSON object: %s", neither);
  if (field(root, "nodes") || field(root, "head")) {
    *prof = root;
    return 0;
  }
  err = field(root, "error");
  if (cJSON_IsObject(err)) return inspector_error(err, errbuf, errlen);
  result = field(root, "result");
  if (cJSON_IsObject(result)) {
    *prof = field(result, "profile");
    if (cJSON_IsObject(*prof) && (field(*prof, "nodes") || field(*prof, "head"))) return 0;
    return ERR(CPROF_ESCHEMA, "inspector reply without result.profile: %s", neither);
  }
  return ERR(CPROF_ESCHEMA, "%s", neither);
}

/* Depth of the JSON nesting at `end`, to tell cJSON's nesting limit apart
 * from malformed input (cJSON reports both the same way). */
static size_t depth_at(const char *json, size_t end) {
  size_t depth = 0;
  int in_str = 0;
  for (size_t i = 0; i < end; i++) {
    char ch = json[i];
    if (in_str) {
      if (ch == '\\')
        i++;
      else if (ch == '"')
        in_str = 0;
    } else if (ch == '"') {
      in_str = 1;
    } else if (ch == '{' || ch == '[') {
      depth++;
    } else if ((ch == '}' || ch == ']') && depth > 0) {
      depth--;
    }
  }
  return depth;
}

static int json_error(const char *json, size_t len, const char *end, char *errbuf, size_t errlen) {
  size_t off = end != NULL && end >= json && end <= json + len ? (size_t)(end - json) : 0;
  if (len == 0) return ERR(CPROF_EPARSE, "empty input: not JSON");
  if (depth_at(json, off) >= CJSON_NESTING_LIMIT)
    return ERR(CPROF_EPARSE, "JSON nested deeper than %d levels at byte %zu (the parser's limit)",
               CJSON_NESTING_LIMIT, off);
  return ERR(CPROF_EPARSE, "invalid or truncated JSON: parsing stopped at byte %zu of %zu", off,
             len);
}

static int trailing_garbage(const char *json, size_t len, const char *end, size_t *off) {
  size_t i = (size_t)(end - json);
  while (i < len && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' || json[i] == '\r' ||
                     json[i] == '\0'))
    i++;
  *off = i;
  return i < len;
}

static int parse_doc(cprof_profile_t **pp, const cJSON *root, char *errbuf, size_t errlen) {
  const cJSON *prof = NULL;
  int rc = find_profile(root, &prof, errbuf, errlen);
  if (rc != 0) return rc;
  int cpu = field(prof, "nodes") != NULL;
  *pp = cprof__profile_new(cpu ? CPROF_KIND_CPU : CPROF_KIND_HEAP);
  if (*pp == NULL) return ERR(CPROF_ENOMEM, "out of memory");
  rc = cpu ? parse_cpu(*pp, prof, errbuf, errlen) : parse_heap(*pp, prof, errbuf, errlen);
  if (rc == 0) cprof__profile_finish(*pp);
  return rc;
}

int cprof_profile_parse(const char *json, size_t len, cprof_profile_t **out, char *errbuf,
                        size_t errlen) {
  const char *end = NULL;
  cprof_profile_t *p = NULL;
  cJSON *root;
  size_t off;
  int rc;
  if (errbuf != NULL && errlen > 0) errbuf[0] = '\0';
  if (out == NULL || (json == NULL && len > 0))
    return ERR(CPROF_EINVAL, "cprof_profile_parse: NULL argument");
  *out = NULL;
  if (json == NULL) json = "";
  root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
  if (root == NULL) return json_error(json, len, end, errbuf, errlen);
  if (trailing_garbage(json, len, end, &off))
    rc = ERR(CPROF_EPARSE, "unexpected data after the JSON value at byte %zu", off);
  else
    rc = parse_doc(&p, root, errbuf, errlen);
  cJSON_Delete(root);
  if (rc != 0) {
    cprof_profile_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

/* Retainer paths as group keys (cprof snapshot diff): the path of a node
 * is the distance search's first edges from the root (parent_edge, the
 * path `cprof snapshot` prints), each step an edge label and a node label
 * (class; a root group's or a function's name). Indexes (element and
 * hidden edges, and names made of digits such as a hash table's slots)
 * are one label, "[]", so the 10,000 entries of one Map share a path; a
 * step equal to the one before it is folded into it, so the links of one
 * list share a path too.
 *
 * Keys are interned in a trie of the paths' prefixes: a node's key is
 * (its parent's key, edge label, node label), found or added in a hash
 * table, and remembered per node, so every node's key costs one step
 * whatever the depth, and equal paths get equal keys without ever
 * building their text (only the groups reported are rendered). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "internal.h"
#include "snapshot.h"

#define KEY_ROOT 0
#define KEY_NO_PATH 1
#define EDGE_FROM_ROOT (UINT32_MAX - 1) /* the root's own edge: not printed */
#define EDGE_INDEX UINT32_MAX           /* "[]" */
#define TEXT_MAX_STEPS 64               /* longer paths are cut at the root end */

typedef struct {
  uint32_t parent, edge_key;
  uint64_t node_key;
  uint32_t edge, node; /* the first edge and node met with this key: its labels */
} step_t;

struct cprof__snap_paths {
  const cprof__snap_t *s;
  uint32_t *of_node; /* node_count: the node's key, NONE until asked */
  step_t *steps;
  uint32_t count, cap;
  uint32_t *index; /* open addressing over steps: key + 1, 0 empty */
  size_t index_cap;
  uint32_t *stack;
  uint32_t stack_cap;
};

cprof__snap_paths_t *cprof__snap_paths_new(const cprof__snap_t *s) {
  cprof__snap_paths_t *p = calloc(1, sizeof *p);
  if (p == NULL) return NULL;
  p->s = s;
  p->of_node = malloc((s->node_count ? s->node_count : 1) * sizeof *p->of_node);
  p->cap = 64;
  p->steps = calloc(p->cap, sizeof *p->steps);
  if (p->of_node == NULL || p->steps == NULL) {
    cprof__snap_paths_free(p);
    return NULL;
  }
  memset(p->of_node, 0xff, (size_t)s->node_count * sizeof *p->of_node);
  p->steps[KEY_ROOT] = (step_t){CPROF__SNAP_NONE, EDGE_FROM_ROOT, 0, CPROF__SNAP_NONE, s->root};
  p->steps[KEY_NO_PATH] =
      (step_t){CPROF__SNAP_NONE, EDGE_FROM_ROOT, 0, CPROF__SNAP_NONE, CPROF__SNAP_NONE};
  p->count = 2;
  if (s->node_count > 0) p->of_node[s->root] = KEY_ROOT;
  return p;
}

void cprof__snap_paths_free(cprof__snap_paths_t *p) {
  if (p == NULL) return;
  free(p->of_node), free(p->steps), free(p->index), free(p->stack);
  free(p);
}

uint32_t cprof__snap_path_keys(const cprof__snap_paths_t *p) {
  return p->count;
}

static int digits(const char *name) {
  if (*name == '\0') return 0;
  while (*name >= '0' && *name <= '9')
    name++;
  return *name == '\0';
}

static uint32_t edge_key(const cprof__snap_t *s, uint32_t from, uint32_t e) {
  uint32_t t = cprof__snap_etype(s, e), name = cprof__snap_ename(s, e);
  if (from == s->root) return EDGE_FROM_ROOT;
  if (t == s->et_element || t == s->et_hidden || digits(cprof__snap_str(s, name)))
    return EDGE_INDEX;
  return name;
}

/* The node's label as a number: its class, or for a root group and a
 * function their name (which says more than "(synthetic)", "Function"). */
static uint64_t node_key(const cprof__snap_t *s, uint32_t n) {
  uint32_t t = cprof__snap_ntype(s, n), name = cprof__snap_nname(s, n);
  if (t == s->t_synthetic) return (1ull << 62) | name;
  if (t == s->t_closure) return (2ull << 62) | name;
  return cprof__snap_class_key(s, n);
}

static uint64_t step_hash(uint32_t parent, uint32_t ek, uint64_t nk) {
  uint64_t h = cprof__hash_bytes(CPROF__HASH_SEED, &parent, sizeof parent);
  h = cprof__hash_bytes(h, &ek, sizeof ek);
  return cprof__hash_bytes(h, &nk, sizeof nk);
}

static int index_grow(cprof__snap_paths_t *p) {
  size_t cap = p->index_cap ? p->index_cap * 2 : 256;
  uint32_t *index = calloc(cap, sizeof *index);
  if (index == NULL) return -1;
  for (uint32_t k = 2; k < p->count; k++) {
    const step_t *st = &p->steps[k];
    size_t j = step_hash(st->parent, st->edge_key, st->node_key) & (cap - 1);
    while (index[j] != 0)
      j = (j + 1) & (cap - 1);
    index[j] = k + 1;
  }
  free(p->index);
  p->index = index;
  p->index_cap = cap;
  return 0;
}

/* The key of (parent, e into n): the parent's when the step repeats the
 * parent's own step, else found or added. NONE out of memory. */
static uint32_t intern(cprof__snap_paths_t *p, uint32_t parent, uint32_t e, uint32_t n) {
  const cprof__snap_t *s = p->s;
  uint32_t ek = edge_key(s, parent == KEY_ROOT ? s->root : CPROF__SNAP_NONE, e);
  uint64_t nk = node_key(s, n);
  if (parent >= 2 && p->steps[parent].edge_key == ek && p->steps[parent].node_key == nk)
    return parent;
  if ((p->count + 1) * 2 > p->index_cap && index_grow(p) != 0) return CPROF__SNAP_NONE;
  size_t j = step_hash(parent, ek, nk) & (p->index_cap - 1);
  for (; p->index[j] != 0; j = (j + 1) & (p->index_cap - 1)) {
    const step_t *st = &p->steps[p->index[j] - 1];
    if (st->parent == parent && st->edge_key == ek && st->node_key == nk) return p->index[j] - 1;
  }
  if (p->count == UINT32_MAX - 1) return CPROF__SNAP_NONE;
  if (p->count == p->cap) {
    step_t *steps = realloc(p->steps, (size_t)p->cap * 2 * sizeof *steps);
    if (steps == NULL) return CPROF__SNAP_NONE;
    p->steps = steps;
    p->cap *= 2;
  }
  p->steps[p->count] = (step_t){parent, ek, nk, e, n};
  p->index[j] = p->count + 1;
  return p->count++;
}

static int push(cprof__snap_paths_t *p, uint32_t *depth, uint32_t n) {
  if (*depth == p->stack_cap) {
    uint32_t cap = p->stack_cap ? p->stack_cap * 2 : 64;
    uint32_t *stack = realloc(p->stack, (size_t)cap * sizeof *stack);
    if (stack == NULL) return -1;
    p->stack = stack;
    p->stack_cap = cap;
  }
  p->stack[(*depth)++] = n;
  return 0;
}

/* Up parent_edge to a node whose key is known (the root's is), then down
 * again, keying each node from its parent's. */
uint32_t cprof__snap_path_key(cprof__snap_paths_t *p, uint32_t n) {
  const cprof__snap_t *s = p->s;
  uint32_t depth = 0, at = n;
  while (p->of_node[at] == CPROF__SNAP_NONE) {
    if (s->parent_edge[at] == CPROF__SNAP_NONE) {
      p->of_node[at] = KEY_NO_PATH;
      break;
    }
    if (depth == s->node_count || push(p, &depth, at) != 0) return CPROF__SNAP_NONE;
    at = cprof__snap_edge_source(s, s->parent_edge[at]);
  }
  uint32_t key = p->of_node[at];
  while (depth > 0) {
    uint32_t m = p->stack[--depth];
    if ((key = intern(p, key, s->parent_edge[m], m)) == CPROF__SNAP_NONE) return key;
    p->of_node[m] = key;
  }
  return key;
}

/* ---- text ---- */

typedef struct {
  char *text;
  size_t len, cap;
} buf_t;

static int put(buf_t *b, const char *str) {
  size_t n = strlen(str);
  if (b->len + n + 1 > b->cap) {
    size_t cap = (b->len + n + 1) * 2;
    char *t = realloc(b->text, cap);
    if (t == NULL) return -1;
    b->text = t;
    b->cap = cap;
  }
  memcpy(b->text + b->len, str, n + 1);
  b->len += n;
  return 0;
}

static int put_node(buf_t *b, const cprof__snap_t *s, uint32_t n) {
  uint32_t t = cprof__snap_ntype(s, n);
  const char *name = cprof__snap_name(s, cprof__snap_nname(s, n), NULL, NULL);
  if (t == s->t_synthetic && *name) return put(b, name);
  if (t == s->t_closure && *name) return put(b, name) || put(b, "()");
  char buf[300];
  return put(b, cprof__snap_class_name(s, cprof__snap_class_key(s, n), buf, sizeof buf));
}

static int put_step(buf_t *b, const cprof__snap_t *s, const step_t *st, int first) {
  if (st->edge_key == EDGE_FROM_ROOT)
    return (first ? 0 : put(b, " → ")) || put_node(b, s, st->node);
  const char *edge =
      st->edge_key == EDGE_INDEX ? "[]" : cprof__snap_name(s, st->edge_key, NULL, NULL);
  return (first ? 0 : put(b, " → ")) || put(b, edge) || put(b, " → ") || put_node(b, s, st->node);
}

char *cprof__snap_path_text(const cprof__snap_paths_t *p, uint32_t k) {
  buf_t b = {0};
  if (k == KEY_ROOT || k == KEY_NO_PATH)
    return put(&b, k == KEY_ROOT ? "(root)" : "(no path from a root)") == 0 ? b.text : NULL;
  uint32_t chain[TEXT_MAX_STEPS], count = 0;
  for (; k > KEY_NO_PATH && k < p->count && count < TEXT_MAX_STEPS; k = p->steps[k].parent)
    chain[count++] = k;
  int cut = k != KEY_ROOT, rc = put(&b, cut ? "…" : "");
  for (uint32_t i = count; rc == 0 && i-- > 0;)
    rc = put_step(&b, p->s, &p->steps[chain[i]], !cut && i == count - 1);
  if (rc != 0) {
    free(b.text);
    return NULL;
  }
  return b.text;
}

/* ---- groups ---- */

typedef struct {
  uint32_t key, count, example; /* example: the member with the largest retained size */
  uint64_t self, retained;
} group_t;

static uint32_t group_bucket(const void *ctx, uint32_t n) {
  return ((const uint32_t *)ctx)[n];
}

static int by_retained(const void *a, const void *b) {
  const group_t *x = a, *y = b;
  if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
  if (x->count != y->count) return x->count < y->count ? 1 : -1;
  return x->key < y->key ? -1 : x->key > y->key;
}

/* Members' keys, then one group per key: group_of[n] becomes the group's
 * index. The groups in *out, their count in *n. */
static int make_groups(cprof__snap_paths_t *p, uint32_t *group_of, group_t **out, uint32_t *n) {
  const cprof__snap_t *s = p->s;
  for (uint32_t i = 0; i < s->node_count; i++)
    if (group_of[i] != CPROF__SNAP_NONE &&
        (group_of[i] = cprof__snap_path_key(p, i)) == CPROF__SNAP_NONE)
      return CPROF_ENOMEM;
  uint32_t *gidx = malloc((size_t)p->count * sizeof *gidx);
  group_t *g = malloc((size_t)p->count * sizeof *g);
  if (gidx == NULL || g == NULL) {
    free(gidx), free(g);
    return CPROF_ENOMEM;
  }
  memset(gidx, 0xff, (size_t)p->count * sizeof *gidx);
  uint32_t count = 0;
  for (uint32_t i = 0; i < s->node_count; i++) {
    uint32_t k = group_of[i];
    if (k == CPROF__SNAP_NONE) continue;
    if (gidx[k] == CPROF__SNAP_NONE) g[gidx[k] = count++] = (group_t){.key = k, .example = i};
    group_t *x = &g[group_of[i] = gidx[k]];
    x->count++;
    x->self += cprof__snap_self(s, i);
    if (s->retained[i] > s->retained[x->example]) x->example = i;
  }
  free(gidx);
  *out = g;
  *n = count;
  return CPROF_OK;
}

static cJSON *group_json(cprof__snap_paths_t *p, const group_t *g) {
  const cprof__snap_t *s = p->s;
  cJSON *o = cJSON_CreateObject(), *ex = NULL, *steps = NULL;
  char *text = cprof__snap_path_text(p, g->key);
  int ok = o && text && cJSON_AddStringToObject(o, "path", text) &&
           cJSON_AddNumberToObject(o, "count", g->count) &&
           cJSON_AddNumberToObject(o, "selfSize", (double)g->self) &&
           cJSON_AddNumberToObject(o, "retainedSize", (double)g->retained) &&
           (ex = cJSON_AddObjectToObject(o, "example")) != NULL &&
           cJSON_AddNumberToObject(ex, "id", cprof__snap_nid(s, g->example)) &&
           cJSON_AddNumberToObject(ex, "selfSize", cprof__snap_self(s, g->example)) &&
           cJSON_AddNumberToObject(ex, "retainedSize", (double)s->retained[g->example]) &&
           (steps = cprof__snap_path_json(s, g->example)) != NULL;
  if (ok && !cJSON_AddItemToObject(ex, "path", steps)) {
    cJSON_Delete(steps);
    ok = 0;
  }
  free(text);
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* { count, selfSize, paths, groups: [the top groups by retained size] } */
static cJSON *groups_render(cprof__snap_paths_t *p, group_t *g, uint32_t n, unsigned top) {
  cJSON *doc = cJSON_CreateObject(), *arr = NULL, *row;
  uint64_t count = 0, self = 0;
  for (uint32_t i = 0; i < n; i++)
    count += g[i].count, self += g[i].self;
  int ok = doc && cJSON_AddNumberToObject(doc, "count", (double)count) &&
           cJSON_AddNumberToObject(doc, "selfSize", (double)self) &&
           cJSON_AddNumberToObject(doc, "paths", n) &&
           (arr = cJSON_AddArrayToObject(doc, "groups")) != NULL;
  qsort(g, n, sizeof *g, by_retained);
  for (uint32_t i = 0; ok && i < n && i < top; i++)
    ok = (row = group_json(p, &g[i])) != NULL && cJSON_AddItemToArray(arr, row);
  if (!ok) {
    cJSON_Delete(doc);
    return NULL;
  }
  return doc;
}

cJSON *cprof__snap_groups_json(const cprof__snap_t *s, uint32_t *group_of, unsigned top) {
  cprof__snap_paths_t *p = cprof__snap_paths_new(s);
  group_t *g = NULL;
  uint32_t n = 0;
  cJSON *doc = NULL;
  if (p == NULL || make_groups(p, group_of, &g, &n) != CPROF_OK) goto out;
  uint64_t *sums = calloc(n ? n : 1, sizeof *sums);
  if (sums == NULL || cprof__snap_bucket_retained(s, group_bucket, group_of, sums, n) != CPROF_OK) {
    free(sums);
    goto out;
  }
  for (uint32_t i = 0; i < n; i++)
    g[i].retained = sums[i];
  free(sums);
  doc = groups_render(p, g, n, top);
out:
  free(g);
  cprof__snap_paths_free(p);
  return doc;
}

/* cprof_snapshot_view: the HTML viewer's data for a heap snapshot (see
 * heapsnapshot.h): the class table, each listed class's largest objects,
 * the largest objects overall, and one table of nodes holding all of them
 * and their retainers a few levels up (snapshot_retainers.c). Every list is
 * capped (VIEW_* below and the classes asked for), so the page stays a
 * few MB whatever the snapshot's size. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "heapsnapshot.h"
#include "internal.h"
#include "snapshot.h"

typedef struct {
  const cprof__snap_t *s;
  uint32_t *slot; /* node_count: the node's table index, or NONE */
  uint32_t *node; /* the table: node ordinals */
  uint32_t count;
  /* per table entry: its retainers rets[first .. first + n), how many
   * there are in all, the weak ones left out; expanded: 1 once looked up */
  uint32_t *first, *n, *all, *weak;
  uint8_t *expanded;
  cprof__snap_ret_t *rets; /* { edge, table index of the retainer } */
  uint32_t rets_count;
  int full; /* the node cap was met: some retainers were left out */
} view_t;

static int view_init(view_t *v, const cprof__snap_t *s) {
  memset(v, 0, sizeof *v);
  v->s = s;
  v->slot = malloc((s->node_count ? s->node_count : 1) * sizeof *v->slot);
  v->node = malloc(CPROF_SNAPSHOT_VIEW_NODES * sizeof *v->node);
  v->first = calloc(CPROF_SNAPSHOT_VIEW_NODES, sizeof *v->first);
  v->n = calloc(CPROF_SNAPSHOT_VIEW_NODES, sizeof *v->n);
  v->all = calloc(CPROF_SNAPSHOT_VIEW_NODES, sizeof *v->all);
  v->weak = calloc(CPROF_SNAPSHOT_VIEW_NODES, sizeof *v->weak);
  v->expanded = calloc(CPROF_SNAPSHOT_VIEW_NODES, 1);
  v->rets =
      malloc((size_t)CPROF_SNAPSHOT_VIEW_NODES * CPROF_SNAPSHOT_VIEW_FANOUT * sizeof *v->rets);
  if (!v->slot || !v->node || !v->first || !v->n || !v->all || !v->weak || !v->expanded || !v->rets)
    return -1;
  memset(v->slot, 0xff, (size_t)s->node_count * sizeof *v->slot);
  return 0;
}

static void view_free(view_t *v) {
  free(v->slot), free(v->node), free(v->first), free(v->n), free(v->all), free(v->weak);
  free(v->expanded), free(v->rets);
}

/* node's table index, added when new; NONE when the table is full. */
static uint32_t add(view_t *v, uint32_t node) {
  if (v->slot[node] != CPROF__SNAP_NONE) return v->slot[node];
  if (v->count == CPROF_SNAPSHOT_VIEW_NODES) {
    v->full = 1;
    return CPROF__SNAP_NONE;
  }
  v->node[v->count] = node;
  return v->slot[node] = v->count++;
}

/* Looks up the retainers of table entries [lo, hi) and adds them to the
 * table. 0, or -1 out of memory. */
static int expand(view_t *v, uint32_t lo, uint32_t hi) {
  const uint32_t fan = CPROF_SNAPSHOT_VIEW_FANOUT, k = hi - lo;
  cprof__snap_ret_t *out = malloc((size_t)k * fan * sizeof *out);
  uint32_t *got = calloc(k, sizeof *got), *all = calloc(k, sizeof *all);
  uint32_t *weak = calloc(k, sizeof *weak);
  int rc = out && got && all && weak ? 0 : -1;
  if (rc == 0) cprof__snap_retainers(v->s, v->slot, lo, hi, fan, out, got, all, weak);
  for (uint32_t i = 0; rc == 0 && i < k; i++) {
    uint32_t at = lo + i;
    v->expanded[at] = 1, v->first[at] = v->rets_count, v->all[at] = all[i], v->weak[at] = weak[i];
    for (uint32_t j = 0; j < got[i]; j++) {
      uint32_t from = add(v, out[(size_t)i * fan + j].from);
      if (from == CPROF__SNAP_NONE) continue; /* counted in all: "n more" */
      v->rets[v->rets_count++] = (cprof__snap_ret_t){out[(size_t)i * fan + j].edge, from};
      v->n[at]++;
    }
  }
  free(out), free(got), free(all), free(weak);
  return rc;
}

/* The retainers of everything in the table, level by level. */
static int expand_all(view_t *v) {
  uint32_t lo = 0, hi = v->count;
  for (int depth = 0; depth < CPROF_SNAPSHOT_VIEW_DEPTH && lo < hi; depth++) {
    if (expand(v, lo, hi) != 0) return -1;
    lo = hi, hi = v->count;
  }
  return 0;
}

/* Keeps the `cap` largest nodes by retained size in best[0..*k), largest
 * first. */
static void keep_largest(const cprof__snap_t *s, uint32_t *best, uint32_t *k, uint32_t cap,
                         uint32_t node) {
  if (*k == cap && s->retained[best[cap - 1]] >= s->retained[node]) return;
  uint32_t j = *k < cap ? (*k)++ : cap - 1;
  while (j > 0 && s->retained[best[j - 1]] < s->retained[node]) {
    best[j] = best[j - 1];
    j--;
  }
  best[j] = node;
}

/* The largest objects of each of the classes cls[0..k): row r's in
 * best[r * CAP ..], got[r] of them. ids: class key -> row. */
static int instances(const cprof__snap_t *s, const cprof__snap_class_t *cls, uint32_t k,
                     uint32_t *best, uint32_t *got) {
  size_t keys = 2 * (size_t)s->str_count + s->ntypes.count;
  uint32_t *ids = malloc(keys * sizeof *ids);
  if (ids == NULL) return -1;
  memset(ids, 0xff, keys * sizeof *ids);
  for (uint32_t r = 0; r < k; r++)
    ids[cls[r].key] = r;
  for (uint32_t i = 0; i < s->node_count; i++) {
    if (!cprof__snap_counted(s, i)) continue;
    uint32_t r = ids[cprof__snap_class_key(s, i)];
    if (r != CPROF__SNAP_NONE)
      keep_largest(s, best + (size_t)r * CPROF_SNAPSHOT_VIEW_INSTANCES, &got[r],
                   CPROF_SNAPSHOT_VIEW_INSTANCES, i);
  }
  free(ids);
  return 0;
}

/* [table index, …] of nodes[0..k), added to the table (all fit: the
 * table's cap is above the listed objects'). */
static cJSON *index_list(view_t *v, const uint32_t *nodes, uint32_t k) {
  cJSON *arr = cJSON_CreateArray();
  for (uint32_t i = 0; arr != NULL && i < k; i++) {
    cJSON *x = cJSON_CreateNumber(add(v, nodes[i]));
    if (x == NULL || !cJSON_AddItemToArray(arr, x)) cJSON_Delete(arr), arr = NULL;
  }
  return arr;
}

static int add_sizes(cJSON *o, uint64_t self, uint64_t retained, int32_t distance) {
  return cJSON_AddNumberToObject(o, "selfSize", (double)self) &&
         cJSON_AddNumberToObject(o, "retainedSize", (double)retained) &&
         cprof__snap_distance_json(o, distance);
}

/* One class row: name, count, sizes, distance, objects (its largest,
 * table indexes), more (its objects not listed). */
static cJSON *class_row(view_t *v, const cprof__snap_class_t *c, const uint32_t *best,
                        uint32_t got) {
  char buf[300];
  cJSON *o = cJSON_CreateObject(), *objs = NULL;
  if (o == NULL ||
      !cJSON_AddStringToObject(o, "name", cprof__snap_class_name(v->s, c->key, buf, sizeof buf)) ||
      !cJSON_AddNumberToObject(o, "count", c->count) ||
      !add_sizes(o, c->self, c->retained, c->distance) ||
      (objs = index_list(v, best, got)) == NULL || !cJSON_AddItemToObject(o, "objects", objs) ||
      (objs = NULL, !cJSON_AddNumberToObject(o, "more", c->count - got))) {
    cJSON_Delete(objs);
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static cJSON *class_rows(view_t *v, const cprof__snap_class_t *cls, uint32_t k) {
  uint32_t *best = malloc(((size_t)k * CPROF_SNAPSHOT_VIEW_INSTANCES + 1) * sizeof *best);
  uint32_t *got = calloc(k + 1, sizeof *got);
  cJSON *arr = best && got && instances(v->s, cls, k, best, got) == 0 ? cJSON_CreateArray() : NULL;
  for (uint32_t r = 0; arr != NULL && r < k; r++) {
    cJSON *o = class_row(v, &cls[r], best + (size_t)r * CPROF_SNAPSHOT_VIEW_INSTANCES, got[r]);
    if (o == NULL || !cJSON_AddItemToArray(arr, o)) cJSON_Delete(o), cJSON_Delete(arr), arr = NULL;
  }
  free(best), free(got);
  return arr;
}

/* A table entry's retainers: [[edge name, edge type, table index], …]. */
static cJSON *retainer_rows(const view_t *v, uint32_t at) {
  const cprof__snap_t *s = v->s;
  char buf[32];
  cJSON *arr = cJSON_CreateArray();
  for (uint32_t j = 0; arr != NULL && j < v->n[at]; j++) {
    cprof__snap_ret_t r = v->rets[v->first[at] + j];
    cJSON *row = cJSON_CreateArray();
    if (row == NULL || !cJSON_AddItemToArray(arr, row) ||
        !cJSON_AddItemToArray(
            row, cJSON_CreateString(cprof__snap_edge_name(s, r.edge, buf, sizeof buf))) ||
        !cJSON_AddItemToArray(row,
                              cJSON_CreateString(s->etypes.names[cprof__snap_etype(s, r.edge)])) ||
        !cJSON_AddItemToArray(row, cJSON_CreateNumber(r.from)))
      cJSON_Delete(arr), arr = NULL;
  }
  return arr;
}

/* One table entry: the node, its sizes and, once expanded, retainers,
 * more (retainers left out by the caps) and weak (weak ones not shown). */
static cJSON *node_row(const view_t *v, uint32_t at) {
  const cprof__snap_t *s = v->s;
  uint32_t n = v->node[at];
  cJSON *o = cJSON_CreateObject(), *rets = NULL;
  int ok = o != NULL && cprof__snap_node_json(o, s, n) == 0 &&
           add_sizes(o, cprof__snap_self(s, n), s->retained[n], s->dist[n]);
  if (ok && v->expanded[at])
    ok = (rets = retainer_rows(v, at)) != NULL && cJSON_AddItemToObject(o, "retainers", rets) &&
         (rets = NULL, cJSON_AddNumberToObject(o, "more", v->all[at] - v->n[at])) &&
         cJSON_AddNumberToObject(o, "weak", v->weak[at]);
  if (!ok) cJSON_Delete(rets), cJSON_Delete(o), o = NULL;
  return o;
}

static cJSON *node_rows(const view_t *v) {
  cJSON *arr = cJSON_CreateArray();
  for (uint32_t at = 0; arr != NULL && at < v->count; at++) {
    cJSON *o = node_row(v, at);
    if (o == NULL || !cJSON_AddItemToArray(arr, o)) cJSON_Delete(o), cJSON_Delete(arr), arr = NULL;
  }
  return arr;
}

static int add_caps(cJSON *doc, uint32_t classes) {
  cJSON *c = cJSON_AddObjectToObject(doc, "caps");
  return c != NULL && cJSON_AddNumberToObject(c, "classes", classes) &&
         cJSON_AddNumberToObject(c, "instances", CPROF_SNAPSHOT_VIEW_INSTANCES) &&
         cJSON_AddNumberToObject(c, "objects", CPROF_SNAPSHOT_VIEW_OBJECTS) &&
         cJSON_AddNumberToObject(c, "depth", CPROF_SNAPSHOT_VIEW_DEPTH) &&
         cJSON_AddNumberToObject(c, "fanout", CPROF_SNAPSHOT_VIEW_FANOUT) &&
         cJSON_AddNumberToObject(c, "nodes", CPROF_SNAPSHOT_VIEW_NODES);
}

static int add_totals(cJSON *doc, const cprof__snap_t *s, uint32_t nclasses) {
  return cJSON_AddStringToObject(doc, "kind", "heapsnapshot") &&
         cJSON_AddNumberToObject(doc, "nodes", s->node_count) &&
         cJSON_AddNumberToObject(doc, "edges", s->edge_count) &&
         cJSON_AddNumberToObject(doc, "totalSize", (double)s->retained[s->root]) &&
         cJSON_AddNumberToObject(doc, "unreachable", s->unreachable) &&
         cJSON_AddNumberToObject(doc, "classCount", nclasses);
}

/* The document; the classes and objects lists first, so their nodes are
 * the table's first entries and the retainers are looked up after. */
static char *render(const cprof__snap_t *s, view_t *v, const cprof__snap_class_t *cls, uint32_t n,
                    uint32_t top) {
  uint32_t k = n < top ? n : top, best[CPROF_SNAPSHOT_VIEW_OBJECTS], nbest = 0;
  cprof__snap_largest(s, CPROF_SNAPSHOT_VIEW_OBJECTS, best, &nbest);
  cJSON *doc = cJSON_CreateObject(), *x = NULL;
  char *text = NULL;
  int ok = doc != NULL && add_totals(doc, s, n) && add_caps(doc, top) &&
           (x = class_rows(v, cls, k)) != NULL && cJSON_AddItemToObject(doc, "classes", x) &&
           (x = index_list(v, best, nbest)) != NULL && cJSON_AddItemToObject(doc, "objects", x) &&
           (x = NULL, expand_all(v) == 0) && (x = node_rows(v)) != NULL &&
           cJSON_AddItemToObject(doc, "table", x) && (x = NULL, 1) &&
           cJSON_AddBoolToObject(doc, "truncated", v->full);
  if (ok) text = cJSON_PrintUnformatted(doc);
  cJSON_Delete(x);
  cJSON_Delete(doc);
  return text;
}

int cprof__snap_view(const char *json, size_t len, unsigned classes, cprof__snap_map_t *file,
                     char **out, char *errbuf, size_t errlen) {
  cprof__snap_t s;
  cprof__snap_class_t *cls = NULL;
  uint32_t n = 0;
  view_t v;
  memset(&v, 0, sizeof v); /* view_free is safe on it whatever fails */
  *out = NULL;
  if (classes == 0 || classes > CPROF_SNAPSHOT_TOP_MAX)
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "classes must be 1 to %d",
                       CPROF_SNAPSHOT_TOP_MAX);
  int rc = cprof__snap_analyse(json, len, file, &s, errbuf, errlen);
  if (rc == CPROF_OK && (cprof__snap_classes(&s, &cls, &n) != CPROF_OK || view_init(&v, &s) != 0 ||
                         (*out = render(&s, &v, cls, n, classes)) == NULL))
    rc = cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory writing the snapshot view");
  view_free(&v);
  free(cls);
  cprof__snap_free(&s);
  return rc;
}

int cprof_snapshot_view(const char *json, size_t len, unsigned classes, char **out, char *errbuf,
                        size_t errlen) {
  return cprof__snap_view(json, len, classes, NULL, out, errbuf, errlen);
}

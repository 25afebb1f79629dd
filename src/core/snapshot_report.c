/* cprof_snapshot_report: parse, analyse, and the JSON report (see
 * heapsnapshot.h): totals, the largest objects with a retainer path each,
 * the largest classes. cJSON builds it: the report is small (top N rows),
 * whatever the snapshot's size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "heapsnapshot.h"
#include "internal.h"
#include "snapshot.h"

/* Retainer paths longer than this are cut (from the root's end). */
#define PATH_MAX_STEPS 64

const char *cprof__snap_edge_name(const cprof__snap_t *s, uint32_t e, char *buf, size_t len) {
  uint32_t t = cprof__snap_etype(s, e), name = cprof__snap_ename(s, e);
  if (t == s->et_element || t == s->et_hidden) {
    snprintf(buf, len, "%u", name);
    return buf;
  }
  return cprof__snap_name(s, name, NULL, NULL);
}

static const char *node_class(const cprof__snap_t *s, uint32_t n, char *buf, size_t len) {
  return cprof__snap_class_name(s, cprof__snap_class_key(s, n), buf, len);
}

int cprof__snap_node_json(cJSON *obj, const cprof__snap_t *s, uint32_t n) {
  char buf[300];
  uint64_t chars;
  const char *name = cprof__snap_name(s, cprof__snap_nname(s, n), NULL, &chars);
  return cJSON_AddNumberToObject(obj, "id", cprof__snap_nid(s, n)) &&
                 cJSON_AddStringToObject(obj, "name", name) &&
                 (chars == 0 || cJSON_AddNumberToObject(obj, "nameLength", (double)chars)) &&
                 cJSON_AddStringToObject(obj, "class", node_class(s, n, buf, sizeof buf)) &&
                 cJSON_AddStringToObject(obj, "type", s->ntypes.names[cprof__snap_ntype(s, n)]) &&
                 cprof__snap_location_json(obj, s, n)
             ? 0
             : -1;
}

int cprof__snap_distance_json(cJSON *obj, int32_t d) {
  return cprof__snap_shown_distance(d) ? cJSON_AddNumberToObject(obj, "distance", d) != NULL
                                       : cJSON_AddNullToObject(obj, "distance") != NULL;
}

/* The BFS's first edges from the root to n, root end first. */
cJSON *cprof__snap_path_json(const cprof__snap_t *s, uint32_t n) {
  uint32_t steps[PATH_MAX_STEPS], count = 0;
  for (uint32_t guard = 0;
       n != s->root && s->parent_edge[n] != CPROF__SNAP_NONE && guard < s->node_count; guard++) {
    uint32_t e = s->parent_edge[n];
    if (count == PATH_MAX_STEPS) break; /* the root end is cut */
    steps[count++] = e;
    n = cprof__snap_edge_source(s, e);
  }
  cJSON *arr = cJSON_CreateArray();
  char buf[32];
  for (uint32_t i = count; arr != NULL && i-- > 0;) {
    uint32_t e = steps[i];
    cJSON *step = cJSON_CreateObject();
    if (step == NULL || !cJSON_AddItemToArray(arr, step) ||
        !cJSON_AddStringToObject(step, "edge", cprof__snap_edge_name(s, e, buf, sizeof buf)) ||
        !cJSON_AddStringToObject(step, "edgeType", s->etypes.names[cprof__snap_etype(s, e)]) ||
        cprof__snap_node_json(step, s, cprof__snap_to(s, e)) != 0) {
      cJSON_Delete(arr);
      return NULL;
    }
  }
  return arr;
}

/* What an object and a class both give: self and retained size, distance,
 * and the retaining path of `at` (the object; a class's largest). 1, or 0
 * when out of memory. */
static int add_sizes(cJSON *o, const cprof__snap_t *s, uint64_t self, uint64_t retained,
                     int32_t distance, uint32_t at) {
  cJSON *p;
  return cJSON_AddNumberToObject(o, "selfSize", (double)self) &&
         cJSON_AddNumberToObject(o, "retainedSize", (double)retained) &&
         cprof__snap_distance_json(o, distance) && (p = cprof__snap_path_json(s, at)) != NULL &&
         cJSON_AddItemToObject(o, "path", p);
}

static int listed(const cprof__snap_t *s, uint32_t n) {
  return n != s->root && cprof__snap_ntype(s, n) != s->t_synthetic;
}

void cprof__snap_largest(const cprof__snap_t *s, uint32_t top, uint32_t *best, uint32_t *k) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->node_count; i++) {
    if (!listed(s, i)) continue;
    if (n == top && s->retained[i] <= s->retained[best[n - 1]]) continue;
    uint32_t j = n < top ? n++ : n - 1;
    while (j > 0 && s->retained[best[j - 1]] < s->retained[i]) {
      best[j] = best[j - 1];
      j--;
    }
    best[j] = i;
  }
  *k = n;
}

static cJSON *objects(const cprof__snap_t *s, uint32_t top) {
  uint32_t *best = malloc((size_t)top * sizeof *best), k = 0;
  cJSON *arr = best ? cJSON_CreateArray() : NULL;
  if (arr != NULL) cprof__snap_largest(s, top, best, &k);
  for (uint32_t i = 0; arr != NULL && i < k; i++) {
    uint32_t n = best[i];
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !cJSON_AddItemToArray(arr, o) || cprof__snap_node_json(o, s, n) != 0 ||
        !add_sizes(o, s, cprof__snap_self(s, n), s->retained[n], s->dist[n], n)) {
      cJSON_Delete(arr);
      arr = NULL;
    }
  }
  free(best);
  return arr;
}

static cJSON *classes(const cprof__snap_t *s, uint32_t top) {
  cprof__snap_class_t *cls = NULL;
  uint32_t n = 0;
  char buf[300];
  if (cprof__snap_classes(s, &cls, &n) != CPROF_OK) return NULL;
  cJSON *arr = cJSON_CreateArray();
  for (uint32_t i = 0; arr != NULL && i < n && i < top; i++) {
    const cprof__snap_class_t *c = &cls[i];
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !cJSON_AddItemToArray(arr, o) ||
        !cJSON_AddStringToObject(o, "name", cprof__snap_class_name(s, c->key, buf, sizeof buf)) ||
        !cJSON_AddNumberToObject(o, "count", c->count) ||
        !add_sizes(o, s, c->self, c->retained, c->distance, c->largest)) {
      cJSON_Delete(arr);
      arr = NULL;
    }
  }
  free(cls);
  return arr;
}

static char *render(const cprof__snap_t *s, uint32_t top) {
  cJSON *doc = cJSON_CreateObject(), *objs = NULL, *cls = NULL;
  char *text = NULL;
  if (doc != NULL && cJSON_AddNumberToObject(doc, "nodes", s->node_count) &&
      cJSON_AddNumberToObject(doc, "edges", s->edge_count) &&
      cJSON_AddNumberToObject(doc, "strings", s->str_count) &&
      cJSON_AddNumberToObject(doc, "totalSize", (double)s->retained[s->root]) &&
      cJSON_AddNumberToObject(doc, "unreachable", s->unreachable) &&
      (objs = objects(s, top)) != NULL && cJSON_AddItemToObject(doc, "objects", objs) &&
      (objs = NULL, (cls = classes(s, top)) != NULL) && cJSON_AddItemToObject(doc, "classes", cls))
    text = cJSON_PrintUnformatted(doc);
  cJSON_Delete(objs);
  cJSON_Delete(doc);
  return text;
}

int cprof_snapshot_report(const char *json, size_t len, unsigned top, char **out, char *errbuf,
                          size_t errlen) {
  return cprof__snap_report(json, len, top, NULL, out, errbuf, errlen);
}

int cprof__snap_analyse(const char *json, size_t len, cprof__snap_map_t *file, cprof__snap_t *s,
                        char *errbuf, size_t errlen) {
  int rc = cprof__snap_parse(json, len, file, s, errbuf, errlen);
  if (rc == CPROF_OK && file != NULL) cprof__snap_release(json, (size_t)s->strings_from);
  if (rc == CPROF_OK) rc = cprof__snap_graph(s, errbuf, errlen);
  if (rc == CPROF_OK && (cprof__snap_detached(s) != CPROF_OK || cprof__snap_shallow(s) != CPROF_OK))
    rc = cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory analysing the heap snapshot");
  /* The strings stay: the text is the file read into memory (snapshot_file.c),
   * a page given back would read as zeros, not come back from the file. */
  if (rc == CPROF_OK) rc = cprof__snap_dominators(s, errbuf, errlen);
  if (rc == CPROF_OK) rc = cprof__snap_distances(s, errbuf, errlen);
  if (rc == CPROF_OK) rc = cprof__snap_dominated(s, errbuf, errlen);
  return rc;
}

int cprof__snap_report(const char *json, size_t len, unsigned top, cprof__snap_map_t *file,
                       char **out, char *errbuf, size_t errlen) {
  cprof__snap_t s;
  *out = NULL;
  if (top == 0 || top > CPROF_SNAPSHOT_TOP_MAX)
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "top must be 1 to %d", CPROF_SNAPSHOT_TOP_MAX);
  int rc = cprof__snap_analyse(json, len, file, &s, errbuf, errlen);
  if (rc == CPROF_OK && (*out = render(&s, top)) == NULL)
    rc = cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory writing the snapshot report");
  cprof__snap_free(&s);
  return rc;
}

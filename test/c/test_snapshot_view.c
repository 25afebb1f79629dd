/* cprof_snapshot_view (src/core/snapshot_view.c, snapshot_retainers.c) on
 * the hand-made snapshot whose retainers are known: the class table with
 * each class's largest objects, and the retainer tree DevTools shows
 * (nearest the roots first, the root's and weak edges left out). */
#include <cjson/cJSON.h>

#include "heapsnapshot.h"
#include "helpers.h"

#include "snapshot_tiny.h"

static cJSON *view(void) {
  char *text = dq(TINY), *out = NULL, err[256] = "";
  int rc = cprof_snapshot_view(text, strlen(text), 50, &out, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
  cJSON *doc = cJSON_Parse(out);
  assert_non_null(doc);
  free(out), free(text);
  return doc;
}

static double num(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(o, key);
  if (!cJSON_IsNumber(v)) fail_msg("no number %s", key);
  return v->valuedouble;
}

static const cJSON *entry(const cJSON *doc, int t) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "table"), t);
}

/* The table entry of the node with V8 id `id`. */
static const cJSON *by_id(const cJSON *doc, double id) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "table")) {
    if (num(e, "id") == id) return e;
  }
  fail_msg("no node %g in the table", id);
  return NULL;
}

/* Retainer i of e: its edge name, edge type and node's id. */
static void retainer_is(const cJSON *doc, const cJSON *e, int i, const char *edge, const char *type,
                        double id) {
  const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(e, "retainers"), i);
  assert_non_null(r);
  assert_string_equal(cJSON_GetArrayItem(r, 0)->valuestring, edge);
  assert_string_equal(cJSON_GetArrayItem(r, 1)->valuestring, type);
  assert_int_equal(num(entry(doc, (int)cJSON_GetArrayItem(r, 2)->valuedouble), "id"), id);
}

static void classes_and_instances(void **state) {
  (void)state;
  cJSON *doc = view();
  assert_string_equal(cJSON_GetObjectItem(doc, "kind")->valuestring, "heapsnapshot");
  assert_int_equal(num(doc, "totalSize"), 1397);
  const cJSON *leaf = NULL, *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "classes")) {
    if (strcmp(cJSON_GetObjectItem(c, "name")->valuestring, "Leaf") == 0) leaf = c;
  }
  assert_non_null(leaf);
  assert_int_equal(num(leaf, "count"), 2);
  assert_int_equal(num(leaf, "retainedSize"), 1050);
  assert_int_equal(num(leaf, "more"), 0);
  const cJSON *objs = cJSON_GetObjectItem(leaf, "objects");
  assert_int_equal(cJSON_GetArraySize(objs), 2);
  /* the largest first: Leaf @11 (retains 1050), then Leaf @13 */
  assert_int_equal(num(entry(doc, cJSON_GetArrayItem(objs, 0)->valueint), "id"), 11);
  assert_int_equal(num(entry(doc, cJSON_GetArrayItem(objs, 1)->valueint), "id"), 13);
  /* the largest object overall: Global */
  const cJSON *top = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "objects"), 0);
  assert_string_equal(cJSON_GetObjectItem(entry(doc, top->valueint), "name")->valuestring,
                      "Global");
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(doc, "truncated")));
  cJSON_Delete(doc);
}

static void retainer_tree(void **state) {
  (void)state;
  cJSON *doc = view();
  /* Leaf @13: d from Leaf @11 (distance 3) before e from Sys @17 (a
   * system distance) */
  const cJSON *leaf = by_id(doc, 13);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(leaf, "retainers")), 2);
  retainer_is(doc, leaf, 0, "d", "property", 11);
  retainer_is(doc, leaf, 1, "e", "property", 17);
  /* a level up: Leaf @11 is held by both Nodes through c, and they by the
   * Global @3 */
  const cJSON *big = by_id(doc, 11);
  retainer_is(doc, big, 0, "c", "property", 7);
  retainer_is(doc, big, 1, "c", "property", 9);
  retainer_is(doc, by_id(doc, 7), 0, "a", "property", 3);
  /* the Global's only retainer is the root: not shown */
  const cJSON *global = by_id(doc, 3);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(global, "retainers")), 0);
  assert_int_equal(num(global, "more"), 0);
  /* Weakly: held by a weak edge only, counted, not listed */
  const cJSON *weakly = by_id(doc, 15);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(weakly, "retainers")), 0);
  assert_int_equal(num(weakly, "weak"), 1);
  cJSON_Delete(doc);
}

static void bad_arguments(void **state) {
  (void)state;
  char *out = NULL, err[256] = "";
  assert_int_equal(cprof_snapshot_view("{}", 2, 0, &out, err, sizeof err), CPROF_EINVAL);
  assert_int_equal(cprof_snapshot_view("{}", 2, 5, &out, err, sizeof err), CPROF_ESCHEMA);
  assert_int_equal(
      cprof_snapshot_view_file("/nonexistent/x.heapsnapshot", 5, &out, err, sizeof err), CPROF_EIO);
  assert_null(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(classes_and_instances),
      cmocka_unit_test(retainer_tree),
      cmocka_unit_test(bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

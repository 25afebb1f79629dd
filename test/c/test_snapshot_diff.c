/* cprof snapshot diff (src/core/snapshot_diff.c, snapshot_paths.c) on
 * made snapshots: root -g-> Global -cache-> Map -[i]-> Session (32 B
 * each), the Sessions' ids given per snapshot, so what is new in B and
 * still alive in C is known; ids repeated and out of order; snapshots
 * whose ids do not line up; broken input. */
#include <cjson/cJSON.h>

#include "helpers.h"
#include "snapshot.h"

#define MAX_SESSIONS 16

/* A snapshot whose Map holds sessions with these ids; the Map's name is
 * map_name (another name: another object under the Map's id). Caller
 * frees. */
static char *make(const uint32_t *ids, int k, const char *map_name) {
  char *t = malloc(4096);
  assert_non_null(t);
  int n =
      snprintf(t, 4096,
               "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
               "\"edge_count\"],\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\","
               "\"code\",\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\"],\"string\","
               "\"number\",\"number\",\"number\"],\"edge_fields\":[\"type\",\"name_or_index\","
               "\"to_node\"],\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\","
               "\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"]}},"
               "\"nodes\":[9,0,1,0,1,3,2,3,10,1,3,4,5,20,%d",
               k);
  for (int i = 0; i < k; i++)
    n += snprintf(t + n, 4096 - n, ",3,5,%u,32,0", ids[i]);
  n += snprintf(t + n, 4096 - n, "],\"edges\":[5,1,5,2,3,10");
  for (int i = 0; i < k; i++)
    n += snprintf(t + n, 4096 - n, ",1,%d,%d", i, 15 + 5 * i);
  snprintf(t + n, 4096 - n, "],\"strings\":[\"\",\"g\",\"Global\",\"cache\",\"%s\",\"Session\"]}",
           map_name);
  return t;
}

/* The diff of 2 or 3 made snapshots, parsed; fails the test on error. */
static cJSON *diff(char **texts, unsigned n) {
  size_t lens[3];
  for (unsigned i = 0; i < n; i++)
    lens[i] = strlen(texts[i]);
  char *out = NULL, err[512] = "";
  int rc = cprof_snapshot_diff((const char *const *)texts, lens, n, 10, &out, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
  cJSON *doc = cJSON_Parse(out);
  assert_non_null(doc);
  free(out);
  for (unsigned i = 0; i < n; i++)
    free(texts[i]);
  return doc;
}

static double num(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(o, key);
  if (!cJSON_IsNumber(v)) fail_msg("no number %s", key);
  return v->valuedouble;
}

static const cJSON *class_row(const cJSON *doc, const char *name) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "classes")) {
    if (strcmp(cJSON_GetObjectItem(c, "name")->valuestring, name) == 0) return c;
  }
  return NULL;
}

static const cJSON *group(const cJSON *doc, const char *which, int i) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, which), "groups"), i);
}

static int warnings(const cJSON *doc) {
  return cJSON_GetArraySize(cJSON_GetObjectItem(doc, "warnings"));
}

static void added_and_leaked(void **state) {
  (void)state;
  static const uint32_t a[] = {7, 9}, b[] = {13, 7, 11, 9, 15}, c[] = {11, 7, 13};
  char *texts[3] = {make(a, 2, "Map"), make(b, 5, "Map"), make(c, 3, "Map")};
  cJSON *doc = diff(texts, 3);
  const cJSON *s = class_row(doc, "Session");
  assert_non_null(s);
  assert_int_equal(num(cJSON_GetObjectItem(s, "a"), "count"), 2);
  assert_int_equal(num(cJSON_GetObjectItem(s, "b"), "count"), 5);
  assert_int_equal(num(s, "countDelta"), 3);
  assert_int_equal(num(s, "selfSizeDelta"), 96);
  assert_int_equal(num(s, "retainedSizeDelta"), 96);
  /* the Map grew in retained size only; Global too; they come after */
  assert_string_equal(
      cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "classes"), 0), "name")
          ->valuestring,
      "Session");
  assert_int_equal(num(class_row(doc, "Map"), "retainedSizeDelta"), 96);
  /* new in B: 11, 13, 15 on one path */
  assert_int_equal(num(cJSON_GetObjectItem(doc, "added"), "count"), 3);
  const cJSON *g = group(doc, "added", 0);
  assert_string_equal(cJSON_GetObjectItem(g, "path")->valuestring,
                      "Global → cache → Map → [] → Session");
  assert_int_equal(num(g, "count"), 3);
  assert_int_equal(num(g, "selfSize"), 96);
  assert_int_equal(num(g, "retainedSize"), 96);
  const cJSON *ex = cJSON_GetObjectItem(g, "example");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(ex, "path")), 3);
  /* alive in C: 11 and 13, not 15, not the older 7 */
  assert_int_equal(num(cJSON_GetObjectItem(doc, "leaked"), "count"), 2);
  assert_int_equal(num(group(doc, "leaked", 0), "count"), 2);
  assert_int_equal(warnings(doc), 0);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "snapshots")), 3);
  cJSON_Delete(doc);
}

/* Ids are the file's: repeated ones count as objects each, found or not. */
static void repeated_ids(void **state) {
  (void)state;
  static const uint32_t a[] = {9, 7, 7, 9}, b[] = {11, 7, 11, 11, 9};
  char *texts[3] = {make(a, 4, "Map"), make(b, 5, "Map"), make(b, 5, "Map")};
  cJSON *doc = diff(texts, 3);
  assert_int_equal(num(cJSON_GetObjectItem(doc, "added"), "count"), 3);
  assert_int_equal(num(cJSON_GetObjectItem(doc, "leaked"), "count"), 3);
  assert_int_equal(num(class_row(doc, "Session"), "countDelta"), 1);
  assert_int_equal(warnings(doc), 0);
  cJSON_Delete(doc);
  /* A the same as B: nothing new, no class changed */
  char *same[2] = {make(b, 5, "Map"), make(b, 5, "Map")};
  doc = diff(same, 2);
  assert_int_equal(num(cJSON_GetObjectItem(doc, "added"), "count"), 0);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "classes")), 0);
  assert_null(cJSON_GetObjectItem(doc, "leaked"));
  cJSON_Delete(doc);
}

/* Snapshots of two processes: an id found in both names another object,
 * or no id is in both. */
static void ids_not_lined_up(void **state) {
  (void)state;
  static const uint32_t a[] = {7, 9}, b[] = {7, 9, 11};
  char *texts[2] = {make(a, 2, "Map"), make(b, 3, "Cache")};
  cJSON *doc = diff(texts, 2);
  assert_int_equal(warnings(doc), 1);
  assert_non_null(strstr(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "warnings"), 0)->valuestring,
                         "do not line up: 1 of the 4 ids"));
  cJSON_Delete(doc);
}

/* A list: Global -head-> Node -next-> Node -next-> Node -next-> Node, and
 * an object nothing holds. The links after the first share one path (the
 * repeated step folded); the lost object has none. */
static void list_and_lost(void **state) {
  (void)state;
  static const char *B =
      "{'snapshot':{'meta':{'node_fields':['type','name','id','self_size','edge_count'],"
      "'node_types':[['hidden','array','string','object','code','closure','regexp','number',"
      "'native','synthetic'],'string','number','number','number'],'edge_fields':['type',"
      "'name_or_index','to_node'],'edge_types':[['context','element','property','internal',"
      "'hidden','shortcut','weak'],'string_or_number','node']}},"
      "'nodes':[9,0,1,0,1, 3,2,3,10,1, 3,4,7,16,1, 3,4,9,16,1, 3,4,11,16,1, 3,4,13,16,0, "
      "3,6,15,8,0],'edges':[5,1,5, 2,3,10, 2,5,15, 2,5,20, 2,5,25],"
      "'strings':['','g','Global','head','Node','next','Lost']}";
  char *texts[2] = {make(NULL, 0, "Map"), dq(B)};
  cJSON *doc = diff(texts, 2);
  assert_int_equal(warnings(doc), 0);
  const cJSON *added = cJSON_GetObjectItem(doc, "added");
  assert_int_equal(num(added, "count"), 5);
  assert_int_equal(num(added, "paths"), 3);
  static const struct {
    const char *path;
    int count, self, retained;
  } want[] = {{"Global → head → Node", 1, 16, 64},
              {"Global → head → Node → next → Node", 3, 48, 48},
              {"(no path from a root)", 1, 8, 8}};
  for (int i = 0; i < 3; i++) {
    const cJSON *g = group(doc, "added", i);
    assert_non_null(g);
    assert_string_equal(cJSON_GetObjectItem(g, "path")->valuestring, want[i].path);
    assert_int_equal(num(g, "count"), want[i].count);
    assert_int_equal(num(g, "selfSize"), want[i].self);
    assert_int_equal(num(g, "retainedSize"), want[i].retained);
  }
  cJSON_Delete(doc);
}

static void refused(char **texts, unsigned n, unsigned top, int code, const char *msg) {
  size_t lens[3];
  for (unsigned i = 0; i < n; i++)
    lens[i] = texts[i] ? strlen(texts[i]) : 0;
  char *out = NULL, err[512] = "";
  int rc = cprof_snapshot_diff((const char *const *)texts, lens, n, top, &out, err, sizeof err);
  if (rc != code) fail_msg("rc %d (%s), want %d", rc, err, code);
  if (strstr(err, msg) == NULL) fail_msg("message %s lacks %s", err, msg);
  assert_null(out);
}

static void broken_input(void **state) {
  (void)state;
  static const uint32_t a[] = {7, 9};
  char *texts[3] = {make(a, 2, "Map"), make(a, 2, "Map"), NULL};
  refused(texts, 1, 5, CPROF_EINVAL, "2 or 3 snapshots");
  refused(texts, 2, 0, CPROF_EINVAL, "top must be");
  /* every prefix of C refused, naming it */
  texts[2] = make(a, 2, "Map");
  size_t n = strlen(texts[2]);
  for (size_t len = 0; len < n; len++) {
    char *cut = malloc(len ? len : 1), *out = NULL, err[512] = "";
    memcpy(cut, texts[2], len);
    const char *t[3] = {texts[0], texts[1], cut};
    size_t lens[3] = {strlen(texts[0]), strlen(texts[1]), len};
    int rc = cprof_snapshot_diff(t, lens, 3, 5, &out, err, sizeof err);
    if (rc != CPROF_EPARSE && rc != CPROF_ESCHEMA) fail_msg("prefix %zu: rc %d", len, rc);
    assert_non_null(strstr(err, "snapshot C is not a readable V8 heap snapshot"));
    assert_null(out);
    free(cut);
  }
  const char *paths[2] = {"/nonexistent/a.heapsnapshot", "/nonexistent/b.heapsnapshot"};
  char *out = NULL, err[512] = "";
  assert_int_equal(cprof_snapshot_diff_files(paths, 2, 5, &out, err, sizeof err), CPROF_EIO);
  assert_non_null(strstr(err, "cannot read /nonexistent/a.heapsnapshot"));
  for (int i = 0; i < 3; i++)
    free(texts[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(added_and_leaked), cmocka_unit_test(repeated_ids),
      cmocka_unit_test(ids_not_lined_up), cmocka_unit_test(list_and_lost),
      cmocka_unit_test(broken_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

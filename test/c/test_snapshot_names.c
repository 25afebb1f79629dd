/* What the snapshot outputs say about a node beyond its sizes: a closure's
 * location (the top-level `locations` array and the script's URL through
 * shared -> script_or_debug_info -> name), names cut past
 * CPROF__SNAP_NAME_MAX characters with their full length, and distances no
 * user root gives (null). On hand-made snapshots; make check SAN=1 runs
 * them under ASan. */
#include <cjson/cJSON.h>

#include "heapsnapshot.h"
#include "helpers.h"
#include "snapshot.h"

#include "snapshot_tiny.h"

/* Nine nodes (7 fields each):
 *   0 root: shortcut g -> 1 Global
 *   1 Global: f -> 2, h -> 5, thing -> 7, <1500 k's> -> 8
 *   2 closure holdChain: shared -> 3;  3 code (its SharedFunctionInfo):
 *     script_or_debug_info -> 4;  4 code (the Script): name -> 6
 *   5 closure without a name or a shared edge;  6 string, the URL
 *   7 object Thing (a location, not a closure's: left out)
 *   8 string: 1023 a's, U+1F600 (two UTF-16 units), 2000 b's
 * locations: 2, 5 and 7, one row whose index is not a node's start, one
 * past the nodes. */
#define LONG_KEY 1500
#define LONG_B 2000
static char *located(const char *location_fields, const char *locations) {
  static const char *head =
      "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
      "\"edge_count\",\"trace_node_id\",\"detachedness\"],\"node_types\":[[\"hidden\",\"array\","
      "\"string\",\"object\",\"code\",\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\"],"
      "\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"],\"edge_fields\":["
      "\"type\","
      "\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\",\"element\",\"property\","
      "\"internal\",\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"]%s},"
      "\"node_count\":9,\"edge_count\":8},"
      "\"nodes\":[9,0,1,0,1,0,0, 3,2,3,10,4,0,0, 5,4,5,20,1,0,0, 4,4,7,30,1,0,0, 4,7,9,40,1,0,0,"
      " 5,0,11,8,0,0,0, 2,7,13,16,0,0,0, 3,11,15,12,0,0,0, 2,13,17,2000,0,0,0],"
      "\"edges\":[5,1,7, 2,3,14, 2,9,35, 2,10,49, 2,12,56, 3,5,21, 3,6,28, 3,8,42],"
      "%s\"strings\":[\"\",\"g\",\"Global\",\"f\",\"holdChain\",\"shared\","
      "\"script_or_debug_info\",\"file:///app/x.js\",\"name\",\"h\",\"thing\",\"Thing\",\"";
  size_t cap =
      strlen(head) + strlen(location_fields) + strlen(locations) + LONG_KEY + LONG_B + 1100 + 64;
  char *t = malloc(cap);
  assert_non_null(t);
  int n = snprintf(t, cap, head, location_fields, locations);
  memset(t + n, 'k', LONG_KEY), n += LONG_KEY;
  n += snprintf(t + n, cap - (size_t)n, "\",\"");
  memset(t + n, 'a', 1023), n += 1023;
  n += snprintf(t + n, cap - (size_t)n, "\\ud83d\\ude00");
  memset(t + n, 'b', LONG_B), n += LONG_B;
  snprintf(t + n, cap - (size_t)n, "\"]}");
  return t;
}

#define FIELDS ",\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]"
#define ROWS "\"locations\":[14,42,14,3, 35,43,0,0, 49,42,1,1, 3,1,1,1, 700,1,1,1],"

static cJSON *report(const char *text, unsigned top) {
  char *out = NULL, err[256] = "";
  int rc = cprof_snapshot_report(text, strlen(text), top, &out, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
  cJSON *doc = cJSON_Parse(out);
  assert_non_null(doc);
  free(out);
  return doc;
}

/* The report's object with this id, or with in_path its step on a path
 * (which has the edge into it). */
static cJSON *find(cJSON *doc, int id, int in_path) {
  cJSON *o, *step;
  cJSON_ArrayForEach(o, cJSON_GetObjectItem(doc, "objects")) {
    if (!in_path && cJSON_GetObjectItem(o, "id")->valueint == id) return o;
    cJSON_ArrayForEach(step, cJSON_GetObjectItem(o, "path")) {
      if (cJSON_GetObjectItem(step, "id")->valueint == id) return step;
    }
  }
  fail_msg("no object @%d in the report", id);
  return NULL;
}
#define by_id(doc, id) find(doc, id, 0)

static void closure_locations(void **state) {
  (void)state;
  char *text = located(FIELDS, ROWS);
  cJSON *doc = report(text, 20);
  cJSON *loc = cJSON_GetObjectItem(by_id(doc, 5), "location");
  assert_non_null(loc);
  assert_string_equal(cJSON_GetObjectItem(loc, "url")->valuestring, "file:///app/x.js");
  assert_int_equal(cJSON_GetObjectItem(loc, "line")->valueint, 15); /* from 1, as DevTools */
  assert_int_equal(cJSON_GetObjectItem(loc, "column")->valueint, 4);
  assert_int_equal(cJSON_GetObjectItem(loc, "scriptId")->valueint, 42);
  /* no shared edge: the position without a URL */
  loc = cJSON_GetObjectItem(by_id(doc, 11), "location");
  assert_non_null(loc);
  assert_null(cJSON_GetObjectItem(loc, "url"));
  assert_int_equal(cJSON_GetObjectItem(loc, "line")->valueint, 1);
  assert_int_equal(cJSON_GetObjectItem(loc, "scriptId")->valueint, 43);
  /* an object's location, and nodes without one, carry none */
  assert_null(cJSON_GetObjectItem(by_id(doc, 15), "location"));
  assert_null(cJSON_GetObjectItem(by_id(doc, 3), "location"));
  cJSON_Delete(doc);
  free(text);

  /* the parse keeps the closures' only, by node */
  cprof__snap_t s;
  char err[256] = "";
  text = located(FIELDS, ROWS);
  assert_int_equal(cprof__snap_parse(text, strlen(text), NULL, &s, err, sizeof err), CPROF_OK);
  assert_int_equal(s.loc_count, 2);
  assert_null(s.locations);
  assert_non_null(cprof__snap_location(&s, 2));
  assert_null(cprof__snap_location(&s, 7));
  cprof__snap_free(&s);
  free(text);

  /* no location_fields, fields in another order, an empty or odd array:
   * read, with the locations the fields allow */
  static const struct {
    const char *fields, *rows;
    uint32_t kept;
  } cases[] = {
      {"", ROWS, 0},
      {",\"location_fields\":[\"line\",\"column\",\"object_index\",\"script_id\"]",
       "\"locations\":[3,1,14,9, 0,0,35],", 1},
      {FIELDS, "\"locations\":[],", 0},
      {FIELDS, "", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    text = located(cases[i].fields, cases[i].rows);
    assert_int_equal(cprof__snap_parse(text, strlen(text), NULL, &s, err, sizeof err), CPROF_OK);
    assert_int_equal(s.loc_count, cases[i].kept);
    if (cases[i].kept) assert_int_equal(cprof__snap_location(&s, 2)->line, 3);
    cprof__snap_free(&s);
    free(text);
  }
  /* a value that is not an unsigned integer is refused, as in nodes */
  text = located(FIELDS, "\"locations\":[14,-1,0,0],");
  assert_int_equal(cprof__snap_parse(text, strlen(text), NULL, &s, err, sizeof err), CPROF_ESCHEMA);
  cprof__snap_free(&s);
  free(text);
}

static void long_names_cut(void **state) {
  (void)state;
  char *text = located(FIELDS, ROWS);
  cJSON *doc = report(text, 20);
  /* 1023 a's: the emoji would make 1025 units, past the cut */
  cJSON *big = by_id(doc, 17);
  const char *name = cJSON_GetObjectItem(big, "name")->valuestring;
  assert_int_equal(strspn(name, "a"), 1023);
  assert_string_equal(name + 1023, "\xe2\x80\xa6(3,025 chars)");
  assert_int_equal(cJSON_GetObjectItem(big, "nameLength")->valueint, 1023 + 2 + LONG_B);
  /* the edge into it, a 1500-character property name */
  const char *edge = cJSON_GetObjectItem(find(doc, 17, 1), "edge")->valuestring;
  assert_int_equal(strspn(edge, "k"), 1024);
  assert_string_equal(edge + 1024, "\xe2\x80\xa6(1,500 chars)");
  /* short names: whole, no nameLength */
  assert_string_equal(cJSON_GetObjectItem(by_id(doc, 5), "name")->valuestring, "holdChain");
  assert_null(cJSON_GetObjectItem(by_id(doc, 5), "nameLength"));
  cJSON_Delete(doc);

  /* straight: a prefix, and the full text still there for the analysis */
  cprof__snap_t s;
  char err[256] = "";
  uint64_t chars = 1;
  assert_int_equal(cprof__snap_parse(text, strlen(text), NULL, &s, err, sizeof err), CPROF_OK);
  assert_string_equal(cprof__snap_name(&s, 11, "Detached ", &chars), "Detached Thing");
  assert_int_equal(chars, 0);
  assert_int_equal(strlen(cprof__snap_name(&s, 12, "Detached ", &chars)),
                   9 + 1024 + strlen("\xe2\x80\xa6(1,500 chars)"));
  assert_int_equal(chars, LONG_KEY);
  assert_int_equal(strlen(cprof__snap_str(&s, 12)), LONG_KEY);
  /* measured once, the same after (the second long name between) */
  for (int k = 0; k < 3; k++) {
    uint64_t again = 0;
    const char *a = cprof__snap_name(&s, 12, NULL, &again);
    assert_int_equal(strspn(a, "k"), 1024);
    assert_string_equal(a + 1024, "\xe2\x80\xa6(1,500 chars)");
    assert_int_equal(again, LONG_KEY);
    assert_string_equal(cprof__snap_name(&s, 13, NULL, &again) + 1023, "\xe2\x80\xa6(3,025 chars)");
    assert_string_equal(cprof__snap_name(&s, 4, NULL, &again), "holdChain");
    assert_int_equal(again, 0);
  }
  cprof__snap_free(&s);
  free(text);
}

/* The tiny snapshot's Weakly (only a weak edge to it) and Sys (reached
 * from the GC roots only) have no distance to show: null; the others
 * theirs. */
static void distances_shown(void **state) {
  (void)state;
  char *text = dq(TINY);
  cJSON *doc = report(text, 9), *o;
  int nulls = 0, numbers = 0;
  cJSON_ArrayForEach(o, cJSON_GetObjectItem(doc, "objects")) {
    const char *name = cJSON_GetObjectItem(o, "name")->valuestring;
    cJSON *d = cJSON_GetObjectItem(o, "distance");
    assert_non_null(d);
    if (strcmp(name, "Weakly") == 0 || strcmp(name, "Sys") == 0) {
      assert_true(cJSON_IsNull(d));
      nulls++;
    } else if (strcmp(name, "Leaf") == 0) {
      assert_true(cJSON_IsNumber(d) && d->valueint >= 1 && d->valueint < 10);
      numbers++;
    }
  }
  assert_int_equal(nulls, 2);
  assert_int_equal(numbers, 2);
  cJSON_ArrayForEach(o, cJSON_GetObjectItem(doc, "classes")) {
    if (strcmp(cJSON_GetObjectItem(o, "name")->valuestring, "Sys") == 0)
      assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "distance")));
  }
  cJSON_Delete(doc);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(closure_locations),
      cmocka_unit_test(long_names_cut),
      cmocka_unit_test(distances_shown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

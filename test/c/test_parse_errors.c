/* cprof_profile_parse on bad input: the right code and a message that
 * names the problem. */
#include "helpers.h"

#define CF "'callFrame':{'functionName':'f'}"

static char err[256];

static void truncated_json_is_eparse_with_offset(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'nodes':[{'id':1,", err, sizeof(err)), CPROF_EPARSE);
  assert_string_equal(err, "invalid or truncated JSON: parsing stopped at byte 18 of 18");
}

static void garbage_is_eparse(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'nodes':[}", err, sizeof(err)), CPROF_EPARSE);
  assert_non_null(strstr(err, "at byte 10"));
  assert_int_equal(parse_fail("not json", err, sizeof(err)), CPROF_EPARSE);
}

static void trailing_data_is_eparse(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{} x", err, sizeof(err)), CPROF_EPARSE);
  assert_string_equal(err, "unexpected data after the JSON value at byte 3");
}

static void empty_input_is_eparse(void **state) {
  (void)state;
  cprof_profile_t *p = NULL;
  assert_int_equal(cprof_profile_parse("", 0, &p, err, sizeof(err)), CPROF_EPARSE);
  assert_null(p);
  assert_string_equal(err, "empty input: not JSON");
  assert_int_equal(cprof_profile_parse(NULL, 0, &p, err, sizeof(err)), CPROF_EPARSE);
}

static void bad_arguments_are_einval(void **state) {
  (void)state;
  cprof_profile_t *p = NULL;
  assert_int_equal(cprof_profile_parse("{}", 2, NULL, err, sizeof(err)), CPROF_EINVAL);
  assert_int_equal(cprof_profile_parse(NULL, 5, &p, err, sizeof(err)), CPROF_EINVAL);
  /* No errbuf is fine. */
  assert_int_equal(cprof_profile_parse("[", 1, &p, NULL, 0), CPROF_EPARSE);
}

static void wrong_schema(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'foo':1}", err, sizeof(err)), CPROF_ESCHEMA);
  assert_string_equal(err, "neither a .cpuprofile (nodes) nor a .heapprofile (head)");
  assert_int_equal(parse_fail("[1,2]", err, sizeof(err)), CPROF_ESCHEMA);
  assert_non_null(strstr(err, "neither a .cpuprofile"));
  assert_int_equal(parse_fail("{'id':1,'result':{}}", err, sizeof(err)), CPROF_ESCHEMA);
  assert_non_null(strstr(err, "result.profile"));
  assert_int_equal(parse_fail("{'nodes':{}}", err, sizeof(err)), CPROF_ESCHEMA);
  assert_string_equal(err, "nodes is not an array");
  assert_int_equal(parse_fail("{'nodes':[]}", err, sizeof(err)), CPROF_ESCHEMA);
  assert_int_equal(parse_fail("{'head':[]}", err, sizeof(err)), CPROF_ESCHEMA);
  assert_string_equal(err, "head is not an object");
}

static void sample_naming_missing_node(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'nodes':[{'id':1," CF "}],'startTime':0,'endTime':0,"
                              "'samples':[1,99],'timeDeltas':[1,1]}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "sample 1 names node 99, which the profile does not have");
}

static void child_naming_missing_node(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'nodes':[{'id':1," CF ",'children':[7]}],'startTime':0,"
                              "'endTime':0}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "node 1 lists child 7, which the profile does not have");
  assert_int_equal(parse_fail("{'nodes':[{'id':1," CF "},{'id':2,'parent':5," CF "}],"
                              "'startTime':0,'endTime':0}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "node 2 names parent 5, which the profile does not have");
}

static void duplicate_id(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'nodes':[{'id':1," CF ",'children':[2]},{'id':2," CF "},"
                              "{'id':2," CF "}],'startTime':0,'endTime':0}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "duplicate node id 2");
  assert_int_equal(parse_fail("{'head':{" CF ",'selfSize':0,'id':1,'children':[{" CF
                              ",'selfSize':0,'id':1}]}}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "duplicate heap node id 1");
}

static void node_reached_twice(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'nodes':[{'id':1," CF ",'children':[2,3]},{'id':2," CF
                              ",'children':[3]},{'id':3," CF "}],'startTime':0,'endTime':0}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "node 3 is reached twice: a child of both node 1 and node 2");
}

static void cycles(void **state) {
  (void)state;
  /* 2 and 3 point at each other, away from the root. */
  assert_int_equal(parse_fail("{'nodes':[{'id':1," CF "},{'id':2," CF ",'children':[3]},"
                              "{'id':3," CF ",'children':[2]}],'startTime':0,'endTime':0}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "node 2 is not reachable from the root: its parents form a cycle");
  /* Everything on a cycle: no root at all. */
  assert_int_equal(parse_fail("{'nodes':[{'id':1," CF ",'children':[2]},{'id':2," CF
                              ",'children':[1]}],'startTime':0,'endTime':0}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "every node has a parent: the tree has a cycle");
  assert_int_equal(parse_fail("{'nodes':[{'id':1," CF ",'children':[1]}],'startTime':0,"
                              "'endTime':0}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "node 1 lists itself as a child (a cycle)");
}

static void two_roots(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'nodes':[{'id':1," CF "},{'id':2," CF "}],'startTime':0,"
                              "'endTime':0}",
                              err, sizeof(err)),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "nodes 1 and 2 both have no parent: a profile has one root");
}

static void bad_numbers(void **state) {
  (void)state;
  static const char *const bad[] = {
      "{'nodes':[{'id':-1," CF "}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1.5," CF "}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':5e9," CF "}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':'1'," CF "}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1," CF ",'hitCount':-3}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1," CF "}],'startTime':1e300,'endTime':0}",
      "{'nodes':[{'id':1," CF "}],'startTime':0,'endTime':1e999}",
      "{'nodes':[{'id':1," CF "}],'startTime':0}",
      "{'nodes':[{'id':1," CF "}],'startTime':0,'endTime':0,'samples':[1],'timeDeltas':['x']}",
      "{'nodes':[{'id':1," CF "}],'startTime':0,'endTime':0,'samples':[1.5],'timeDeltas':[1]}",
      "{'nodes':[{'id':1,'callFrame':{'lineNumber':3000000000}}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1,'callFrame':{'scriptId':1.5}}],'startTime':0,'endTime':0}",
      "{'head':{" CF ",'selfSize':-1,'id':1}}",
      "{'head':{" CF ",'selfSize':1e20,'id':1}}",
      "{'head':{" CF ",'selfSize':1,'id':1},'samples':[{'size':-4,'nodeId':1}]}",
      "{'head':{" CF ",'selfSize':1,'id':1},'samples':[{'size':4,'nodeId':-1}]}",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int rc = parse_fail(bad[i], err, sizeof(err));
    if (rc != CPROF_ESCHEMA) fail_msg("case %zu: got %d (%s)", i, rc, err);
  }
}

static void wrong_types(void **state) {
  (void)state;
  static const char *const bad[] = {
      "{'nodes':[1]}",
      "{'nodes':[{'id':1}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1,'callFrame':'f'}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1,'callFrame':{'functionName':7}}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1,'callFrame':{'url':[]}}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1," CF ",'children':{}}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1," CF ",'children':['2']}],'startTime':0,'endTime':0}",
      "{'nodes':[{'id':1," CF "}],'startTime':0,'endTime':0,'samples':{}}",
      "{'nodes':[{'id':1," CF "}],'startTime':0,'endTime':0,'timeDeltas':3}",
      "{'head':{" CF ",'selfSize':1,'id':1,'children':[3]}}",
      "{'head':{" CF ",'selfSize':1,'id':1,'children':{}}}",
      "{'head':{" CF ",'id':1}}",
      "{'head':{'selfSize':1,'id':1}}",
      "{'head':{" CF ",'selfSize':1,'id':1},'samples':[3]}",
      "{'head':{" CF ",'selfSize':1,'id':1},'samples':{}}",
      /* ids on some heap nodes only */
      "{'head':{" CF ",'selfSize':1,'id':1,'children':[{" CF ",'selfSize':1}]}}",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int rc = parse_fail(bad[i], err, sizeof(err));
    if (rc != CPROF_ESCHEMA) fail_msg("case %zu: got %d (%s)", i, rc, err);
  }
}

static void message_is_truncated_safely(void **state) {
  (void)state;
  char small[8];
  assert_int_equal(parse_fail("{'foo':1}", small, sizeof(small)), CPROF_ESCHEMA);
  assert_string_equal(small, "neither");
}

static void strerror_covers_every_code(void **state) {
  (void)state;
  assert_string_equal(cprof_strerror(CPROF_OK), "success");
  assert_string_equal(cprof_strerror(CPROF_ENOMEM), "out of memory");
  assert_string_equal(cprof_strerror(CPROF_EPARSE), "not valid JSON");
  assert_string_equal(cprof_strerror(CPROF_ESCHEMA), "not a V8 profile");
  assert_string_equal(cprof_strerror(CPROF_EIO), "file system error");
  assert_string_equal(cprof_strerror(CPROF_EPROTO), "the inspector replied with an error");
  assert_string_equal(cprof_strerror(CPROF_EINVAL), "invalid argument");
  assert_string_equal(cprof_strerror(CPROF_EEXIST), "the file exists");
  assert_string_equal(cprof_strerror(-99), "unknown error");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(truncated_json_is_eparse_with_offset),
      cmocka_unit_test(garbage_is_eparse),
      cmocka_unit_test(trailing_data_is_eparse),
      cmocka_unit_test(empty_input_is_eparse),
      cmocka_unit_test(bad_arguments_are_einval),
      cmocka_unit_test(wrong_schema),
      cmocka_unit_test(sample_naming_missing_node),
      cmocka_unit_test(child_naming_missing_node),
      cmocka_unit_test(duplicate_id),
      cmocka_unit_test(node_reached_twice),
      cmocka_unit_test(cycles),
      cmocka_unit_test(two_roots),
      cmocka_unit_test(bad_numbers),
      cmocka_unit_test(wrong_types),
      cmocka_unit_test(message_is_truncated_safely),
      cmocka_unit_test(strerror_covers_every_code),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The single-pass reader under cprof_profile_parse: members in any order,
 * JSON's grammar enforced even in values it skips, numbers and escapes
 * read exactly. */
#include "helpers.h"

static char err[256];

#define ROOT_CF "'callFrame':{'functionName':'(root)','scriptId':'0','url':''}"
#define F_CF "'callFrame':{'functionName':'f','scriptId':'1','url':'a.js','lineNumber':2}"

static uint32_t node_with_id(const cprof_profile_t *p, uint32_t id) {
  for (uint32_t i = 0; i < p->nnodes; i++)
    if (p->nodes[i].id == id) return i;
  fail_msg("no node %u", id);
  return CPROF_NONE;
}

/* Every member where V8 never puts it: samples before nodes, children and
 * callFrame before id, times first. */
static void cpu_members_in_any_order(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'endTime':30,'samples':[2,1,2],'timeDeltas':[0,10,10],"
                                "'startTime':0,'nodes':[{'children':[2]," ROOT_CF ",'id':1},"
                                "{" F_CF ",'hitCount':2,'id':2}]}");
  assert_int_equal(p->nnodes, 2);
  assert_int_equal(p->nsamples, 3);
  uint32_t f = node_with_id(p, 2);
  assert_int_equal(p->nodes[f].parent, 0);
  assert_int_equal(p->nodes[f].self, 20);
  assert_int_equal(p->nodes[0].total, 30);
  assert_string_equal(p->frames[p->nodes[f].frame].url, "a.js");
  assert_int_equal(p->frames[p->nodes[f].frame].line, 2);
  cprof_profile_free(p);
}

static void heap_members_in_any_order(void **state) {
  (void)state;
  cprof_profile_t *p =
      parse_ok("{'samples':[{'nodeId':3,'size':8,'ordinal':1}],'head':{'children':["
               "{'children':[{'id':3,'selfSize':8," F_CF "}],'selfSize':0,'id':2," F_CF "}],"
               "'id':1,'selfSize':0," ROOT_CF "}}");
  assert_int_equal(p->kind, CPROF_KIND_HEAP);
  assert_int_equal(p->nnodes, 3);
  for (uint32_t i = 0; i < 3; i++)
    assert_int_equal(p->nodes[i].id, i + 1); /* preorder */
  assert_int_equal(p->nodes[2].parent, 1);
  assert_int_equal(p->nsamples, 1);
  assert_int_equal(p->samples[0], 2);
  assert_int_equal(p->nodes[0].total, 8);
  cprof_profile_free(p);
}

/* As cJSON_GetObjectItem read them: the first of a repeated key counts. */
static void first_of_a_repeated_key_wins(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'nodes':[{'id':1,'id':7," ROOT_CF ",'children':[2],"
                                "'children':[9]},{'id':2," F_CF "}],'startTime':0,'endTime':1,"
                                "'startTime':'x'}");
  assert_int_equal(p->nodes[0].id, 1);
  assert_int_equal(p->nodes[1].id, 2);
  cprof_profile_free(p);
}

static void unknown_members_are_skipped(void **state) {
  (void)state;
  cprof_profile_t *p =
      parse_ok("{'meta':{'a':[1,2.5e3,true,false,null,{'b':'\\u00e9'}]},'nodes':[{'id':1," ROOT_CF
               ",'positionTicks':[{'line':1,'ticks':2}],'x':null}],'startTime':0,'endTime':0}");
  assert_int_equal(p->nnodes, 1);
  cprof_profile_free(p);
}

static void numbers_read_as_strtod_does(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'nodes':[{'id':1," ROOT_CF ",'children':[2]},{'id':2," F_CF
                                "}],'samples':[2,2,2],'timeDeltas':[1e1,2.5E+1,-0.0],"
                                "'startTime':-5,'endTime':1234567890123456}");
  assert_int_equal(p->time_deltas[0], 10);
  assert_int_equal(p->time_deltas[1], 25); /* 25.0 */
  assert_int_equal(p->time_deltas[2], 0);
  assert_int_equal(p->start_time, -5);
  assert_int_equal(p->end_time, 1234567890123456);
  cprof_profile_free(p);
  /* 2^53 + 1 has 16 digits: past the exact range of a double. */
  assert_int_equal(parse_fail("{'nodes':[{'id':1," ROOT_CF "}],'startTime':9007199254740993000,"
                              "'endTime':0}",
                              err, sizeof err),
                   CPROF_ESCHEMA);
  assert_non_null(strstr(err, "startTime"));
}

static void escaped_strings_are_decoded(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'nodes':[{'id':1,'callFrame':{'functionName':'a\\\"b\\\\c "
                                "\\u00e9\\ud83d\\ude00','url':'x\\/y','scriptId':3}}],"
                                "'startTime':0,'endTime':0}");
  const cprof_frame_t *f = &p->frames[p->nodes[0].frame];
  assert_string_equal(f->name, "a\"b\\c \xc3\xa9\xf0\x9f\x98\x80");
  assert_string_equal(f->url, "x/y");
  assert_string_equal(f->script_id, "3");
  cprof_profile_free(p);
}

/* Bad JSON is a parse error wherever it is, skipped values included. */
static void grammar_is_checked_everywhere(void **state) {
  (void)state;
  static const char *bad[] = {
      "{'nodes':[{'id':1," ROOT_CF "}],'x':[1,,2]}",
      "{'nodes':[{'id':1," ROOT_CF "},]}",
      "{'nodes':[{'id':1," ROOT_CF ",}]}",
      "{'nodes':[{'id':01," ROOT_CF "}]}",
      "{'nodes':[{'id':1." ROOT_CF "}]}",
      "{'nodes':[{'id':-," ROOT_CF "}]}",
      "{'nodes':[{'id':1," ROOT_CF ",'x':tru}]}",
      "{'nodes':[{'id':1," ROOT_CF ",'x':'\\q'}]}",
      "{'nodes':[{'id':1," ROOT_CF ",'x':'\\ud800'}]}",
      "{'nodes':[{'id':1," ROOT_CF ",'x':1e}]}",
      "{'nodes':[{'id':1 " ROOT_CF "}]}",
      "{'nodes' [{'id':1," ROOT_CF "}]}",
      "{'nodes':[{'id':1," ROOT_CF "}]",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (parse_fail(bad[i], err, sizeof err) != CPROF_EPARSE) fail_msg("#%zu: %s", i, err);
    assert_non_null(strstr(err, "invalid or truncated JSON"));
  }
  /* A raw control character inside a string. */
  cprof_profile_t *p = NULL;
  static const char ctl[] = "{\"x\":\"a\tb\",\"nodes\":[]}";
  assert_int_equal(cprof_profile_parse(ctl, sizeof ctl - 1, &p, err, sizeof err), CPROF_EPARSE);
}

static void deep_skipped_value_is_eparse(void **state) {
  (void)state;
  size_t n = 3000;
  char *s = malloc(2 * n + 16);
  assert_non_null(s);
  size_t len = (size_t)sprintf(s, "{\"x\":");
  memset(s + len, '[', n);
  memset(s + len + n, ']', n);
  len += 2 * n;
  s[len++] = '}';
  cprof_profile_t *p = NULL;
  assert_int_equal(cprof_profile_parse(s, len, &p, err, sizeof err), CPROF_EPARSE);
  assert_non_null(strstr(err, "nested deeper than 1000"));
  free(s);
}

static void nodes_and_head_together_is_eschema(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'head':{'id':1,'selfSize':0," ROOT_CF "},'nodes':[{'id':1," ROOT_CF
                              "}],'startTime':0,'endTime':0}",
                              err, sizeof err),
                   CPROF_ESCHEMA);
  assert_non_null(strstr(err, "both nodes"));
}

/* A profile member's wrong type is named even before the id is known. */
static void messages_name_the_node_by_position_before_its_id(void **state) {
  (void)state;
  assert_int_equal(parse_fail("{'nodes':[{'callFrame':{'url':5},'id':1}]}", err, sizeof err),
                   CPROF_ESCHEMA);
  assert_string_equal(err, "nodes[0]: callFrame.url is not a string");
  assert_int_equal(
      parse_fail("{'nodes':[{'id':4,'callFrame':{'lineNumber':1.5}}]}", err, sizeof err),
      CPROF_ESCHEMA);
  assert_string_equal(err, "node 4: callFrame line or column is not a 32-bit integer");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpu_members_in_any_order),
      cmocka_unit_test(heap_members_in_any_order),
      cmocka_unit_test(first_of_a_repeated_key_wins),
      cmocka_unit_test(unknown_members_are_skipped),
      cmocka_unit_test(numbers_read_as_strtod_does),
      cmocka_unit_test(escaped_strings_are_decoded),
      cmocka_unit_test(grammar_is_checked_everywhere),
      cmocka_unit_test(deep_skipped_value_is_eparse),
      cmocka_unit_test(nodes_and_head_together_is_eschema),
      cmocka_unit_test(messages_name_the_node_by_position_before_its_id),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

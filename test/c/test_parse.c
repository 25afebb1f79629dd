/* cprof_profile_parse: building the model from .cpuprofile/.heapprofile. */
#include "helpers.h"

/* clang-format off */
#define FRAME(name) "'callFrame':{'functionName':'" name "','scriptId':'7','url':'file:///a.js'," \
                    "'lineNumber':1,'columnNumber':2}"
/* Object-like, so the JSON below formats as data, not as calls. */
#define FA FRAME("a")
#define FB FRAME("b")
#define FC FRAME("c")
#define FD FRAME("d")
#define FF FRAME("f")
#define ROOT_FRAME "'callFrame':{'functionName':'(root)','scriptId':'0','url':''," \
                   "'lineNumber':-1,'columnNumber':-1}"

/* Nodes out of file order: 3 before its parent, root in the middle. */
static const char out_of_order[] =
    "{'nodes':["
    "{'id':3,'hitCount':1," FC "},"
    "{'id':1,'hitCount':0," ROOT_FRAME ",'children':[2,3]},"
    "{'id':4,'hitCount':2," FD "},"
    "{'id':2,'hitCount':1," FB ",'children':[4]}],"
    "'startTime':1000,'endTime':1150,"
    "'samples':[4,3,4,2],'timeDeltas':[10,20,30,40]}";
/* clang-format on */

static void cpu_out_of_order_nodes_become_preorder(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(out_of_order);
  assert_int_equal(p->kind, CPROF_KIND_CPU);
  assert_int_equal(p->nnodes, 4);
  /* Preorder, children in listed order: 1, 2, 4, 3. */
  assert_int_equal(p->nodes[0].id, 1);
  assert_int_equal(p->nodes[1].id, 2);
  assert_int_equal(p->nodes[2].id, 4);
  assert_int_equal(p->nodes[3].id, 3);
  assert_int_equal(p->nodes[0].parent, CPROF_NONE);
  assert_int_equal(p->nodes[0].first_child, 1);
  assert_int_equal(p->nodes[1].next_sibling, 3);
  assert_int_equal(p->nodes[1].first_child, 2);
  assert_int_equal(p->nodes[2].parent, 1);
  assert_int_equal(p->nodes[3].parent, 0);
  assert_int_equal(p->nodes[3].next_sibling, CPROF_NONE);
  assert_int_equal(p->nodes[2].hit_count, 2);
  assert_string_equal(node_name(p, 0), "(root)");
  assert_string_equal(node_name(p, 2), "d");
  assert_int_equal(p->start_time, 1000);
  assert_int_equal(p->end_time, 1150);
  /* Samples become node indexes, deltas kept as in the file. */
  assert_int_equal(p->nsamples, 4);
  assert_int_equal(p->samples[0], 2);
  assert_int_equal(p->samples[1], 3);
  assert_int_equal(p->samples[3], 1);
  assert_int_equal(p->time_deltas[2], 30);
  cprof_profile_free(p);
}

/* Weight = gap to the next sample; the last runs to endTime. Timestamps
 * 1010, 1030, 1060, 1100; end 1150: weights 20, 30, 40, 50. */
static void cpu_self_and_total_use_sample_weights(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(out_of_order);
  assert_int_equal(cprof_sample_weight(p, 0), 20);
  assert_int_equal(cprof_sample_weight(p, 1), 30);
  assert_int_equal(cprof_sample_weight(p, 2), 40);
  assert_int_equal(cprof_sample_weight(p, 3), 50);
  assert_int_equal(cprof_sample_weight(p, 4), 0); /* out of range */
  assert_int_equal(node_by_id(p, 4)->self, 60);
  assert_int_equal(node_by_id(p, 3)->self, 30);
  assert_int_equal(node_by_id(p, 2)->self, 50);
  assert_int_equal(node_by_id(p, 1)->self, 0);
  assert_int_equal(node_by_id(p, 4)->total, 60);
  assert_int_equal(node_by_id(p, 2)->total, 110);
  assert_int_equal(node_by_id(p, 1)->total, 140);
  assert_int_equal(cprof_profile_total(p), 140);
  check_invariants(p);
  cprof_profile_free(p);
}

static void cpu_negative_gaps_weigh_zero(void **state) {
  (void)state;
  /* Timestamps 100, 90, 120; end 110 is before the last sample. */
  cprof_profile_t *p = parse_ok("{'nodes':[{'id':1," ROOT_FRAME ",'children':[2]},"
                                "{'id':2," FF "}],'startTime':0,'endTime':110,"
                                "'samples':[2,2,2],'timeDeltas':[100,-10,30]}");
  assert_int_equal(cprof_sample_weight(p, 0), 0);
  assert_int_equal(cprof_sample_weight(p, 1), 30);
  assert_int_equal(cprof_sample_weight(p, 2), 0);
  assert_int_equal(node_by_id(p, 2)->self, 30);
  cprof_profile_free(p);
}

/* Older DevTools files: `parent` on nodes, children in node file order. */
static void cpu_parent_style_nodes(void **state) {
  (void)state;
  /* clang-format off */
  cprof_profile_t *p = parse_ok(
      "{'nodes':["
      "{'id':40,'parent':20," FD "},"
      "{'id':10," ROOT_FRAME "},"
      "{'id':30,'parent':10," FC "},"
      "{'id':20,'parent':10," FB "}],"
      "'startTime':0,'endTime':10,'samples':[40],'timeDeltas':[5]}");
  /* clang-format on */
  assert_int_equal(p->nnodes, 4);
  assert_int_equal(p->nodes[0].id, 10);
  assert_int_equal(p->nodes[1].id, 30);
  assert_int_equal(p->nodes[2].id, 20);
  assert_int_equal(p->nodes[3].id, 40);
  assert_int_equal(p->nodes[3].parent, 2);
  assert_int_equal(node_by_id(p, 40)->self, 5);
  assert_int_equal(node_by_id(p, 20)->total, 5);
  check_invariants(p);
  cprof_profile_free(p);
}

/* children and parent both present and agreeing is fine. */
static void cpu_children_and_parent_agree(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'nodes':[{'id':1," ROOT_FRAME ",'children':[2]},"
                                "{'id':2,'parent':1," FF "}],"
                                "'startTime':0,'endTime':0}");
  assert_int_equal(p->nnodes, 2);
  assert_int_equal(p->nodes[1].parent, 0);
  assert_int_equal(p->nodes[0].first_child, 1);
  cprof_profile_free(p);
}

static void cpu_frame_fields_and_interning(void **state) {
  (void)state;
  cprof_profile_t *p =
      parse_ok("{'nodes':[{'id':1,'callFrame':{},'children':[2,3,4]},"
               "{'id':2,'callFrame':{'functionName':'f','scriptId':42,'url':'u','lineNumber':3,"
               "'columnNumber':4}},"
               "{'id':3,'callFrame':{'functionName':'f','scriptId':'42','url':'u','lineNumber':3,"
               "'columnNumber':4}},"
               "{'id':4,'callFrame':{'functionName':'f','scriptId':'43','url':'u','lineNumber':3,"
               "'columnNumber':4}}],'startTime':0,'endTime':0}");
  const cprof_frame_t *root = &p->frames[p->nodes[0].frame];
  assert_string_equal(root->name, "");
  assert_string_equal(root->url, "");
  assert_string_equal(root->script_id, "");
  assert_int_equal(root->line, -1);
  assert_int_equal(root->column, -1);
  /* Numeric scriptId 42 reads as "42" and interns with the string one;
   * another script id is another frame. */
  assert_int_equal(p->nodes[1].frame, p->nodes[2].frame);
  assert_int_not_equal(p->nodes[1].frame, p->nodes[3].frame);
  assert_int_equal(p->nframes, 3);
  assert_string_equal(p->frames[p->nodes[1].frame].script_id, "42");
  assert_int_equal(p->frames[p->nodes[1].frame].line, 3);
  assert_int_equal(p->frames[p->nodes[1].frame].column, 4);
  cprof_profile_free(p);
}

static void cpu_sample_lengths_differ_uses_shorter(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'nodes':[{'id':1," ROOT_FRAME "}],'startTime':0,'endTime':100,"
                                "'samples':[1,1,1],'timeDeltas':[10,10]}");
  assert_int_equal(p->nsamples, 2);
  assert_int_equal(cprof_sample_weight(p, 1), 80);
  assert_int_equal(p->nodes[0].self, 90);
  cprof_profile_free(p);
}

static void cpu_missing_samples_is_empty(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'nodes':[{'id':1," ROOT_FRAME "}],'startTime':5,'endTime':9}");
  assert_int_equal(p->nsamples, 0);
  assert_null(p->samples);
  assert_int_equal(cprof_profile_total(p), 0);
  assert_int_equal(cprof_profile_dropped_samples(p), 0);
  cprof_profile_free(p);
}

/* Ids are arbitrary uint32, not dense. */
static void cpu_sparse_ids(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'nodes':[{'id':4294967295," ROOT_FRAME ",'children':[0]},"
                                "{'id':0," FF "}],'startTime':0,'endTime':7,"
                                "'samples':[0],'timeDeltas':[0]}");
  assert_int_equal(p->nodes[0].id, 4294967295u);
  assert_int_equal(p->nodes[1].id, 0);
  assert_int_equal(p->nodes[1].self, 7);
  cprof_profile_free(p);
}

static void inspector_reply_is_unwrapped(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'id':12,'result':{'profile':{'nodes':[{'id':1," ROOT_FRAME
                                "}],'startTime':0,'endTime':3,'samples':[1],'timeDeltas':[1]}}}");
  assert_int_equal(p->kind, CPROF_KIND_CPU);
  assert_int_equal(p->nodes[0].self, 2);
  cprof_profile_free(p);
  p = parse_ok("{'id':3,'result':{'profile':{'head':{" ROOT_FRAME
               ",'selfSize':0,'id':1,'children':[]},'samples':[]}}}");
  assert_int_equal(p->kind, CPROF_KIND_HEAP);
  cprof_profile_free(p);
}

static void inspector_error_reply(void **state) {
  (void)state;
  char err[256];
  assert_int_equal(
      parse_fail("{'id':5,'error':{'code':-32000,'message':'Profiler is not started'}}", err,
                 sizeof(err)),
      CPROF_EPROTO);
  assert_string_equal(err, "inspector error -32000: Profiler is not started");
}

/* A heap tree; node 9 is named by a sample but is not in the tree. */
/* clang-format off */
static const char heap[] =
    "{'head':{" ROOT_FRAME ",'selfSize':0,'id':1,'children':["
      "{" FA ",'selfSize':100,'id':2,'children':["
        "{" FB ",'selfSize':30,'id':3,'children':[]}]},"
      "{" FC ",'selfSize':7,'id':5,'children':[]}]},"
    "'samples':[{'size':64,'nodeId':2,'ordinal':1},"
               "{'size':32,'nodeId':9,'ordinal':2},"
               "{'size':30,'nodeId':3,'ordinal':3}]}";
/* clang-format on */

static void heap_tree_is_flattened_preorder(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(heap);
  assert_int_equal(p->kind, CPROF_KIND_HEAP);
  assert_int_equal(p->nnodes, 4);
  assert_int_equal(p->nodes[0].id, 1);
  assert_int_equal(p->nodes[1].id, 2);
  assert_int_equal(p->nodes[2].id, 3);
  assert_int_equal(p->nodes[3].id, 5);
  assert_int_equal(p->nodes[1].next_sibling, 3);
  assert_int_equal(p->nodes[2].parent, 1);
  assert_int_equal(p->nodes[1].self, 100);
  assert_int_equal(p->nodes[1].total, 130);
  assert_int_equal(p->nodes[0].total, 137);
  assert_int_equal(cprof_profile_total(p), 137);
  assert_int_equal(p->start_time, 0);
  assert_null(p->time_deltas);
  check_invariants(p);
  cprof_profile_free(p);
}

static void heap_sample_naming_missing_node_is_dropped(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(heap);
  assert_int_equal(cprof_profile_dropped_samples(p), 1);
  assert_int_equal(p->nsamples, 2);
  assert_int_equal(p->samples[0], 1);
  assert_int_equal(p->samples[1], 2);
  assert_int_equal(p->sample_sizes[1], 30);
  assert_int_equal(p->sample_ordinals[1], 3);
  assert_int_equal(cprof_sample_weight(p, 0), 64);
  cprof_profile_free(p);
}

/* Older Node: no samples, no ids. */
static void heap_without_samples_or_ids(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok("{'head':{" ROOT_FRAME ",'selfSize':1,'children':["
                                "{" FA ",'selfSize':2}]}}");
  assert_int_equal(p->nsamples, 0);
  assert_int_equal(p->nnodes, 2);
  assert_int_equal(p->nodes[0].id, 1);
  assert_int_equal(p->nodes[1].id, 2);
  assert_int_equal(p->nodes[0].total, 3);
  cprof_profile_free(p);
}

/* 450 levels is 900 JSON levels: within cJSON's limit of 1000. */
static void heap_deep_tree(void **state) {
  (void)state;
  enum { DEPTH = 450 };
  sbuf_t b = {0};
  sb_printf(&b, "{\"head\":");
  for (int i = 0; i < DEPTH; i++)
    sb_printf(&b,
              "{\"callFrame\":{\"functionName\":\"f%d\"},\"selfSize\":1,\"id\":%d,"
              "\"children\":[",
              i % 7, i + 1);
  for (int i = 0; i < DEPTH; i++)
    sb_printf(&b, "]}");
  sb_printf(&b, "}");
  cprof_profile_t *p = parse_raw(b.s, b.len);
  assert_int_equal(p->nnodes, DEPTH);
  assert_int_equal(p->nframes, 7);
  assert_int_equal(p->nodes[0].total, DEPTH);
  assert_int_equal(p->nodes[DEPTH - 1].parent, DEPTH - 2);
  check_invariants(p);
  cprof_profile_free(p);
  free(b.s);
}

/* Deeper than cJSON can nest: a clean EPARSE that says why. */
static void too_deep_json_is_eparse(void **state) {
  (void)state;
  sbuf_t b = {0};
  for (int i = 0; i < 2000; i++)
    sb_printf(&b, "[");
  char err[256] = "";
  cprof_profile_t *p = NULL;
  assert_int_equal(cprof_profile_parse(b.s, b.len, &p, err, sizeof(err)), CPROF_EPARSE);
  assert_null(p);
  assert_non_null(strstr(err, "nested deeper than 1000"));
  free(b.s);
}

/* A CPU chain 100000 deep: the JSON is flat, so only our walks could
 * overflow the stack. */
static void cpu_deep_chain(void **state) {
  (void)state;
  enum { N = 100000 };
  sbuf_t b = {0};
  sb_printf(&b, "{\"nodes\":[");
  for (int i = 1; i <= N; i++) {
    sb_printf(&b, "%s{\"id\":%d,\"callFrame\":{\"functionName\":\"f\"}", i > 1 ? "," : "", i);
    if (i < N) sb_printf(&b, ",\"children\":[%d]", i + 1);
    sb_printf(&b, "}");
  }
  sb_printf(&b, "],\"startTime\":0,\"endTime\":10,\"samples\":[%d],\"timeDeltas\":[0]}", N);
  cprof_profile_t *p = parse_raw(b.s, b.len);
  assert_int_equal(p->nnodes, N);
  assert_int_equal(p->nodes[N - 1].id, N);
  assert_int_equal(p->nodes[N - 1].self, 10);
  assert_int_equal(p->nodes[0].total, 10);
  assert_int_equal(p->nframes, 1);
  check_invariants(p);
  cprof_profile_free(p);
  free(b.s);
}

static void input_need_not_be_nul_terminated(void **state) {
  (void)state;
  char *s = dq("{'nodes':[{'id':1," ROOT_FRAME "}],'startTime':0,'endTime':0}");
  size_t n = strlen(s);
  char *exact = malloc(n); /* no terminator: ASan catches any overread */
  assert_non_null(exact);
  memcpy(exact, s, n);
  cprof_profile_t *p = parse_raw(exact, n);
  assert_int_equal(p->nnodes, 1);
  cprof_profile_free(p);
  free(exact);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpu_out_of_order_nodes_become_preorder),
      cmocka_unit_test(cpu_self_and_total_use_sample_weights),
      cmocka_unit_test(cpu_negative_gaps_weigh_zero),
      cmocka_unit_test(cpu_parent_style_nodes),
      cmocka_unit_test(cpu_children_and_parent_agree),
      cmocka_unit_test(cpu_frame_fields_and_interning),
      cmocka_unit_test(cpu_sample_lengths_differ_uses_shorter),
      cmocka_unit_test(cpu_missing_samples_is_empty),
      cmocka_unit_test(cpu_sparse_ids),
      cmocka_unit_test(inspector_reply_is_unwrapped),
      cmocka_unit_test(inspector_error_reply),
      cmocka_unit_test(heap_tree_is_flattened_preorder),
      cmocka_unit_test(heap_sample_naming_missing_node_is_dropped),
      cmocka_unit_test(heap_without_samples_or_ids),
      cmocka_unit_test(heap_deep_tree),
      cmocka_unit_test(too_deep_json_is_eparse),
      cmocka_unit_test(cpu_deep_chain),
      cmocka_unit_test(input_need_not_be_nul_terminated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The .cpuprofile and .heapprofile writers: exact output, round trips,
 * deep trees and write errors. */
#include "helpers.h"
#include "internal.h"

static void assert_same_frame(const cprof_frame_t *a, const cprof_frame_t *b) {
  assert_string_equal(a->name, b->name);
  assert_string_equal(a->url, b->url);
  assert_string_equal(a->script_id, b->script_id);
  assert_int_equal(a->line, b->line);
  assert_int_equal(a->column, b->column);
}

static void assert_same_profile(const cprof_profile_t *a, const cprof_profile_t *b) {
  assert_int_equal(a->kind, b->kind);
  assert_int_equal(a->nnodes, b->nnodes);
  assert_int_equal(a->nframes, b->nframes);
  for (uint32_t i = 0; i < a->nnodes; i++) {
    const cprof_node_t *x = &a->nodes[i], *y = &b->nodes[i];
    assert_int_equal(x->id, y->id);
    assert_int_equal(x->parent, y->parent);
    assert_int_equal(x->first_child, y->first_child);
    assert_int_equal(x->next_sibling, y->next_sibling);
    assert_int_equal(x->hit_count, y->hit_count);
    assert_int_equal(x->self, y->self);
    assert_int_equal(x->total, y->total);
    assert_same_frame(&a->frames[x->frame], &b->frames[y->frame]);
  }
  assert_int_equal(a->start_time, b->start_time);
  assert_int_equal(a->end_time, b->end_time);
  assert_int_equal(a->nsamples, b->nsamples);
  for (uint32_t i = 0; i < a->nsamples; i++) {
    assert_int_equal(a->samples[i], b->samples[i]);
    if (a->kind == CPROF_KIND_CPU) {
      assert_int_equal(a->time_deltas[i], b->time_deltas[i]);
    } else {
      assert_int_equal(a->sample_sizes[i], b->sample_sizes[i]);
      assert_int_equal(a->sample_ordinals[i], b->sample_ordinals[i]);
    }
  }
}

static void round_trip(cprof_exporter_fn fn, const cprof_profile_t *p) {
  size_t len;
  char *text = export_text(fn, p, &len);
  cprof_profile_t *q = parse_raw(text, len);
  assert_same_profile(p, q);
  assert_int_equal(cprof_profile_dropped_samples(q), 0);
  cprof_profile_free(q);
  free(text);
}

static void cpuprofile_exact_output(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(
      "{'nodes':[{'id':7,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
      "'lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':[3]},"
      "{'id':3,'callFrame':{'functionName':'f','scriptId':12,'url':'file:///a.js',"
      "'lineNumber':4,'columnNumber':2},'hitCount':1,'positionTicks':[{'line':5,'ticks':1}]}],"
      "'startTime':100,'endTime':120,'samples':[3],'timeDeltas':[5]}");
  size_t len;
  char *text = export_text(cprof_export_cpuprofile, p, &len);
  char *want = dq("{'nodes':[{'id':7,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
                  "'lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':[3]},"
                  "{'id':3,'callFrame':{'functionName':'f','scriptId':'12','url':'file:///a.js',"
                  "'lineNumber':4,'columnNumber':2},'hitCount':1,"
                  "'positionTicks':[{'line':5,'ticks':1}]}],"
                  "'startTime':100,'endTime':120,'samples':[3],'timeDeltas':[5]}");
  assert_string_equal(text, want); /* positionTicks kept: a merge writes its lines from them */
  free(want);
  free(text);
  cprof_profile_free(p);
}

static void heapprofile_exact_output(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(
      "{'head':{'callFrame':{'functionName':'(root)','scriptId':'0','url':'','lineNumber':-1,"
      "'columnNumber':-1},'selfSize':0,'id':1,'children':[{'callFrame':{'functionName':'g',"
      "'scriptId':'3','url':'b.js','lineNumber':1,'columnNumber':0},'selfSize':64,'id':2,"
      "'children':[]}]},'samples':[{'size':64,'nodeId':2,'ordinal':9},"
      "{'size':8,'nodeId':404,'ordinal':10}]}");
  size_t len;
  char *text = export_text(cprof_export_heapprofile, p, &len);
  char *want = dq("{'head':{'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
                  "'lineNumber':-1,'columnNumber':-1},'selfSize':0,'id':1,'children':["
                  "{'callFrame':{'functionName':'g','scriptId':'3','url':'b.js','lineNumber':1,"
                  "'columnNumber':0},'selfSize':64,'id':2,'children':[]}]},"
                  "'samples':[{'size':64,'nodeId':2,'ordinal':9}]}");
  assert_string_equal(text, want);
  free(want);
  free(text);
  cprof_profile_free(p);
}

/* Strings that need escaping survive the trip. */
static void cpuprofile_round_trip_escapes(void **state) {
  (void)state;
  static const char json[] =
      "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},\"children\":[5,2]},"
      "{\"id\":2,\"callFrame\":{\"functionName\":\"q\\\"uo\\\\te\\n\\u0001\",\"url\":\"caf\\u00e9 "
      "\xe2\x9c\x93.js\",\"lineNumber\":3,\"columnNumber\":9},\"hitCount\":4},"
      "{\"id\":5,\"callFrame\":{\"functionName\":\"</script>\",\"scriptId\":\"9\"}}],"
      "\"startTime\":10,\"endTime\":100,\"samples\":[2,5,2],\"timeDeltas\":[1,2,-1]}";
  cprof_profile_t *p = parse_raw(json, sizeof(json) - 1);
  assert_int_equal(p->nodes[1].id, 5); /* children keep their listed order */
  assert_string_equal(node_name(p, 2), "q\"uo\\te\n\x01");
  assert_string_equal(p->frames[p->nodes[2].frame].url, "caf\xc3\xa9 \xe2\x9c\x93.js");
  round_trip(cprof_export_cpuprofile, p);
  cprof_profile_free(p);
}

static void cpuprofile_round_trip_fixture(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  round_trip(cprof_export_cpuprofile, p);
  cprof_profile_free(p);
}

/* The fixture has samples naming missing nodes: they are not written, so
 * the copy has none to drop. */
static void heapprofile_round_trip_fixture(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.heapprofile");
  assert_true(cprof_profile_dropped_samples(p) > 0);
  round_trip(cprof_export_heapprofile, p);
  cprof_profile_free(p);
}

/* A heap chain far deeper than any recursion would survive. cJSON cannot
 * read it back (nesting limit), so check the text's shape instead. */
static void heapprofile_deep_tree(void **state) {
  (void)state;
  enum { N = 200000 };
  cprof_profile_t *p = heap_chain(N, 1, 1);
  assert_int_equal(p->nodes[0].total, N);
  size_t len, open = 0, close = 0, frames = 0;
  char *text = export_text(cprof_export_heapprofile, p, &len);
  /* One pass by hand: ASan's strstr would rescan the whole text per call. */
  for (size_t i = 0; i < len; i++) {
    open += text[i] == '[';
    close += text[i] == ']';
    frames += len - i >= 11 && memcmp(text + i, "\"callFrame\"", 11) == 0;
  }
  assert_int_equal(frames, N);
  assert_int_equal(open, N + 1);
  assert_int_equal(close, N + 1);
  char err[256];
  cprof_profile_t *q = NULL;
  assert_int_equal(cprof_profile_parse(text, len, &q, err, sizeof(err)), CPROF_EPARSE);
  assert_non_null(strstr(err, "nested deeper"));
  free(text);
  cprof_profile_free(p);
}

/* A deep CPU chain round-trips: the format is flat. */
static void cpuprofile_deep_chain_round_trip(void **state) {
  (void)state;
  enum { N = 50000 };
  sbuf_t b = {0};
  sb_printf(&b, "{\"nodes\":[");
  for (int i = 1; i <= N; i++) {
    sb_printf(&b, "%s{\"id\":%d,\"callFrame\":{\"functionName\":\"f%d\"}", i > 1 ? "," : "", i,
              i % 3);
    if (i < N) sb_printf(&b, ",\"children\":[%d]", i + 1);
    sb_printf(&b, "}");
  }
  sb_printf(&b, "],\"startTime\":0,\"endTime\":10,\"samples\":[%d,1],\"timeDeltas\":[0,4]}", N);
  cprof_profile_t *p = parse_raw(b.s, b.len);
  round_trip(cprof_export_cpuprofile, p);
  cprof_profile_free(p);
  free(b.s);
}

static void write_error_is_eio(void **state) {
  (void)state;
  cprof_profile_t *cpu = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  cprof_profile_t *heap = parse_file(CPROF_FIXTURES "/small.heapprofile");
  FILE *f = fopen("/dev/full", "w");
  assert_non_null(f);
  assert_int_equal(cprof_export_cpuprofile(cpu, f), CPROF_EIO);
  fclose(f);
  f = fopen("/dev/full", "w");
  assert_non_null(f);
  assert_int_equal(cprof_export_heapprofile(heap, f), CPROF_EIO);
  fclose(f);
  cprof_profile_free(cpu);
  cprof_profile_free(heap);
}

static void wrong_kind_is_einval(void **state) {
  (void)state;
  cprof_profile_t *cpu = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(cprof_export_heapprofile(cpu, f), CPROF_EINVAL);
  assert_int_equal(cprof_export_cpuprofile(NULL, f), CPROF_EINVAL);
  assert_int_equal(cprof_export_cpuprofile(cpu, NULL), CPROF_EINVAL);
  assert_int_equal(ftell(f), 0);
  fclose(f);
  cprof_profile_free(cpu);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpuprofile_exact_output),
      cmocka_unit_test(heapprofile_exact_output),
      cmocka_unit_test(cpuprofile_round_trip_escapes),
      cmocka_unit_test(cpuprofile_round_trip_fixture),
      cmocka_unit_test(heapprofile_round_trip_fixture),
      cmocka_unit_test(heapprofile_deep_tree),
      cmocka_unit_test(cpuprofile_deep_chain_round_trip),
      cmocka_unit_test(write_error_is_eio),
      cmocka_unit_test(wrong_kind_is_einval),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

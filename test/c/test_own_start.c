/* The profiler's own start call, dropped from a CPU profile: the model
 * (cprof_profile_leading_own, cprof_profile_drop_leading) and V8's text
 * (cprof_write_text_drop_leading) must agree. */
#include "helpers.h"

#define LIB "file:///srv/node_modules/cprof/lib/"

/* (root) -> main (app) -> start (cprof) -> nativeStart (cprof) -> dispatch;
 * (root) -> main -> work (app). The first two samples are in dispatch, as
 * V8's are when its sampler ticks during Profiler.start. positionTicks and
 * the other members must come through the text edit untouched. */
static const char PROFILE[] =
    "{'nodes':["
    "{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'','lineNumber':-1,"
    "'columnNumber':-1},'hitCount':0,'children':[2]},"
    "{'id':2,'callFrame':{'functionName':'main','scriptId':'1','url':'file:///srv/app.js',"
    "'lineNumber':1,'columnNumber':0},'hitCount':0,'children':[3,6]},"
    "{'id':3,'callFrame':{'functionName':'start','scriptId':'2','url':'" LIB "controller.js',"
    "'lineNumber':60,'columnNumber':2},'hitCount':0,'children':[4]},"
    "{'id':4,'callFrame':{'functionName':'nativeStart','scriptId':'3','url':'" LIB "index.js',"
    "'lineNumber':41,'columnNumber':2},'hitCount':0,'children':[5]},"
    "{'id':5,'callFrame':{'functionName':'dispatch','scriptId':'0','url':'','lineNumber':-1,"
    "'columnNumber':-1},'hitCount':2},"
    "{'id':6,'callFrame':{'functionName':'work','scriptId':'1','url':'file:///srv/app.js',"
    "'lineNumber':9,'columnNumber':0},'hitCount':4,'positionTicks':[{'line':10,'ticks':4}]}],"
    "'startTime':1000,'endTime':2000,"
    "'samples':[5, 5,6,6,5,6],"
    "'timeDeltas':[50,100,200,100,100,100]}";

/* samples' first two go with the space after the comma; the first three
 * deltas become 350, so work's first sample is still at 1350. */
static const char TRIMMED[] = "'samples':[6,6,5,6],'timeDeltas':[350,100,100,100]}";

static void counts_leading_own_samples(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(PROFILE);
  assert_int_equal(cprof_profile_leading_own(p, LIB), 2);
  /* A sample in cprof's code later on is not its start: only leading ones. */
  assert_int_equal(cprof_profile_leading_own(p, "file:///srv/"), 0); /* every sample: keep */
  assert_int_equal(cprof_profile_leading_own(p, "file:///other/"), 0);
  assert_int_equal(cprof_profile_leading_own(p, ""), 0);
  assert_int_equal(cprof_profile_leading_own(p, NULL), 0);
  assert_int_equal(cprof_profile_leading_own(NULL, LIB), 0);
  cprof_profile_free(p);
}

static void drops_from_the_model(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(PROFILE);
  uint32_t work = index_of_id(p, 6), dispatch = index_of_id(p, 5);
  /* A sample lasts until the next: dispatch 100 + 200 (the leading two)
   * + 100 (the late one). */
  assert_int_equal(p->nodes[dispatch].self, 100 + 200 + 100);
  int64_t work_self = p->nodes[work].self;
  assert_int_equal(cprof_profile_drop_leading(p, 2), CPROF_OK);
  check_invariants(p);
  assert_int_equal(p->nsamples, 4);
  assert_int_equal(p->samples[0], work);
  assert_int_equal(p->time_deltas[0], 350);
  assert_int_equal(p->nodes[work].self, work_self); /* kept samples keep their weights */
  assert_int_equal(p->nodes[dispatch].self, 100);   /* the late dispatch sample */
  assert_int_equal(p->nodes[dispatch].hit_count, 0);
  assert_int_equal(p->nodes[0].total, cprof_profile_total(p));
  assert_int_equal(p->start_time, 1000);
  assert_int_equal(p->end_time, 2000);
  assert_int_equal(cprof_profile_drop_leading(p, 0), CPROF_OK);
  assert_int_equal(cprof_profile_drop_leading(p, 4), CPROF_EINVAL); /* never all */
  assert_int_equal(p->nsamples, 4);
  cprof_profile_free(p);
}

static void text_edit_matches_the_model(void **state) {
  (void)state;
  char *json = dq(PROFILE), *want = dq(TRIMMED);
  size_t len;
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(cprof_write_text_drop_leading(json, strlen(json), 2, f), CPROF_OK);
  char *out = slurp(f, &len);
  fclose(f);
  /* Everything before samples is byte for byte V8's. */
  const char *tail = strstr(out, "\"samples\"");
  assert_non_null(tail);
  assert_string_equal(tail, want);
  assert_memory_equal(out, json, (size_t)(tail - out));
  cprof_profile_t *a = parse_raw(out, len), *b = parse_raw(json, strlen(json));
  assert_int_equal(cprof_profile_drop_leading(b, 2), CPROF_OK);
  assert_int_equal(a->nsamples, b->nsamples);
  for (uint32_t i = 0; i < a->nsamples; i++) {
    assert_int_equal(a->samples[i], b->samples[i]);
    assert_int_equal(a->time_deltas[i], b->time_deltas[i]);
  }
  for (uint32_t i = 0; i < a->nnodes; i++)
    assert_int_equal(a->nodes[i].self, b->nodes[i].self);
  cprof_profile_free(a);
  cprof_profile_free(b);
  free(out);
  free(json);
  free(want);
}

static void text_edit_errors(void **state) {
  (void)state;
  char *json = dq(PROFILE);
  FILE *f = tmpfile();
  assert_non_null(f);
  /* k = 0 copies; more than the arrays hold, or no arrays, is a schema error. */
  assert_int_equal(cprof_write_text_drop_leading(json, strlen(json), 0, f), CPROF_OK);
  assert_int_equal(ftell(f), (long)strlen(json));
  assert_int_equal(cprof_write_text_drop_leading(json, strlen(json), 6, f), CPROF_ESCHEMA);
  assert_int_equal(cprof_write_text_drop_leading("{\"nodes\":[]}", 12, 1, f), CPROF_ESCHEMA);
  assert_int_equal(cprof_write_text_drop_leading("{\"samples\":[1,", 14, 1, f), CPROF_EPARSE);
  assert_int_equal(
      cprof_write_text_drop_leading("{\"samples\":[1,2],\"timeDeltas\":[\"x\",1]}", 38, 1, f),
      CPROF_ESCHEMA); /* a delta that is not a number */
  assert_int_equal(cprof_write_text_drop_leading(NULL, 0, 1, f), CPROF_EINVAL);
  fclose(f);
  free(json);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(counts_leading_own_samples),
      cmocka_unit_test(drops_from_the_model),
      cmocka_unit_test(text_edit_matches_the_model),
      cmocka_unit_test(text_edit_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Real profiles written by Node (test/fixtures): the parser's promises on
 * V8's own output. */
#include "helpers.h"

static int has_function(const cprof_profile_t *p, const char *name) {
  for (uint32_t i = 0; i < p->nframes; i++)
    if (strcmp(p->frames[i].name, name) == 0) return 1;
  return 0;
}

static void real_cpuprofile(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  assert_int_equal(p->kind, CPROF_KIND_CPU);
  assert_int_equal(p->nnodes, 99);
  assert_int_equal(p->nsamples, 218);
  assert_string_equal(node_name(p, 0), "(root)");
  check_invariants(p);
  /* Every sample's weight lands in exactly one node. */
  int64_t weights = 0;
  for (uint32_t i = 0; i < p->nsamples; i++)
    weights += cprof_sample_weight(p, i);
  assert_int_equal(weights, p->nodes[0].total);
  assert_true(p->nodes[0].total > 0);
  assert_true(p->nodes[0].total <= p->end_time - p->start_time);
  assert_true(has_function(p, "fib"));
  assert_true(has_function(p, "busyMath"));
  assert_true(has_function(p, "busyStrings"));
  cprof_flat_t flat;
  assert_int_equal(cprof_flat_build(p, &flat), 0);
  assert_int_equal(flat.total, p->nodes[0].total);
  assert_int_equal(func_named(&flat, p, "main")->total <= flat.total, 1);
  cprof_flat_free(&flat);
  cprof_profile_free(p);
}

/* V8's heap profile names nodes it did not write in some samples: those
 * are dropped and counted, the rest kept. */
static void real_heapprofile(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.heapprofile");
  assert_int_equal(p->kind, CPROF_KIND_HEAP);
  assert_int_equal(p->nnodes, 102);
  assert_int_equal(p->nsamples, 310);
  assert_int_equal(cprof_profile_dropped_samples(p), 15);
  assert_int_equal(cprof_profile_total(p), 2693632);
  assert_string_equal(node_name(p, 0), "(root)");
  check_invariants(p);
  assert_true(has_function(p, "makeObjects"));
  assert_true(has_function(p, "makeArrays"));
  cprof_flat_t flat;
  assert_int_equal(cprof_flat_build(p, &flat), 0);
  assert_int_equal(flat.total, 2693632);
  cprof_flat_free(&flat);
  cprof_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(real_cpuprofile),
      cmocka_unit_test(real_heapprofile),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

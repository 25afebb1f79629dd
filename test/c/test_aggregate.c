/* The flat profile, top-N and special frames. */
#include "helpers.h"

/* clang-format off */
#define F(name, sid) "'callFrame':{'functionName':'" name "','scriptId':'" sid "','url':'u.js'}"
#define PSEUDO(name) "'callFrame':{'functionName':'" name "','url':''}"
/* Object-like, so the JSON below formats as data, not as calls. */
#define A1 F("A", "1")
#define B1 F("B", "1")
#define C1 F("C", "1")
#define X1 F("X", "1")
#define Y1 F("Y", "1")
#define F1 F("F", "1")
#define F2 F("F", "2")
#define ROOT PSEUDO("(root)")
/* clang-format on */

static cprof_flat_t build(const cprof_profile_t *p) {
  cprof_flat_t flat;
  assert_int_equal(cprof_flat_build(p, &flat), 0);
  return flat;
}

/* root -> A -> B -> A -> C, one 10 µs sample on each of C, B, inner A,
 * outer A. Node totals 40/30/20/10; A's flat total is 40, not 60. */
static void recursion_counts_each_sample_once(void **state) {
  (void)state;
  /* clang-format off */
  cprof_profile_t *p = parse_ok(
      "{'nodes':[{'id':1," ROOT ",'children':[2]},"
      "{'id':2," A1 ",'children':[3]},"
      "{'id':3," B1 ",'children':[4]},"
      "{'id':4," A1 ",'children':[5]},"
      "{'id':5," C1 "}],"
      "'startTime':0,'endTime':50,'samples':[5,3,4,2],'timeDeltas':[10,10,10,10]}");
  /* clang-format on */
  assert_int_equal(node_by_id(p, 2)->total, 40);
  assert_int_equal(node_by_id(p, 4)->total, 20);
  cprof_flat_t flat = build(p);
  assert_int_equal(flat.nfuncs, 4);
  assert_int_equal(flat.total, 40);
  assert_int_equal(func_named(&flat, p, "A")->self, 20);
  assert_int_equal(func_named(&flat, p, "A")->total, 40);
  assert_int_equal(func_named(&flat, p, "B")->self, 10);
  assert_int_equal(func_named(&flat, p, "B")->total, 30);
  assert_int_equal(func_named(&flat, p, "C")->self, 10);
  assert_int_equal(func_named(&flat, p, "C")->total, 10);
  assert_int_equal(func_named(&flat, p, "(root)")->self, 0);
  assert_int_equal(func_named(&flat, p, "(root)")->total, 40);
  cprof_flat_free(&flat);
  assert_null(flat.funcs);
  cprof_profile_free(p);
}

/* F under X (script 1) and under Y (script 2, same name/url/line/col) is one
 * function: script_id is not part of the key. */
static void same_function_in_two_places_merges(void **state) {
  (void)state;
  /* clang-format off */
  cprof_profile_t *p = parse_ok(
      "{'nodes':[{'id':1," ROOT ",'children':[2,3]},"
      "{'id':2," X1 ",'children':[4]},"
      "{'id':3," Y1 ",'children':[5]},"
      "{'id':4," F1 "},"
      "{'id':5," F2 "}],"
      "'startTime':0,'endTime':40,'samples':[4,5,5],'timeDeltas':[10,10,10]}");
  /* clang-format on */
  assert_int_equal(p->nframes, 5);
  cprof_flat_t flat = build(p);
  assert_int_equal(flat.nfuncs, 4);
  assert_int_equal(func_named(&flat, p, "F")->self, 30);
  assert_int_equal(func_named(&flat, p, "F")->total, 30);
  assert_int_equal(func_named(&flat, p, "X")->total, 10);
  assert_int_equal(func_named(&flat, p, "Y")->total, 20);
  cprof_flat_free(&flat);
  cprof_profile_free(p);
}

/* A heap tree, so self values are set exactly by selfSize. */
/* clang-format off */
static const char ranked[] =
    "{'head':{" ROOT ",'selfSize':1000,'id':1,'children':["
      "{" PSEUDO("(idle)") ",'selfSize':500,'id':2},"
      "{" F("d", "1") ",'selfSize':100,'id':3},"
      "{" F("b", "1") ",'selfSize':100,'id':4,'children':["
        "{" F("x", "1") ",'selfSize':5,'id':5}]},"
      "{" F("a", "1") ",'selfSize':100,'id':6},"
      "{" PSEUDO("(program)") ",'selfSize':50,'id':7},"
      "{" PSEUDO("(garbage collector)") ",'selfSize':40,'id':8},"
      "{'callFrame':{'functionName':'(garbage collector)','url':'','lineNumber':5},"
       "'selfSize':2,'id':9},"
      "{'callFrame':{'functionName':'(root)','url':'r.js'},'selfSize':1,'id':10}]}}";
/* clang-format on */

static const char *top_name(const cprof_profile_t *p, const cprof_func_t *f) {
  return p->frames[f->frame].name;
}

/* Ties on self go to the larger total (b), then to the name (a < d). */
static void top_orders_and_skips(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(ranked);
  cprof_flat_t flat = build(p);
  cprof_func_t top[16];
  assert_int_equal(cprof_flat_top(&flat, p, CPROF_TOP_SKIP_ROOT | CPROF_TOP_SKIP_IDLE, top, 4), 4);
  assert_string_equal(top_name(p, &top[0]), "b");
  assert_int_equal(top[0].total, 105);
  assert_string_equal(top_name(p, &top[1]), "a");
  assert_string_equal(top_name(p, &top[2]), "d");
  assert_string_equal(top_name(p, &top[3]), "(program)");
  assert_int_equal(cprof_flat_top(&flat, p, 0, top, 3), 3);
  assert_string_equal(top_name(p, &top[0]), "(root)");
  assert_int_equal(top[0].self, 1000);
  assert_string_equal(top_name(p, &top[1]), "(idle)");
  assert_string_equal(top_name(p, &top[2]), "b");
  cprof_flat_free(&flat);
  cprof_profile_free(p);
}

/* Asking for more than there is returns what there is; a "(root)" with a
 * url is a real function and is not skipped. */
static void top_n_larger_than_count(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(ranked);
  cprof_flat_t flat = build(p);
  cprof_func_t top[16];
  assert_int_equal(flat.nfuncs, 10);
  size_t n = cprof_flat_top(&flat, p, CPROF_TOP_SKIP_ROOT, top, 16);
  assert_int_equal(n, 9);
  assert_string_equal(top_name(p, &top[0]), "(idle)");
  assert_string_equal(top_name(p, &top[5]), "(garbage collector)");
  assert_string_equal(top_name(p, &top[6]), "x");
  assert_string_equal(top_name(p, &top[7]), "(garbage collector)");
  assert_string_equal(top_name(p, &top[8]), "(root)");
  assert_string_equal(p->frames[top[8].frame].url, "r.js");
  assert_int_equal(cprof_flat_top(&flat, p, 0, top, 0), 0);
  assert_int_equal(cprof_flat_top(&flat, p, 0, NULL, 3), 0);
  cprof_flat_free(&flat);
  cprof_profile_free(p);
}

static void special_shares(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(ranked);
  cprof_flat_t flat = build(p);
  assert_int_equal(flat.total, 1898);
  assert_int_equal(cprof_flat_special(&flat, p, "(idle)"), 500);
  assert_int_equal(cprof_flat_special(&flat, p, "(program)"), 50);
  /* Two rows (different lines), both with an empty url. */
  assert_int_equal(cprof_flat_special(&flat, p, "(garbage collector)"), 42);
  /* Only the url-less (root) counts. */
  assert_int_equal(cprof_flat_special(&flat, p, "(root)"), 1000);
  assert_int_equal(cprof_flat_special(&flat, p, "a"), 0);
  assert_int_equal(cprof_flat_special(&flat, p, "(nothing)"), 0);
  cprof_flat_free(&flat);
  cprof_profile_free(p);
}

/* Quickselect + sort must agree with a full sort for every n. Many ties on
 * self make the tie-breakers matter. */
static void top_matches_full_sort(void **state) {
  (void)state;
  enum { N = 2000 };
  sbuf_t b = {0};
  uint32_t seed = 12345;
  sb_printf(&b, "{\"head\":{\"callFrame\":{\"functionName\":\"(root)\"},\"selfSize\":0,\"id\":1,"
                "\"children\":[");
  for (int i = 0; i < N; i++) {
    seed = seed * 1103515245u + 12345u;
    sb_printf(&b,
              "%s{\"callFrame\":{\"functionName\":\"f%d\",\"url\":\"u\"},\"selfSize\":%u,"
              "\"id\":%d}",
              i ? "," : "", i % 1500, (seed >> 16) % 50, i + 2);
  }
  sb_printf(&b, "]}}");
  cprof_profile_t *p = parse_raw(b.s, b.len);
  cprof_flat_t flat = build(p);
  assert_int_equal(flat.nfuncs, 1501);
  cprof_func_t *all = malloc(flat.nfuncs * sizeof(*all)),
               *some = malloc(flat.nfuncs * sizeof(*all));
  assert_non_null(all);
  assert_non_null(some);
  assert_int_equal(cprof_flat_top(&flat, p, 0, all, flat.nfuncs), flat.nfuncs);
  for (size_t i = 1; i < flat.nfuncs; i++)
    assert_true(all[i - 1].self >= all[i].self);
  static const size_t ks[] = {1, 2, 3, 10, 100, 777, 1500, 1501};
  for (size_t k = 0; k < sizeof(ks) / sizeof(ks[0]); k++) {
    assert_int_equal(cprof_flat_top(&flat, p, 0, some, ks[k]), ks[k]);
    for (size_t i = 0; i < ks[k]; i++)
      assert_int_equal(some[i].frame, all[i].frame);
  }
  free(all);
  free(some);
  cprof_flat_free(&flat);
  cprof_profile_free(p);
  free(b.s);
}

/* A model whose links loop is refused, not walked forever. */
static void bad_model_is_einval(void **state) {
  (void)state;
  cprof_frame_t frames[1] = {{"f", "", "", 0, 0}};
  cprof_node_t nodes[2] = {
      {.id = 1, .parent = CPROF_NONE, .first_child = 1, .next_sibling = CPROF_NONE},
      {.id = 2, .parent = 0, .first_child = CPROF_NONE, .next_sibling = 1},
  };
  cprof_profile_t p = {
      .kind = CPROF_KIND_CPU, .frames = frames, .nframes = 1, .nodes = nodes, .nnodes = 2};
  cprof_flat_t flat;
  assert_int_equal(cprof_flat_build(&p, &flat), CPROF_EINVAL);
  assert_null(flat.funcs);
  p.nnodes = 0;
  assert_int_equal(cprof_flat_build(&p, &flat), CPROF_EINVAL);
  assert_int_equal(cprof_flat_build(NULL, &flat), CPROF_EINVAL);
  assert_int_equal(cprof_flat_build(&p, NULL), CPROF_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(recursion_counts_each_sample_once),
      cmocka_unit_test(same_function_in_two_places_merges),
      cmocka_unit_test(top_orders_and_skips),
      cmocka_unit_test(top_n_larger_than_count),
      cmocka_unit_test(special_shares),
      cmocka_unit_test(top_matches_full_sort),
      cmocka_unit_test(bad_model_is_einval),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

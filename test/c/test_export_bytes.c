/* The exporters write exactly the bytes they wrote when every node was a
 * cJSON object printed by cJSON: the fixtures against files made by that
 * code (test/c/expected; since positionTicks are written, the same bytes
 * with each node's "positionTicks" after its "children", as in the
 * fixture), and the writer's numbers and call frames against
 * cJSON's own printing of the same values. */
#include <errno.h>
#include <limits.h>

#include <cjson/cJSON.h>

#include "helpers.h"
#include "internal.h"
#include "out.h"

static void assert_same_bytes(const char *got, size_t got_len, const char *want, size_t want_len) {
  size_t i = 0;
  while (i < got_len && i < want_len && got[i] == want[i])
    i++;
  if (i < got_len || i < want_len)
    fail_msg("output differs at byte %zu of %zu (expected %zu): ...%.40s", i, got_len, want_len,
             got + (i > 20 ? i - 20 : 0));
}

static void matches_expected(const char *fixture, const char *expected, cprof_exporter_fn fn) {
  size_t len, want_len;
  cprof_profile_t *p = parse_file(fixture);
  char *text = export_text(fn, p, &len);
  char *want = read_all(expected, &want_len);
  assert_same_bytes(text, len, want, want_len);
  free(want);
  free(text);
  cprof_profile_free(p);
}

static void cpuprofile_fixture_bytes(void **state) {
  (void)state;
  matches_expected(CPROF_FIXTURES "/small.cpuprofile", CPROF_EXPECTED "/small.cpuprofile.json",
                   cprof_export_cpuprofile);
}

static void heapprofile_fixture_bytes(void **state) {
  (void)state;
  matches_expected(CPROF_FIXTURES "/small.heapprofile", CPROF_EXPECTED "/small.heapprofile.json",
                   cprof_export_heapprofile);
}

/* Writes what fill writes through a writer on a tmpfile; returns the text. */
static char *writer_text(const cprof_profile_t *p, void (*fill)(cprof__out_t *, void *), void *arg,
                         size_t *len) {
  cprof__out_t o;
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(cprof__out_open(&o, f, p), 0);
  fill(&o, arg);
  assert_int_equal(cprof__out_close(&o), 0);
  char *text = slurp(f, len);
  fclose(f);
  return text;
}

static const int64_t int_cases[] = {0,
                                    1,
                                    -1,
                                    9,
                                    10,
                                    -10,
                                    99,
                                    100,
                                    101,
                                    999,
                                    1000,
                                    12345,
                                    -98765,
                                    INT32_MAX,
                                    INT32_MIN,
                                    (int64_t)UINT32_MAX,
                                    9007199254740992,
                                    -9007199254740992,
                                    999999999999999999,
                                    1000000000000000000,
                                    INT64_MAX,
                                    INT64_MIN,
                                    INT64_MIN + 1};
#define NCASES (sizeof(int_cases) / sizeof(int_cases[0]))

/* Enough repetitions to cross the writer's buffer many times. */
#define REPEAT 5000

static void fill_ints(cprof__out_t *o, void *arg) {
  (void)arg;
  for (int r = 0; r < REPEAT; r++)
    for (size_t i = 0; i < NCASES; i++) {
      cprof__out_i64(o, int_cases[i]);
      cprof__out_char(o, ',');
      if (int_cases[i] >= 0) cprof__out_u64(o, (uint64_t)int_cases[i]);
      cprof__out_char(o, ';');
    }
  cprof__out_u64(o, UINT64_MAX);
}

static void integers_print_like_printf(void **state) {
  (void)state;
  cprof_profile_t *p = cprof__profile_new(CPROF_KIND_CPU);
  assert_non_null(p);
  sbuf_t want = {0};
  for (int r = 0; r < REPEAT; r++)
    for (size_t i = 0; i < NCASES; i++) {
      sb_printf(&want, "%lld,", (long long)int_cases[i]);
      if (int_cases[i] >= 0) sb_printf(&want, "%llu", (unsigned long long)int_cases[i]);
      sb_printf(&want, ";");
    }
  sb_printf(&want, "%llu", (unsigned long long)UINT64_MAX);
  size_t len;
  char *text = writer_text(p, fill_ints, NULL, &len);
  assert_same_bytes(text, len, want.s, want.len);
  free(text);
  free(want.s);
  cprof_profile_free(p);
}

/* The values the old exporter printed as cJSON numbers (ids, hit counts,
 * lines, columns): cJSON's text and the writer's agree. */
static void fill_u32(cprof__out_t *o, void *arg) {
  const double *v = arg;
  if (*v < 0)
    cprof__out_i64(o, (int64_t)*v);
  else
    cprof__out_u64(o, (uint64_t)*v);
}

static void integers_print_like_cjson(void **state) {
  (void)state;
  static const double cases[] = {0,          1,          -1,          7,
                                 42,         100,        65535,       65536,
                                 2147483646, 2147483647, 2147483648,  3000000000,
                                 4294967294, 4294967295, -2147483647, -2147483648};
  cprof_profile_t *p = cprof__profile_new(CPROF_KIND_CPU);
  assert_non_null(p);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    cJSON *n = cJSON_CreateNumber(cases[i]);
    assert_non_null(n);
    char *want = cJSON_PrintUnformatted(n);
    assert_non_null(want);
    size_t len;
    char *text = writer_text(p, fill_u32, (void *)&cases[i], &len);
    assert_same_bytes(text, len, want, strlen(want));
    free(text);
    cJSON_free(want);
    cJSON_Delete(n);
  }
  cprof_profile_free(p);
}

/* The old exporter's callFrame object, printed by cJSON. */
static char *cjson_frame(const cprof_frame_t *f) {
  cJSON *cf = cJSON_CreateObject();
  assert_non_null(cf);
  assert_non_null(cJSON_AddStringToObject(cf, "functionName", f->name));
  assert_non_null(cJSON_AddStringToObject(cf, "scriptId", f->script_id));
  assert_non_null(cJSON_AddStringToObject(cf, "url", f->url));
  assert_non_null(cJSON_AddNumberToObject(cf, "lineNumber", f->line));
  assert_non_null(cJSON_AddNumberToObject(cf, "columnNumber", f->column));
  char *text = cJSON_PrintUnformatted(cf);
  assert_non_null(text);
  cJSON_Delete(cf);
  return text;
}

/* Every frame twice: built, then from the cache. */
static void fill_frames(cprof__out_t *o, void *arg) {
  const cprof_profile_t *p = arg;
  for (int r = 0; r < 2; r++)
    for (uint32_t i = 0; i < p->nframes; i++)
      cprof__out_frame(o, i);
}

static void frames_print_like_cjson(void **state) {
  (void)state;
  enum { BIG = 3 * CPROF__OUT_CAP };
  char *big_plain = malloc(BIG + 1), *big_ctrl = malloc(BIG + 1);
  assert_non_null(big_plain);
  assert_non_null(big_ctrl);
  for (size_t i = 0; i < BIG; i++) {
    big_plain[i] = (char)('a' + i % 26);
    big_ctrl[i] = (char)(1 + i % 31); /* every one escaped, most as \u00XX */
  }
  big_plain[BIG] = big_ctrl[BIG] = '\0';
  static const struct {
    const char *name, *url, *sid;
    int32_t line, column;
  } cases[] = {
      {"(root)", "", "0", -1, -1},
      {"", "", "", 0, 0},
      {"q\"uo\\te\n\r\t\b\f\x01\x1f/", "file:///a b.js", "12", 4, 2},
      {"</script>", "caf\xc3\xa9 \xe2\x9c\x93.js", "9", INT32_MAX, INT32_MIN},
      {"\x7f\xff\xfe", "node:internal/timers", "123456789", 437, 27},
  };
  cprof_profile_t *p = cprof__profile_new(CPROF_KIND_CPU);
  assert_non_null(p);
  uint32_t frame;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    assert_int_equal(cprof__profile_intern_frame(p, cases[i].name, cases[i].url, cases[i].sid,
                                                 cases[i].line, cases[i].column, &frame),
                     0);
  assert_int_equal(cprof__profile_intern_frame(p, big_plain, big_ctrl, "1", 1, 2, &frame), 0);
  assert_int_equal(cprof__profile_intern_frame(p, big_ctrl, "u", big_plain, 3, 4, &frame), 0);
  sbuf_t want = {0};
  for (int r = 0; r < 2; r++)
    for (uint32_t i = 0; i < p->nframes; i++) {
      char *one = cjson_frame(&p->frames[i]);
      sb_printf(&want, "%s", one);
      cJSON_free(one);
    }
  size_t len;
  char *text = writer_text(p, fill_frames, p, &len);
  assert_same_bytes(text, len, want.s, want.len);
  free(text);
  free(want.s);
  free(big_plain);
  free(big_ctrl);
  cprof_profile_free(p);
}

/* A write error mid-way sticks: later output is dropped, close reports
 * CPROF_EIO with errno from the failed write. */
static void fill_lots(cprof__out_t *o, void *arg) {
  (void)arg;
  for (int i = 0; i < 100000; i++) {
    CPROF__OUT_LIT(o, "0123456789");
    cprof__out_u64(o, (uint64_t)i);
  }
}

static void write_error_sticks(void **state) {
  (void)state;
  cprof_profile_t *p = cprof__profile_new(CPROF_KIND_CPU);
  assert_non_null(p);
  cprof__out_t o;
  FILE *f = fopen("/dev/full", "w");
  assert_non_null(f);
  assert_int_equal(cprof__out_open(&o, f, p), 0);
  fill_lots(&o, NULL);
  assert_int_equal(o.err, CPROF_EIO);
  errno = 0;
  assert_int_equal(cprof__out_close(&o), CPROF_EIO);
  assert_int_equal(errno, ENOSPC);
  fclose(f);
  cprof_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpuprofile_fixture_bytes),   cmocka_unit_test(heapprofile_fixture_bytes),
      cmocka_unit_test(integers_print_like_printf), cmocka_unit_test(integers_print_like_cjson),
      cmocka_unit_test(frames_print_like_cjson),    cmocka_unit_test(write_error_sticks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

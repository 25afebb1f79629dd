/* The live heap's trend by allocation site (trend.c): the series test
 * (Theil–Sen growth per minute, Mann–Kendall, the recent-growth and noise
 * rules) and the tracker over heap windows (sites by function + script +
 * line, eviction, pruning, the top growing sites and their share). */
#include <math.h>

#include "helpers.h"
#include "trend.h"

/* A heap profile: root -> one child per site, site i named s<i> at line i
 * of file:///app.js with bytes[i] live; n sites. */
static cprof_profile_t *heap_of(const int64_t *bytes, uint32_t n) {
  size_t cap = 256 + (size_t)n * 200;
  char *s = malloc(cap);
  assert_non_null(s);
  size_t k = (size_t)snprintf(s, cap,
                              "{\"head\":{\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":"
                              "\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},"
                              "\"selfSize\":0,\"id\":1,\"children\":[");
  for (uint32_t i = 0; i < n; i++)
    k += (size_t)snprintf(s + k, cap - k,
                          "%s{\"callFrame\":{\"functionName\":\"s%u\",\"scriptId\":\"1\",\"url\":"
                          "\"file:///app.js\",\"lineNumber\":%u,\"columnNumber\":2},"
                          "\"selfSize\":%lld,\"id\":%u,\"children\":[]}",
                          i ? "," : "", i, i, (long long)bytes[i], i + 2);
  snprintf(s + k, cap - k, "]},\"samples\":[]}");
  cprof_profile_t *p = parse_raw(s, strlen(s));
  free(s);
  return p;
}

static void add(cprof_trend_t *t, const int64_t *bytes, uint32_t n, int64_t end_ms,
                const cprof_trend_opts_t *o) {
  cprof_profile_t *p = heap_of(bytes, n);
  assert_int_equal(cprof_trend_add(t, p, end_ms, o), CPROF_OK);
  cprof_profile_free(p);
}

static cprof_trend_verdict_t verdict(const int64_t *v, uint32_t n, int64_t min_growth) {
  int64_t t[64];
  for (uint32_t i = 0; i < n; i++)
    t[i] = 1000 + 1000 * (int64_t)i; /* 1 s windows */
  cprof_trend_opts_t o;
  cprof_trend_opts_default(&o);
  o.min_growth = min_growth;
  cprof_trend_verdict_t vd;
  assert_int_equal(cprof_trend_series(v, t, n, &o, NULL, &vd), CPROF_OK);
  return vd;
}

static void steady_growth_is_a_trend(void **state) {
  (void)state;
  int64_t v[12];
  for (int i = 0; i < 12; i++)
    v[i] = 5000 + 1000 * i; /* 1,000 bytes per second */
  cprof_trend_verdict_t vd = verdict(v, 12, 0);
  assert_true(vd.growing);
  assert_true(fabs(vd.per_min - 60000.0) < 1e-6);
  assert_true(vd.z >= CPROF_TREND_Z_MIN);
  assert_int_equal(vd.since_ms, 1000); /* the oldest window: it grew all along */
}

/* Growth through GCs is a staircase with dips: still a trend, and the
 * outlier window moves the Theil–Sen slope little. */
static void growth_with_dips_and_an_outlier(void **state) {
  (void)state;
  int64_t v[] = {0,    0,    3000, 2000,  4000,  4000,  900000,
                 7000, 6000, 9000, 10000, 10000, 12000, 13000};
  cprof_trend_verdict_t vd = verdict(v, 14, 0);
  assert_true(vd.growing);
  assert_true(vd.per_min > 40000 && vd.per_min < 80000); /* ~1,000 B/s, the outlier ignored */
  assert_int_equal(vd.since_ms, 2000);                   /* the last window at the lowest */
}

/* A cache filled once: the test sees the rise (Z is high), but the recent
 * windows are flat, so it is not reported. */
static void a_burst_that_stopped_is_not_growing(void **state) {
  (void)state;
  int64_t v[16];
  for (int i = 0; i < 16; i++)
    v[i] = i < 6 ? 1000 : 50000000;
  cprof_trend_verdict_t vd = verdict(v, 16, 0);
  assert_true(vd.z >= CPROF_TREND_Z_MIN);
  assert_false(vd.growing);
  assert_true(vd.recent == 0);
}

static void noise_is_not_growing(void **state) {
  (void)state;
  int64_t v[] = {5000, 7000, 4000, 6000, 5000, 8000, 3000, 6000, 5000, 7000, 4000, 6000};
  cprof_trend_verdict_t vd = verdict(v, 12, 0);
  assert_false(vd.growing);
  assert_true(fabs(vd.z) < 1.0);
  int64_t flat[10] = {0};
  vd = verdict(flat, 10, 0);
  assert_false(vd.growing);
  assert_true(vd.z == 0 && vd.per_min == 0);
}

static void small_or_short_series_are_not_growing(void **state) {
  (void)state;
  int64_t v[12];
  for (int i = 0; i < 12; i++)
    v[i] = 100 * i; /* 1,100 bytes over 11 s */
  assert_true(verdict(v, 12, 0).growing);
  assert_false(verdict(v, 12, 4 * 32768).growing); /* under 4 sampling intervals: noise */
  assert_false(verdict(v, CPROF_TREND_MIN_WINDOWS - 1, 0).growing);
  cprof_trend_verdict_t vd = verdict(v, 1, 0);
  assert_false(vd.growing);
  assert_true(vd.per_min == 0 && vd.z == 0);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The slope is the median of the pairwise slopes, as a sort finds it (the
 * trend selects it in linear time): random series with ties, odd and even
 * pair counts. */
static void theil_sen_is_the_median_of_pairwise_slopes(void **state) {
  (void)state;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  double pairs[64 * 63 / 2];
  for (int round = 0; round < 300; round++) {
    uint32_t n = 2 + round % 40;
    int64_t v[64], t[64];
    for (uint32_t i = 0; i < n; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      v[i] = (int64_t)(x % 7) * 1000; /* few distinct values: many ties */
      t[i] = 1000 * (int64_t)(i + 1) + (int64_t)(x % 3) * 100;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t j = i + 1; j < n; j++)
        if (t[j] > t[i]) pairs[k++] = (double)(v[j] - v[i]) / (double)(t[j] - t[i]);
    qsort(pairs, k, sizeof *pairs, cmp_d);
    double want = k == 0 ? 0 : k % 2 ? pairs[k / 2] : (pairs[k / 2 - 1] + pairs[k / 2]) / 2;
    int64_t ts[64];
    for (uint32_t i = 0; i < n; i++) /* increasing times, as the tracker gives */
      ts[i] = t[i];
    cprof_trend_opts_t o;
    cprof_trend_opts_default(&o);
    cprof_trend_verdict_t vd;
    assert_int_equal(cprof_trend_series(v, ts, n, &o, NULL, &vd), CPROF_OK);
    assert_true(fabs(vd.per_min - want * 60000.0) < 1e-6);
  }
}

/* Pseudo-random live bytes with no trend for 100 sites over 60 windows:
 * none is reported. */
static void random_walks_without_drift_are_quiet(void **state) {
  (void)state;
  uint64_t x = 88172645463325252ull;
  int growing = 0;
  for (int s = 0; s < 100; s++) {
    int64_t v[60];
    for (int i = 0; i < 60; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      v[i] = 1000000 + (int64_t)(x % 65536) * 32; /* level + sampling noise, no drift */
    }
    growing += verdict(v, 60, 4 * 32768).growing;
  }
  assert_int_equal(growing, 0);
}

/* Site 0 leaks 100 KB a window, site 1 is constant, site 2 is a burst
 * (filled at window 4, then flat), site 3 churns up and down. */
static void tracker_names_the_leaking_site(void **state) {
  (void)state;
  cprof_trend_t *t = cprof_trend_new(60, 64);
  assert_non_null(t);
  cprof_trend_opts_t o;
  cprof_trend_opts_default(&o);
  o.min_growth = 4 * 32768;
  for (int i = 0; i < 30; i++) {
    int64_t b[4] = {100000 * (i + 1), 2000000, i >= 4 ? 50000000 : 0, i % 2 ? 3000000 : 1000000};
    add(t, b, 4, 10000 + 1000 * i, &o);
  }
  cprof_trend_result_t r;
  assert_int_equal(cprof_trend_latest(t, &r), CPROF_OK);
  assert_int_equal(r.windows, 30);
  assert_int_equal(r.from_ms, 10000);
  assert_int_equal(r.to_ms, 39000);
  assert_int_equal(r.sites, 4);
  assert_int_equal(r.growing, 1);
  assert_int_equal(r.ntop, 1);
  assert_string_equal(r.top[0].name, "s0");
  assert_string_equal(r.top[0].url, "file:///app.js");
  assert_int_equal(r.top[0].line, 0);
  assert_int_equal(r.top[0].live, 3000000);
  assert_true(fabs(r.top[0].per_min - 6000000.0) < 1e-3); /* 100 KB/s */
  assert_int_equal(r.top[0].since_ms, 10000);
  assert_true(isfinite(r.top[0].share) && r.top[0].share > 0.5);
  assert_int_equal(r.live, 3000000 + 2000000 + 50000000 + 3000000);
  assert_int_equal(r.times[0], 10000); /* the series, oldest first */
  assert_int_equal(r.times[29], 39000);
  assert_int_equal(r.top[0].series[0], 100000);
  assert_int_equal(r.top[0].series[29], 3000000);
  assert_int_equal(r.heap_series[29], r.live);
  assert_true(r.heap.per_min > 0);
  cprof_trend_result_free(&r);
  cprof_trend_free(t);
}

/* Only max_windows are kept; a site gone from every kept window is
 * dropped; the columns of one function+script+line merge. */
static void tracker_keeps_the_last_windows(void **state) {
  (void)state;
  cprof_trend_t *t = cprof_trend_new(8, 64);
  assert_non_null(t);
  cprof_trend_opts_t o;
  cprof_trend_opts_default(&o);
  for (int i = 0; i < 20; i++) {
    int64_t b[2] = {1000, i < 5 ? 500 : 0};
    add(t, b, 2, 1000 * (i + 1), &o);
  }
  cprof_trend_result_t r;
  assert_int_equal(cprof_trend_latest(t, &r), CPROF_OK);
  assert_int_equal(r.windows, 8);
  assert_int_equal(r.from_ms, 13000);
  assert_int_equal(r.to_ms, 20000);
  assert_int_equal(r.sites, 1); /* s1 has had no bytes in the kept windows */
  assert_int_equal(r.growing, 0);
  cprof_trend_result_free(&r);
  cprof_trend_free(t);
}

static void tracker_caps_sites_and_refuses_bad_input(void **state) {
  (void)state;
  cprof_trend_t *t = cprof_trend_new(8, 1);
  assert_non_null(t);
  cprof_trend_opts_t o;
  cprof_trend_opts_default(&o);
  int64_t b[3] = {10, 30, 20};
  add(t, b, 3, 5000, &o);
  cprof_trend_result_t r;
  assert_int_equal(cprof_trend_latest(t, &r), CPROF_OK);
  assert_int_equal(r.sites, 1); /* only the largest site of a window */
  assert_int_equal(r.live, 60); /* the heap counts everything */
  cprof_trend_result_free(&r);
  cprof_profile_t *p = heap_of(b, 3);
  assert_int_equal(cprof_trend_add(t, p, 5000, &o), CPROF_EINVAL); /* not after the newest */
  cprof_profile_free(p);
  cprof_profile_t *cpu = parse_ok("{'nodes':[{'id':1,'callFrame':{'functionName':'(root)',"
                                  "'scriptId':'0','url':'','lineNumber':-1,'columnNumber':-1},"
                                  "'hitCount':0}],'startTime':0,'endTime':1,'samples':[],"
                                  "'timeDeltas':[]}");
  assert_int_equal(cprof_trend_add(t, cpu, 9000, &o), CPROF_EINVAL);
  cprof_profile_free(cpu);
  assert_null(cprof_trend_new(1, 10));
  assert_null(cprof_trend_new(10, 0));
  cprof_trend_free(t);
  cprof_trend_free(NULL);
  assert_int_equal(cprof_trend_latest(NULL, &r), CPROF_EINVAL);
  /* Before any window: an empty result. */
  t = cprof_trend_new(4, 4);
  assert_int_equal(cprof_trend_latest(t, &r), CPROF_OK);
  assert_int_equal(r.windows, 0);
  assert_null(r.top);
  cprof_trend_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(steady_growth_is_a_trend),
      cmocka_unit_test(growth_with_dips_and_an_outlier),
      cmocka_unit_test(a_burst_that_stopped_is_not_growing),
      cmocka_unit_test(noise_is_not_growing),
      cmocka_unit_test(small_or_short_series_are_not_growing),
      cmocka_unit_test(theil_sen_is_the_median_of_pairwise_slopes),
      cmocka_unit_test(random_walks_without_drift_are_quiet),
      cmocka_unit_test(tracker_names_the_leaking_site),
      cmocka_unit_test(tracker_keeps_the_last_windows),
      cmocka_unit_test(tracker_caps_sites_and_refuses_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* One recorder window's conversion (window.c): parsed into the ring, a heap
 * window into the trend, stored with retention, encoded for push; and a
 * dump's merge of windows. */
#define _XOPEN_SOURCE 700
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "note_fixture.h"
#include "rmtree.h"
#include "window.h"

static cprof_window_text_t cpu_text(int64_t from, int64_t to, uint64_t seq) {
  char *json = dq(NOTE);
  return (cprof_window_text_t){
      .json = json, .len = strlen(json), .from_ms = from, .to_ms = to, .seq = seq};
}

/* A heap window: the profile text (a reply's result parses the same). */
static cprof_window_text_t heap_text(int64_t from, int64_t to, uint64_t seq) {
  FILE *f = fopen(CPROF_FIXTURES "/small.heapprofile", "rb");
  cprof_window_text_t t = {.from_ms = from, .to_ms = to, .seq = seq, .heap = 1};
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  t.len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  t.json = malloc(t.len + 1);
  assert_non_null(t.json);
  assert_int_equal(fread(t.json, 1, t.len, f), t.len);
  t.json[t.len] = '\0';
  fclose(f);
  return t;
}

static void cpu_window_kept(void **state) {
  (void)state;
  cprof_window_cfg_t cfg = {.interval_us = 1000};
  cprof_ring_t *ring = cprof_ring_new(0, 0);
  cprof_window_text_t t = cpu_text(1000, 2000, 7);
  cprof_window_made_t m;
  cprof_ring_stats_t s;
  char err[256];
  assert_int_equal(cprof_window_convert(&cfg, &t, ring, NULL, &m, err, sizeof err), CPROF_OK);
  assert_null(t.json); /* freed before keeping: never held twice */
  assert_int_equal(m.samples, 2);
  assert_true(m.bytes > 0);
  assert_int_equal(m.from_ms, 1000);
  assert_int_equal(m.to_ms, 2000);
  assert_null(m.files[0]);
  assert_null(m.files[1]);
  assert_int_equal(m.nparts, 0);
  cprof_ring_stats(ring, &s);
  assert_int_equal(s.windows, 1);
  assert_int_equal(s.bytes, m.bytes);
  cprof_window_made_free(&m);
  cprof_ring_free(ring);
}

static void bad_text_fails(void **state) {
  (void)state;
  cprof_window_cfg_t cfg = {.interval_us = 1000};
  cprof_ring_t *ring = cprof_ring_new(0, 0);
  cprof_window_text_t t = {.json = strdup("{\"method\":\"Other\"}"), .len = 18, .seq = 1};
  cprof_window_made_t m;
  cprof_ring_stats_t s;
  char err[256];
  assert_true(cprof_window_convert(&cfg, &t, ring, NULL, &m, err, sizeof err) < 0);
  assert_true(err[0] != '\0');
  assert_null(t.json);
  cprof_ring_stats(ring, &s);
  assert_int_equal(s.windows, 0);
  cprof_window_made_free(&m);
  cprof_ring_free(ring);
}

static int exists(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void store_and_push(void **state) {
  (void)state;
  char dir[] = "/tmp/cprof-window-XXXXXX", err[256], name[160];
  assert_non_null(mkdtemp(dir));
  cprof_window_cfg_t cfg = {.interval_us = 1000,
                            .store = {.dir = strdup(dir), .cpuprofile = 1, .pprof = 1},
                            .push = {.on = 1, .max_samples = 1, .cwd = strdup("/")}};
  cprof_ring_t *ring = cprof_ring_new(0, 0);
  cprof_window_text_t t = cpu_text(1000, 2000, 1);
  cprof_window_made_t m;
  assert_int_equal(cprof_window_convert(&cfg, &t, ring, NULL, &m, err, sizeof err), CPROF_OK);
  assert_true(exists(m.files[0]));
  assert_true(exists(m.files[1]));
  assert_int_equal(cprof_store_name(name, sizeof name, "cpu", (long)getpid(), 1000, 2000, "pb.gz"),
                   CPROF_OK);
  assert_non_null(strstr(m.files[1], name));
  assert_int_equal(m.nparts, 1); /* both samples on one stack: one pprof sample */
  assert_true(m.parts[0].len > 0);
  cprof_window_made_free(&m);
  /* Retention: a byte limit of 1 leaves only the newest window's files. */
  cfg.store.max_bytes = 1;
  t = cpu_text(2000, 3000, 2);
  assert_int_equal(cprof_window_convert(&cfg, &t, ring, NULL, &m, err, sizeof err), CPROF_OK);
  assert_int_equal(m.pruned, 2);
  cprof_window_made_free(&m);
  cprof_window_cfg_free(&cfg);
  cprof_ring_free(ring);
  rmtree(dir);
}

static void store_error_keeps_window(void **state) {
  (void)state;
  char err[256];
  cprof_window_cfg_t cfg = {.interval_us = 1000,
                            .store = {.dir = strdup("/proc/cprof-no/such"), .cpuprofile = 1},
                            .push = {.on = 1}};
  cprof_ring_t *ring = cprof_ring_new(0, 0);
  cprof_window_text_t t = cpu_text(1000, 2000, 1);
  cprof_window_made_t m;
  cprof_ring_stats_t s;
  assert_int_equal(cprof_window_convert(&cfg, &t, ring, NULL, &m, err, sizeof err), CPROF_EIO);
  assert_true(err[0] != '\0');
  assert_int_equal(m.nparts, 1); /* pushed all the same */
  cprof_ring_stats(ring, &s);
  assert_int_equal(s.windows, 1); /* and kept */
  cprof_window_made_free(&m);
  cprof_window_cfg_free(&cfg);
  cprof_ring_free(ring);
}

static void heap_windows_trend_and_merge(void **state) {
  (void)state;
  char err[256];
  cprof_window_cfg_t cfg = {.interval_us = 1000, .heap_interval = 32768};
  cprof_ring_t *ring = cprof_ring_new(0, 0);
  cprof_trend_t *trend = cprof_trend_new(4, 16);
  cprof_window_made_t m;
  cprof_trend_result_t r;
  for (uint64_t i = 1; i <= 3; i++) {
    cprof_window_text_t t = heap_text((int64_t)i * 1000, (int64_t)(i + 1) * 1000, i);
    assert_int_equal(cprof_window_convert(&cfg, &t, ring, trend, &m, err, sizeof err), CPROF_OK);
    assert_true(m.samples > 0);
    cprof_window_made_free(&m);
  }
  assert_int_equal(cprof_trend_latest(trend, &r), CPROF_OK);
  assert_int_equal(r.windows, 3);
  cprof_trend_result_free(&r);
  cprof_window_t **w;
  size_t n;
  cprof_profile_t *merged = NULL;
  assert_int_equal(cprof_ring_select(ring, 0, &w, &n), CPROF_OK);
  assert_int_equal(n, 3);
  assert_int_equal(cprof_window_merge(w, n, &merged, NULL, err, sizeof err), CPROF_OK);
  assert_int_equal(merged->nsamples, 3 * w[0]->profile->nsamples);
  cprof_profile_free(merged);
  for (size_t i = 0; i < n; i++)
    cprof_window_unref(w[i]);
  free(w);
  cprof_trend_free(trend);
  cprof_ring_free(ring);
}

/* Label switches over a window: {route: /a} from 1 µs, {route: /b} from 145 µs. */
static cprof_labels_t *window_labels(void) {
  const char *a[] = {"route", "/a"}, *b[] = {"route", "/b"}, *unused[] = {"route", "/u"};
  double ring[1 + 2 * 4] = {2, 1, 1, 145, 2};
  cprof_labels_t *l = cprof_labels_new();
  assert_int_equal(cprof_labels_add_set(l, a, 1), CPROF_OK);
  assert_int_equal(cprof_labels_add_set(l, b, 1), CPROF_OK);
  assert_int_equal(cprof_labels_add_set(l, unused, 1), CPROF_OK);
  assert_int_equal(cprof_labels_take_ring(l, ring, 4, 0), CPROF_OK);
  return l;
}

/* Two CPU windows with labels, the second overlapping the first (its
 * sample at 140 µs is the first's): each window keeps the sets of the
 * samples it keeps, only the sets they use, and a dump merges them. */
static void cpu_windows_keep_labels(void **state) {
  (void)state;
  char err[256];
  cprof_window_cfg_t cfg = {.interval_us = 1000};
  cprof_ring_t *ring = cprof_ring_new(0, 0);
  cprof_window_made_t m;
  for (uint64_t i = 1; i <= 2; i++) {
    cprof_window_text_t t = cpu_text((int64_t)i * 1000, (int64_t)(i + 1) * 1000, i);
    if (i == 2) { /* samples at 140 and 150 µs */
      char *at = strstr(t.json, "\"startTime\":100,\"endTime\":140");
      assert_non_null(at);
      memcpy(at, "\"startTime\":130,\"endTime\":170", 29);
    }
    t.labels = window_labels();
    assert_int_equal(cprof_window_convert(&cfg, &t, ring, NULL, &m, err, sizeof err), CPROF_OK);
    assert_null(t.labels); /* the window keeps what it uses */
    assert_int_equal(m.samples, i == 1 ? 2 : 1);
    cprof_window_made_free(&m);
  }
  cprof_window_t **w;
  size_t n;
  assert_int_equal(cprof_ring_select(ring, 0, &w, &n), CPROF_OK);
  assert_int_equal(n, 2);
  assert_int_equal(w[0]->labels->nsets, 2); /* {}, /a */
  assert_int_equal(w[1]->labels->nsamples, 1);
  assert_string_equal(w[1]->labels->sets[w[1]->labels->sample_set[0]].kv[1], "/b");
  cprof_profile_t *merged = NULL;
  cprof_labels_t *l = NULL;
  assert_int_equal(cprof_window_merge(w, n, &merged, &l, err, sizeof err), CPROF_OK);
  assert_int_equal(merged->nsamples, 3);
  assert_int_equal(l->nsamples, 3);
  assert_int_equal(l->nsets, 3);
  const char *want[] = {"/a", "/a", "/b"};
  for (int i = 0; i < 3; i++)
    assert_string_equal(l->sets[l->sample_set[i]].kv[1], want[i]);
  cprof_labels_free(l);
  cprof_profile_free(merged);
  for (size_t i = 0; i < n; i++)
    cprof_window_unref(w[i]);
  free(w);
  cprof_ring_free(ring);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpu_window_kept),
      cmocka_unit_test(bad_text_fails),
      cmocka_unit_test(store_and_push),
      cmocka_unit_test(store_error_keeps_window),
      cmocka_unit_test(heap_windows_trend_and_merge),
      cmocka_unit_test(cpu_windows_keep_labels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

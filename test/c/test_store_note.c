/* The recorder's notification locator (note.c) and store names and
 * retention (store.c). */
#define _POSIX_C_SOURCE 200809L
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "note_fixture.h"
#include "note.h"
#include "store.h"

static void note_span_parses(void **state) {
  (void)state;
  char *json = dq(NOTE), err[256];
  size_t off, n, tlen;
  const char *title;
  assert_int_equal(
      cprof_note_profile_span(json, strlen(json), &off, &n, &title, &tlen, err, sizeof err), 0);
  assert_int_equal(tlen, strlen("cprof-recorder-1-2"));
  assert_memory_equal(title, "cprof-recorder-1-2", tlen);
  cprof_profile_t *p = parse_raw(json + off, n);
  assert_int_equal(p->nsamples, 2);
  assert_int_equal(p->start_time, 100);
  cprof_profile_free(p);
  free(json);
}

static void note_rejects_others(void **state) {
  (void)state;
  char err[256];
  size_t off, n, tlen;
  const char *title;
  const char *bad[] = {
      "{\"method\":\"Profiler.consoleProfileStarted\",\"params\":{\"title\":\"x\"}}",
      "{\"method\":\"Profiler.consoleProfileFinished\",\"params\":{\"title\":\"x\"}}",
      "{\"method\":\"Profiler.consoleProfileFinished\",\"params\":{\"profile\":{}", "[]", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    assert_true(cprof_note_profile_span(bad[i], strlen(bad[i]), &off, &n, &title, &tlen, err,
                                        sizeof err) < 0);
    assert_true(err[0] != '\0');
  }
}

static void store_names(void **state) {
  (void)state;
  char buf[128];
  int64_t to = 0;
  assert_int_equal(cprof_store_name(buf, sizeof buf, "cpu", 42, 1000, 2000, "pb.gz"), 0);
  assert_string_equal(buf, "cpu-42-1000-2000.pb.gz");
  assert_true(cprof_store_parse_name(buf, &to));
  assert_int_equal(to, 2000);
  assert_true(cprof_store_parse_name("heap-1-2-3.heapprofile", &to));
  assert_false(cprof_store_parse_name(".cpu-42-1000-2000.pb.gz.Ab12Cd", &to));
  assert_false(cprof_store_parse_name("cpu-42-1000-2000.pb.gz.tmp", &to));
  assert_false(cprof_store_parse_name("cpu-recording-42-20261123T190638.198Z.cpuprofile", &to));
  assert_false(cprof_store_parse_name("cpu-42-1000.cpuprofile", &to));
  assert_int_equal(cprof_store_name(buf, 8, "cpu", 42, 1000, 2000, "pb.gz"), CPROF_EINVAL);
}

static void touch(const char *dir, const char *name, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (size_t i = 0; i < size; i++)
    fputc('x', f);
  fclose(f);
}

static int exists(const char *dir, const char *name) {
  char path[512];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0;
}

static void store_prunes_by_age_and_bytes(void **state) {
  (void)state;
  char dir[] = "/tmp/cprof-store-XXXXXX", err[256];
  cprof_store_prune_t pr;
  assert_non_null(mkdtemp(dir));
  touch(dir, "cpu-1-0-100.cpuprofile", 10);
  touch(dir, "cpu-2-100-200.pb.gz", 10);
  touch(dir, "cpu-1-200-300.cpuprofile", 10);
  touch(dir, "cpu-1-300-400.cpuprofile", 10);
  touch(dir, ".cpu-1-0-50.cpuprofile.XyZ123", 1000); /* a write in progress */
  touch(dir, "readme.txt", 1000);
  /* Age: ended before 1000 - 750 = 250 → the first two. */
  assert_int_equal(cprof_store_prune(dir, 1000, 750, 0, 400, &pr, err, sizeof err), 0);
  assert_int_equal(pr.deleted, 2);
  assert_int_equal(pr.files, 4);
  assert_int_equal(pr.bytes, 20);
  assert_false(exists(dir, "cpu-1-0-100.cpuprofile"));
  assert_true(exists(dir, "cpu-1-200-300.cpuprofile"));
  /* Bytes: 20 > 15, oldest first; the window just written (ending at 400) stays. */
  assert_int_equal(cprof_store_prune(dir, 1000, 0, 15, 400, &pr, err, sizeof err), 0);
  assert_int_equal(pr.deleted, 1);
  assert_false(exists(dir, "cpu-1-200-300.cpuprofile"));
  assert_true(exists(dir, "cpu-1-300-400.cpuprofile"));
  /* Even over the limit, the newest stays. */
  assert_int_equal(cprof_store_prune(dir, 1000, 1, 1, 400, &pr, err, sizeof err), 0);
  assert_int_equal(pr.deleted, 0);
  assert_true(exists(dir, ".cpu-1-0-50.cpuprofile.XyZ123"));
  assert_true(exists(dir, "readme.txt"));
  char path[512];
  const char *left[] = {"cpu-1-300-400.cpuprofile", ".cpu-1-0-50.cpuprofile.XyZ123", "readme.txt"};
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, left[i]);
    unlink(path);
  }
  rmdir(dir);
  assert_int_equal(cprof_store_prune("/nonexistent/cprof", 0, 0, 0, 0, &pr, err, sizeof err),
                   CPROF_EIO);
}

/* A full disk: the oldest store files go first, at least min_bytes of
 * them (one window for 0), never one ending at or after keep_from_ms, never
 * a temp file or another file. */
static void store_evicts_oldest_for_room(void **state) {
  (void)state;
  char dir[] = "/tmp/cprof-store-XXXXXX", err[256];
  cprof_store_prune_t ev;
  assert_non_null(mkdtemp(dir));
  touch(dir, "cpu-1-200-300.cpuprofile", 10);
  touch(dir, "cpu-1-0-100.cpuprofile", 10);
  touch(dir, "cpu-1-0-100.pb.gz", 5);
  touch(dir, "heap-1-100-200.heapprofile", 30);
  touch(dir, "cpu-1-300-400.pb.gz", 10);
  touch(dir, ".cpu-1-0-50.cpuprofile.XyZ123", 1000);
  touch(dir, "readme.txt", 1000);
  /* The oldest window, both its files. */
  assert_int_equal(cprof_store_evict(dir, 300, 0, &ev, err, sizeof err), 0);
  assert_int_equal(ev.deleted, 2);
  assert_int_equal(ev.bytes, 15);
  assert_false(exists(dir, "cpu-1-0-100.cpuprofile"));
  assert_false(exists(dir, "cpu-1-0-100.pb.gz"));
  assert_true(exists(dir, "heap-1-100-200.heapprofile"));
  /* 35 bytes wanted: the next two (10 + 30) go, in order of their end. */
  touch(dir, "cpu-1-0-100.cpuprofile", 10);
  assert_int_equal(cprof_store_evict(dir, 400, 35, &ev, err, sizeof err), 0);
  assert_int_equal(ev.deleted, 2);
  assert_int_equal(ev.bytes, 40);
  assert_false(exists(dir, "heap-1-100-200.heapprofile"));
  assert_true(exists(dir, "cpu-1-200-300.cpuprofile"));
  assert_int_equal(cprof_store_evict(dir, 400, 0, &ev, err, sizeof err), 0);
  assert_int_equal(ev.deleted, 1);
  /* What ends at or after keep_from_ms stays: nothing older is left. */
  assert_int_equal(cprof_store_evict(dir, 400, 0, &ev, err, sizeof err), 0);
  assert_int_equal(ev.deleted, 0);
  assert_true(exists(dir, "cpu-1-300-400.pb.gz"));
  assert_true(exists(dir, ".cpu-1-0-50.cpuprofile.XyZ123"));
  assert_true(exists(dir, "readme.txt"));
  char path[512];
  const char *left[] = {"cpu-1-300-400.pb.gz", ".cpu-1-0-50.cpuprofile.XyZ123", "readme.txt"};
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, left[i]);
    unlink(path);
  }
  rmdir(dir);
  assert_int_equal(cprof_store_evict("/nonexistent/cprof", 0, 0, &ev, err, sizeof err), CPROF_EIO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(note_span_parses),
      cmocka_unit_test(note_rejects_others),
      cmocka_unit_test(store_names),
      cmocka_unit_test(store_prunes_by_age_and_bytes),
      cmocka_unit_test(store_evicts_oldest_for_room),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

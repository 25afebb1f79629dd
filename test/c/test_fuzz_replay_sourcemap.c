/* Replays the source-map fuzz target's seed corpus and every input in
 * test/fuzz/regressions_sourcemap/ through the iteration libFuzzer runs
 * (test/fuzz/harness_sourcemap.c), so `make check` (and SAN=1) keeps them
 * fixed without clang's libFuzzer. */
#define _GNU_SOURCE
#include "../fuzz/harness_sourcemap.c"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define FUZZ_DIR CPROF_FIXTURES "/../fuzz"

static unsigned replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  unsigned n = 0;
  if (d == NULL) fail_msg("cannot open %s", dir);
  while ((e = readdir(d)) != NULL) {
    char path[4096];
    if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) fail_msg("cannot open %s", path);
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
      if (len == cap) {
        cap = cap ? 2 * cap : 65536;
        buf = realloc(buf, cap);
        assert_non_null(buf);
      }
      got = fread(buf + len, 1, cap - len, f);
      len += got;
    } while (got > 0);
    fclose(f);
    fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
    cprof_fuzz_sourcemap_one(buf, len);
    free(buf);
    n++;
  }
  closedir(d);
  return n;
}

static void seed_corpus(void **state) {
  (void)state;
  assert_true(replay_dir(FUZZ_DIR "/corpus_sourcemap") > 0);
}

static void regressions(void **state) {
  (void)state;
  replay_dir(FUZZ_DIR "/regressions_sourcemap");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(seed_corpus),
      cmocka_unit_test(regressions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

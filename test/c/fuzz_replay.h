/* Shared by the fuzz replay tests (test_fuzz_replay*.c): each includes its
 * fuzz target's harness (test/fuzz/harness*.c) and replays a directory of
 * inputs through the same iteration libFuzzer runs, so `make check` (and
 * SAN=1) keeps every seed and every regression fixed without clang's
 * libFuzzer. */
#ifndef CPROF_TEST_FUZZ_REPLAY_H
#define CPROF_TEST_FUZZ_REPLAY_H

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define FUZZ_DIR CPROF_FIXTURES "/../fuzz"

/* One fuzz iteration: cprof_fuzz_one, cprof_fuzz_sourcemap_one. */
typedef int (*fuzz_one_fn)(const uint8_t *data, size_t size);

/* The whole of path, read into a malloc'd buffer. */
static inline uint8_t *replay_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf = NULL;
  size_t cap = 0, got;
  if (f == NULL) fail_msg("cannot open %s", path);
  *len = 0;
  do {
    if (*len == cap) {
      cap = cap ? 2 * cap : 65536;
      buf = realloc(buf, cap);
      assert_non_null(buf);
    }
    got = fread(buf + *len, 1, cap - *len, f);
    *len += got;
  } while (got > 0);
  fclose(f);
  return buf;
}

/* Runs every file of dir (but dot files and README.md) through one;
 * returns how many. */
static inline unsigned replay_dir(const char *dir, fuzz_one_fn one) {
  DIR *d = opendir(dir);
  struct dirent *e;
  unsigned n = 0;
  if (d == NULL) fail_msg("cannot open %s", dir);
  while ((e = readdir(d)) != NULL) {
    char path[4096];
    size_t len;
    if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    uint8_t *buf = replay_read(path, &len);
    /* A failing oracle aborts with its message; name the input first. */
    fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
    one(buf, len);
    free(buf);
    n++;
  }
  closedir(d);
  return n;
}

#endif

/* One fuzz iteration over the source-map decoder, shared by the libFuzzer
 * target (fuzz_sourcemap.c) and the cmocka replay of its corpus and
 * regressions (test/c/test_fuzz_replay_sourcemap.c):
 *
 *   bytes → cprof_sourcemap_parse (as a map) → lookups over its lines (also
 *           cprof_sourcemap_lookup_in, the span of one function)
 *   bytes → cprof__sm_extract_url (as a script) → cprof__sm_data_url
 *         → cprof_sourcemap_parse → lookups
 *   bytes → cprof__sm_url_to_path (as a frame's url)
 *
 * Oracles besides the sanitizers: a lookup that finds something returns a
 * source, a line and a column >= 0; an extracted URL lies inside the input;
 * a decoded data: URL is within its bound. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fuzz_check.h"
#include "sourcemap.h"
#include "sourcemap_apply.h"
#include "sourcemap_find.h"
#include "sourcemap_url.h"

/* #cond here: passed on to FUZZ_CHECK it would be macro-expanded first
 * (CPROF_OK as 0) in the message. */
#define SM_FUZZ_CHECK(cond)                                                                        \
  do {                                                                                             \
    if (!(cond)) FUZZ_FAIL(#cond, "source map");                                                   \
  } while (0)

static void lookups(const cprof_sourcemap_t *m, const uint8_t *data, size_t size) {
  static const int32_t cols[] = {-1, 0, 1, 9, 10, 100, 100000, INT32_MAX};
  for (int32_t line = -1; line < 64; line++) {
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
      cprof_sm_pos_t p;
      int64_t wide = (int64_t)cols[c] + (size ? data[(size_t)(line + 1) % size] % 7 : 0);
      int32_t col = wide > INT32_MAX ? INT32_MAX : (int32_t)wide;
      /* The span lookup (a function's part of a minified line): never found
       * in an empty span; what it finds is a position as above. */
      int32_t to = col > INT32_MAX - 40 ? INT32_MAX : col + 40;
      SM_FUZZ_CHECK(!cprof_sourcemap_lookup_in(m, line, col, col, &p));
      if (cprof_sourcemap_lookup_in(m, line, col, to, &p))
        SM_FUZZ_CHECK(p.source != NULL && p.line >= 0 && p.column >= 0);
      if (!cprof_sourcemap_lookup(m, line, col, &p)) continue;
      SM_FUZZ_CHECK(p.source != NULL && p.line >= 0 && p.column >= 0);
      SM_FUZZ_CHECK(strlen(p.source) < 1u << 30);
      if (p.name) SM_FUZZ_CHECK(strlen(p.name) < 1u << 30);
    }
  }
}

static void as_map(const char *json, size_t len) {
  cprof_sourcemap_t *m = NULL;
  char err[256];
  int rc = cprof_sourcemap_parse(json, len, "/fuzz/base/", &m, err, sizeof err);
  SM_FUZZ_CHECK((rc == CPROF_OK) == (m != NULL));
  if (m) {
    SM_FUZZ_CHECK(cprof_sourcemap_bytes(m) > 0);
    lookups(m, (const uint8_t *)json, len);
  }
  cprof_sourcemap_free(m);
}

int cprof_fuzz_sourcemap_one(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1); /* NUL-terminated, as the readers hand it on */
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  as_map(text, size);

  const char *url;
  size_t n;
  if (cprof__sm_extract_url(text, size, &url, &n)) {
    SM_FUZZ_CHECK(url >= text && url + n <= text + size && n > 0);
    char *json = NULL;
    size_t len = 0;
    if (n >= 5 && memcmp(url, "data:", 5) == 0 &&
        cprof__sm_data_url(url, n, 1u << 20, &json, &len) == CPROF_OK) {
      SM_FUZZ_CHECK(len <= n && json[len] == '\0');
      as_map(json, len);
      free(json);
    }
  }

  char *path = cprof__sm_url_to_path(text);
  if (path) {
    SM_FUZZ_CHECK(path[0] == '/');
    free(path);
  }
  free(text);
  return 0;
}

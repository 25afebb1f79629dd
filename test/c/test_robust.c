/* Hostile input never crashes the parser: every prefix of a real profile
 * and many byte-mutated copies either parse or fail with a message. A
 * stand-in for the libFuzzer target until it exists; run it under SAN=1. */
#include "helpers.h"

static void check_parse(const char *json, size_t len) {
  char err[256] = "";
  cprof_profile_t *p = NULL;
  int rc = cprof_profile_parse(json, len, &p, err, sizeof(err));
  if (rc == 0) {
    check_invariants(p);
    cprof_flat_t flat;
    assert_int_equal(cprof_flat_build(p, &flat), 0);
    cprof_flat_free(&flat);
    cprof_profile_free(p);
    return;
  }
  assert_null(p);
  assert_true(rc == CPROF_EPARSE || rc == CPROF_ESCHEMA || rc == CPROF_EPROTO);
  assert_true(err[0] != '\0');
}

/* Each prefix is copied to its own exact-size buffer so reads past len are
 * caught by ASan. */
static void every_prefix(const char *path) {
  size_t len;
  char *json = read_all(path, &len);
  for (size_t n = 0; n <= len; n += 1 + n / 512) {
    char *copy = malloc(n ? n : 1);
    assert_non_null(copy);
    memcpy(copy, json, n);
    check_parse(copy, n);
    free(copy);
  }
  free(json);
}

static void prefixes_of_real_profiles(void **state) {
  (void)state;
  every_prefix(CPROF_FIXTURES "/small.cpuprofile");
  every_prefix(CPROF_FIXTURES "/small.heapprofile");
}

static uint32_t next(uint32_t *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return *seed >> 8;
}

/* Mutations aimed at structure: digits, brackets, quotes, minus signs. */
static void mutate(const char *path, uint32_t seed) {
  static const char alphabet[] = "0123456789-[]{}\",:.e";
  size_t len;
  char *json = read_all(path, &len);
  char *copy = malloc(len);
  assert_non_null(copy);
  for (int round = 0; round < 400; round++) {
    memcpy(copy, json, len);
    int edits = 1 + (int)(next(&seed) % 4);
    for (int e = 0; e < edits; e++)
      copy[next(&seed) % len] = alphabet[next(&seed) % (sizeof(alphabet) - 1)];
    check_parse(copy, len);
  }
  free(copy);
  free(json);
}

static void mutated_real_profiles(void **state) {
  (void)state;
  mutate(CPROF_FIXTURES "/small.cpuprofile", 1);
  mutate(CPROF_FIXTURES "/small.heapprofile", 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(prefixes_of_real_profiles),
      cmocka_unit_test(mutated_real_profiles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

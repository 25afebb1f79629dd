/* The string arena (arena.c): copies survive later allocations, a string
 * longer than a block gets its own block without wasting the current one,
 * and the bytes counted cover every block. */
#include "helpers.h"

#include "arena.h"

static void copies_stay_put(void **state) {
  (void)state;
  cprof__arena_t a = CPROF__ARENA_INIT(64);
  const char *first = cprof__arena_strdup(&a, "fib (file:///app.js:1)", 3);
  assert_non_null(first);
  assert_string_equal(first, "fib");
  /* Enough strings to need several blocks; each one stays readable. */
  char *kept[100];
  char want[16];
  for (int i = 0; i < 100; i++) {
    snprintf(want, sizeof want, "s%d", i);
    kept[i] = cprof__arena_strdup(&a, want, strlen(want));
    assert_non_null(kept[i]);
  }
  for (int i = 0; i < 100; i++) {
    snprintf(want, sizeof want, "s%d", i);
    assert_string_equal(kept[i], want);
  }
  assert_string_equal(first, "fib");
  assert_true(cprof__arena_bytes(&a) >= 5 * 64);
  cprof__arena_free(&a);
  assert_null(a.blocks);
  assert_int_equal(cprof__arena_bytes(&a), 0);
}

static void long_string_gets_its_own_block(void **state) {
  (void)state;
  cprof__arena_t a = CPROF__ARENA_INIT(64);
  char big[1000];
  memset(big, 'x', sizeof big);
  const char *small1 = cprof__arena_strdup(&a, "ab", 2);
  size_t one_block = cprof__arena_bytes(&a);
  const char *large = cprof__arena_strdup(&a, big, sizeof big);
  assert_non_null(large);
  assert_int_equal(strlen(large), sizeof big);
  assert_true(cprof__arena_bytes(&a) >= one_block + sizeof big);
  /* The next small string still goes into the first block, right after
   * "ab": the long string's block was put behind it. */
  const char *small2 = cprof__arena_strdup(&a, "cd", 2);
  assert_ptr_equal(small2, small1 + 3);
  cprof__arena_free(&a);
}

static void block_bytes(void **state) {
  (void)state;
  assert_int_equal(cprof__block_bytes(NULL, 100), 0);
  void *p = malloc(100);
  assert_non_null(p);
  assert_true(cprof__block_bytes(p, 100) >= 100);
  free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(copies_stay_put),
      cmocka_unit_test(long_string_gets_its_own_block),
      cmocka_unit_test(block_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* cprof_reply_profile_span: the .cpuprofile is written from the reply text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cprof.h"

static int span(const char *json, size_t *off, size_t *n) {
  return cprof_reply_profile_span(json, strlen(json), off, n);
}

static void finds_the_profile(void **state) {
  (void)state;
  const char *r = "{\"id\":42,\"result\":{\"profile\":{\"nodes\":[],\"samples\":[]}}}\n";
  size_t off, n;
  assert_int_equal(span(r, &off, &n), 1);
  assert_int_equal(n, strlen("{\"nodes\":[],\"samples\":[]}"));
  assert_memory_equal(r + off, "{\"nodes\":[],\"samples\":[]}", n);
}

static void refuses_other_shapes(void **state) {
  (void)state;
  size_t off = 0, n = 0;
  const char *bad[] = {
      "{\"id\":3,\"error\":{\"code\":-32000,\"message\":\"not started\"}}",
      "{\"id\":,\"result\":{\"profile\":{}}}",
      "{\"id\":3,\"result\":{}}",
      "{\"id\":3,\"result\":{\"profile\":{}}",    /* truncated */
      "{\"id\":3,\"result\":{\"profile\":[1]}}}", /* not an object */
      "{\"method\":\"Profiler.consoleProfileStarted\"}",
      "",
      "{\"id\":",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(span(bad[i], &off, &n), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(finds_the_profile),
      cmocka_unit_test(refuses_other_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

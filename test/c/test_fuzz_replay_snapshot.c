/* Replays the heap snapshot fuzz target's seed corpus and every input in
 * test/fuzz/regressions_snapshot/ through the iteration libFuzzer runs
 * (test/fuzz/harness_snapshot.c). */
#define _GNU_SOURCE
#include "../fuzz/harness_snapshot.c"

#include "fuzz_replay.h"

static void seed_corpus(void **state) {
  (void)state;
  assert_true(replay_dir(FUZZ_DIR "/corpus_snapshot", cprof_fuzz_snapshot_one) > 0);
}

static void regressions(void **state) {
  (void)state;
  replay_dir(FUZZ_DIR "/regressions_snapshot", cprof_fuzz_snapshot_one);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(seed_corpus),
      cmocka_unit_test(regressions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

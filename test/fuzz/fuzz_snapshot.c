/* libFuzzer entry point: see harness_snapshot.c for what one input exercises. */
#include <stddef.h>
#include <stdint.h>

int cprof_fuzz_snapshot_one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return cprof_fuzz_snapshot_one(data, size);
}

/* libFuzzer entry point: see harness_sourcemap.c for what one input exercises. */
#include <stddef.h>
#include <stdint.h>

int cprof_fuzz_sourcemap_one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return cprof_fuzz_sourcemap_one(data, size);
}

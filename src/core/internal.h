/* Helpers shared by the core's .c files (and the C tests): overflow-safe
 * arithmetic and the hash every table uses; with error.h's cprof__errf.
 * The profile builder and model check are declared in profile.h, next to
 * the model. Not part of the public API (cprof.h). */
#ifndef CPROF_INTERNAL_H
#define CPROF_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

/* Values come from untrusted files: sums saturate instead of overflowing. */
static inline int64_t cprof__sat_add(int64_t a, int64_t b) {
  if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
  if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
  return a + b;
}

static inline int64_t cprof__sat_sub(int64_t a, int64_t b) {
  if (b < 0 && a > INT64_MAX + b) return INT64_MAX;
  if (b > 0 && a < INT64_MIN + b) return INT64_MIN;
  return a - b;
}

/* FNV-1a, the hash for every table in the core. */
static inline uint64_t cprof__hash_bytes(uint64_t h, const void *data, size_t len) {
  const unsigned char *s = data;
  for (size_t i = 0; i < len; i++)
    h = (h ^ s[i]) * 0x100000001b3ull;
  return h;
}

#define CPROF__HASH_SEED 0xcbf29ce484222325ull

static inline uint64_t cprof__hash_str(uint64_t h, const char *s) {
  /* Hash the terminator too so ("ab","c") and ("a","bc") differ. */
  for (;; s++) {
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    if (*s == '\0') return h;
  }
}

#endif

/* The core's internals, shared by its .c files (and the C tests, the fuzz
 * harnesses): overflow-safe arithmetic, the hash every table uses, error
 * messages (cprof__errf), and the profile model's builder and check
 * (profile.c). Every name here is cprof__ and may change: not part of the
 * public API (cprof.h), as libuv keeps uv-common.h apart from uv.h. It
 * includes model.h, not profile.h: profile.c includes this header. */
#ifndef CPROF_INTERNAL_H
#define CPROF_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "model.h"

#if defined(__GNUC__) || defined(__clang__)
#define CPROF__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CPROF__PRINTF(f, a)
#endif

/* Formats into errbuf when there is one; returns err so callers can
 * `return cprof__errf(...)`. */
static inline int cprof__errf(char *errbuf, size_t errlen, int err, const char *fmt, ...)
    CPROF__PRINTF(4, 5);
static inline int cprof__errf(char *errbuf, size_t errlen, int err, const char *fmt, ...) {
  if (errbuf != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, errlen, fmt, ap);
    va_end(ap);
  }
  return err;
}

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

/* Model construction (profile.c). A profile under construction owns an
 * arena for its strings and a frame table; cprof__profile_finish drops the
 * table so a parsed profile keeps only what it returns. */
cprof_profile_t *cprof__profile_new(cprof_kind_t kind);

/* Interns a frame; NULL strings read as "". Returns 0 or CPROF_ENOMEM. */
int cprof__profile_intern_frame(cprof_profile_t *p, const char *name, const char *url,
                                const char *script_id, int32_t line, int32_t column,
                                uint32_t *index_out);

/* The parts of cprof__profile_intern_frame, for a parser that meets a
 * frame's strings one by one: a string of len bytes (no NUL inside) interned
 * into the profile (NULL when out of memory), and a frame whose strings were
 * all interned so. */
const char *cprof__profile_intern_str(cprof_profile_t *p, const char *s, size_t len);
int cprof__profile_add_frame(cprof_profile_t *p, const cprof_frame_t *f, uint32_t *index_out);

/* Records how many heap samples the parser dropped (their node does not
 * exist); read back by cprof_profile_dropped_samples. */
void cprof__profile_set_dropped(cprof_profile_t *p, uint32_t dropped);

/* Frees parse-time tables, shrinks frames, and fills self (CPU, from the
 * sample weights) and total for every node. Needs nodes in parent-first
 * order; heap selfs must already be set. */
void cprof__profile_finish(cprof_profile_t *p);

/* The value part of finish: self (CPU, from the sample weights) and total
 * summed again, after samples changed. */
void cprof__profile_fill_values(cprof_profile_t *p);

/* CPROF_EINVAL unless the model is what profile.h promises: nodes[0] the
 * root, parents before children, every other node on exactly one sibling
 * chain, frames and sampled nodes in range. Walkers call it first on models
 * they did not build, so a bad model cannot make them loop or read out of
 * bounds. */
int cprof__check_model(const cprof_profile_t *p);

#endif

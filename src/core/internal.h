/* Declarations shared by the core's .c files (and the C tests): the
 * profile builder used by the parser, the model check, exporter helpers,
 * error formatting and overflow-safe arithmetic. Not part of the public
 * API: the addon uses only the public headers. */
#ifndef CPROF_INTERNAL_H
#define CPROF_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"

#if defined(__GNUC__) || defined(__clang__)
#define CPROF__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CPROF__PRINTF(f, a)
#endif

/* Formats into errbuf when there is one; returns err so callers can
 * `return cprof__errf(...)`. */
int cprof__errf(char *errbuf, size_t errlen, int err, const char *fmt, ...) CPROF__PRINTF(4, 5);

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

/* Exporter output (export_json.c). Exporters format into a buffer in
 * front of the FILE, so punctuation and integers cost no stdio call each,
 * and copy each call frame's JSON from a cache: it is built once per frame
 * (strings escaped by cJSON) on first use. The first error sticks and later
 * output is dropped, so exporters may check o->err only now and then. */
#define CPROF__OUT_CAP (64 * 1024)

typedef struct {
  size_t off, len; /* in the writer's text; len 0: not built yet */
} cprof__frame_text_t;

typedef struct {
  FILE *f;
  int err;    /* 0, CPROF_EIO or CPROF_ENOMEM: the first failure */
  int err_no; /* errno of that failure, restored by cprof__out_close */
  char *buf;  /* CPROF__OUT_CAP bytes */
  size_t len;
  const cprof_profile_t *p;
  cprof__frame_text_t *frames; /* per frame index */
  char *text;                  /* every built frame's JSON, back to back */
  size_t text_len, text_cap;
  struct cJSON *str; /* a string reference item, pointed at each string to escape */
} cprof__out_t;

/* Starts output to f for p's frames. CPROF_OK or CPROF_ENOMEM; call
 * cprof__out_close either way. */
int cprof__out_open(cprof__out_t *o, FILE *f, const cprof_profile_t *p);

/* Flushes everything to f (fflush included, so write errors surface here,
 * not later) and frees. Returns the first error, CPROF_EIO or
 * CPROF_ENOMEM, with errno set to the failed call's errno. */
int cprof__out_close(cprof__out_t *o);

void cprof__out_flush(cprof__out_t *o);
void cprof__out_slow(cprof__out_t *o, const char *s, size_t n);

static inline void cprof__out_bytes(cprof__out_t *o, const char *s, size_t n) {
  if (CPROF__OUT_CAP - o->len < n) {
    cprof__out_slow(o, s, n);
    return;
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
}

/* A string literal, without strlen. */
#define CPROF__OUT_LIT(o, lit) cprof__out_bytes((o), "" lit, sizeof(lit) - 1)

static inline void cprof__out_char(cprof__out_t *o, char c) {
  if (o->len == CPROF__OUT_CAP) cprof__out_flush(o);
  o->buf[o->len++] = c;
}

/* Integers in decimal, exactly as printf's %llu / %lld would. */
void cprof__out_u64(cprof__out_t *o, uint64_t v);
void cprof__out_i64(cprof__out_t *o, int64_t v);

/* Frame `frame` (an index into p->frames) as a Runtime.CallFrame object:
 * {"functionName","scriptId","url","lineNumber","columnNumber"}. */
void cprof__out_frame(cprof__out_t *o, uint32_t frame);

#endif

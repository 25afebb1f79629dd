/* The exporters' buffered output writer (out.c): formats into a buffer in
 * front of a FILE. Internal to the core; the JSON exporters and the folded
 * stacks writer use it. */
#ifndef CPROF_OUT_H
#define CPROF_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"

/* Exporter output (out.c). Exporters format into a buffer in
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

/* Shared by the cmocka tests: parse helpers and tree lookups. */
#ifndef CPROF_TEST_HELPERS_H
#define CPROF_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cprof.h"
#include "internal.h" /* the model builder, for hand-made profiles */

/* Test JSON is written with single quotes for readability; this turns
 * them into double quotes. Caller frees. */
static inline char *dq(const char *json) {
  size_t n = strlen(json);
  char *s = malloc(n + 1);
  assert_non_null(s);
  for (size_t i = 0; i <= n; i++)
    s[i] = json[i] == '\'' ? '"' : json[i];
  return s;
}

/* Parses exact text, failing the test on error. */
static inline cprof_profile_t *parse_raw(const char *json, size_t len) {
  char err[256] = "";
  cprof_profile_t *p = NULL;
  int rc = cprof_profile_parse(json, len, &p, err, sizeof(err));
  if (rc != 0) fail_msg("parse failed (%d): %s", rc, err);
  assert_non_null(p);
  return p;
}

/* Parses single-quoted test JSON (see dq). */
static inline cprof_profile_t *parse_ok(const char *json) {
  char *s = dq(json);
  cprof_profile_t *p = parse_raw(s, strlen(s));
  free(s);
  return p;
}

/* Parses single-quoted test JSON expecting failure; returns the code and
 * leaves the message in err. */
static inline int parse_fail(const char *json, char *err, size_t errlen) {
  char *s = dq(json);
  cprof_profile_t *p = (cprof_profile_t *)&err; /* must come back NULL */
  err[0] = '\0';
  int rc = cprof_profile_parse(s, strlen(s), &p, err, errlen);
  free(s);
  assert_true(rc < 0);
  assert_null(p);
  assert_true(err[0] != '\0');
  return rc;
}

/* Every promise of profile.h about a parsed tree. */
static inline void check_invariants(const cprof_profile_t *p) {
  int64_t sum_self = 0;
  assert_true(p->nnodes > 0);
  assert_int_equal(p->nodes[0].parent, CPROF_NONE);
  for (uint32_t i = 0; i < p->nnodes; i++) {
    const cprof_node_t *n = &p->nodes[i];
    int64_t kids = 0;
    assert_true(n->frame < p->nframes);
    if (i > 0) assert_true(n->parent < i);
    for (uint32_t c = n->first_child; c != CPROF_NONE; c = p->nodes[c].next_sibling) {
      assert_true(c > i && c < p->nnodes);
      assert_int_equal(p->nodes[c].parent, i);
      kids += p->nodes[c].total;
    }
    assert_int_equal(n->total, n->self + kids);
    sum_self += n->self;
  }
  assert_int_equal(p->nodes[0].total, sum_self);
  assert_int_equal(cprof_profile_total(p), sum_self);
  for (uint32_t i = 0; i < p->nframes; i++) {
    assert_non_null(p->frames[i].name);
    assert_non_null(p->frames[i].url);
    assert_non_null(p->frames[i].script_id);
  }
  for (uint32_t i = 0; i < p->nsamples; i++)
    assert_true(p->samples[i] < p->nnodes);
}

static inline uint32_t index_of_id(const cprof_profile_t *p, uint32_t id) {
  for (uint32_t i = 0; i < p->nnodes; i++)
    if (p->nodes[i].id == id) return i;
  fail_msg("no node with id %u", id);
  return CPROF_NONE;
}

static inline const cprof_node_t *node_by_id(const cprof_profile_t *p, uint32_t id) {
  return &p->nodes[index_of_id(p, id)];
}

static inline const char *node_name(const cprof_profile_t *p, uint32_t index) {
  return p->frames[p->nodes[index].frame].name;
}

/* The flat row of the function named `name` (first match). */
static inline const cprof_func_t *func_named(const cprof_flat_t *flat, const cprof_profile_t *p,
                                             const char *name) {
  for (uint32_t i = 0; i < flat->nfuncs; i++)
    if (strcmp(p->frames[flat->funcs[i].frame].name, name) == 0) return &flat->funcs[i];
  fail_msg("no function named %s", name);
  return NULL;
}

/* Reads a whole stream (e.g. a tmpfile after an export) as a string. */
static inline char *slurp(FILE *f, size_t *len) {
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long n = ftell(f);
  assert_true(n >= 0);
  rewind(f);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

static inline char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) fail_msg("cannot open %s", path);
  char *buf = slurp(f, len);
  fclose(f);
  return buf;
}

static inline cprof_profile_t *parse_file(const char *path) {
  size_t len;
  char *json = read_all(path, &len), err[256] = "";
  cprof_profile_t *p = NULL;
  int rc = cprof_profile_parse(json, len, &p, err, sizeof(err));
  free(json);
  if (rc != 0) fail_msg("parse %s failed (%d): %s", path, rc, err);
  return p;
}

/* Exports p with fn into a tmpfile and returns the text. */
static inline char *export_text(cprof_exporter_fn fn, const cprof_profile_t *p, size_t *len) {
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(fn(p, f), 0);
  char *text = slurp(f, len);
  fclose(f);
  return text;
}

/* A heap profile built directly (JSON this deep is past cJSON's nesting
 * limit): a chain of n nodes of one frame, node i the parent of i + 1, the
 * root's selfSize root_self and every other node's self. */
static inline cprof_profile_t *heap_chain(uint32_t n, int64_t root_self, int64_t self) {
  cprof_profile_t *p = cprof__profile_new(CPROF_KIND_HEAP);
  assert_non_null(p);
  uint32_t frame;
  assert_int_equal(cprof__profile_intern_frame(p, "f", "u", "1", 0, 0, &frame), 0);
  p->nodes = calloc(n, sizeof(*p->nodes));
  assert_non_null(p->nodes);
  p->nnodes = n;
  for (uint32_t i = 0; i < n; i++)
    p->nodes[i] = (cprof_node_t){.id = i + 1,
                                 .parent = i ? i - 1 : CPROF_NONE,
                                 .frame = frame,
                                 .first_child = i + 1 < n ? i + 1 : CPROF_NONE,
                                 .next_sibling = CPROF_NONE,
                                 .self = i ? self : root_self};
  cprof__profile_finish(p);
  return p;
}

/* Growable string for generated JSON. */
typedef struct {
  char *s;
  size_t len, cap;
} sbuf_t;

static inline void sb_printf(sbuf_t *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    if (b->s != NULL && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->len + (size_t)n + 1)
      cap *= 2;
    b->s = realloc(b->s, cap);
    assert_non_null(b->s);
    b->cap = cap;
  }
}

#endif

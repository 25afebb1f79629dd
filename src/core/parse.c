/* cprof_profile_parse: JSON text to the profile model, in one pass of the
 * pull reader with no JSON tree (see reader.h): a profile's peak memory is
 * its text plus its model. This file is the front: it reads the
 * document (a profile, or an inspector reply around one) and picks the
 * format; the formats are in parse_cpu.c and parse_heap.c, the values both
 * read in parse_value.c. Input is untrusted: every
 * type is checked, numbers are range-checked, nothing recurses. */
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "internal.h"
#include "parse_cpu.h"
#include "parse_heap.h"
#include "parse_value.h"

#define FAIL(...) cprof__rd_fail(r, CPROF_ESCHEMA, __VA_ARGS__)

/* ---- the document ---- */

/* Bits in the order of PROFILE_KEYS. */
enum { P_NODES = 1, P_HEAD = 2, P_SAMPLES = 4, P_DELTAS = 8, P_START = 16, P_END = 32 };
static const char *const PROFILE_KEYS[] = {"nodes",     "head",    "samples", "timeDeltas",
                                           "startTime", "endTime", NULL};

/* A profile object being read: a .cpuprofile or .heapprofile at the top,
 * or result.profile of an inspector reply. */
typedef struct {
  cprof_profile_t *p; /* made when nodes or head is met: that fixes the kind */
  cprof__cpu_t cpu;
  cprof__heap_t heap;
  unsigned seen;
  const char *samples_at; /* samples met before the kind was known */
  int samples_depth;
} prof_t;

static void prof_free(prof_t *pr) {
  cprof_profile_free(pr->p);
  cprof__cpu_free(&pr->cpu);
  cprof__heap_free(&pr->heap);
}

static int kind_member(cprof__rd_t *r, prof_t *pr, cprof_kind_t kind) {
  if (pr->p != NULL)
    return FAIL("both nodes (a .cpuprofile) and head (a .heapprofile) in one profile");
  pr->p = cprof__profile_new(kind);
  if (pr->p == NULL) return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory");
  return kind == CPROF_KIND_CPU ? cprof__cpu_nodes(r, pr->p, &pr->cpu)
                                : cprof__heap_tree(r, pr->p, &pr->heap);
}

static int samples_member(cprof__rd_t *r, prof_t *pr) {
  if (pr->p == NULL) { /* read again once the kind is known */
    pr->samples_at = r->p;
    pr->samples_depth = r->depth;
    return cprof__rd_skip(r);
  }
  return pr->p->kind == CPROF_KIND_CPU ? cprof__cpu_samples(r, &pr->cpu)
                                       : cprof__heap_samples(r, &pr->heap);
}

static int time_member(cprof__rd_t *r, int64_t *out, int *ok) {
  if (cprof__rd_peek(r) == '0') {
    *ok = cprof__rd_i64(r, out);
    return *ok ? 0 : r->err;
  }
  return cprof__rd_skip(r);
}

/* 1 when key is not a profile member (the reader is still at its value). */
static int prof_member(cprof__rd_t *r, prof_t *pr, const char *key, size_t klen) {
  unsigned bit = cprof__rd_key_bit(key, klen, PROFILE_KEYS);
  if (bit == 0) return 1;
  if (pr->seen & bit) return cprof__rd_skip(r); /* the first of a key wins */
  pr->seen |= bit;
  switch (bit) {
  case P_NODES:
    return kind_member(r, pr, CPROF_KIND_CPU);
  case P_HEAD:
    return kind_member(r, pr, CPROF_KIND_HEAP);
  case P_SAMPLES:
    return samples_member(r, pr);
  case P_DELTAS:
    return cprof__cpu_deltas(r, &pr->cpu);
  case P_START:
    return time_member(r, &pr->cpu.start, &pr->cpu.has_start);
  default:
    return time_member(r, &pr->cpu.end, &pr->cpu.has_end);
  }
}

/* Deferred samples, then the format's links and checks, then self/total. */
static int prof_finish(cprof__rd_t *r, prof_t *pr) {
  int rc;
  if (pr->samples_at != NULL) {
    const char *at = r->p;
    int depth = r->depth;
    r->p = pr->samples_at;
    r->depth = pr->samples_depth;
    pr->samples_at = NULL;
    rc = samples_member(r, pr);
    r->p = at;
    r->depth = depth;
    if (rc != 0) return rc;
  }
  rc = pr->p->kind == CPROF_KIND_CPU ? cprof__cpu_finish(r, pr->p, &pr->cpu)
                                     : cprof__heap_finish(r, pr->p, &pr->heap);
  if (rc == 0) cprof__profile_finish(pr->p);
  return rc;
}

static int prof_object(cprof__rd_t *r, prof_t *pr) {
  const char *key;
  size_t klen;
  int first = 1, rc;
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    rc = prof_member(r, pr, key, klen);
    if (rc == 1) rc = cprof__rd_skip(r);
    if (rc != 0) return rc;
  }
  return rc;
}

/* The top-level object: a profile's members, and an inspector reply's
 * result (holding the profile) and error. */
typedef struct {
  prof_t top, result;
  int has_result, has_error, has_code;
  double code;
  char message[256];
} doc_t;

static int error_object(cprof__rd_t *r, doc_t *d) {
  const char *key, *s;
  size_t klen, len;
  int first = 1, rc;
  d->has_error = 1;
  snprintf(d->message, sizeof d->message, "(no message)");
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    if (CPROF__KEY(key, klen, "code") && cprof__rd_peek(r) == '0') {
      d->has_code = cprof__rd_number(r, &d->code) == 0;
    } else if (CPROF__KEY(key, klen, "message") && cprof__rd_peek(r) == '"') {
      if ((rc = cprof__rd_string(r, &s, &len)) != 0) return rc;
      snprintf(d->message, sizeof d->message, "%.*s", (int)len, s);
    } else if ((rc = cprof__rd_skip(r)) != 0) {
      return rc;
    }
  }
  return rc;
}

static int result_object(cprof__rd_t *r, doc_t *d) {
  const char *key;
  size_t klen;
  int first = 1, rc;
  d->has_result = 1;
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    if (CPROF__KEY(key, klen, "profile") && cprof__rd_peek(r) == '{' && d->result.seen == 0)
      rc = prof_object(r, &d->result);
    else
      rc = cprof__rd_skip(r);
    if (rc != 0) return rc;
  }
  return rc;
}

static int doc_member(cprof__rd_t *r, doc_t *d, const char *key, size_t klen) {
  int rc = prof_member(r, &d->top, key, klen);
  if (rc != 1) return rc;
  if (CPROF__KEY(key, klen, "error") && cprof__rd_peek(r) == '{' && !d->has_error)
    return error_object(r, d);
  if (CPROF__KEY(key, klen, "result") && cprof__rd_peek(r) == '{' && !d->has_result)
    return result_object(r, d);
  return cprof__rd_skip(r);
}

static int doc_object(cprof__rd_t *r, doc_t *d) {
  const char *key;
  size_t klen;
  int first = 1, rc;
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1)
    if ((rc = doc_member(r, d, key, klen)) != 0) return rc;
  return rc;
}

/* Only whitespace (and NULs, from C buffers) may follow the value. */
static int trailing(cprof__rd_t *r) {
  const char *q = r->p;
  while (q < r->end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' || *q == '\0'))
    q++;
  if (q == r->end) return 0;
  return cprof__rd_fail(r, CPROF_EPARSE, "unexpected data after the JSON value at byte %zu",
                        (size_t)(q - r->base));
}

/* Which profile the document holds: its own members first (as files
 * are), then an inspector reply's error, then its result.profile. */
static int pick(cprof__rd_t *r, doc_t *d, prof_t **out) {
  static const char neither[] = "neither a .cpuprofile (nodes) nor a .heapprofile (head)";
  if (d->top.p != NULL) {
    *out = &d->top;
    return 0;
  }
  if (d->has_error) {
    if (d->has_code)
      return cprof__rd_fail(r, CPROF_EPROTO, "inspector error %.0f: %s", d->code, d->message);
    return cprof__rd_fail(r, CPROF_EPROTO, "inspector error: %s", d->message);
  }
  if (d->result.p != NULL) {
    *out = &d->result;
    return 0;
  }
  if (d->has_result) return FAIL("inspector reply without result.profile: %s", neither);
  return FAIL("%s", neither);
}

static int parse_doc(cprof__rd_t *r, doc_t *d, cprof_profile_t **out) {
  prof_t *pr = NULL;
  int rc;
  if (r->end == r->base) return cprof__rd_fail(r, CPROF_EPARSE, "empty input: not JSON");
  if (cprof__rd_peek(r) != '{') {
    if ((rc = cprof__rd_skip(r)) != 0 || (rc = trailing(r)) != 0) return rc;
    return FAIL("not a JSON object: neither a .cpuprofile (nodes) nor a .heapprofile (head)");
  }
  if ((rc = doc_object(r, d)) != 0 || (rc = trailing(r)) != 0) return rc;
  if ((rc = pick(r, d, &pr)) != 0 || (rc = prof_finish(r, pr)) != 0) return rc;
  *out = pr->p;
  pr->p = NULL;
  return 0;
}

int cprof_profile_parse(const char *json, size_t len, cprof_profile_t **out, char *errbuf,
                        size_t errlen) {
  cprof__rd_t r;
  doc_t d = {0};
  if (errbuf != NULL && errlen > 0) errbuf[0] = '\0';
  if (out == NULL || (json == NULL && len > 0))
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "cprof_profile_parse: NULL argument");
  *out = NULL;
  cprof__rd_init(&r, json == NULL ? "" : json, len, errbuf, errlen);
  int rc = parse_doc(&r, &d, out);
  prof_free(&d.top);
  prof_free(&d.result);
  cprof__rd_free(&r);
  return rc;
}

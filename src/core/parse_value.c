/* Values both profile formats read (see parse_value.h): range-checked
 * numbers and Runtime.CallFrame objects. */
#include "parse_value.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "internal.h"

/* Integers above 2^53 are not exact in a double: refuse them rather than
 * silently round. */
#define MAX_EXACT 9007199254740992.0

#define FAIL(...) cprof__rd_fail(r, CPROF_ESCHEMA, __VA_ARGS__)

static int number(cprof__rd_t *r, double *d) {
  return cprof__rd_peek(r) == '0' && cprof__rd_number(r, d) == CPROF_OK;
}

int cprof__rd_u32(cprof__rd_t *r, uint32_t *out) {
  double d;
  if (!number(r, &d) || !(d >= 0 && d <= (double)UINT32_MAX) || d != (double)(uint32_t)d) return 0;
  *out = (uint32_t)d;
  return 1;
}

int cprof__rd_i32(cprof__rd_t *r, int32_t *out) {
  double d;
  if (!number(r, &d) || !(d >= (double)INT32_MIN && d <= (double)INT32_MAX) ||
      d != (double)(int32_t)d)
    return 0;
  *out = (int32_t)d;
  return 1;
}

/* Times and sizes: finite, |x| <= 2^53; a fraction rounds to nearest. */
static int to_i64(double d, int64_t *out) {
  if (!(d >= -MAX_EXACT && d <= MAX_EXACT)) return 0; /* also rejects NaN */
  *out = (int64_t)(d + (d < 0 ? -0.5 : 0.5));
  return 1;
}

int cprof__rd_i64(cprof__rd_t *r, int64_t *out) {
  double d;
  return number(r, &d) && to_i64(d, out);
}

int cprof__rd_size(cprof__rd_t *r, int64_t *out) {
  return cprof__rd_i64(r, out) && *out >= 0;
}

/* ---- call frames ---- */

/* Bits in the order of FRAME_KEYS. */
enum { CF_NAME = 1, CF_URL = 2, CF_SCRIPT = 4, CF_LINE = 8, CF_COLUMN = 16 };
static const char *const FRAME_KEYS[] = {"functionName", "url",          "scriptId",
                                         "lineNumber",   "columnNumber", NULL};

static int intern(cprof__rd_t *r, cprof_profile_t *p, const char *s, size_t len, const char **out) {
  *out = cprof__profile_intern_str(p, s, len);
  return *out != NULL ? 0 : cprof__rd_fail(r, CPROF_ENOMEM, "out of memory interning call frames");
}

/* Absent and null read as "": older producers write either. 1 when the
 * value is not a string. */
static int opt_string(cprof__rd_t *r, cprof_profile_t *p, const char **out) {
  const char *s = "";
  size_t len = 0;
  if (!cprof__rd_null(r)) {
    if (cprof__rd_peek(r) != '"') return 1;
    if (cprof__rd_string(r, &s, &len) != 0) return r->err;
  }
  return intern(r, p, s, len, out);
}

/* scriptId is a string in the protocol, an integer in some producers. */
static int script_id(cprof__rd_t *r, cprof_profile_t *p, const char **out) {
  char buf[32];
  double d;
  int64_t v;
  if (cprof__rd_peek(r) != '0') return opt_string(r, p, out);
  if (!number(r, &d) || !to_i64(d, &v) || (double)v != d) return 1;
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  return intern(r, p, buf, strlen(buf), out);
}

static int opt_i32(cprof__rd_t *r, int32_t *out) {
  return cprof__rd_null(r) || cprof__rd_i32(r, out) ? 0 : 1;
}

/* 0, a negative code, or 1 when the member's value has the wrong type. */
static int frame_member(cprof__rd_t *r, cprof_profile_t *p, cprof_frame_t *f, unsigned *seen,
                        const char *key, size_t klen, const char **bad) {
  unsigned bit = cprof__rd_key_bit(key, klen, FRAME_KEYS);
  if (bit == 0 || (*seen & bit)) return cprof__rd_skip(r); /* the first of a key wins */
  *seen |= bit;
  switch (bit) {
  case CF_NAME:
    *bad = "callFrame.functionName is not a string";
    return opt_string(r, p, &f->name);
  case CF_URL:
    *bad = "callFrame.url is not a string";
    return opt_string(r, p, &f->url);
  case CF_SCRIPT:
    *bad = "callFrame.scriptId is neither a string nor an integer";
    return script_id(r, p, &f->script_id);
  case CF_LINE:
    *bad = "callFrame line or column is not a 32-bit integer";
    return opt_i32(r, &f->line);
  default:
    *bad = "callFrame line or column is not a 32-bit integer";
    return opt_i32(r, &f->column);
  }
}

int cprof__parse_call_frame(cprof__rd_t *r, cprof_profile_t *p, cprof__who_t who, uint32_t *frame) {
  cprof_frame_t f = {.line = -1, .column = -1};
  const char *key, *bad = "";
  size_t klen;
  unsigned seen = 0;
  int first = 1, rc;
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    if ((rc = frame_member(r, p, &f, &seen, key, klen, &bad)) == 0) continue;
    if (rc < 0) return rc;
    char what[48];
    snprintf(what, sizeof what, who.label, who.n);
    return FAIL("%s: %s", what, bad);
  }
  if (rc != 0) return rc;
  if ((!(seen & CF_NAME) && intern(r, p, "", 0, &f.name) != 0) ||
      (!(seen & CF_URL) && intern(r, p, "", 0, &f.url) != 0) ||
      (!(seen & CF_SCRIPT) && intern(r, p, "", 0, &f.script_id) != 0))
    return r->err;
  if (cprof__profile_add_frame(p, &f, frame) != 0)
    return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory interning call frames");
  return 0;
}

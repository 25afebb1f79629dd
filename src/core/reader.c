/* The JSON pull reader (see reader.h). The hot paths are plain strings and
 * integers, which is nearly all of a V8 profile: both are read in place,
 * with no allocation. */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "internal.h"
#include "reader.h"

void cprof__rd_init(cprof__rd_t *r, const char *json, size_t len, char *errbuf, size_t errlen) {
  *r = (cprof__rd_t){
      .base = json, .p = json, .end = json + len, .size = len, .errbuf = errbuf, .errlen = errlen};
}

void cprof__rd_init_stream(cprof__rd_t *r, const char *json, size_t avail, size_t size,
                           cprof__rd_refill_t refill, void *ctx, char *errbuf, size_t errlen) {
  cprof__rd_init(r, json, avail < size ? avail : size, errbuf, errlen);
  r->size = size;
  r->refill = refill;
  r->refill_ctx = ctx;
}

int cprof__rd_refill(cprof__rd_t *r) {
  if (r->refill == NULL || r->err != 0) return 0;
  size_t before = (size_t)(r->end - r->base), avail = before;
  int rc = r->refill(r->refill_ctx, &avail, r->errbuf, r->errlen);
  if (rc < 0) {
    r->err = rc; /* its message is in errbuf */
    return 0;
  }
  if (avail > r->size) avail = r->size;
  if (avail <= before) return 0;
  r->end = r->base + avail;
  return 1;
}

int cprof__rd_read_all(cprof__rd_t *r) {
  while (cprof__rd_more(r))
    ;
  return r->err;
}

void cprof__rd_free(cprof__rd_t *r) {
  free(r->scratch);
  r->scratch = NULL;
}

int cprof__rd_fail(cprof__rd_t *r, int code, const char *fmt, ...) {
  if (r->err != 0) return r->err;
  if (r->errbuf != NULL && r->errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->errbuf, r->errlen, fmt, ap);
    va_end(ap);
  }
  r->err = code;
  return code;
}

static int bad(cprof__rd_t *r) {
  return cprof__rd_fail(r, CPROF_EPARSE,
                        "invalid or truncated JSON: parsing stopped at byte %zu of %zu",
                        cprof__rd_offset(r), r->size);
}

/* q is in the input (read when it was not yet): 0 past its end. */
static inline int has(cprof__rd_t *r, const char *q) {
  while (q >= r->end)
    if (!cprof__rd_more(r)) return 0;
  return 1;
}

static void skip_ws(cprof__rd_t *r) {
  const char *p = r->p;
  for (;;) {
    while (p < r->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
      p++;
    if (p < r->end || !cprof__rd_more(r)) break;
  }
  r->p = p;
}

static char classify(char c) {
  if (c == '-' || (c >= '0' && c <= '9')) return '0';
  if (c == '{' || c == '[' || c == '"' || c == 'n' || c == 't' || c == 'f') return c;
  return 0;
}

char cprof__rd_peek(cprof__rd_t *r) {
  if (r->err != 0) return 0;
  skip_ws(r);
  return r->p < r->end ? classify(*r->p) : 0;
}

/* After ':' or ',' or '[' a value must follow: checked here so that a
 * missing value is a parse error, not a wrong-type one. */
static int value_follows(cprof__rd_t *r) {
  return cprof__rd_peek(r) != 0 ? CPROF_OK : bad(r);
}

int cprof__rd_open(cprof__rd_t *r, char open) {
  if (cprof__rd_peek(r) != open || (open != '{' && open != '[')) return bad(r);
  if (r->depth >= CPROF__RD_MAX_DEPTH)
    return cprof__rd_fail(r, CPROF_EPARSE,
                          "JSON nested deeper than %d levels at byte %zu (the parser's limit)",
                          CPROF__RD_MAX_DEPTH, cprof__rd_offset(r));
  r->depth++;
  r->p++;
  return CPROF_OK;
}

/* Past the opening bracket or a value: ',' continues, `close` ends. */
static int next_item(cprof__rd_t *r, int *first, char close) {
  if (r->err != 0) return r->err;
  skip_ws(r);
  if (r->p >= r->end) return bad(r);
  if (*r->p == close) {
    r->p++;
    r->depth--;
    return 0;
  }
  if (!*first) {
    if (*r->p != ',') return bad(r);
    r->p++;
    skip_ws(r);
  }
  *first = 0;
  return 1;
}

int cprof__rd_member(cprof__rd_t *r, int *first, const char **key, size_t *klen) {
  int rc = next_item(r, first, '}');
  if (rc <= 0) return rc;
  if (r->p >= r->end || *r->p != '"') return bad(r);
  if ((rc = cprof__rd_string(r, key, klen)) != 0) return rc;
  skip_ws(r);
  if (r->p >= r->end || *r->p != ':') return bad(r);
  r->p++;
  return value_follows(r) == CPROF_OK ? 1 : r->err;
}

int cprof__rd_elem(cprof__rd_t *r, int *first) {
  int rc = next_item(r, first, ']');
  if (rc <= 0) return rc;
  return value_follows(r) == CPROF_OK ? 1 : r->err;
}

/* A string with escapes: cJSON decodes it (\uXXXX, surrogate pairs). */
static int decode_escaped(cprof__rd_t *r, const char *q, const char **s, size_t *len) {
  size_t n = (size_t)(q + 1 - r->p);
  cJSON *item = cJSON_ParseWithLength(r->p, n);
  const char *v = cJSON_GetStringValue(item);
  if (v == NULL) {
    cJSON_Delete(item);
    return bad(r);
  }
  size_t vlen = strlen(v);
  if (vlen + 1 > r->scratch_cap) {
    char *buf = realloc(r->scratch, vlen + 1);
    if (buf == NULL) {
      cJSON_Delete(item);
      return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory reading a string");
    }
    r->scratch = buf;
    r->scratch_cap = vlen + 1;
  }
  memcpy(r->scratch, v, vlen + 1);
  cJSON_Delete(item);
  *s = r->scratch;
  *len = vlen;
  r->p = q + 1;
  return CPROF_OK;
}

int cprof__rd_string(cprof__rd_t *r, const char **s, size_t *len) {
  if (cprof__rd_peek(r) != '"') return bad(r);
  int escaped = 0;
  for (const char *q = r->p + 1; has(r, q); q++) {
    unsigned char c = (unsigned char)*q;
    if (c == '"') {
      if (escaped) return decode_escaped(r, q, s, len);
      *s = r->p + 1;
      *len = (size_t)(q - *s);
      r->p = q + 1;
      return CPROF_OK;
    }
    if (c < 0x20) {
      r->p = q;
      return bad(r);
    }
    if (c == '\\') {
      escaped = 1;
      if (!has(r, ++q)) break;
    }
  }
  r->p = r->end;
  return bad(r);
}

static const char *digits(cprof__rd_t *r, const char *q) {
  while (has(r, q) && *q >= '0' && *q <= '9')
    q++;
  return q;
}

/* Fractions, exponents and long integers: strtod on a NUL-terminated copy,
 * with the locale's decimal point as strtod wants it (as cJSON does). */
static int number_slow(cprof__rd_t *r, const char *q, double *out) {
  size_t n = (size_t)(q - r->p);
  char small[64], *buf = n < sizeof small ? small : malloc(n + 1);
  if (buf == NULL) return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory reading a number");
  char point = localeconv()->decimal_point[0];
  for (size_t i = 0; i < n; i++)
    buf[i] = r->p[i] == '.' ? point : r->p[i];
  buf[n] = '\0';
  *out = strtod(buf, NULL);
  if (buf != small) free(buf);
  r->p = q;
  return CPROF_OK;
}

int cprof__rd_number(cprof__rd_t *r, double *out) {
  if (cprof__rd_peek(r) != '0') return bad(r);
  const char *q = r->p;
  int neg = *q == '-';
  q += neg;
  if (!has(r, q) || *q < '0' || *q > '9') return bad(r);
  const char *int_start = q;
  q = *q == '0' ? q + 1 : digits(r, q);
  const char *int_end = q;
  int plain = 1;
  if (has(r, q) && *q == '.') {
    const char *f = digits(r, q + 1);
    if (f == q + 1) return bad(r);
    q = f;
    plain = 0;
  }
  if (has(r, q) && (*q == 'e' || *q == 'E')) {
    const char *e = q + 1;
    if (has(r, e) && (*e == '+' || *e == '-')) e++;
    const char *x = digits(r, e);
    if (x == e) return bad(r);
    q = x;
    plain = 0;
  }
  /* Up to 18 digits fit an int64 exactly, and converting that to double
   * rounds once, as strtod does. */
  if (!plain || int_end - int_start > 18) return number_slow(r, q, out);
  int64_t v = 0;
  for (const char *d = int_start; d < int_end; d++)
    v = v * 10 + (*d - '0');
  *out = neg ? -(double)v : (double)v;
  r->p = q;
  return CPROF_OK;
}

static int literal(cprof__rd_t *r, const char *lit, size_t n) {
  while ((size_t)(r->end - r->p) < n && cprof__rd_more(r))
    ;
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, lit, n) != 0) return bad(r);
  r->p += n;
  return CPROF_OK;
}

int cprof__rd_null(cprof__rd_t *r) {
  if (cprof__rd_peek(r) != 'n') return 0;
  return literal(r, "null", 4) == CPROF_OK;
}

static int skip_scalar(cprof__rd_t *r, char c) {
  const char *s;
  size_t n;
  double d;
  switch (c) {
  case '"':
    return cprof__rd_string(r, &s, &n);
  case '0':
    return cprof__rd_number(r, &d);
  case 'n':
    return literal(r, "null", 4);
  case 't':
    return literal(r, "true", 4);
  case 'f':
    return literal(r, "false", 5);
  default:
    return bad(r);
  }
}

/* Iterative, so a deep value costs no C stack: `kinds` remembers which
 * container each open level is; after an inner one closes, the outer one
 * is never at its first item. */
int cprof__rd_skip(cprof__rd_t *r) {
  char kinds[CPROF__RD_MAX_DEPTH];
  int n = 0, first = 1, rc;
  const char *key;
  size_t klen;
  for (;;) {
    char c = cprof__rd_peek(r);
    if (c == '{' || c == '[') {
      if ((rc = cprof__rd_open(r, c)) != 0) return rc;
      kinds[n++] = c;
      first = 1;
    } else if ((rc = skip_scalar(r, c)) != 0) {
      return rc;
    } else if (n == 0) {
      return CPROF_OK;
    }
    for (;;) {
      rc = kinds[n - 1] == '{' ? cprof__rd_member(r, &first, &key, &klen)
                               : cprof__rd_elem(r, &first);
      if (rc < 0) return rc;
      if (rc == 1) break;
      if (--n == 0) return CPROF_OK;
      first = 0;
    }
  }
}

unsigned cprof__rd_key_bit(const char *key, size_t klen, const char *const *names) {
  if (klen == 0) return 0;
  for (unsigned i = 0; names[i] != NULL; i++)
    if (names[i][0] == key[0] && strncmp(names[i], key, klen) == 0 && names[i][klen] == '\0')
      return 1u << i;
  return 0;
}

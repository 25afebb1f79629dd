/* The snapshot's strings table: every string back to back in one buffer,
 * NUL-terminated, found by offset. One allocation for all of them instead
 * of one each: a snapshot has hundreds of thousands. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "snapshot.h"

static int grow_offsets(cprof__snap_t *s) {
  if (s->str_count + 1 < s->str_off_cap) return CPROF_OK;
  if (s->str_off_cap >= UINT32_MAX / 2) return CPROF_ENOMEM;
  uint32_t cap = s->str_off_cap ? s->str_off_cap * 2 : 1024;
  uint64_t *off = realloc(s->str_off, (size_t)cap * sizeof *off);
  if (off == NULL) return CPROF_ENOMEM;
  if (s->str_off_cap == 0) off[0] = 0;
  s->str_off = off;
  s->str_off_cap = cap;
  return CPROF_OK;
}

static int grow_text(cprof__snap_t *s, size_t n) {
  if (s->str_cap - s->str_len > n) return CPROF_OK;
  uint64_t cap = s->str_cap ? s->str_cap : 64 * 1024;
  while (cap - s->str_len <= n) {
    if (cap > SIZE_MAX / 2) return CPROF_ENOMEM;
    cap *= 2;
  }
  char *buf = realloc(s->str_buf, (size_t)cap);
  if (buf == NULL) return CPROF_ENOMEM;
  s->str_buf = buf;
  s->str_cap = cap;
  return CPROF_OK;
}

static void commit(cprof__snap_t *s, size_t n) {
  s->str_len += n;
  s->str_buf[s->str_len++] = '\0';
  s->str_off[++s->str_count] = s->str_len;
}

int cprof__snap_str_add(cprof__snap_t *s, const char *p, size_t n) {
  if (grow_offsets(s) != CPROF_OK || grow_text(s, n) != CPROF_OK) return CPROF_ENOMEM;
  memcpy(s->str_buf + s->str_len, p, n);
  commit(s, n);
  return CPROF_OK;
}

static int hex4(const char *p, const char *end, unsigned *out) {
  unsigned v = 0;
  if (end - p < 4) return -1;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                 : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                 : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                        : 16u;
    if (d == 16) return -1;
    v = v * 16 + d;
  }
  *out = v;
  return 0;
}

static size_t utf8(char *o, unsigned cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* \uXXXX at p (past the backslash and u), a surrogate pair when one
 * follows. V8 writes strings as they are in the heap, so a lone surrogate
 * is possible (a JS string cut in half): it becomes U+FFFD instead of
 * failing the whole snapshot, as TextDecoder would. */
static const char *unicode(const char *p, const char *end, char *o, size_t *n) {
  unsigned cp, lo;
  if (hex4(p, end, &cp) != 0) return NULL;
  p += 4;
  if (cp >= 0xD800 && cp <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
      hex4(p + 2, end, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    p += 6;
  } else if (cp >= 0xD800 && cp <= 0xDFFF) {
    cp = 0xFFFD;
  }
  *n = utf8(o, cp);
  return p;
}

/* Decodes escaped[0..len) into o; the decoded text is never longer. */
static int decode(const char *p, const char *end, char *o, size_t *out_len) {
  size_t n = 0;
  while (p < end) {
    if (*p != '\\') {
      o[n++] = *p++;
      continue;
    }
    if (end - p < 2) return -1;
    char c = p[1];
    p += 2;
    const char *map = "\"\"\\\\//b\bf\fn\nr\rt\t";
    const char *m = NULL;
    for (const char *q = map; *q; q += 2)
      if (*q == c) m = q;
    if (m != NULL) {
      o[n++] = m[1];
    } else if (c == 'u') {
      size_t k;
      if ((p = unicode(p, end, o + n, &k)) == NULL) return -1;
      n += k;
    } else {
      return -1;
    }
  }
  *out_len = n;
  return 0;
}

const char *cprof__snap_str_json(cprof__snap_t *s, const char *p, const char *end, int *err) {
  int escaped = 0;
  const char *q = p + 1;
  for (; q < end && *q != '"'; q++) {
    unsigned char c = (unsigned char)*q;
    if (c < 0x20) break;
    if (c == '\\') {
      escaped = 1;
      if (++q == end) break;
    }
  }
  if (q >= end || *q != '"') {
    *err = CPROF_EPARSE;
    return NULL;
  }
  size_t raw = (size_t)(q - p - 1), n = raw;
  if (grow_offsets(s) != CPROF_OK || grow_text(s, raw) != CPROF_OK) {
    *err = CPROF_ENOMEM;
    return NULL;
  }
  if (!escaped) {
    memcpy(s->str_buf + s->str_len, p + 1, raw);
  } else if (decode(p + 1, q, s->str_buf + s->str_len, &n) != 0) {
    *err = CPROF_EPARSE;
    return NULL;
  }
  commit(s, n);
  return q + 1;
}

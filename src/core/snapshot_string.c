/* The snapshot's strings table, kept in the snapshot's text: a string is
 * the offset of its opening quote, decoded only when asked for. The strings
 * are most of a snapshot (every JS string's contents), and the analysis
 * reads few of them: class names, edge names on the paths it prints, the
 * handful its rules compare. So a snapshot's strings cost 8 bytes each, not
 * a copy of the file. The text must outlive the snapshot (cprof__snap_parse). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "snapshot.h"

/* Decoded strings live in a few rotating buffers: a caller may hold the
 * last CPROF__SNAP_STR_SLOTS - 1 strings while asking for another. */
/* Names past the cut, as measured once (cprof__snap_name): a page can
 * name thousands of nodes by one long string, which is then scanned once,
 * not once a node. key: the string's index + 1 (0: empty); offsets from
 * its first character. */
#define LONG_NAMES 16
struct long_name {
  uint32_t key;
  uint64_t end, cut, count;
};

struct cprof__snap_scratch {
  char *buf[CPROF__SNAP_STR_SLOTS];
  size_t cap[CPROF__SNAP_STR_SLOTS];
  unsigned next;
  struct long_name longs[LONG_NAMES];
};

static int grow_offsets(cprof__snap_t *s) {
  if (s->str_count < s->str_at_cap) return CPROF_OK;
  if (s->str_at_cap >= UINT32_MAX / 2) return CPROF_ENOMEM;
  uint32_t cap = s->str_at_cap ? s->str_at_cap * 2 : 1024;
  uint64_t *at = realloc(s->str_at, (size_t)cap * sizeof *at);
  if (at == NULL) return CPROF_ENOMEM;
  s->str_at = at;
  s->str_at_cap = cap;
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

/* Whether every escape in p[0..end) is one JSON allows. */
static int escapes_valid(const char *p, const char *end) {
  unsigned v;
  for (; p < end; p++) {
    if (*p != '\\') continue;
    if (++p == end) return 0;
    if (*p == 'u') {
      if (hex4(p + 1, end, &v) != 0) return 0;
      p += 4;
    } else if (strchr("\"\\/bfnrt", *p) == NULL || *p == '\0') {
      return 0;
    }
  }
  return 1;
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
  if (q >= end || *q != '"' || (escaped && !escapes_valid(p + 1, q))) {
    *err = CPROF_EPARSE;
    return NULL;
  }
  if (grow_offsets(s) != CPROF_OK) {
    *err = CPROF_ENOMEM;
    return NULL;
  }
  s->str_at[s->str_count++] = (uint64_t)(p - s->text);
  return q + 1;
}

const char *cprof__snap_str(const cprof__snap_t *s, uint32_t i) {
  struct cprof__snap_scratch *sc = s->scratch;
  if (i >= s->str_count || sc == NULL) return "";
  const char *p = s->text + s->str_at[i] + 1, *q = p;
  while (*q != '"') /* checked when read: it ends before the text does */
    q += *q == '\\' ? 2 : 1;
  size_t raw = (size_t)(q - p), n = raw;
  unsigned slot = sc->next++ % CPROF__SNAP_STR_SLOTS;
  if (sc->cap[slot] < raw + 1) {
    char *b = realloc(sc->buf[slot], raw + 1);
    if (b == NULL) return "";
    sc->buf[slot] = b;
    sc->cap[slot] = raw + 1;
  }
  if (decode(p, q, sc->buf[slot], &n) != 0) n = 0; /* valid: checked when read */
  sc->buf[slot][n] = '\0';
  return sc->buf[slot];
}

/* The code point at p in a checked JSON string's text (before end): its
 * length in UTF-16 code units in *units (an escaped surrogate pair is one
 * step of 2, as decode makes it one code point); returns the byte after
 * it. */
static const char *step(const char *p, const char *end, unsigned *units) {
  unsigned hi, lo;
  if (*p == '\\') {
    *units = 1;
    if (p[1] != 'u') return p + 2;
    if (hex4(p + 2, end, &hi) == 0 && hi >= 0xD800 && hi <= 0xDBFF && end - p >= 12 &&
        p[6] == '\\' && p[7] == 'u' && hex4(p + 8, end, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
      *units = 2;
      return p + 12;
    }
    return p + 6;
  }
  *units = (unsigned char)*p >= 0xF0 ? 2 : 1; /* 4 bytes of UTF-8: a surrogate pair */
  for (p++; p < end && ((unsigned char)*p & 0xC0) == 0x80; p++)
    ;
  return p;
}

/* n with thousands separators, as the CLI prints counts. */
static void with_commas(char *out, uint64_t n) {
  char digits[24];
  int k = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n), o = 0;
  for (int i = 0; i < k; i++) {
    if (i > 0 && (k - i) % 3 == 0) out[o++] = ',';
    out[o++] = digits[i];
  }
  out[o] = '\0';
}

const char *cprof__snap_name(const cprof__snap_t *s, uint32_t i, const char *prefix,
                             uint64_t *chars) {
  struct cprof__snap_scratch *sc = s->scratch;
  if (chars != NULL) *chars = 0;
  if (prefix == NULL) prefix = "";
  if (i >= s->str_count || sc == NULL) return prefix;
  const char *p = s->text + s->str_at[i] + 1, *end = p, *cut;
  struct long_name *known = &sc->longs[i % LONG_NAMES];
  uint64_t count = 0;
  unsigned u;
  if (known->key == i + 1) {
    end = p + known->end, cut = p + known->cut, count = known->count;
  } else {
    while (*end != '"') /* checked when read: it ends before the text does */
      end += *end == '\\' ? 2 : 1;
    /* a UTF-16 unit takes a byte at least: a shorter text is never cut */
    cut = end;
    if ((size_t)(end - p) > CPROF__SNAP_NAME_MAX) {
      for (const char *q = p; q < end; count += u) {
        const char *next = step(q, end, &u);
        if (cut == end && count + u > CPROF__SNAP_NAME_MAX) cut = q;
        q = next;
      }
      *known = (struct long_name){i + 1, (uint64_t)(end - p), (uint64_t)(cut - p), count};
    }
  }
  char more[64] = "";
  if (cut != end) {
    char n[32];
    with_commas(n, count);
    snprintf(more, sizeof more, "\xe2\x80\xa6(%s chars)", n);
    if (chars != NULL) *chars = count;
  }
  size_t pre = strlen(prefix), need = pre + (size_t)(cut - p) + strlen(more) + 1, n = 0;
  unsigned slot = sc->next++ % CPROF__SNAP_STR_SLOTS;
  if (sc->cap[slot] < need) {
    char *b = realloc(sc->buf[slot], need);
    if (b == NULL) return prefix;
    sc->buf[slot] = b;
    sc->cap[slot] = need;
  }
  char *o = sc->buf[slot];
  memcpy(o, prefix, pre);
  if (decode(p, cut, o + pre, &n) != 0) n = 0; /* valid: checked when read */
  memcpy(o + pre + n, more, strlen(more) + 1);
  return o;
}

int cprof__snap_str_init(cprof__snap_t *s) {
  s->scratch = calloc(1, sizeof *s->scratch);
  return s->scratch ? CPROF_OK : CPROF_ENOMEM;
}

void cprof__snap_str_free(cprof__snap_t *s) {
  if (s->scratch != NULL)
    for (unsigned i = 0; i < CPROF__SNAP_STR_SLOTS; i++)
      free(s->scratch->buf[i]);
  free(s->scratch);
  free(s->str_at);
  s->scratch = NULL;
  s->str_at = NULL;
}

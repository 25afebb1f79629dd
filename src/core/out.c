/* The exporters' output writer (see out.h). Strings go through cJSON
 * so escaping is right; everything else is formatted here, into a buffer
 * in front of the FILE, so a number or a comma costs no stdio call. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "out.h"

/* Every integer fits: "-9223372036854775808" is 20 characters. */
#define INT_MAX_CHARS 20

static void fail(cprof__out_t *o, int err, int err_no) {
  if (o->err != 0) return;
  o->err = err;
  o->err_no = err_no;
}

int cprof__out_open(cprof__out_t *o, FILE *f, const cprof_profile_t *p) {
  memset(o, 0, sizeof(*o));
  o->f = f;
  o->p = p;
  o->buf = malloc(CPROF__OUT_CAP);
  o->frames = calloc(p->nframes > 0 ? p->nframes : 1, sizeof(*o->frames));
  o->str = cJSON_CreateStringReference("");
  if (o->buf == NULL || o->frames == NULL || o->str == NULL) {
    fail(o, CPROF_ENOMEM, ENOMEM);
    return CPROF_ENOMEM;
  }
  return 0;
}

void cprof__out_flush(cprof__out_t *o) {
  if (o->err == 0 && o->len > 0 && fwrite(o->buf, 1, o->len, o->f) != o->len)
    fail(o, CPROF_EIO, errno);
  o->len = 0;
}

void cprof__out_slow(cprof__out_t *o, const char *s, size_t n) {
  cprof__out_flush(o);
  if (n <= CPROF__OUT_CAP) {
    memcpy(o->buf, s, n);
    o->len = n;
  } else if (o->err == 0 && fwrite(s, 1, n, o->f) != n) {
    fail(o, CPROF_EIO, errno);
  }
}

static const char digit_pairs[] = "00010203040506070809"
                                  "10111213141516171819"
                                  "20212223242526272829"
                                  "30313233343536373839"
                                  "40414243444546474849"
                                  "50515253545556575859"
                                  "60616263646566676869"
                                  "70717273747576777879"
                                  "80818283848586878889"
                                  "90919293949596979899";

/* Decimal digits of v at dst (no terminator); returns how many. */
static size_t format_u64(char *dst, uint64_t v) {
  char tmp[INT_MAX_CHARS], *end = tmp + sizeof(tmp), *s = end;
  while (v >= 100) {
    s -= 2;
    memcpy(s, digit_pairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) {
    s -= 2;
    memcpy(s, digit_pairs + 2 * v, 2);
  } else {
    *--s = (char)('0' + v);
  }
  memcpy(dst, s, (size_t)(end - s));
  return (size_t)(end - s);
}

static size_t format_i64(char *dst, int64_t v) {
  if (v >= 0) return format_u64(dst, (uint64_t)v);
  *dst = '-';
  return 1 + format_u64(dst + 1, UINT64_C(0) - (uint64_t)v); /* INT64_MIN too */
}

/* Room for one integer at the end of the buffer. */
static char *reserve_int(cprof__out_t *o) {
  if (CPROF__OUT_CAP - o->len < INT_MAX_CHARS) cprof__out_flush(o);
  return o->buf + o->len;
}

void cprof__out_u64(cprof__out_t *o, uint64_t v) {
  o->len += format_u64(reserve_int(o), v);
}

void cprof__out_i64(cprof__out_t *o, int64_t v) {
  o->len += format_i64(reserve_int(o), v);
}

/* Makes room for n more bytes of frame text. */
static int text_reserve(cprof__out_t *o, size_t n) {
  if (o->text_cap - o->text_len >= n) return 0;
  if (n > SIZE_MAX / 2 - o->text_len) return CPROF_ENOMEM;
  size_t cap = o->text_cap ? o->text_cap : 4096;
  while (cap - o->text_len < n)
    cap *= 2;
  char *text = realloc(o->text, cap);
  if (text == NULL) return CPROF_ENOMEM;
  o->text = text;
  o->text_cap = cap;
  return 0;
}

static int text_add(cprof__out_t *o, const char *s, size_t n) {
  if (text_reserve(o, n) != 0) return CPROF_ENOMEM;
  memcpy(o->text + o->text_len, s, n);
  o->text_len += n;
  return 0;
}

static int text_int(cprof__out_t *o, int64_t v) {
  if (text_reserve(o, INT_MAX_CHARS) != 0) return CPROF_ENOMEM;
  o->text_len += format_i64(o->text + o->text_len, v);
  return 0;
}

/* s as a JSON string, quotes included, escaped by cJSON: printed straight
 * into the text, with room for the worst case (every byte a \u00XX). */
static int text_string(cprof__out_t *o, const char *s) {
  size_t len = strlen(s);
  o->str->valuestring = (char *)s; /* a reference item: cJSON never frees it */
  if (len > ((size_t)INT_MAX - 8) / 6) {
    char *printed = cJSON_PrintUnformatted(o->str);
    int rc = printed != NULL ? text_add(o, printed, strlen(printed)) : CPROF_ENOMEM;
    free(printed);
    return rc;
  }
  size_t room = 6 * len + 8;
  if (text_reserve(o, room) != 0) return CPROF_ENOMEM;
  char *dst = o->text + o->text_len;
  if (!cJSON_PrintPreallocated(o->str, dst, (int)room, 0)) return CPROF_ENOMEM;
  o->text_len += strlen(dst);
  return 0;
}

#define TEXT_LIT(o, lit) text_add((o), "" lit, sizeof(lit) - 1)

/* Appends frame i's Runtime.CallFrame object to the text. */
static int build_frame(cprof__out_t *o, uint32_t i) {
  const cprof_frame_t *f = &o->p->frames[i];
  size_t start = o->text_len;
  if (TEXT_LIT(o, "{\"functionName\":") != 0 || text_string(o, f->name) != 0 ||
      TEXT_LIT(o, ",\"scriptId\":") != 0 || text_string(o, f->script_id) != 0 ||
      TEXT_LIT(o, ",\"url\":") != 0 || text_string(o, f->url) != 0 ||
      TEXT_LIT(o, ",\"lineNumber\":") != 0 || text_int(o, f->line) != 0 ||
      TEXT_LIT(o, ",\"columnNumber\":") != 0 || text_int(o, f->column) != 0 ||
      TEXT_LIT(o, "}") != 0)
    return CPROF_ENOMEM;
  o->frames[i].off = start;
  o->frames[i].len = o->text_len - start;
  return 0;
}

void cprof__out_frame(cprof__out_t *o, uint32_t frame) {
  if (o->err != 0) return;
  if (o->frames[frame].len == 0 && build_frame(o, frame) != 0) {
    fail(o, CPROF_ENOMEM, ENOMEM);
    return;
  }
  cprof__out_bytes(o, o->text + o->frames[frame].off, o->frames[frame].len);
}

int cprof__out_close(cprof__out_t *o) {
  cprof__out_flush(o);
  if (o->err == 0 && (fflush(o->f) != 0 || ferror(o->f))) fail(o, CPROF_EIO, errno);
  if (o->str != NULL) o->str->valuestring = NULL;
  cJSON_Delete(o->str);
  free(o->buf);
  free(o->frames);
  free(o->text);
  if (o->err != 0) errno = o->err_no; /* for the caller's message */
  return o->err;
}

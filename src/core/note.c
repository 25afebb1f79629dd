#include "note.h"

#include "error.h"
#include "reader.h"

/* Walks params: the profile is skipped (grammar checked), only located. */
static int params(cprof__rd_t *r, size_t *off, size_t *n, const char **title, size_t *tlen) {
  const char *key;
  size_t klen;
  int first = 1, rc;
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    if (CPROF__KEY(key, klen, "profile") && cprof__rd_peek(r) == '{') {
      *off = cprof__rd_offset(r);
      if ((rc = cprof__rd_skip(r)) != 0) return rc;
      *n = cprof__rd_offset(r) - *off;
    } else if (CPROF__KEY(key, klen, "title") && cprof__rd_peek(r) == '"') {
      /* The raw body: titles the recorder makes need no escapes. */
      size_t at = cprof__rd_offset(r);
      if ((rc = cprof__rd_skip(r)) != 0) return rc;
      *title = r->base + at + 1;
      *tlen = cprof__rd_offset(r) - at - 2;
    } else if ((rc = cprof__rd_skip(r)) != 0) {
      return rc;
    }
  }
  return rc;
}

int cprof_note_profile_span(const char *json, size_t len, size_t *off, size_t *n,
                            const char **title, size_t *title_len, char *errbuf, size_t errlen) {
  cprof__rd_t r;
  const char *key;
  size_t klen;
  int first = 1, rc, is_finished = 0;
  *off = *n = *title_len = 0;
  *title = NULL;
  cprof__rd_init(&r, json, len, errbuf, errlen);
  rc = cprof__rd_open(&r, '{');
  while (rc == 0 && (rc = cprof__rd_member(&r, &first, &key, &klen)) == 1) {
    if (CPROF__KEY(key, klen, "method") && cprof__rd_peek(&r) == '"') {
      const char *m;
      size_t mlen;
      if ((rc = cprof__rd_string(&r, &m, &mlen)) != 0) break;
      is_finished = cprof__rd_key_is(m, mlen, "Profiler.consoleProfileFinished", 31);
    } else if (CPROF__KEY(key, klen, "params") && cprof__rd_peek(&r) == '{') {
      rc = params(&r, off, n, title, title_len);
    } else {
      rc = cprof__rd_skip(&r);
    }
  }
  if (rc == 0 && (!is_finished || *n == 0 || *title == NULL))
    rc = cprof__rd_fail(&r, CPROF_ESCHEMA,
                        "not a Profiler.consoleProfileFinished notification with a profile");
  cprof__rd_free(&r);
  return rc;
}

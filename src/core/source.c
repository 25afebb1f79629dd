/* Reading a source file for the line views (see source.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_CLOEXEC, strdup */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "read_file.h"
#include "source.h"
#include "sourcemap_url.h"

static int index_lines(cprof__source_t *s) {
  uint32_t n = 1;
  for (size_t i = 0; i < s->len; i++)
    n += s->text[i] == '\n';
  if (!(s->starts = malloc(((size_t)n + 1) * sizeof *s->starts))) return CPROF_ENOMEM;
  s->starts[0] = 0;
  uint32_t k = 1;
  for (size_t i = 0; i < s->len; i++)
    if (s->text[i] == '\n') s->starts[k++] = (uint32_t)(i + 1);
  s->starts[n] = (uint32_t)s->len + 1;
  s->nlines = n;
  return CPROF_OK;
}

/* Whether path names source code by its extension. A profile is data
 * anyone can write: one naming ~/.ssh/id_rsa with positionTicks must not
 * put that file's text into a report or a page `cprof ui` serves. */
static int source_ext(const char *path) {
  static const char *const EXT[] = {".js",  ".mjs", ".cjs", ".jsx",    ".ts",     ".mts",
                                    ".cts", ".tsx", ".vue", ".svelte", ".coffee", NULL};
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  if (!dot || (slash && dot < slash)) return 0;
  for (int i = 0; EXT[i]; i++)
    if (strcmp(dot, EXT[i]) == 0) return 1;
  return 0;
}

int cprof__source_texts_add(cprof_source_texts_t *t, const char *key, const char *url,
                            const char *text) {
  for (uint32_t i = t->n; i-- > 0;) /* newest first: a map's sources come together */
    if (t->key[i] == key) return CPROF_OK;
  for (uint32_t i = 0; i < t->n; i++) /* the same file from another script's map */
    if (strcmp(t->url[i], url) == 0) return CPROF_OK;
  size_t len = strlen(text);
  if (len > CPROF__SOURCE_MAX || len > CPROF__SOURCE_TEXTS_MAX - t->bytes) return CPROF_OK;
  if (t->n == t->cap) {
    uint32_t cap = t->cap ? t->cap * 2 : 8;
    const char **k = realloc(t->key, cap * sizeof *k);
    if (k) t->key = k;
    char **u = k ? realloc(t->url, cap * sizeof *u) : NULL;
    if (u) t->url = u;
    char **x = u ? realloc(t->text, cap * sizeof *x) : NULL;
    if (x) t->text = x;
    size_t *l = x ? realloc(t->len, cap * sizeof *l) : NULL;
    if (!l) return CPROF_ENOMEM;
    t->len = l;
    t->cap = cap;
  }
  char *u = strdup(url), *x = malloc(len + 1);
  if (!u || !x) {
    free(u);
    free(x);
    return CPROF_ENOMEM;
  }
  memcpy(x, text, len + 1);
  t->key[t->n] = key, t->url[t->n] = u, t->text[t->n] = x, t->len[t->n] = len;
  t->n++;
  t->bytes += len;
  return CPROF_OK;
}

void cprof__source_texts_free(cprof_source_texts_t *t) {
  for (uint32_t i = 0; i < t->n; i++) {
    free(t->url[i]);
    free(t->text[i]);
  }
  free(t->key);
  free(t->url);
  free(t->text);
  free(t->len);
  *t = (cprof_source_texts_t){0};
}

/* url's text from a map's sourcesContent. */
static int read_embedded(const char *url, const cprof_source_texts_t *t, cprof__source_t *out) {
  for (uint32_t i = 0; t && i < t->n; i++) {
    if (strcmp(t->url[i], url) != 0) continue;
    if (!(out->text = malloc(t->len[i] + 1))) return CPROF_ENOMEM;
    memcpy(out->text, t->text[i], t->len[i] + 1);
    out->len = t->len[i];
    return CPROF_OK;
  }
  return CPROF_EIO;
}

int cprof__source_read(const char *url, const cprof_source_texts_t *texts, cprof__source_t *out) {
  *out = (cprof__source_t){0};
  char *path = url ? cprof__sm_url_to_path(url) : NULL;
  int rc = CPROF_EIO;
  struct stat st;
  if (path && source_ext(path))
    rc = cprof__read_regular(path, CPROF__SOURCE_MAX, &out->text, &out->len, &st, NULL, 0);
  free(path);
  /* The file on disk first, as the page and report always did; a map's
   * copy only for a file that is gone (or never shipped). */
  if (rc == CPROF_EIO && url) rc = read_embedded(url, texts, out);
  if (rc == CPROF_OK) rc = index_lines(out);
  if (rc != CPROF_OK) cprof__source_free(out);
  return rc;
}

int cprof__source_line(const cprof__source_t *src, int32_t line, const char **s, size_t *n) {
  if (!src->starts || line < 1 || (uint32_t)line > src->nlines) return 0;
  uint32_t a = src->starts[line - 1], b = src->starts[line] - 1;
  if (b > a && src->text[b - 1] == '\r') b--;
  *s = src->text + a;
  *n = b - a;
  return 1;
}

void cprof__source_free(cprof__source_t *src) {
  free(src->text);
  free(src->starts);
  *src = (cprof__source_t){0};
}

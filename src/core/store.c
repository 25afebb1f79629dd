#define _POSIX_C_SOURCE 200809L /* fstatat, dirfd, strdup */

#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "internal.h"

int cprof_store_name(char *buf, size_t len, const char *kind, long pid, int64_t from_ms,
                     int64_t to_ms, const char *ext) {
  int n = snprintf(buf, len, "%s-%ld-%lld-%lld.%s", kind, pid, (long long)from_ms, (long long)to_ms,
                   ext);
  return n > 0 && (size_t)n < len ? CPROF_OK : CPROF_EINVAL;
}

/* Reads a run of digits (at least one) as a non-negative int64. */
static const char *digits(const char *s, int64_t *out) {
  int64_t v = 0;
  const char *start = s;
  while (*s >= '0' && *s <= '9') {
    if (v > (INT64_MAX - 9) / 10) return NULL;
    v = v * 10 + (*s++ - '0');
  }
  *out = v;
  return s > start ? s : NULL;
}

int cprof_store_parse_name(const char *name, int64_t *to_ms) {
  static const char *const kinds[] = {"cpu-", "heap-"};
  static const char *const exts[] = {".cpuprofile", ".heapprofile", ".pb.gz"};
  const char *s = NULL;
  int64_t pid, from, to;
  for (size_t i = 0; i < 2 && !s; i++)
    if (strncmp(name, kinds[i], strlen(kinds[i])) == 0) s = name + strlen(kinds[i]);
  if (!s || !(s = digits(s, &pid)) || *s++ != '-' || !(s = digits(s, &from)) || *s++ != '-' ||
      !(s = digits(s, &to)))
    return 0;
  for (size_t i = 0; i < 3; i++) {
    if (strcmp(s, exts[i]) == 0) {
      *to_ms = to;
      return 1;
    }
  }
  return 0;
}

typedef struct {
  char *name;
  int64_t to_ms;
  unsigned long long size;
} entry_t;

static int by_end(const void *a, const void *b) {
  const entry_t *x = a, *y = b;
  return x->to_ms < y->to_ms ? -1 : x->to_ms > y->to_ms;
}

/* The finished store files in dir, oldest first. */
static int list(const char *dir, entry_t **out, size_t *n, char *errbuf, size_t errlen) {
  DIR *d = opendir(dir);
  struct dirent *de;
  size_t cap = 0;
  entry_t *e = NULL;
  int64_t to;
  *n = 0;
  if (!d) return cprof__errf(errbuf, errlen, CPROF_EIO, "cannot list %s: %s", dir, strerror(errno));
  while ((de = readdir(d)) != NULL) {
    struct stat st;
    if (!cprof_store_parse_name(de->d_name, &to) || fstatat(dirfd(d), de->d_name, &st, 0) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    if (*n == cap) {
      entry_t *grown = realloc(e, (cap = cap ? cap * 2 : 64) * sizeof *e);
      if (!grown) goto nomem;
      e = grown;
    }
    if (!(e[*n].name = strdup(de->d_name))) goto nomem;
    e[*n].to_ms = to;
    e[(*n)++].size = (unsigned long long)st.st_size;
  }
  closedir(d);
  qsort(e, *n, sizeof *e, by_end);
  *out = e;
  return CPROF_OK;
nomem:
  closedir(d);
  for (size_t i = 0; i < *n; i++)
    free(e[i].name);
  free(e);
  *n = 0;
  return cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory listing %s", dir);
}

static void free_list(entry_t *e, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(e[i].name);
  free(e);
}

/* Deletes dir/e->name; 1 if it is gone (another process pruning it first is
 * as good). */
static int remove_entry(const char *dir, const entry_t *e) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, e->name);
  return unlink(path) == 0 || errno == ENOENT;
}

int cprof_store_prune(const char *dir, int64_t now_ms, int64_t max_age_ms,
                      unsigned long long max_bytes, int64_t keep_from_ms, cprof_store_prune_t *out,
                      char *errbuf, size_t errlen) {
  entry_t *e = NULL;
  size_t n = 0;
  unsigned long long total = 0;
  int rc = list(dir, &e, &n, errbuf, errlen);
  *out = (cprof_store_prune_t){0};
  if (rc != CPROF_OK) return rc;
  for (size_t i = 0; i < n; i++)
    total += e[i].size;
  out->files = (unsigned)n;
  for (size_t i = 0; i < n; i++) {
    int old = max_age_ms > 0 && e[i].to_ms < now_ms - max_age_ms;
    int over = max_bytes > 0 && total > max_bytes;
    if ((!old && !over) || e[i].to_ms >= keep_from_ms) continue;
    if (remove_entry(dir, &e[i])) {
      total -= e[i].size;
      out->deleted++;
    }
  }
  out->bytes = total;
  free_list(e, n);
  return CPROF_OK;
}

int cprof_store_evict(const char *dir, int64_t keep_from_ms, unsigned long long min_bytes,
                      cprof_store_prune_t *out, char *errbuf, size_t errlen) {
  entry_t *e = NULL;
  size_t n = 0;
  int rc = list(dir, &e, &n, errbuf, errlen);
  *out = (cprof_store_prune_t){0};
  if (rc != CPROF_OK) return rc;
  out->files = (unsigned)n;
  for (size_t i = 0; i < n && e[i].to_ms < keep_from_ms; i++) {
    /* Whole windows: a window's other files (same end) go with it. */
    if (out->deleted > 0 && out->bytes >= min_bytes && e[i].to_ms != e[i - 1].to_ms) break;
    if (remove_entry(dir, &e[i])) {
      out->bytes += e[i].size;
      out->deleted++;
    }
  }
  free_list(e, n);
  return CPROF_OK;
}

/* Finding a script's source map as the ecosystem does (ECMA-426 "Linking
 * generated code to source maps"): the sourceMappingURL line comment at the
 * end of the script, an inline data: URL or a file next to it, else
 * <script>.map. Every read is bounded and only regular files are read. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup, strndup, O_CLOEXEC, st_mtim */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "internal.h"
#include "read_file.h"
#include "sourcemap.h"
#include "sourcemap_find.h"
#include "sourcemap_url.h"

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* The URL of the last `//# sourceMappingURL=` (or legacy `//@`) line comment
 * among the comment lines that end the script: lines are read backwards,
 * blank lines and other line comments skipped, and the search stops at the
 * first line of code, so a string in the code cannot pass for the link. */
int cprof__sm_extract_url(const char *s, size_t len, const char **url, size_t *n) {
  size_t end = len;
  while (end > 0) {
    size_t start = end;
    while (start > 0 && s[start - 1] != '\n')
      start--;
    size_t a = start, b = end;
    while (a < b && is_space(s[a]))
      a++;
    while (b > a && is_space(s[b - 1]))
      b--;
    end = start ? start - 1 : 0;
    if (a == b) {
      if (start == 0) break;
      continue;
    }
    if (b - a < 2 || s[a] != '/' || s[a + 1] != '/') return 0;
    static const char key[] = "sourceMappingURL=";
    size_t k = sizeof key - 1;
    if (b - a > 4 + k && (s[a + 2] == '#' || s[a + 2] == '@') && s[a + 3] == ' ' &&
        memcmp(s + a + 4, key, k) == 0) {
      const char *u = s + a + 4 + k;
      size_t m = 0;
      while (u + m < s + b && !is_space(u[m]))
        m++;
      if (m == 0) return 0;
      *url = u;
      *n = m;
      return 1;
    }
    if (start == 0) break;
  }
  return 0;
}

static int b64val(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

/* Standard or URL-safe base64, padding optional. */
static int base64_decode(const char *s, size_t n, char **out, size_t *len) {
  char *buf = malloc(n / 4 * 3 + 4), *o = buf;
  uint32_t acc = 0;
  int bits = 0;
  if (!buf) return CPROF_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '=') break;
    int v = b64val((unsigned char)s[i]);
    if (v < 0) {
      free(buf);
      return CPROF_EPARSE;
    }
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *o++ = (char)((acc >> bits) & 0xff);
    }
  }
  *o = '\0';
  *out = buf;
  *len = (size_t)(o - buf);
  return CPROF_OK;
}

static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) + 1 : 0;
  char *d = malloc(n + 2);
  if (!d) return NULL;
  if (n == 0) d[n++] = '/';
  memcpy(d + (slash ? 0 : 1), path, slash ? n : 0);
  d[n] = '\0';
  return d;
}

/* data:application/json[;charset=...];base64,<payload> */
int cprof__sm_data_url(const char *url, size_t n, size_t max, char **json, size_t *len) {
  const char *comma = memchr(url, ',', n);
  if (!comma) return CPROF_EPARSE;
  size_t head = (size_t)(comma - url);
  int b64 = head >= 7 && memcmp(comma - 7, ";base64", 7) == 0;
  if (head < 21 || memcmp(url, "data:application/json", 21) != 0 || !b64) return CPROF_ESCHEMA;
  size_t plen = n - head - 1;
  if (plen / 4 * 3 > max) return CPROF_EIO;
  return base64_decode(comma + 1, plen, json, len);
}

typedef struct {
  const char *script;
  const cprof_sm_limits_t *lim;
  cprof_sm_origin_t *origin;
  char *errbuf;
  size_t errlen;
} find_t;

static long long mtime_ns(const struct stat *st) {
  return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

static int parse_map(find_t *f, const char *json, size_t len, const char *base, const char *what,
                     cprof_sourcemap_t **out) {
  char why[200] = "";
  int rc = cprof_sourcemap_parse(json, len, base, out, why, sizeof why);
  if (rc != CPROF_OK)
    cprof__errf(f->errbuf, f->errlen, rc, "%s: source map %s: %s", f->script, what,
                why[0] ? why : cprof_strerror(rc));
  return rc;
}

static int external_map(find_t *f, char *map_path, int must_exist, cprof_sourcemap_t **out) {
  char why[200] = "", *json = NULL, *base;
  size_t len;
  struct stat st;
  int rc = cprof__read_regular(map_path, f->lim->max_map_bytes, &json, &len, &st, why, sizeof why);
  if (rc != CPROF_OK) {
    if (!must_exist && rc == CPROF_EIO && access(map_path, F_OK) != 0) return CPROF_OK; /* none */
    return cprof__errf(f->errbuf, f->errlen, rc, "%s: cannot read its source map %s: %s", f->script,
                       map_path, rc == CPROF_EIO ? why : cprof_strerror(rc));
  }
  f->origin->map_size = st.st_size;
  f->origin->map_mtime_ns = mtime_ns(&st);
  f->origin->map_ino = (long long)st.st_ino;
  snprintf(f->origin->map_path, sizeof f->origin->map_path, "%s", map_path);
  if (!(base = dir_of(map_path))) {
    free(json);
    return CPROF_ENOMEM;
  }
  rc = parse_map(f, json, len, base, map_path, out);
  free(base);
  free(json);
  return rc;
}

/* Whether url[0..n) starts with a scheme ("https:"); "C:" is not one. */
static int url_scheme(const char *url, size_t n) {
  size_t i = 0;
  while (i < n && ((url[i] >= 'a' && url[i] <= 'z') || (url[i] >= 'A' && url[i] <= 'Z') ||
                   (i > 0 && ((url[i] >= '0' && url[i] <= '9') || url[i] == '+' || url[i] == '-' ||
                              url[i] == '.'))))
    i++;
  return i > 1 && i < n && url[i] == ':';
}

/* The length of url[0..n) without its query or fragment. */
static size_t url_path_len(const char *url, size_t n) {
  size_t i = 0;
  while (i < n && url[i] != '?' && url[i] != '#')
    i++;
  return i;
}

/* The linked URL: inline, or a path/file: URL relative to the script. */
static int linked_map(find_t *f, const char *url, size_t n, cprof_sourcemap_t **out) {
  char *json = NULL, *path, *rel;
  size_t len;
  int rc;
  if (n >= 5 && memcmp(url, "data:", 5) == 0) {
    rc = cprof__sm_data_url(url, n, f->lim->max_map_bytes, &json, &len);
    if (rc != CPROF_OK)
      return cprof__errf(f->errbuf, f->errlen, rc, "%s: inline source map: %s", f->script,
                         rc == CPROF_EIO       ? "over the size limit"
                         : rc == CPROF_ESCHEMA ? "not a base64 data:application/json URL"
                                               : "bad base64");
    char *base = dir_of(f->script);
    rc = base ? parse_map(f, json, len, base, "(inline)", out) : CPROF_ENOMEM;
    free(base);
    free(json);
    return rc;
  }
  if (n > 7 && memcmp(url, "file://", 7) == 0) {
    char *u = strndup(url, n);
    path = u ? cprof__sm_url_to_path(u) : NULL;
    free(u);
  } else if (url_scheme(url, n)) {
    return cprof__errf(f->errbuf, f->errlen, CPROF_ESCHEMA,
                       "%s: its source map is not a file (only file paths and inline maps are "
                       "read)",
                       f->script);
  } else if (!(rel = cprof__sm_percent_decode(url, url_path_len(url, n)))) {
    return CPROF_ENOMEM;
  } else {
    char *dir = rel[0] == '/' ? NULL : dir_of(f->script);
    size_t dn = dir ? strlen(dir) : 0;
    path = malloc(dn + strlen(rel) + 1);
    if (path) {
      memcpy(path, dir ? dir : "", dn);
      strcpy(path + dn, rel);
    }
    free(dir);
    free(rel);
  }
  if (!path) return CPROF_ENOMEM;
  rc = external_map(f, path, 1, out);
  free(path);
  return rc;
}

int cprof_sourcemap_find(const char *path, const cprof_sm_limits_t *lim, cprof_sourcemap_t **out,
                         cprof_sm_origin_t *origin, char *errbuf, size_t errlen) {
  cprof_sm_limits_t l = {CPROF_SM_MAX_BYTES, CPROF_SM_MAX_BYTES, NULL};
  if (lim && lim->max_script_bytes) l.max_script_bytes = lim->max_script_bytes;
  if (lim && lim->max_map_bytes) l.max_map_bytes = lim->max_map_bytes;
  find_t f = {path, &l, origin, errbuf, errlen};
  char why[200] = "", *src = NULL;
  size_t len;
  struct stat st;
  const char *url;
  size_t n;
  memset(origin, 0, sizeof *origin);
  *out = NULL;
  int rc = cprof__read_regular(path, l.max_script_bytes, &src, &len, &st, why, sizeof why);
  if (rc != CPROF_OK)
    return cprof__errf(errbuf, errlen, rc, "cannot read the script %s: %s", path,
                       rc == CPROF_EIO ? why : cprof_strerror(rc));
  origin->script_size = st.st_size;
  origin->script_mtime_ns = mtime_ns(&st);
  origin->script_ino = (long long)st.st_ino;
  if (cprof__sm_extract_url(src, len, &url, &n)) {
    rc = linked_map(&f, url, n, out);
  } else {
    size_t pn = strlen(path);
    char *guess = malloc(pn + 5);
    if (guess) {
      memcpy(guess, path, pn);
      memcpy(guess + pn, ".map", 5);
    }
    rc = guess ? external_map(&f, guess, 0, out) : CPROF_ENOMEM;
    free(guess);
  }
  free(src);
  return rc;
}

static int same(const char *path, long long size, long long mtime, long long ino) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  return st.st_size == size && mtime_ns(&st) == mtime && (long long)st.st_ino == ino;
}

int cprof_sourcemap_origin_fresh(const char *path, const cprof_sm_origin_t *o) {
  if (!same(path, o->script_size, o->script_mtime_ns, o->script_ino)) return 0;
  if (o->map_path[0] && !same(o->map_path, o->map_size, o->map_mtime_ns, o->map_ino)) return 0;
  return 1;
}

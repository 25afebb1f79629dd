/* Reading a source file for the line views (see source.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_CLOEXEC, strdup */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "read_file.h"
#include "source.h"
#include "sourcemap_find.h"
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

void cprof_source_owners_add(cprof_source_owners_t *o, uint32_t uid, uint32_t gid) {
  if (uid == 0 || uid == (uint32_t)geteuid()) return;
  for (unsigned i = 0; i < o->n; i++)
    if (o->uid[i] == uid && o->gid[i] == gid) return;
  if (o->n == CPROF_SOURCE_OWNERS_MAX) {
    o->too_many = 1;
    return;
  }
  o->uid[o->n] = uid;
  o->gid[o->n++] = gid;
}

/* Whether user uid (primary group gid) has `bit` (4 read, 1 search) on st
 * by its mode bits, as the kernel picks them: the owner's if uid owns it,
 * else the group's if gid is its group, else the others'. Supplementary
 * groups and ACLs are not read: a file readable only through them is not
 * shown. */
static int may(const struct stat *st, uint32_t uid, uint32_t gid, unsigned bit) {
  unsigned m = (unsigned)st->st_mode;
  if (st->st_uid == (uid_t)uid) return (m >> 6 & bit) != 0;
  if (st->st_gid == (gid_t)gid) return (m >> 3 & bit) != 0;
  return (m & bit) != 0;
}

/* The first owner in o who lacks `bit` on st, or -1. */
static int denied(const cprof_source_owners_t *o, const struct stat *st, unsigned bit) {
  for (unsigned i = 0; o && i < o->n; i++)
    if (!may(st, o->uid[i], o->gid[i], bit)) return (int)i;
  return -1;
}

#define SAY(...) (void)snprintf(why, whylen, __VA_ARGS__)
#define NOT_SHOWN(...) (SAY(__VA_ARGS__), CPROF_EIO)

/* Opens path's real file for reading: every link resolved first
 * (realpath), the real name must be source code, then each directory of
 * the real path is opened in turn without following links (O_PATH,
 * O_NOFOLLOW: a link put in its place since is refused, not followed) and,
 * with owners, checked for their search bit, and the file itself opened
 * without following a link, a regular file under the size limit, readable
 * by the owners. CPROF_OK with *fd, or CPROF_EIO: why empty when there is
 * no such file, else the reason it is not shown. */
static int open_source(const char *path, const cprof_source_owners_t *owners, int *fd, char *why,
                       size_t whylen) {
  why[0] = '\0';
  if (owners && owners->too_many)
    return NOT_SHOWN("the profiles have more than %d owners, which cprof does not check",
                     CPROF_SOURCE_OWNERS_MAX);
  char *real = realpath(path, NULL);
  if (!real) return CPROF_EIO;
  if (!source_ext(real)) {
    free(real);
    return NOT_SHOWN("it is a link to a file not named like source code");
  }
  int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), rc = CPROF_OK, who;
  struct stat st;
  char *comp = real + 1, *slash;
  while (dir >= 0 && rc == CPROF_OK) {
    if (fstat(dir, &st) != 0) {
      rc = CPROF_EIO;
    } else if ((who = denied(owners, &st, 1)) >= 0) {
      rc = NOT_SHOWN("the profile's owner (uid %u) cannot reach it: a directory on its path is "
                     "closed to them",
                     (unsigned)owners->uid[who]);
    } else if (!(slash = strchr(comp, '/'))) {
      break; /* comp is the file's name */
    } else {
      *slash = '\0';
      int next = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), e = errno;
      close(dir);
      dir = next;
      errno = e;
      comp = slash + 1;
    }
  }
  if (dir < 0 && rc == CPROF_OK) /* gone, or a directory made a link since realpath */
    rc = errno == ELOOP || errno == ENOTDIR ? NOT_SHOWN("its path changed while it was read")
                                            : CPROF_EIO;
  if (rc == CPROF_OK) {
    *fd = openat(dir, comp, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0)
      rc = errno == ELOOP ? NOT_SHOWN("its path changed while it was read") : CPROF_EIO;
    else if (fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) && (who = denied(owners, &st, 4)) >= 0)
      rc = NOT_SHOWN("the profile's owner (uid %u) cannot read it", (unsigned)owners->uid[who]);
    if (rc != CPROF_OK && *fd >= 0) close(*fd);
  }
  if (dir >= 0) close(dir);
  free(real);
  return rc;
}

int cprof__source_owners_may_read(const char *path, const cprof_source_owners_t *o, char *why,
                                  size_t whylen) {
  if (!o || (o->n == 0 && !o->too_many)) return 1;
  if (o->too_many)
    return SAY("the profiles have more than %d owners, which cprof does not check",
               CPROF_SOURCE_OWNERS_MAX),
           0;
  char *real = realpath(path, NULL);
  if (!real) return SAY("it cannot be resolved: %s", strerror(errno)), 0;
  struct stat st;
  int who = -1;
  for (char *sl = real; who < 0 && sl; sl = strchr(sl + 1, '/')) {
    char keep = sl[1];
    sl[sl == real ? 1 : 0] = '\0'; /* "/" itself, then each directory */
    if (stat(real, &st) != 0 || (who = denied(o, &st, 1)) >= 0) {
      if (who < 0) who = 0;
      SAY("the profile's owner (uid %u) cannot reach it: a directory on its path is closed "
          "to them",
          (unsigned)o->uid[who]);
    }
    if (sl == real)
      sl[1] = keep;
    else
      sl[0] = '/';
  }
  if (who < 0 && (stat(real, &st) != 0 || (who = denied(o, &st, 4)) >= 0))
    SAY("the profile's owner (uid %u) cannot read it", (unsigned)o->uid[who < 0 ? 0 : who]);
  free(real);
  return who < 0;
}

int cprof__source_read(const char *url, const cprof_source_texts_t *texts,
                       const cprof_source_owners_t *owners, cprof__source_t *out, char *why,
                       size_t whylen) {
  *out = (cprof__source_t){0};
  char *path = url ? cprof__sm_url_to_path(url) : NULL, nowhy[1];
  if (!why || whylen == 0) why = nowhy, whylen = sizeof nowhy;
  why[0] = '\0';
  int rc = CPROF_EIO, fd = -1;
  struct stat st;
  if (path && source_ext(path) && (rc = open_source(path, owners, &fd, why, whylen)) == CPROF_OK) {
    rc = cprof__read_fd(fd, CPROF__SOURCE_MAX, &out->text, &out->len, &st, NULL, 0);
    close(fd);
  }
  free(path);
  /* The file on disk first, as the page and report always did; a map's
   * copy only for a file that is gone (or never shipped) or not shown: the
   * map it came from passed the same rule (sourcemap_apply.c: script_for). */
  if (rc == CPROF_EIO && url && read_embedded(url, texts, out) == CPROF_OK) {
    rc = CPROF_OK;
    why[0] = '\0';
  }
  if (rc == CPROF_OK) rc = index_lines(out);
  if (rc != CPROF_OK) cprof__source_free(out);
  return rc;
}

/* Whether the last CPROF__SOURCE_TAIL bytes of the file at path, opened as
 * a source is, end with a sourceMappingURL comment (complete lines only):
 * 1 or 0, or -1 when the file is not opened (none, or not shown). */
static int tail_links_map(const char *path, const cprof_source_owners_t *owners) {
  char why[8], *buf;
  int fd, found = 0;
  struct stat st;
  if (open_source(path, owners, &fd, why, sizeof why) != CPROF_OK) return -1;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (buf = malloc(CPROF__SOURCE_TAIL)) != NULL) {
    off_t at = st.st_size > CPROF__SOURCE_TAIL ? st.st_size - CPROF__SOURCE_TAIL : 0;
    ssize_t n = pread(fd, buf, CPROF__SOURCE_TAIL, at);
    size_t skip = 0;
    if (n > 0 && at > 0) { /* the first line may be cut: from the next one */
      char *nl = memchr(buf, '\n', (size_t)n);
      skip = nl ? (size_t)(nl - buf) + 1 : (size_t)n;
    }
    const char *url;
    size_t len;
    found = n > 0 && cprof__sm_extract_url(buf + skip, (size_t)n - skip, &url, &len);
    free(buf);
  }
  close(fd);
  return found;
}

int cprof__source_has_map(const char *url, const cprof__source_t *src,
                          const cprof_source_owners_t *owners) {
  char *path = url ? cprof__sm_url_to_path(url) : NULL, why[8];
  const char *link;
  size_t n;
  int found = 0;
  if (!path || !source_ext(path)) {
    free(path);
    return 0;
  }
  if (src && src->text)
    found = cprof__sm_extract_url(src->text, src->len, &link, &n);
  else
    found = tail_links_map(path, owners); /* -1: the script itself is not shown */
  if (found == 0) { /* <script>.map, a regular file the owners could read: never opened */
    size_t pn = strlen(path);
    char *map = malloc(pn + 5);
    struct stat st;
    if (map) {
      memcpy(map, path, pn);
      memcpy(map + pn, ".map", 5);
      found = stat(map, &st) == 0 && S_ISREG(st.st_mode) &&
              cprof__source_owners_may_read(map, owners, why, sizeof why);
    }
    free(map);
  }
  free(path);
  return found > 0;
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

/* Directory creation and checks, and atomic, private file writes (POSIX). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* getentropy (glibc >= 2.25, musl) */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __APPLE__
#include <sys/random.h>
#endif

#include "error.h"
#include "fsutil.h"
#include "internal.h"

#define WRITE_BUFFER (1024 * 1024)

/* strerror is not thread-safe; glibc with _GNU_SOURCE has the GNU
 * strerror_r, everything else the XSI one. */
static const char *errstr(int e, char *buf, size_t len) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(e, buf, len);
#else
  if (strerror_r(e, buf, len) != 0) snprintf(buf, len, "error %d", e);
  return buf;
#endif
}

/* errno is left at e: a caller can tell a full disk (ENOSPC) from the rest. */
static int io_error(char *errbuf, size_t errlen, const char *what, const char *path, int e) {
  char msg[128];
  int rc = cprof__errf(errbuf, errlen, CPROF_EIO, "cannot %s %s: %s", what, path,
                       errstr(e, msg, sizeof(msg)));
  errno = e;
  return rc;
}

static char *join(const char *a, const char *b, const char *c, const char *d) {
  size_t la = strlen(a), lb = strlen(b), lc = strlen(c), ld = strlen(d);
  char *s = malloc(la + lb + lc + ld + 1);
  if (s == NULL) return NULL;
  memcpy(s, a, la);
  memcpy(s + la, b, lb);
  memcpy(s + la + lb, c, lc);
  memcpy(s + la + lb + lc, d, ld + 1);
  return s;
}

char *cprof_path_join(const char *dir, const char *name) {
  return join(dir, "/", name, "");
}

/* One path component: fine if it ends up a directory, however it got so. */
static int mkdir_one(const char *path, mode_t mode) {
  struct stat st;
  if (mkdir(path, mode) == 0) return 0;
  int e = errno;
  if (stat(path, &st) == 0) return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  return e;
}

int cprof_mkdirp(const char *dir, mode_t mode, char *errbuf, size_t errlen) {
  if (dir == NULL || dir[0] == '\0')
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "cprof_mkdirp: empty directory name");
  char *path = join(dir, "", "", "");
  if (path == NULL) return cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory");
  int rc = 0;
  for (char *s = path + 1;; s++) {
    if (*s != '/' && *s != '\0') continue;
    char saved = *s;
    *s = '\0';
    int e = mkdir_one(path, mode);
    if (e != 0) {
      rc = io_error(errbuf, errlen, "create directory", path, e);
      break;
    }
    *s = saved;
    if (saved == '\0') break;
  }
  free(path);
  return rc;
}

/* Why an existing directory may not hold this user's profiles, or NULL.
 * own: the directory is cprof's default, so it must be the user's private
 * one; otherwise the user named it and only being a directory matters. */
static const char *unsafe_dir(const struct stat *st, int own, char *why, size_t len) {
  if (!own) return S_ISDIR(st->st_mode) ? NULL : "is not a directory";
  if (S_ISLNK(st->st_mode)) return "is a symbolic link, not a directory";
  if (!S_ISDIR(st->st_mode)) return "is not a directory";
  if (st->st_uid != geteuid()) {
    snprintf(why, len, "is owned by another user (uid %ld, you are uid %ld)", (long)st->st_uid,
             (long)geteuid());
    return why;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(why, len, "can be written by %s (mode %04o)",
             (st->st_mode & S_IWOTH) ? "other users" : "its group",
             (unsigned)(st->st_mode & 07777));
    return why;
  }
  return NULL;
}

int cprof_dir_prepare(const char *dir, int flags, char *errbuf, size_t errlen) {
  struct stat st;
  char why[96];
  int own = (flags & CPROF_DIR_OWN) != 0;
  int rc = cprof_mkdirp(dir, 0700, errbuf, errlen);
  if (rc != 0) return rc;
  /* lstat for the default directory: a symlink there is someone's trap. */
  if ((own ? lstat(dir, &st) : stat(dir, &st)) != 0)
    return io_error(errbuf, errlen, "check directory", dir, errno);
  const char *bad = unsafe_dir(&st, own, why, sizeof(why));
  if (bad == NULL) return 0;
  return cprof__errf(errbuf, errlen, CPROF_EIO,
                     "refusing to write into %s: it %s, so another user could read, replace or "
                     "redirect what cprof writes there. Remove it, or pass dir (or set CPROF_DIR) "
                     "to a directory you own",
                     dir, bad);
}

/* A name is one path component: the temp file sits next to it. */
static int bad_name(const char *name) {
  return name == NULL || name[0] == '\0' || strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
         strcmp(name, "..") == 0;
}

typedef struct {
  const char *final;
  char *tmp;
  char *errbuf;
  size_t errlen;
  int keep; /* never replace final (cprof_write_new_fn) */
} target_t;

/* Runs the writer on fd and flushes; closes fd. No fsync: see fsutil.h. */
static int write_fd(const target_t *t, int fd, cprof_write_fn fn, void *ctx, long long *size) {
  struct stat st;
  FILE *f = fdopen(fd, "wb");
  if (f == NULL) {
    int e = errno;
    close(fd);
    return io_error(t->errbuf, t->errlen, "write", t->final, e);
  }
  char *buf = malloc(WRITE_BUFFER); /* without it stdio's default buffer still works */
  if (buf != NULL) setvbuf(f, buf, _IOFBF, WRITE_BUFFER);
  errno = 0; /* so a failing exporter's errno, if any, is its own */
  int rc = fn(ctx, f), e = errno;
  if (rc == 0 && (fflush(f) != 0 || fstat(fileno(f), &st) != 0)) {
    rc = CPROF_EIO;
    e = errno;
  }
  if (rc == 0) *size = (long long)st.st_size;
  if (fclose(f) != 0 && rc == 0) { /* fclose closes fd even when it fails */
    rc = CPROF_EIO;
    e = errno;
  }
  free(buf);
  if (rc == 0) return 0;
  if (rc == CPROF_EIO && e != 0) return io_error(t->errbuf, t->errlen, "write", t->final, e);
  return cprof__errf(t->errbuf, t->errlen, rc < 0 ? rc : CPROF_EIO, "cannot write %s: %s", t->final,
                     cprof_strerror(rc));
}

/* Random bytes for temp names. getentropy can fail (ENOSYS on old kernels):
 * then time, pid and a counter stand in. Safety never rests on the name
 * (O_EXCL does that); an unguessable one only keeps others from squatting. */
static void random_bytes(unsigned char *buf, size_t n) {
  static unsigned counter;
  if (getentropy(buf, n) == 0) return;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
               (uint64_t)++counter * 0x9e3779b97f4a7c15ULL;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    buf[i] = (unsigned char)x;
  }
}

/* Like mkstemp, but says exactly how: a new file (O_EXCL: never an existing
 * one, never through a symlink, which O_NOFOLLOW makes explicit), mode
 * 0600, close-on-exec so the app's children do not inherit it, under an
 * unguessable name. tmp ends in TMP_RANDOM 'X's, replaced in place. */
#define TMP_RANDOM 12
static int create_temp(char *tmp) {
  static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  char *x = tmp + strlen(tmp) - TMP_RANDOM;
  for (int attempt = 0; attempt < 100; attempt++) {
    unsigned char r[TMP_RANDOM];
    random_bytes(r, sizeof(r));
    for (int i = 0; i < TMP_RANDOM; i++)
      x[i] = chars[r[i] % (sizeof(chars) - 1)];
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1; /* errno is EEXIST */
}

static int exists_error(const target_t *t) {
  return cprof__errf(t->errbuf, t->errlen, CPROF_EEXIST,
                     "%s exists and was not replaced: remove it or write elsewhere", t->final);
}

/* Moves the complete temp file to its name. rename(2) replaces whatever is
 * there; link(2) refuses (EEXIST), so keep uses it and removes the temp
 * name after. File systems without hard links get a check before rename. */
static int publish(const target_t *t) {
  struct stat st;
  if (!t->keep)
    return rename(t->tmp, t->final) == 0 ? 0
                                         : io_error(t->errbuf, t->errlen, "write", t->final, errno);
  if (link(t->tmp, t->final) == 0) {
    unlink(t->tmp);
    return 0;
  }
  int e = errno;
  if (e == EEXIST) return exists_error(t);
  if (e != EPERM && e != ENOTSUP && e != EOPNOTSUPP && e != ENOSYS && e != EMLINK)
    return io_error(t->errbuf, t->errlen, "write", t->final, e);
  if (lstat(t->final, &st) == 0) return exists_error(t);
  return rename(t->tmp, t->final) == 0 ? 0
                                       : io_error(t->errbuf, t->errlen, "write", t->final, errno);
}

static int write_atomic(const target_t *t, cprof_write_fn fn, void *ctx, long long *size_out) {
  long long size = 0;
  char *tmp = t->tmp;
  int fd = create_temp(tmp);
  if (fd < 0) return io_error(t->errbuf, t->errlen, "write", t->final, errno);
  if (fchmod(fd, 0600) != 0) {
    int e = errno;
    close(fd);
    unlink(tmp);
    return io_error(t->errbuf, t->errlen, "write", t->final, e);
  }
  int rc = write_fd(t, fd, fn, ctx, &size);
  if (rc == 0) rc = publish(t);
  if (rc != 0) {
    int e = errno; /* the failure's, not unlink's */
    unlink(tmp);
    errno = e;
    return rc;
  }
  if (size_out != NULL) *size_out = size;
  return 0;
}

static int write_file(const char *dir, const char *name, int keep, cprof_write_fn fn, void *ctx,
                      long long *size_out, char *errbuf, size_t errlen) {
  if (dir == NULL || dir[0] == '\0' || bad_name(name) || fn == NULL)
    return cprof__errf(errbuf, errlen, CPROF_EINVAL,
                       "cprof_write_atomic: need a directory, a plain file name and a writer");
  /* .<name>.<pid>.<TMP_RANDOM>: the pid lets a later writer tell the temp
   * file of a process killed mid-write (lib/stale-temps.js removes those). */
  char suffix[48];
  snprintf(suffix, sizeof suffix, ".%ld.XXXXXXXXXXXX", (long)getpid()); /* TMP_RANDOM of them */
  char *final = join(dir, "/", name, "");
  char *tmp = join(dir, "/.", name, suffix);
  int rc;
  if (final == NULL || tmp == NULL) {
    rc = cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory");
  } else {
    target_t t = {final, tmp, errbuf, errlen, keep};
    rc = write_atomic(&t, fn, ctx, size_out);
  }
  free(final);
  free(tmp);
  return rc;
}

int cprof_write_atomic_fn(const char *dir, const char *name, cprof_write_fn fn, void *ctx,
                          long long *size_out, char *errbuf, size_t errlen) {
  return write_file(dir, name, 0, fn, ctx, size_out, errbuf, errlen);
}

int cprof_write_new_fn(const char *dir, const char *name, cprof_write_fn fn, void *ctx,
                       long long *size_out, char *errbuf, size_t errlen) {
  return write_file(dir, name, 1, fn, ctx, size_out, errbuf, errlen);
}

typedef struct {
  cprof_exporter_fn fn;
  const cprof_profile_t *p;
} export_ctx_t;

static int run_exporter(void *ctx, FILE *f) {
  const export_ctx_t *c = ctx;
  return c->fn(c->p, f);
}

int cprof_write_atomic(const char *dir, const char *name, cprof_exporter_fn fn,
                       const cprof_profile_t *p, long long *size_out, char *errbuf, size_t errlen) {
  export_ctx_t c = {fn, p};
  if (fn == NULL)
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "cprof_write_atomic: need an exporter");
  return cprof_write_atomic_fn(dir, name, run_exporter, &c, size_out, errbuf, errlen);
}

/* cprof_snapshot_report_file, cprof_snapshot_view_file and cprof_snapshot_diff_files: each
 * snapshot read into memory of its own, not mapped. A mapped file that another process shrinks
 * while it is analysed is a SIGBUS at the first page past its new end: the end of `cprof snapshot`
 * and of the whole `cprof ui` that analyses it (issue 36). So the file is read with read(2), in
 * pieces of CPROF__SNAP_READ_PIECE bytes, into an anonymous mapping that nothing outside the
 * process can take away; a file that ends before the size fstat gave, or whose size or mtime
 * differ once read, is CPROF_EIO naming the file. The parse gives the text behind it back
 * (cprof__snap_release: MADV_DONTNEED) as it reads the nodes and edges arrays, so the arrays and
 * the text they come from are not both resident; the strings, which the report reads by name
 * later, stay. */
#ifndef _GNU_SOURCE
#define _DEFAULT_SOURCE /* O_CLOEXEC, madvise, MAP_ANONYMOUS under -std=c11 */
#endif
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "heapsnapshot.h"
#include "internal.h"
#include "snapshot.h"

/* Text the parse never reads again (the nodes and edges before the
 * reader): its pages go back to the system now, so they do not count in
 * the peak RSS next to the arrays read from them. text is the start of the
 * anonymous mapping cprof__snap_load made (page-aligned). */
void cprof__snap_release(const char *text, size_t upto) {
  long page = sysconf(_SC_PAGESIZE);
  size_t n = page > 0 ? upto / (size_t)page * (size_t)page : 0;
  if (n > 0) (void)madvise((void *)(uintptr_t)text, n, MADV_DONTNEED);
}

static int changed(const char *path, char *errbuf, size_t errlen) {
  return cprof__errf(errbuf, errlen, CPROF_EIO,
                     "%s changed while it was read (it shrank, grew or was rewritten): analyse it "
                     "again once whatever writes it has finished",
                     path);
}

int cprof__snap_load_hooked(const char *path, cprof__snap_map_t *m, size_t piece,
                            cprof__snap_read_hook_t hook, void *ctx, char *errbuf, size_t errlen) {
  struct stat st, after;
  m->map = NULL;
  m->len = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO: refused below, not waited on */
  int e = fd < 0 || fstat(fd, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : -1;
  if (e != 0) {
    if (fd >= 0) close(fd);
    return cprof__errf(errbuf, errlen, CPROF_EIO, "cannot read %s: %s", path,
                       e < 0 ? "not a regular file" : strerror(e));
  }
  if (st.st_size == 0) {
    close(fd);
    return cprof__errf(errbuf, errlen, CPROF_EPARSE, "%s is empty, not a heap snapshot", path);
  }
  if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
    close(fd);
    return cprof__errf(errbuf, errlen, CPROF_EIO, "cannot read %s: %lld bytes is too large", path,
                       (long long)st.st_size);
  }
  size_t len = (size_t)st.st_size, got = 0;
  if (piece == 0) piece = CPROF__SNAP_READ_PIECE;
  void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    close(fd);
    return cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory reading %s (%zu bytes)", path,
                       len);
  }
  int rc = CPROF_OK;
  while (got < len && rc == CPROF_OK) {
    if (hook != NULL) hook(ctx, fd, got);
    size_t want = len - got < piece ? len - got : piece;
    ssize_t r = read(fd, (char *)map + got, want);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0)
      rc = cprof__errf(errbuf, errlen, CPROF_EIO, "cannot read %s: %s", path, strerror(errno));
    else if (r == 0)
      rc = changed(path, errbuf, errlen); /* ended before its size: it shrank */
    else
      got += (size_t)r;
  }
  if (rc == CPROF_OK &&
      (fstat(fd, &after) != 0 || after.st_size != st.st_size ||
       after.st_mtim.tv_sec != st.st_mtim.tv_sec || after.st_mtim.tv_nsec != st.st_mtim.tv_nsec))
    rc = changed(path, errbuf, errlen);
  close(fd);
  if (rc != CPROF_OK) {
    munmap(map, len);
    return rc;
  }
  m->map = map;
  m->len = len;
  return CPROF_OK;
}

int cprof__snap_load(const char *path, cprof__snap_map_t *m, char *errbuf, size_t errlen) {
  return cprof__snap_load_hooked(path, m, 0, NULL, NULL, errbuf, errlen);
}

void cprof__snap_unload(cprof__snap_map_t *m) {
  if (m->map != NULL) munmap(m->map, m->len);
  m->map = NULL;
}
typedef int (*one_fn)(const char *json, size_t len, unsigned top,
                      void (*release)(const char *json, size_t upto), char **out, char *errbuf,
                      size_t errlen);

/* fn (the report or the view) on the file read. */
static int one_file(one_fn fn, const char *path, unsigned top, char **out, char *errbuf,
                    size_t errlen) {
  cprof__snap_map_t m;
  *out = NULL;
  int rc = cprof__snap_load(path, &m, errbuf, errlen);
  if (rc != CPROF_OK) return rc;
  rc = fn(m.map, m.len, top, cprof__snap_release, out, errbuf, errlen);
  cprof__snap_unload(&m);
  return rc;
}

int cprof_snapshot_report_file(const char *path, unsigned top, char **out, char *errbuf,
                               size_t errlen) {
  return one_file(cprof__snap_report, path, top, out, errbuf, errlen);
}

int cprof_snapshot_view_file(const char *path, unsigned classes, char **out, char *errbuf,
                             size_t errlen) {
  return one_file(cprof__snap_view, path, classes, out, errbuf, errlen);
}

/* cprof_snapshot_diff_files: one file in memory at a time, unloaded once its
 * analysis is freed. */
typedef struct {
  const char *const *paths;
  cprof__snap_map_t map;
} files_t;

static int file_load(void *ctx, unsigned i, cprof__snap_t *s, char *errbuf, size_t errlen) {
  files_t *f = ctx;
  memset(s, 0, sizeof *s);
  int rc = cprof__snap_load(f->paths[i], &f->map, errbuf, errlen);
  if (rc != CPROF_OK) return rc;
  return cprof__snap_analyse(f->map.map, f->map.len, cprof__snap_release, s, errbuf, errlen);
}

static void file_done(void *ctx, unsigned i) {
  (void)i;
  cprof__snap_unload(&((files_t *)ctx)->map);
}

static const char *file_label(void *ctx, unsigned i) {
  return ((files_t *)ctx)->paths[i];
}

int cprof_snapshot_diff_files(const char *const *paths, unsigned n, unsigned top, char **out,
                              char *errbuf, size_t errlen) {
  files_t f = {paths, {NULL, 0}};
  cprof__snap_source_t src = {file_load, file_done, file_label, &f};
  return cprof__snap_diff(&src, n, top, out, errbuf, errlen);
}

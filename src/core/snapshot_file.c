/* cprof_snapshot_report_file, cprof_snapshot_view_file and cprof_snapshot_diff_files: each snapshot
 * mapped read-only, not read into a buffer. The reader passes over it once, front to back
 * (MADV_SEQUENTIAL): the kernel can drop pages behind it, so a snapshot larger than the free memory
 * still reads, and its text is never copied; the strings, at its end, are read from it when the
 * report names them. */
#ifndef _GNU_SOURCE
#define _DEFAULT_SOURCE /* O_CLOEXEC, madvise under -std=c11 */
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

/* Once read, the text before the strings array (the nodes and edges, most
 * of the file) is never read again: its pages go back to the kernel now
 * rather than when memory runs short, so they do not count in the peak RSS
 * next to the analysis's arrays. */
void cprof__snap_release(const char *text, size_t upto) {
  long page = sysconf(_SC_PAGESIZE);
  size_t n = page > 0 ? upto / (size_t)page * (size_t)page : 0;
  if (n > 0) (void)madvise((void *)(uintptr_t)text, n, MADV_DONTNEED);
}

int cprof__snap_map(const char *path, cprof__snap_map_t *m, char *errbuf, size_t errlen) {
  struct stat st;
  m->map = NULL;
  m->len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = fd < 0 || errno != 0 ? errno : EINVAL;
    if (fd >= 0) close(fd);
    return cprof__errf(errbuf, errlen, CPROF_EIO, "cannot read %s: %s", path,
                       e ? strerror(e) : "not a regular file");
  }
  if (st.st_size == 0) {
    close(fd);
    return cprof__errf(errbuf, errlen, CPROF_EPARSE, "%s is empty, not a heap snapshot", path);
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd);
  if (map == MAP_FAILED)
    return cprof__errf(errbuf, errlen, CPROF_EIO, "cannot map %s: %s", path, strerror(e));
  (void)madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
  m->map = map;
  m->len = (size_t)st.st_size;
  return CPROF_OK;
}

void cprof__snap_unmap(cprof__snap_map_t *m) {
  if (m->map != NULL) munmap(m->map, m->len);
  m->map = NULL;
}

typedef int (*one_fn)(const char *json, size_t len, unsigned top,
                      void (*release)(const char *json, size_t upto), char **out, char *errbuf,
                      size_t errlen);

/* fn (the report or the view) on the file mapped. */
static int one_file(one_fn fn, const char *path, unsigned top, char **out, char *errbuf,
                    size_t errlen) {
  cprof__snap_map_t m;
  *out = NULL;
  int rc = cprof__snap_map(path, &m, errbuf, errlen);
  if (rc != CPROF_OK) return rc;
  rc = fn(m.map, m.len, top, cprof__snap_release, out, errbuf, errlen);
  cprof__snap_unmap(&m);
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

/* cprof_snapshot_diff_files: one file mapped at a time, unmapped once its
 * analysis is freed. */
typedef struct {
  const char *const *paths;
  cprof__snap_map_t map;
} files_t;

static int file_load(void *ctx, unsigned i, cprof__snap_t *s, char *errbuf, size_t errlen) {
  files_t *f = ctx;
  memset(s, 0, sizeof *s);
  int rc = cprof__snap_map(f->paths[i], &f->map, errbuf, errlen);
  if (rc != CPROF_OK) return rc;
  return cprof__snap_analyse(f->map.map, f->map.len, cprof__snap_release, s, errbuf, errlen);
}

static void file_done(void *ctx, unsigned i) {
  (void)i;
  cprof__snap_unmap(&((files_t *)ctx)->map);
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

/* A heap snapshot file read into memory of its own as the parse needs it (snapshot_file.c's
 * cprof_snapshot_report_file, cprof_snapshot_view_file and cprof_snapshot_diff_files read their
 * files this way). A mapped file that another process shrinks while it is analysed is a SIGBUS
 * at the first page past its new end: the end of `cprof snapshot` and of the whole `cprof ui`
 * that analyses it (issue 36). So the file is read with read(2) into an anonymous mapping of its
 * size that nothing outside the process can take away: not all at once before the parse, but in
 * pieces of CPROF__SNAP_READ_PIECE bytes from the reader's refill (cprof__snap_refill), wherever
 * the parse reaches the end of what was read. A file that ends before the size fstat gave, or
 * whose size or mtime differ once all is read (or when the parse stops early), is CPROF_EIO
 * naming the file. The parse gives the text behind it back (cprof__snap_release: MADV_DONTNEED) as
 * it reads the nodes and edges arrays, so the arrays and the text they come from are never both
 * resident, nor the whole text at once; the strings, which the report reads by name later, are
 * read whole before the parse keeps pointers into them, and stay. */
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
  struct stat st;
  *m = (cprof__snap_map_t){.fd = -1, .path = path, .hook = hook, .ctx = ctx};
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
  size_t len = (size_t)st.st_size;
  void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    close(fd);
    return cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory reading %s (%zu bytes)", path,
                       len);
  }
  m->map = map;
  m->len = len;
  m->fd = fd;
  m->piece = piece != 0 ? piece : CPROF__SNAP_READ_PIECE;
  m->mtime_sec = (long long)st.st_mtim.tv_sec;
  m->mtime_nsec = (long)st.st_mtim.tv_nsec;
  return CPROF_OK;
}

int cprof__snap_load(const char *path, cprof__snap_map_t *m, char *errbuf, size_t errlen) {
  return cprof__snap_load_hooked(path, m, 0, NULL, NULL, errbuf, errlen);
}

/* The reading ends: fd closed, rc kept (later calls return it). */
static int stop(cprof__snap_map_t *m, int rc) {
  close(m->fd);
  m->fd = -1;
  m->rc = rc;
  return rc;
}

int cprof__snap_unchanged(cprof__snap_map_t *m, char *errbuf, size_t errlen) {
  struct stat after;
  if (m->fd < 0) return m->rc;
  if (fstat(m->fd, &after) != 0 || (uint64_t)after.st_size != (uint64_t)m->len ||
      (long long)after.st_mtim.tv_sec != m->mtime_sec ||
      (long)after.st_mtim.tv_nsec != m->mtime_nsec)
    return stop(m, changed(m->path, errbuf, errlen));
  return CPROF_OK;
}

int cprof__snap_refill(void *ctx, size_t *avail, char *errbuf, size_t errlen) {
  cprof__snap_map_t *m = ctx;
  *avail = m->got;
  if (m->fd < 0) return m->rc;
  for (;;) {
    if (m->hook != NULL) m->hook(m->ctx, m->fd, m->got);
    size_t want = m->len - m->got < m->piece ? m->len - m->got : m->piece;
    ssize_t r = read(m->fd, (char *)m->map + m->got, want);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0)
      return stop(m, cprof__errf(errbuf, errlen, CPROF_EIO, "cannot read %s: %s", m->path,
                                 strerror(errno)));
    if (r == 0) return stop(m, changed(m->path, errbuf, errlen)); /* ended before its size */
    m->got += (size_t)r;
    *avail = m->got;
    if (m->got < m->len) return 1;
    /* all read: the file must still be the one opened (not grown, not rewritten) */
    int rc = cprof__snap_unchanged(m, errbuf, errlen);
    if (rc != CPROF_OK) return rc;
    stop(m, CPROF_OK);
    return 1;
  }
}

int cprof__snap_read_all(cprof__snap_map_t *m, char *errbuf, size_t errlen) {
  size_t avail;
  int rc;
  while ((rc = cprof__snap_refill(m, &avail, errbuf, errlen)) > 0)
    ;
  return rc;
}

void cprof__snap_unload(cprof__snap_map_t *m) {
  if (m->fd >= 0) close(m->fd);
  m->fd = -1;
  if (m->map != NULL) munmap(m->map, m->len);
  m->map = NULL;
}

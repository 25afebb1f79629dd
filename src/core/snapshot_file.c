/* cprof_snapshot_report_file: the snapshot mapped read-only, not read into
 * a buffer. The reader passes over it once, front to back (MADV_SEQUENTIAL):
 * the kernel can drop pages behind it, so a snapshot larger than the free
 * memory still reads, and its text is never copied; the strings, at its
 * end, are read from it when the report names them. */
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
static void release(const char *text, size_t upto) {
  long page = sysconf(_SC_PAGESIZE);
  size_t n = page > 0 ? upto / (size_t)page * (size_t)page : 0;
  if (n > 0) (void)madvise((void *)(uintptr_t)text, n, MADV_DONTNEED);
}

int cprof_snapshot_report_file(const char *path, unsigned top, char **out, char *errbuf,
                               size_t errlen) {
  struct stat st;
  *out = NULL;
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
  int rc = cprof__snap_report(map, (size_t)st.st_size, top, release, out, errbuf, errlen);
  munmap(map, (size_t)st.st_size);
  return rc;
}

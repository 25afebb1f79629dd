/* Reading a file named by data (see read_file.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_CLOEXEC */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "internal.h"
#include "read_file.h"

int cprof__read_fd(int fd, size_t max, char **out, size_t *len, struct stat *st, char *errbuf,
                   size_t errlen) {
  int e = fstat(fd, st) != 0 ? errno : 0;
  if (e || !S_ISREG(st->st_mode))
    return cprof__errf(errbuf, errlen, CPROF_EIO, "%s", e ? strerror(e) : "not a regular file");
  if ((unsigned long long)st->st_size > max)
    return cprof__errf(errbuf, errlen, CPROF_EIO, "%lld bytes, over the %zu byte limit",
                       (long long)st->st_size, max);
  size_t n = (size_t)st->st_size, got = 0;
  char *buf = malloc(n + 1);
  if (!buf) return CPROF_ENOMEM;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break; /* shrank while reading: use what is there */
    got += (size_t)r;
  }
  buf[got] = '\0';
  *out = buf;
  *len = got;
  return CPROF_OK;
}

int cprof__read_regular(const char *path, size_t max, char **out, size_t *len, struct stat *st,
                        char *errbuf, size_t errlen) {
  /* O_NONBLOCK: a FIFO named in a profile or as a map must not block the
   * thread. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return cprof__errf(errbuf, errlen, CPROF_EIO, "%s", strerror(errno));
  int rc = cprof__read_fd(fd, max, out, len, st, errbuf, errlen);
  close(fd);
  return rc;
}

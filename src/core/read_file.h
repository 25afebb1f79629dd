/* Reading a file named by data (a profile, a script, a source map) without
 * trusting the name: only a regular file, never blocking, bounded. */
#ifndef CPROF_READ_FILE_H
#define CPROF_READ_FILE_H

#include <stddef.h>
#include <sys/stat.h>

/* Reads the regular file path of at most max bytes into *out (malloc'd,
 * NUL-terminated, *len bytes; a file that shrank while read gives what was
 * there) and its fstat into *st. CPROF_OK; CPROF_ENOMEM; CPROF_EIO when it
 * is missing, not a regular file (a FIFO is not opened for reading: no
 * block) or over max, with the reason in errbuf (may be NULL). */
int cprof__read_regular(const char *path, size_t max, char **out, size_t *len, struct stat *st,
                        char *errbuf, size_t errlen);

/* The same on an open fd (not closed). */
int cprof__read_fd(int fd, size_t max, char **out, size_t *len, struct stat *st, char *errbuf,
                   size_t errlen);

#endif

/* Removing a test's temporary directory and everything in it, for the
 * tests that make one (test_fsutil.c, test_sourcemap.c). Needs
 * _XOPEN_SOURCE 700 before the first system header, for nftw. */
#ifndef CPROF_TEST_RMTREE_H
#define CPROF_TEST_RMTREE_H

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

static inline int rmtree_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* Depth first, not following symlinks (a test may plant one). */
static inline void rmtree(const char *dir) {
  nftw(dir, rmtree_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif

/* Files as a profiler must write them: never a partial file under the final
 * name, never readable by other users. */
#ifndef CPROF_FSUTIL_H
#define CPROF_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "export.h"

/* Creates dir and its missing parents with the given mode (existing ones are
 * left as they are). */
int cprof_mkdirp(const char *dir, mode_t mode, char *errbuf, size_t errlen);

/* cprof_dir_prepare flags. CPROF_DIR_OWN: dir is cprof's default (not one
 * the user named), so it must be this user's private directory. */
#define CPROF_DIR_OWN 1

/* Makes dir ready for profiles: creates it and its missing parents (mode
 * 0700), then checks it. Any dir must be a directory (a symlink to one is
 * fine: the user named the path). With CPROF_DIR_OWN, dir itself (lstat)
 * must be a real directory, not a symlink, owned by the effective uid, and
 * not writable by group or others. Else CPROF_EIO and errbuf says what is
 * wrong and how to fix it. Directories that exist are never changed. */
int cprof_dir_prepare(const char *dir, int flags, char *errbuf, size_t errlen);

/* Writes p with fn to dir/name atomically: a temp file in dir created
 * exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, an unguessable name
 * .<name>.<12 random characters>), flushed with every write error checked,
 * then renamed over name. rename replaces whatever entry is at name, a
 * symlink included, and never writes through it. Readers and crashes of
 * this process see the old file or the complete new one, never a partial
 * file: that comes from temp + rename.
 * Nothing is fsync'd (neither the file nor the directory): fsync only
 * guards against power loss or an OS crash, and costs as much as the
 * whole export; after one, the new file may be empty or incomplete. On error
 * the temp file is removed, nothing exists under name that was not there
 * before, errbuf says what failed (with strerror), and CPROF_EIO is
 * returned with errno set to the system error (ENOSPC: the disk is full),
 * or the exporter's own code (e.g. CPROF_ENOMEM). *size_out gets
 * the file's size in bytes. */
/* Any writer: fn(ctx, f) writes the file's content to f. */
typedef int (*cprof_write_fn)(void *ctx, FILE *f);

/* cprof_write_atomic for any writer: same guarantees and errors. */
int cprof_write_atomic_fn(const char *dir, const char *name, cprof_write_fn fn, void *ctx,
                          long long *size_out, char *errbuf, size_t errlen);

/* cprof_write_atomic_fn that never replaces a file: the complete temp file
 * is hard-linked to name (link(2) fails with EEXIST instead of replacing,
 * atomically) and then unlinked. If something already exists under name,
 * even one created by another process after any earlier check, nothing is
 * written and CPROF_EEXIST is returned with errbuf naming the file. On a
 * file system without hard links (EPERM, ENOTSUP, ...) it falls back to
 * checking the name just before rename: that window is the only race. */
int cprof_write_new_fn(const char *dir, const char *name, cprof_write_fn fn, void *ctx,
                       long long *size_out, char *errbuf, size_t errlen);

/* dir/name, malloc'd; NULL when out of memory. */
char *cprof_path_join(const char *dir, const char *name);

int cprof_write_atomic(const char *dir, const char *name, cprof_exporter_fn fn,
                       const cprof_profile_t *p, long long *size_out, char *errbuf, size_t errlen);

#endif

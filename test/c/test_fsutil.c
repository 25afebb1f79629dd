/* cprof_mkdirp, cprof_dir_prepare and cprof_write_atomic. Tests usually run as root, where
 * permissions do not fail: write errors come from /dev/full instead. */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cprof.h"
#include "helpers.h"
#include "rmtree.h"

typedef struct {
  char dir[64];
  cprof_profile_t *p;
} fixture_t;

static int setup(void **state) {
  fixture_t *fx = calloc(1, sizeof(*fx));
  assert_non_null(fx);
  strcpy(fx->dir, "/tmp/cprof-test-XXXXXX");
  assert_non_null(mkdtemp(fx->dir));
  fx->p = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture_t *fx = *state;
  rmtree(fx->dir);
  cprof_profile_free(fx->p);
  free(fx);
  return 0;
}

/* Names in dir, excluding . and .., joined with spaces, sorted by nothing:
 * tests only ever expect zero or one entry. */
static int count_entries(const char *dir, char *first, size_t len) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  assert_non_null(d);
  first[0] = '\0';
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (n++ == 0) snprintf(first, len, "%s", e->d_name);
  }
  closedir(d);
  return n;
}

static void path_in(char *out, size_t len, const fixture_t *fx, const char *name) {
  snprintf(out, len, "%s/%s", fx->dir, name);
}

static void mkdirp_creates_parents(void **state) {
  fixture_t *fx = *state;
  char path[256], err[256] = "";
  struct stat st;
  path_in(path, sizeof(path), fx, "a/b//c/");
  assert_int_equal(cprof_mkdirp(path, 0700, err, sizeof(err)), 0);
  path_in(path, sizeof(path), fx, "a/b/c");
  assert_int_equal(stat(path, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(st.st_mode & 0777, 0700);
  /* Existing directories are fine. */
  assert_int_equal(cprof_mkdirp(path, 0700, err, sizeof(err)), 0);
  assert_int_equal(cprof_mkdirp("/", 0700, err, sizeof(err)), 0);
}

static void mkdirp_file_in_the_way(void **state) {
  fixture_t *fx = *state;
  char path[256], want[512], err[512] = "";
  path_in(path, sizeof(path), fx, "f");
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
  snprintf(want, sizeof(want), "cannot create directory %s: Not a directory", path);
  path_in(path, sizeof(path), fx, "f/g/h");
  assert_int_equal(cprof_mkdirp(path, 0700, err, sizeof(err)), CPROF_EIO);
  assert_string_equal(err, want);
  assert_int_equal(cprof_mkdirp("", 0700, err, sizeof(err)), CPROF_EINVAL);
  assert_int_equal(cprof_mkdirp(NULL, 0700, NULL, 0), CPROF_EINVAL);
}

static void write_atomic_writes_private_file(void **state) {
  fixture_t *fx = *state;
  char path[256], name[64], err[256] = "";
  long long size = -1;
  struct stat st;
  mode_t old = umask(0); /* 0600 must not depend on the umask */
  int rc = cprof_write_atomic(fx->dir, "out.cpuprofile", cprof_export_cpuprofile, fx->p, &size, err,
                              sizeof(err));
  umask(old);
  assert_int_equal(rc, 0);
  path_in(path, sizeof(path), fx, "out.cpuprofile");
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(size, (long long)st.st_size);
  assert_true(size > 1000);
  assert_int_equal(count_entries(fx->dir, name, sizeof(name)), 1);
  assert_string_equal(name, "out.cpuprofile");
  cprof_profile_t *q = parse_file(path);
  assert_int_equal(q->nnodes, fx->p->nnodes);
  assert_int_equal(q->nsamples, fx->p->nsamples);
  cprof_profile_free(q);
}

static void write_atomic_replaces_existing(void **state) {
  fixture_t *fx = *state;
  char path[256], err[256] = "";
  struct stat st;
  path_in(path, sizeof(path), fx, "out.cpuprofile");
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("old", f);
  fclose(f);
  assert_int_equal(chmod(path, 0644), 0);
  assert_int_equal(cprof_write_atomic(fx->dir, "out.cpuprofile", cprof_export_cpuprofile, fx->p,
                                      NULL, err, sizeof(err)),
                   0);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_true(st.st_size > 3);
}

static int write_text(void *ctx, FILE *f) {
  return fputs((const char *)ctx, f) >= 0 ? 0 : CPROF_EIO;
}

/* cprof_write_new_fn: writes a new file like cprof_write_atomic_fn, but a
 * file (or dangling symlink) already under the name stays as it was. */
static void write_new_never_replaces(void **state) {
  fixture_t *fx = *state;
  char path[256], link_path[256], want[512], err[512] = "", buf[16] = "";
  long long size = -1;
  struct stat st;
  path_in(path, sizeof(path), fx, "new.txt");
  assert_int_equal(
      cprof_write_new_fn(fx->dir, "new.txt", write_text, "first", &size, err, sizeof(err)), 0);
  assert_int_equal(size, 5);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(st.st_nlink, 1); /* the temp name is gone */
  assert_int_equal(
      cprof_write_new_fn(fx->dir, "new.txt", write_text, "second", &size, err, sizeof(err)),
      CPROF_EEXIST);
  snprintf(want, sizeof(want), "%s exists and was not replaced: remove it or write elsewhere",
           path);
  assert_string_equal(err, want);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  assert_non_null(fgets(buf, sizeof(buf), f));
  fclose(f);
  assert_string_equal(buf, "first");
  assert_int_equal(count_entries(fx->dir, buf, sizeof(buf)), 1); /* no temp file left */
  /* A dangling symlink is something in the way too. */
  path_in(link_path, sizeof(link_path), fx, "dangling");
  assert_int_equal(symlink("/nonexistent/cprof", link_path), 0);
  assert_int_equal(cprof_write_new_fn(fx->dir, "dangling", write_text, "x", NULL, err, sizeof(err)),
                   CPROF_EEXIST);
  assert_int_equal(lstat(link_path, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  /* The replacing writer still replaces. */
  assert_int_equal(
      cprof_write_atomic_fn(fx->dir, "new.txt", write_text, "third", &size, err, sizeof(err)), 0);
  assert_int_equal(size, 5);
}

static void write_atomic_missing_dir(void **state) {
  fixture_t *fx = *state;
  char dir[256], want[512], err[512] = "", name[64];
  long long size = -1;
  path_in(dir, sizeof(dir), fx, "does/not/exist");
  snprintf(want, sizeof(want), "cannot write %s/x.cpuprofile: No such file or directory", dir);
  assert_int_equal(cprof_write_atomic(dir, "x.cpuprofile", cprof_export_cpuprofile, fx->p, &size,
                                      err, sizeof(err)),
                   CPROF_EIO);
  assert_string_equal(err, want);
  assert_int_equal(size, -1);
  assert_int_equal(count_entries(fx->dir, name, sizeof(name)), 0);
}

/* An exporter that fails the way a full disk does. */
static int export_to_dev_full(const cprof_profile_t *p, FILE *f) {
  FILE *full = fopen("/dev/full", "w");
  if (full == NULL) return CPROF_EINVAL;
  fputs("{\"nodes\":[", f); /* something already in the temp file */
  int rc = cprof_export_cpuprofile(p, full);
  int e = errno;
  fclose(full);
  errno = e;
  return rc;
}

static int export_nomem(const cprof_profile_t *p, FILE *f) {
  (void)p;
  fputs("{", f);
  errno = 0;
  return CPROF_ENOMEM;
}

static int export_eio_no_errno(const cprof_profile_t *p, FILE *f) {
  (void)p;
  (void)f;
  errno = 0;
  return CPROF_EIO;
}

/* On failure: the error, no temp file, and the old file untouched. */
static void write_atomic_failure_leaves_no_trace(void **state) {
  fixture_t *fx = *state;
  char path[256], want[512], err[512] = "", name[64];
  path_in(path, sizeof(path), fx, "out.cpuprofile");
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("old", f);
  fclose(f);
  snprintf(want, sizeof(want), "cannot write %s: No space left on device", path);
  assert_int_equal(cprof_write_atomic(fx->dir, "out.cpuprofile", export_to_dev_full, fx->p, NULL,
                                      err, sizeof(err)),
                   CPROF_EIO);
  assert_string_equal(err, want);
  assert_int_equal(count_entries(fx->dir, name, sizeof(name)), 1);
  assert_string_equal(name, "out.cpuprofile");
  size_t len;
  char *text = read_all(path, &len);
  assert_string_equal(text, "old");
  free(text);
}

/* Non-I/O exporter errors keep their code; the message still says which
 * file. */
static void write_atomic_exporter_error(void **state) {
  fixture_t *fx = *state;
  char path[256], want[512], err[512] = "", name[64];
  path_in(path, sizeof(path), fx, "y.cpuprofile");
  snprintf(want, sizeof(want), "cannot write %s: out of memory", path);
  assert_int_equal(
      cprof_write_atomic(fx->dir, "y.cpuprofile", export_nomem, fx->p, NULL, err, sizeof(err)),
      CPROF_ENOMEM);
  assert_string_equal(err, want);
  snprintf(want, sizeof(want), "cannot write %s: file system error", path);
  assert_int_equal(cprof_write_atomic(fx->dir, "y.cpuprofile", export_eio_no_errno, fx->p, NULL,
                                      err, sizeof(err)),
                   CPROF_EIO);
  assert_string_equal(err, want);
  assert_int_equal(count_entries(fx->dir, name, sizeof(name)), 0);
}

static void write_atomic_read_only_dir(void **state) {
  fixture_t *fx = *state;
  char err[512] = "", name[64];
  if (geteuid() == 0) skip(); /* root writes anyway */
  assert_int_equal(chmod(fx->dir, 0500), 0);
  int rc = cprof_write_atomic(fx->dir, "z.cpuprofile", cprof_export_cpuprofile, fx->p, NULL, err,
                              sizeof(err));
  assert_int_equal(chmod(fx->dir, 0700), 0);
  assert_int_equal(rc, CPROF_EIO);
  assert_non_null(strstr(err, "Permission denied"));
  assert_int_equal(count_entries(fx->dir, name, sizeof(name)), 0);
}

static void write_atomic_bad_arguments(void **state) {
  fixture_t *fx = *state;
  char err[256];
  static const char *const names[] = {"", "a/b", ".", ".."};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    assert_int_equal(cprof_write_atomic(fx->dir, names[i], cprof_export_cpuprofile, fx->p, NULL,
                                        err, sizeof(err)),
                     CPROF_EINVAL);
  assert_int_equal(
      cprof_write_atomic(fx->dir, NULL, cprof_export_cpuprofile, fx->p, NULL, err, sizeof(err)),
      CPROF_EINVAL);
  assert_int_equal(cprof_write_atomic(fx->dir, "x", NULL, fx->p, NULL, err, sizeof(err)),
                   CPROF_EINVAL);
  assert_int_equal(cprof_write_atomic("", "x", cprof_export_cpuprofile, fx->p, NULL, NULL, 0),
                   CPROF_EINVAL);
}

/* ---- cprof_dir_prepare: the default directory must be the user's own ---- */

static int prepare(const fixture_t *fx, const char *sub, int flags, char *err, size_t len) {
  char dir[256];
  path_in(dir, sizeof(dir), fx, sub);
  return cprof_dir_prepare(dir, flags, err, len);
}

static void dir_prepare_creates_private_dir(void **state) {
  fixture_t *fx = *state;
  char path[256], err[512] = "";
  struct stat st;
  assert_int_equal(prepare(fx, "own/sub", CPROF_DIR_OWN, err, sizeof(err)), 0);
  path_in(path, sizeof(path), fx, "own/sub");
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(st.st_mode & 0777, 0700);
  /* Again, now that it exists: still fine, and unchanged. */
  assert_int_equal(prepare(fx, "own/sub", CPROF_DIR_OWN, err, sizeof(err)), 0);
  assert_int_equal(prepare(fx, "own/sub", 0, err, sizeof(err)), 0);
}

static void dir_prepare_refuses_symlink(void **state) {
  fixture_t *fx = *state;
  char path[256], target[256], want[600], err[512] = "";
  path_in(target, sizeof(target), fx, "elsewhere");
  assert_int_equal(mkdir(target, 0700), 0);
  path_in(path, sizeof(path), fx, "link");
  assert_int_equal(symlink(target, path), 0);
  snprintf(want, sizeof(want),
           "refusing to write into %s: it is a symbolic link, not a directory, so another user "
           "could read, replace or redirect what cprof writes there. Remove it, or pass dir (or "
           "set CPROF_DIR) to a directory you own",
           path);
  assert_int_equal(prepare(fx, "link", CPROF_DIR_OWN, err, sizeof(err)), CPROF_EIO);
  assert_string_equal(err, want);
  /* A directory the user named may be a symlink to one. */
  assert_int_equal(prepare(fx, "link", 0, err, sizeof(err)), 0);
  /* A dangling symlink: mkdir does not create its target, nothing is made. */
  char name[64];
  assert_int_equal(rmdir(target), 0);
  assert_int_equal(prepare(fx, "link", CPROF_DIR_OWN, err, sizeof(err)), CPROF_EIO);
  assert_int_equal(count_entries(fx->dir, name, sizeof(name)), 1);
  assert_string_equal(name, "link");
}

static void dir_prepare_refuses_writable_by_others(void **state) {
  fixture_t *fx = *state;
  char path[256], err[512] = "";
  path_in(path, sizeof(path), fx, "shared");
  assert_int_equal(mkdir(path, 0700), 0);
  assert_int_equal(chmod(path, 0777), 0);
  assert_int_equal(prepare(fx, "shared", CPROF_DIR_OWN, err, sizeof(err)), CPROF_EIO);
  assert_non_null(strstr(err, "it can be written by other users (mode 0777)"));
  assert_int_equal(chmod(path, 01777), 0); /* sticky, as /tmp: still not private */
  assert_int_equal(prepare(fx, "shared", CPROF_DIR_OWN, err, sizeof(err)), CPROF_EIO);
  assert_non_null(strstr(err, "(mode 1777)"));
  assert_int_equal(chmod(path, 0770), 0);
  assert_int_equal(prepare(fx, "shared", CPROF_DIR_OWN, err, sizeof(err)), CPROF_EIO);
  assert_non_null(strstr(err, "it can be written by its group (mode 0770)"));
  /* Left as it was: cprof never changes a directory it did not create. */
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0770);
  /* A directory the user named: its mode is their choice. */
  assert_int_equal(prepare(fx, "shared", 0, err, sizeof(err)), 0);
  assert_int_equal(chmod(path, 0755), 0);
  assert_int_equal(prepare(fx, "shared", CPROF_DIR_OWN, err, sizeof(err)), 0);
}

static void dir_prepare_refuses_other_owner(void **state) {
  fixture_t *fx = *state;
  char path[256], want[128], err[512] = "";
  if (geteuid() != 0) skip(); /* only root can give a directory away */
  path_in(path, sizeof(path), fx, "theirs");
  assert_int_equal(mkdir(path, 0700), 0);
  assert_int_equal(chown(path, 54321, 54321), 0);
  snprintf(want, sizeof(want), "it is owned by another user (uid 54321, you are uid %ld)",
           (long)geteuid());
  assert_int_equal(prepare(fx, "theirs", CPROF_DIR_OWN, err, sizeof(err)), CPROF_EIO);
  assert_non_null(strstr(err, want));
  assert_int_equal(prepare(fx, "theirs", 0, err, sizeof(err)), 0);
}

static void dir_prepare_not_a_directory(void **state) {
  fixture_t *fx = *state;
  char path[256], err[512] = "";
  path_in(path, sizeof(path), fx, "file");
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
  assert_int_equal(prepare(fx, "file", CPROF_DIR_OWN, err, sizeof(err)), CPROF_EIO);
  assert_non_null(strstr(err, "Not a directory"));
  assert_int_equal(prepare(fx, "file", 0, err, sizeof(err)), CPROF_EIO);
  assert_int_equal(cprof_dir_prepare("", 0, err, sizeof(err)), CPROF_EINVAL);
}

/* ---- cprof_write_atomic never writes through a symlink ---- */

static void write_atomic_replaces_symlink_at_final_name(void **state) {
  fixture_t *fx = *state;
  char path[256], target[256], err[256] = "";
  struct stat st;
  path_in(target, sizeof(target), fx, "target");
  FILE *f = fopen(target, "w");
  assert_non_null(f);
  fputs("precious", f);
  fclose(f);
  path_in(path, sizeof(path), fx, "out.cpuprofile");
  assert_int_equal(symlink(target, path), 0);
  assert_int_equal(cprof_write_atomic(fx->dir, "out.cpuprofile", cprof_export_cpuprofile, fx->p,
                                      NULL, err, sizeof(err)),
                   0);
  /* The symlink is gone, replaced by the profile; its target is untouched. */
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISREG(st.st_mode));
  assert_int_equal(st.st_mode & 0777, 0600);
  size_t len;
  char *text = read_all(target, &len);
  assert_string_equal(text, "precious");
  free(text);
}

typedef struct {
  const char *dir;
  char temp[256];
  mode_t mode;
  int regular, cloexec, entries;
} peek_t;

/* A writer that looks at the temp file while it is being written. */
static int peek_temp(void *ctx, FILE *out) {
  peek_t *pk = ctx;
  DIR *d = opendir(pk->dir);
  struct dirent *e;
  char path[600];
  struct stat st;
  if (d == NULL) return CPROF_EIO;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, ".out.txt.", 9) != 0) continue;
    pk->entries++;
    snprintf(pk->temp, sizeof(pk->temp), "%s", e->d_name);
    snprintf(path, sizeof(path), "%s/%s", pk->dir, e->d_name);
    if (lstat(path, &st) == 0) {
      pk->mode = st.st_mode & 07777;
      pk->regular = S_ISREG(st.st_mode);
    }
  }
  closedir(d);
  int fl = fcntl(fileno(out), F_GETFD);
  pk->cloexec = fl >= 0 && (fl & FD_CLOEXEC);
  return fputs("hello\n", out) < 0 ? CPROF_EIO : CPROF_OK;
}

static void write_atomic_temp_is_private_and_unguessable(void **state) {
  fixture_t *fx = *state;
  char err[256] = "", name[64];
  peek_t a = {.dir = fx->dir}, b = {.dir = fx->dir};
  mode_t old = umask(0);
  assert_int_equal(cprof_write_atomic_fn(fx->dir, "out.txt", peek_temp, &a, NULL, err, sizeof(err)),
                   0);
  assert_int_equal(cprof_write_atomic_fn(fx->dir, "out.txt", peek_temp, &b, NULL, err, sizeof(err)),
                   0);
  umask(old);
  for (const peek_t *pk = &a; pk != NULL; pk = pk == &a ? &b : NULL) {
    assert_int_equal(pk->entries, 1);
    assert_true(pk->regular);
    assert_int_equal(pk->mode, 0600);
    assert_true(pk->cloexec);
    /* .<name>.<pid>.<12 random>: the pid tells a later writer whether the
     * process that made it is gone (lib/stale-temps.js). */
    char prefix[64];
    snprintf(prefix, sizeof prefix, ".out.txt.%ld.", (long)getpid());
    assert_int_equal(strncmp(pk->temp, prefix, strlen(prefix)), 0);
    assert_int_equal(strlen(pk->temp), strlen(prefix) + 12);
  }
  /* Random, not derived from the pid or a counter a neighbour could guess. */
  assert_string_not_equal(a.temp, b.temp);
  assert_int_equal(count_entries(fx->dir, name, sizeof(name)), 1);
  assert_string_equal(name, "out.txt");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(mkdirp_creates_parents, setup, teardown),
      cmocka_unit_test_setup_teardown(mkdirp_file_in_the_way, setup, teardown),
      cmocka_unit_test_setup_teardown(write_atomic_writes_private_file, setup, teardown),
      cmocka_unit_test_setup_teardown(write_atomic_replaces_existing, setup, teardown),
      cmocka_unit_test_setup_teardown(write_new_never_replaces, setup, teardown),
      cmocka_unit_test_setup_teardown(write_atomic_missing_dir, setup, teardown),
      cmocka_unit_test_setup_teardown(write_atomic_failure_leaves_no_trace, setup, teardown),
      cmocka_unit_test_setup_teardown(write_atomic_exporter_error, setup, teardown),
      cmocka_unit_test_setup_teardown(write_atomic_read_only_dir, setup, teardown),
      cmocka_unit_test_setup_teardown(write_atomic_bad_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(dir_prepare_creates_private_dir, setup, teardown),
      cmocka_unit_test_setup_teardown(dir_prepare_refuses_symlink, setup, teardown),
      cmocka_unit_test_setup_teardown(dir_prepare_refuses_writable_by_others, setup, teardown),
      cmocka_unit_test_setup_teardown(dir_prepare_refuses_other_owner, setup, teardown),
      cmocka_unit_test_setup_teardown(dir_prepare_not_a_directory, setup, teardown),
      cmocka_unit_test_setup_teardown(write_atomic_replaces_symlink_at_final_name, setup, teardown),
      cmocka_unit_test_setup_teardown(write_atomic_temp_is_private_and_unguessable, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

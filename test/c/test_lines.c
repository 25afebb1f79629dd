/* Self time per line (lines.c): positionTicks parsed into the model, the
 * split rule, and per-function sums that equal the function's self. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, mkfifo */
#endif
#include "helpers.h"

#include <sys/stat.h>
#include <unistd.h>

#include "source.h"

/* clang-format off */
#define F(name) "'callFrame':{'functionName':'" name "','scriptId':'1','url':'/app/u.js','lineNumber':3,'columnNumber':0}"
#define ROOT "'callFrame':{'functionName':'(root)','url':''}"
/* clang-format on */

/* Floors, and the remainder to the line with the most ticks. */
static void split_adds_up(void **state) {
  (void)state;
  uint32_t t[] = {1, 2};
  int64_t s[2];
  cprof_lines_split(10, t, 2, s);
  assert_int_equal(s[0], 3);
  assert_int_equal(s[1], 7);
  uint32_t u[] = {3, 3, 3};
  int64_t v[3];
  cprof_lines_split(100, u, 3, v);
  assert_int_equal(v[0], 34); /* equal ticks: the first takes the remainder */
  assert_int_equal(v[1] + v[2], 66);
  uint32_t big[] = {UINT32_MAX, 1};
  int64_t w[2];
  cprof_lines_split(INT64_C(1) << 53, big, 2, w);
  assert_true(w[0] + w[1] == INT64_C(1) << 53);
  assert_true(w[1] >= 0);
}

static const cprof_line_t *line_of(const cprof_lines_t *l, uint32_t f, int32_t line) {
  for (uint32_t i = l->first[f]; i < l->first[f + 1]; i++)
    if (l->lines[i].line == line) return &l->lines[i];
  return NULL;
}

static uint32_t func_index(const cprof_flat_t *flat, const cprof_profile_t *p, const char *name) {
  for (uint32_t i = 0; i < flat->nfuncs; i++)
    if (strcmp(p->frames[flat->funcs[i].frame].name, name) == 0) return i;
  fail_msg("no function %s", name);
  return 0;
}

/* A under root twice (two nodes), B without positionTicks: A's lines sum
 * over both nodes and add up to A's self; B's time is on line 0. */
static void lines_per_function(void **state) {
  (void)state;
  /* clang-format off */
  cprof_profile_t *p = parse_ok(
      "{'nodes':[{'id':1," ROOT ",'children':[2,3]},"
      "{'id':2," F("A") ",'children':[4],'positionTicks':[{'line':5,'ticks':1},{'line':7,'ticks':3}]},"
      "{'id':4," F("B") "},"
      "{'id':3," F("A") ",'positionTicks':[{'line':7,'ticks':1},{'line':'x','ticks':1},{'ticks':2}]}],"
      "'startTime':0,'endTime':80,'samples':[2,2,2,2,3,4,4],'timeDeltas':[10,10,10,10,10,10,10]}");
  /* clang-format on */
  assert_int_equal(p->nline_ticks, 3); /* malformed entries left out */
  cprof_flat_t flat;
  cprof_lines_t l;
  assert_int_equal(cprof_flat_build(p, &flat), 0);
  assert_int_equal(cprof_lines_build(p, &flat, NULL, &l), 0);
  uint32_t a = func_index(&flat, p, "A"), b = func_index(&flat, p, "B");
  assert_int_equal(flat.funcs[a].self, 50);
  assert_int_equal(line_of(&l, a, 5)->self, 10);
  assert_int_equal(line_of(&l, a, 7)->self, 40);
  assert_string_equal(line_of(&l, a, 7)->url, "/app/u.js");
  assert_int_equal(l.first[a + 1] - l.first[a], 2);
  assert_int_equal(line_of(&l, b, 0)->self, 20);
  int64_t sum = 0;
  for (uint32_t i = l.first[a]; i < l.first[a + 1]; i++)
    sum += l.lines[i].self;
  assert_int_equal(sum, flat.funcs[a].self);
  cprof_lines_free(&l);
  /* Only the wanted functions. */
  unsigned char *want = calloc(flat.nfuncs, 1);
  want[b] = 1;
  assert_int_equal(cprof_lines_build(p, &flat, want, &l), 0);
  assert_int_equal(l.first[a + 1] - l.first[a], 0);
  assert_int_equal(l.first[b + 1] - l.first[b], 1);
  free(want);
  cprof_lines_free(&l);
  cprof_flat_free(&flat);
  cprof_profile_free(p);
}

/* Uneven sample weights: the node's self, not its tick count, is split. */
static void split_is_of_time(void **state) {
  (void)state;
  /* clang-format off */
  cprof_profile_t *p = parse_ok(
      "{'nodes':[{'id':1," ROOT ",'children':[2]},"
      "{'id':2," F("A") ",'positionTicks':[{'line':1,'ticks':1},{'line':2,'ticks':1},{'line':3,'ticks':1}]}],"
      "'startTime':0,'endTime':100,'samples':[2,2,2],'timeDeltas':[0,50,50]}");
  /* clang-format on */
  cprof_flat_t flat;
  cprof_lines_t l;
  assert_int_equal(cprof_flat_build(p, &flat), 0);
  assert_int_equal(cprof_lines_build(p, &flat, NULL, &l), 0);
  uint32_t a = func_index(&flat, p, "A");
  int64_t sum = 0;
  for (uint32_t i = l.first[a]; i < l.first[a + 1]; i++)
    sum += l.lines[i].self;
  assert_int_equal(flat.funcs[a].self, 100);
  assert_int_equal(sum, 100);
  assert_int_equal(line_of(&l, a, 1)->self, 34);
  cprof_lines_free(&l);
  cprof_flat_free(&flat);
  cprof_profile_free(p);
}

/* Only regular files: a FIFO or a device named by a hostile profile is
 * refused at once, never waited on or read without end. */
static void source_reads_regular_files_only(void **state) {
  (void)state;
  char dir[] = "/tmp/cprof-lines-XXXXXX", fifo[64], file[64];
  assert_non_null(mkdtemp(dir));
  snprintf(fifo, sizeof fifo, "%s/fifo.js", dir);
  snprintf(file, sizeof file, "%s/a.js", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  FILE *f = fopen(file, "w");
  fputs("line one\r\nline two\n", f);
  fclose(f);
  cprof__source_t s;
  assert_int_equal(cprof__source_read(fifo, NULL, NULL, &s, NULL, 0), CPROF_EIO);
  assert_int_equal(cprof__source_read("/dev/zero", NULL, NULL, &s, NULL, 0), CPROF_EIO);
  assert_int_equal(cprof__source_read("node:internal/x", NULL, NULL, &s, NULL, 0), CPROF_EIO);
  /* Not named like source code: never read (a profile naming a secret). */
  char notsrc[80];
  snprintf(notsrc, sizeof notsrc, "%s/id_rsa", dir);
  FILE *k = fopen(notsrc, "w");
  fputs("secret\n", k);
  fclose(k);
  assert_int_equal(cprof__source_read(notsrc, NULL, NULL, &s, NULL, 0), CPROF_EIO);
  unlink(notsrc);
  char url[80];
  snprintf(url, sizeof url, "file://%s", file);
  assert_int_equal(cprof__source_read(url, NULL, NULL, &s, NULL, 0), CPROF_OK);
  const char *t;
  size_t n;
  assert_true(cprof__source_line(&s, 1, &t, &n));
  assert_int_equal(n, 8);
  assert_memory_equal(t, "line one", 8);
  assert_true(cprof__source_line(&s, 2, &t, &n));
  assert_memory_equal(t, "line two", 8);
  assert_false(cprof__source_line(&s, 4, &t, &n));
  cprof__source_free(&s);
  unlink(fifo);
  unlink(file);
  rmdir(dir);
}

/* A file not on disk reads from a map's sourcesContent; the file on disk,
 * when there is one, wins; the texts' budget holds. */
static void source_falls_back_to_map_texts(void **state) {
  (void)state;
  cprof_source_texts_t t = {0};
  static const char K1[] = "k1", K2[] = "k2";
  assert_int_equal(cprof__source_texts_add(&t, K1, "/no/such/gone.ts", "a\nb: number\n"), 0);
  assert_int_equal(cprof__source_texts_add(&t, K2, "/no/such/gone.ts", "other"), 0);
  assert_int_equal(t.n, 1); /* one text per url */
  cprof__source_t s;
  assert_int_equal(cprof__source_read("/no/such/gone.ts", NULL, NULL, &s, NULL, 0), CPROF_EIO);
  assert_int_equal(cprof__source_read("/no/such/gone.ts", &t, NULL, &s, NULL, 0), CPROF_OK);
  const char *line;
  size_t n;
  assert_true(cprof__source_line(&s, 2, &line, &n));
  assert_int_equal(n, 9);
  assert_memory_equal(line, "b: number", 9);
  cprof__source_free(&s);
  assert_int_equal(cprof__source_read("/no/such/other.ts", &t, NULL, &s, NULL, 0), CPROF_EIO);
  cprof__source_texts_free(&t);
}

/* A file of text in dir/name with mode; its path in out. */
static void put_file(char *out, size_t n, const char *dir, const char *name, const char *text,
                     mode_t mode) {
  snprintf(out, n, "%s/%s", dir, name);
  FILE *f = fopen(out, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  assert_int_equal(chmod(out, mode), 0);
}

/* Issue 36: the name in the profile says .js, the file read is whatever
 * its links end at. A link x.js to a secret not named like source code is
 * refused with the reason; a link a.js to a real .js file reads. */
static void source_links_resolved(void **state) {
  (void)state;
  char dir[] = "/tmp/cprof-lines-XXXXXX", secret[96], real[96], link[96], why[160];
  assert_non_null(mkdtemp(dir));
  put_file(secret, sizeof secret, dir, "shadow", "MARKER-secret\n", 0600);
  put_file(real, sizeof real, dir, "real.ts", "ok\n", 0644);
  snprintf(link, sizeof link, "%s/x.js", dir);
  assert_int_equal(symlink(secret, link), 0);
  cprof__source_t s;
  assert_int_equal(cprof__source_read(link, NULL, NULL, &s, why, sizeof why), CPROF_EIO);
  assert_null(s.text);
  assert_non_null(strstr(why, "a link to a file not named like source code"));
  unlink(link);
  assert_int_equal(symlink(real, link), 0);
  assert_int_equal(cprof__source_read(link, NULL, NULL, &s, why, sizeof why), CPROF_OK);
  assert_string_equal(s.text, "ok\n");
  assert_string_equal(why, "");
  cprof__source_free(&s);
  /* a missing file says no reason: it is not there */
  assert_int_equal(cprof__source_read("/no/such/file.js", NULL, NULL, &s, why, sizeof why),
                   CPROF_EIO);
  assert_string_equal(why, "");
  unlink(link);
  unlink(secret);
  unlink(real);
  rmdir(dir);
}

/* Issue 36: another user's profile shows only the files that user could
 * read: the file's mode bits for them (owner, group, others, as the kernel
 * picks), and every directory on the real path searchable by them. Run as
 * root (as the security suite is) to chown; else the owner bits alone. */
static void source_only_what_the_owner_reads(void **state) {
  (void)state;
  const uint32_t U = 54321, G = 54322;
  cprof_source_owners_t o = {1, 0, {U}, {G}};
  char top[] = "/tmp/cprof-lines-XXXXXX", closed[96], path[128], why[160];
  assert_non_null(mkdtemp(top));
  assert_int_equal(chmod(top, 0755), 0);
  cprof__source_t s;
  put_file(path, sizeof path, top, "open.js", "open\n", 0644);
  assert_int_equal(cprof__source_read(path, NULL, &o, &s, why, sizeof why), CPROF_OK);
  cprof__source_free(&s);
  unlink(path);
  put_file(path, sizeof path, top, "secret.js", "MARKER\n", 0600);
  assert_int_equal(cprof__source_read(path, NULL, &o, &s, why, sizeof why), CPROF_EIO);
  assert_null(s.text);
  assert_non_null(strstr(why, "the profile's owner (uid 54321) cannot read it"));
  /* the reader's own profile (no owners): shown */
  assert_int_equal(cprof__source_read(path, NULL, NULL, &s, why, sizeof why), CPROF_OK);
  cprof__source_free(&s);
  /* through a link named .js, the same */
  char link[96];
  snprintf(link, sizeof link, "%s/x.js", top);
  assert_int_equal(symlink(path, link), 0);
  assert_int_equal(cprof__source_read(link, NULL, &o, &s, why, sizeof why), CPROF_EIO);
  assert_non_null(strstr(why, "cannot read it"));
  unlink(link);
  unlink(path);
  /* world-readable, in a directory closed to them */
  snprintf(closed, sizeof closed, "%s/closed", top);
  assert_int_equal(mkdir(closed, 0700), 0);
  put_file(path, sizeof path, closed, "app.js", "MARKER\n", 0644);
  assert_int_equal(cprof__source_read(path, NULL, &o, &s, why, sizeof why), CPROF_EIO);
  assert_non_null(strstr(why, "cannot reach it: a directory on its path is closed to them"));
  if (geteuid() == 0) {
    /* theirs by owner, then by group: shown */
    assert_int_equal(chown(closed, U, 0), 0);
    assert_int_equal(chown(path, U, 0), 0);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(cprof__source_read(path, NULL, &o, &s, why, sizeof why), CPROF_OK);
    cprof__source_free(&s);
    assert_int_equal(chown(path, 0, G), 0);
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(cprof__source_read(path, NULL, &o, &s, why, sizeof why), CPROF_OK);
    cprof__source_free(&s);
    /* owner bits win over the others': owned by them, mode 0066 */
    assert_int_equal(chown(path, U, G), 0);
    assert_int_equal(chmod(path, 0066), 0);
    assert_int_equal(cprof__source_read(path, NULL, &o, &s, why, sizeof why), CPROF_EIO);
  }
  /* more owners than are checked: nothing shown */
  cprof_source_owners_t many = {0};
  for (uint32_t u = 1000; u < 1000 + CPROF_SOURCE_OWNERS_MAX + 1; u++)
    cprof_source_owners_add(&many, u, u);
  assert_true(many.too_many);
  put_file(path, sizeof path, top, "open.js", "open\n", 0644);
  assert_int_equal(cprof__source_read(path, NULL, &many, &s, why, sizeof why), CPROF_EIO);
  assert_non_null(strstr(why, "more than"));
  /* the reader and root are never added */
  cprof_source_owners_t none = {0};
  cprof_source_owners_add(&none, (uint32_t)geteuid(), 0);
  cprof_source_owners_add(&none, 0, 0);
  assert_int_equal(none.n, 0);
  unlink(path);
  snprintf(path, sizeof path, "%s/app.js", closed);
  unlink(path);
  rmdir(closed);
  rmdir(top);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(split_adds_up),
      cmocka_unit_test(lines_per_function),
      cmocka_unit_test(split_is_of_time),
      cmocka_unit_test(source_reads_regular_files_only),
      cmocka_unit_test(source_falls_back_to_map_texts),
      cmocka_unit_test(source_links_resolved),
      cmocka_unit_test(source_only_what_the_owner_reads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

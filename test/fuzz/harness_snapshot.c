/* One fuzz iteration over the .heapsnapshot reader and analysis, shared by
 * the libFuzzer target (fuzz_snapshot.c) and the cmocka replay of its
 * corpus and regressions (test/c/test_fuzz_replay_snapshot.c):
 *
 *   bytes → cprof__snap_analyse (parse, closures' locations, graph,
 *           detachedness, shallow sizes, dominators) → classes
 *   bytes → cprof_snapshot_report (the JSON report)
 *   bytes → cprof_snapshot_view (the viewer's data: every table index in
 *           the table)
 *   bytes → cprof_snapshot_diff: the input cut at its NUL bytes into up to
 *           three snapshots A, B, C (no NUL: the input three times)
 *   bytes → a file read by snapshot_file.c in small pieces: read whole,
 *           the text read must be the input; read as the parse needs it
 *           (the reader's refill at every piece's end) with the text behind
 *           the parse given back, its report (or error message) must be the
 *           input's in memory, unchanged; then truncated (shrinking) or
 *           grown at a point the input picks between two pieces: CPROF_EIO
 *           naming the file once the parse reached that piece, the
 *           in-memory result when it stopped before (issue 36: a mapped
 *           file was a SIGBUS)
 *
 * Oracles besides the sanitizers: a parse either succeeds or fails with
 * EPARSE/ESCHEMA and a message; locations name closures, one each, in
 * node order; every dominator is a node; a node's
 * retained size is at least its own size and at most its dominator's; the
 * root retains the sum of all shallow sizes it dominates; the report, when
 * made, is valid JSON; a snapshot diffed with itself has nothing new. */
#define _GNU_SOURCE
#include <stdint.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "fuzz_check.h"
#include "heapsnapshot.h"
#include "snapshot.h"

/* #cond here: passed on to FUZZ_CHECK it would be macro-expanded first
 * (CPROF_OK as 0) in the message. */
#define SNAP_FUZZ_CHECK(cond)                                                                      \
  do {                                                                                             \
    if (!(cond)) FUZZ_FAIL(#cond, "heap snapshot");                                                \
  } while (0)

/* The dominator tree, as its children lists: every node but the root
 * some node's child once, of a node that retains at least as much. */
static void check_tree(const cprof__snap_t *s) {
  uint64_t total = 0, children = 0;
  for (uint32_t d = 0; d < s->node_count; d++) {
    total += cprof__snap_self(s, d);
    SNAP_FUZZ_CHECK(s->retained[d] >= cprof__snap_self(s, d));
    for (uint32_t i = s->dom_child[d]; i != CPROF__SNAP_NONE; i = s->dom_next[i]) {
      SNAP_FUZZ_CHECK(i < s->node_count && i != s->root && ++children < s->node_count);
      SNAP_FUZZ_CHECK(s->retained[d] >= s->retained[i]);
    }
  }
  SNAP_FUZZ_CHECK(children == s->node_count - 1);
  SNAP_FUZZ_CHECK(s->retained[s->root] == total);
  cprof__snap_class_t *cls = NULL;
  uint32_t n = 0;
  if (cprof__snap_classes(s, &cls, &n) != CPROF_OK) return;
  uint64_t self = 0;
  for (uint32_t i = 0; i < n; i++) {
    SNAP_FUZZ_CHECK(cls[i].count > 0 && cls[i].retained >= cls[i].self);
    self += cls[i].self;
  }
  SNAP_FUZZ_CHECK(self == total);
  free(cls);
}

static void analyse(const char *text, size_t len) {
  cprof__snap_t s;
  char err[256] = "";
  int rc = cprof__snap_analyse(text, len, NULL, &s, err, sizeof err);
  SNAP_FUZZ_CHECK(rc == CPROF_OK || rc == CPROF_EPARSE || rc == CPROF_ESCHEMA ||
                  rc == CPROF_ENOMEM);
  SNAP_FUZZ_CHECK(rc == CPROF_OK || err[0] != '\0');
  if (rc == CPROF_OK) check_tree(&s);
  /* closures' locations: closures only, one each, by node */
  for (uint32_t i = 0; rc == CPROF_OK && i < s.loc_count; i++) {
    SNAP_FUZZ_CHECK(s.loc[i].node < s.node_count &&
                    cprof__snap_ntype(&s, s.loc[i].node) == s.t_closure);
    SNAP_FUZZ_CHECK(i == 0 || s.loc[i - 1].node < s.loc[i].node);
    SNAP_FUZZ_CHECK(cprof__snap_location(&s, s.loc[i].node) == &s.loc[i]);
    SNAP_FUZZ_CHECK(s.loc[i].url == CPROF__SNAP_NONE || s.loc[i].url < s.str_count);
  }
  SNAP_FUZZ_CHECK(rc != CPROF_OK || s.locations == NULL);
  cprof__snap_free(&s);
}

static void report(const char *text, size_t len) {
  char *out = NULL, err[256] = "";
  if (cprof_snapshot_report(text, len, 3, &out, err, sizeof err) != CPROF_OK) {
    SNAP_FUZZ_CHECK(out == NULL);
    return;
  }
  cJSON *doc = cJSON_Parse(out);
  SNAP_FUZZ_CHECK(doc != NULL);
  cJSON_Delete(doc);
  free(out);
}

/* Every retainer of the view's table points into the table. */
static void view(const char *text, size_t len) {
  char *out = NULL, err[256] = "";
  if (cprof_snapshot_view(text, len, 3, &out, err, sizeof err) != CPROF_OK) {
    SNAP_FUZZ_CHECK(out == NULL);
    return;
  }
  cJSON *doc = cJSON_Parse(out), *e, *r;
  SNAP_FUZZ_CHECK(doc != NULL);
  int n = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "table"));
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "table")) {
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(e, "retainers")) {
      SNAP_FUZZ_CHECK(cJSON_GetArrayItem(r, 2)->valuedouble < n);
    }
  }
  cJSON_Delete(doc);
  free(out);
}

static double count_of(const cJSON *doc, const char *which) {
  const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, which), "count");
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void diff(const char *text, size_t len) {
  const char *texts[3] = {text, text, text};
  size_t lens[3] = {len, len, len};
  unsigned n = 0;
  for (const char *p = text, *end = text + len; n < 3;) {
    const char *nul = memchr(p, '\0', (size_t)(end - p));
    texts[n] = p;
    lens[n++] = (size_t)((nul ? nul : end) - p);
    if (nul == NULL) break;
    p = nul + 1;
  }
  int itself = n == 1;
  if (itself) n = 3, lens[1] = lens[2] = len; /* no NUL: the input against itself */
  char *out = NULL, err[512] = "";
  int rc = cprof_snapshot_diff(texts, lens, n, 3, &out, err, sizeof err);
  SNAP_FUZZ_CHECK(rc == CPROF_OK || rc == CPROF_EPARSE || rc == CPROF_ESCHEMA ||
                  rc == CPROF_ENOMEM);
  if (rc != CPROF_OK) {
    SNAP_FUZZ_CHECK(out == NULL && err[0] != '\0');
    return;
  }
  cJSON *doc = cJSON_Parse(out);
  SNAP_FUZZ_CHECK(doc != NULL);
  if (itself) SNAP_FUZZ_CHECK(count_of(doc, "added") == 0 && count_of(doc, "leaked") == 0);
  cJSON_Delete(doc);
  free(out);
}

/* ---- the file reader (snapshot_file.c) on a file that changes ---- */

typedef struct {
  const char *path;
  size_t at; /* truncate (or grow) before the piece that starts at or after this */
  off_t to;  /* the new size; -1: grown by a byte */
  int done;
} change_t;

static void change_hook(void *ctx, int fd, size_t done) {
  (void)fd;
  change_t *c = ctx;
  if (c->done || done < c->at) return;
  c->done = 1;
  if (c->to >= 0) {
    SNAP_FUZZ_CHECK(truncate(c->path, c->to) == 0);
  } else {
    FILE *f = fopen(c->path, "ab");
    SNAP_FUZZ_CHECK(f != NULL);
    fputc(' ', f);
    fclose(f);
  }
}

static int write_file(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return -1;
  int ok = fwrite(text, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static void file_read(const char *text, size_t len) {
  char path[64] = "/tmp/cprof-fuzz-snapshot-XXXXXX", err[512] = "";
  int fd = mkstemp(path);
  if (fd < 0) return;
  close(fd);
  if (len == 0 || write_file(path, text, len) != 0) {
    unlink(path);
    return;
  }
  /* pieces of 1 to 64 bytes, and the point where the file changes, from
   * the input's first and last bytes */
  size_t piece = 1 + (unsigned char)text[0] % 64, at = (unsigned char)text[len - 1] * len / 256;
  cprof__snap_map_t m;
  int rc = cprof__snap_load_hooked(path, &m, piece, NULL, NULL, err, sizeof err);
  SNAP_FUZZ_CHECK(rc == CPROF_OK || rc == CPROF_ENOMEM);
  if (rc == CPROF_OK) {
    SNAP_FUZZ_CHECK(cprof__snap_read_all(&m, err, sizeof err) == CPROF_OK);
    SNAP_FUZZ_CHECK(m.got == len && memcmp(m.map, text, len) == 0);
  }
  cprof__snap_unload(&m);
  /* the report of the file read as the parse needs it (a refill at every
   * piece's end), with the text behind the parse given back, is the report
   * of the input in memory, message and all: unchanged, or changed before a
   * piece the parse never asked for */
  char *b = NULL, e2[512] = "";
  int rb = cprof_snapshot_report(text, len, 3, &b, e2, sizeof e2);
  off_t tos[3] = {0, (off_t)(at / 2), -1};
  for (int i = 0; i < 3; i++) {
    change_t c = {path, at, tos[i], 0};
    if (write_file(path, text, len) != 0) break;
    err[0] = '\0';
    rc = cprof__snap_load_hooked(path, &m, piece, i > 0 ? change_hook : NULL, &c, err, sizeof err);
    SNAP_FUZZ_CHECK(rc == CPROF_OK || rc == CPROF_ENOMEM);
    char *a = NULL;
    int ra = rc == CPROF_OK ? cprof__snap_report(m.map, m.len, 3, &m, &a, err, sizeof err) : rc;
    if (c.done) { /* changed before a piece was read, or after the last: never read whole */
      SNAP_FUZZ_CHECK(ra == CPROF_EIO && a == NULL);
      SNAP_FUZZ_CHECK(strstr(err, path) != NULL && strstr(err, "changed while") != NULL);
    } else if (rc == CPROF_OK) {
      SNAP_FUZZ_CHECK(ra == rb);
      SNAP_FUZZ_CHECK(ra == CPROF_OK ? strcmp(a, b) == 0 : strcmp(err, e2) == 0);
    }
    free(a);
    cprof__snap_unload(&m);
  }
  free(b);
  unlink(path);
}

int cprof_fuzz_snapshot_one(const uint8_t *data, size_t size) {
  /* an exact-size copy, so ASan sees any read past the end */
  char *text = malloc(size ? size : 1);
  if (text == NULL) return 0;
  memcpy(text, data, size);
  analyse(text, size);
  report(text, size);
  view(text, size);
  diff(text, size);
  file_read(text, size);
  free(text);
  return 0;
}

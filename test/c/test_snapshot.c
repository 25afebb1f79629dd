/* The .heapsnapshot reader and analysis (src/core/snapshot_*.c) on a
 * hand-made snapshot whose dominator tree is known, and on broken and
 * hostile variants of it: every one refused with a code and a message,
 * none read out of bounds (make check SAN=1 runs them under ASan). */
#define _DEFAULT_SOURCE /* mkstemp, truncate under -std=c11 */
#include <cjson/cJSON.h>
#include <sys/types.h>
#include <unistd.h>

#include "helpers.h"
#include "snapshot.h"

#include "snapshot_tiny.h"

/* The analysis as cprof_snapshot_report runs it. */
static int analyse_len(const char *text, size_t len, cprof__snap_t *s, char *err, size_t errlen) {
  return cprof__snap_analyse(text, len, NULL, s, err, errlen);
}

static int analyse(const char *text, cprof__snap_t *s, char *err, size_t errlen) {
  return analyse_len(text, strlen(text), s, err, errlen);
}

/* n's immediate dominator, read from the dominated lists (the root's: the
 * root). */
static uint32_t dominator_of(const cprof__snap_t *s, uint32_t n) {
  for (uint32_t d = 0; d < s->node_count; d++)
    for (uint32_t k = s->dom_child[d]; k != CPROF__SNAP_NONE; k = s->dom_next[k])
      if (k == n) return d;
  return s->root;
}

/* sq (single quotes) analysed into s, which must succeed; returns the text
 * (s points into it: free it after s). */
static char *analyse_ok(const char *sq, cprof__snap_t *s) {
  char *text = dq(sq), err[256] = "";
  int rc = analyse(text, s, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
  return text;
}

static void dominator_tree(void **state) {
  (void)state;
  cprof__snap_t s;
  char *text = analyse_ok(TINY, &s);
  assert_int_equal(s.node_count, 9);
  assert_int_equal(s.edge_count, 10);
  static const uint32_t dom[9] = {0, 0, 0, 1, 1, 1, 5, 0, 2};
  static const uint64_t retained[9] = {1397, 1360, 30, 100, 200, 1050, 50, 7, 30};
  for (int i = 0; i < 9; i++) {
    assert_int_equal(dominator_of(&s, i), dom[i]);
    assert_int_equal(s.retained[i], retained[i]);
  }
  assert_int_equal(s.unreachable, 1); /* Weakly */
  /* distances: from the global (1), the rest from the root (system) */
  assert_int_equal(s.dist[1], 1);
  assert_int_equal(s.dist[3], 2);
  assert_int_equal(s.dist[5], 3);
  assert_int_equal(s.dist[6], 4);
  assert_int_equal(s.dist[2], CPROF__SNAP_SYSTEM_DISTANCE + 1);
  assert_int_equal(s.dist[8], CPROF__SNAP_SYSTEM_DISTANCE + 2);
  assert_int_equal(s.dist[7], CPROF__SNAP_NO_DISTANCE);
  cprof__snap_free(&s);
  free(text);
}

/* Once checked, a node keeps only the 4 fields the analysis reads (V8
 * writes 7), its type in its name's word: 3 words; the edge counts become
 * first_edge, the detachedness a byte a node (snapshot_read.c:
 * compact_nodes). An edge is 2 words (compact_edges). */
static void node_fields_packed(void **state) {
  (void)state;
  cprof__snap_t s;
  char *text = analyse_ok(TINY, &s);
  assert_true(s.npacked);
  assert_int_equal(s.nf, 3);
  assert_int_equal(s.nodes_len, 9 * 3);
  assert_true(s.epacked);
  assert_int_equal(s.ef, 2);
  assert_int_equal(s.edges_len, 10 * 2);
  static const uint32_t etype[10] = {5, 1, 2, 2, 6, 1, 2, 2, 2, 2};
  static const uint32_t ename[10] = {1, 1, 4, 5, 6, 0, 8, 8, 10, 13};
  static const uint32_t eto[10] = {1, 2, 3, 4, 7, 8, 5, 5, 6, 6};
  for (uint32_t i = 0; i < 10; i++) {
    assert_int_equal(cprof__snap_etype(&s, i), etype[i]);
    assert_int_equal(cprof__snap_ename(&s, i), ename[i]);
    assert_int_equal(cprof__snap_to(&s, i), eto[i]);
  }
  assert_int_equal(s.n_edges, -1);
  assert_int_equal(s.n_detach, -1);
  static const uint32_t type[9] = {9, 3, 9, 3, 3, 3, 3, 3, 3};
  static const uint32_t name[9] = {0, 2, 3, 7, 7, 9, 9, 11, 12};
  static const uint32_t self[9] = {0, 10, 0, 100, 200, 1000, 50, 7, 30};
  static const uint32_t first_edge[10] = {0, 2, 5, 6, 7, 8, 9, 9, 9, 10};
  for (uint32_t i = 0; i < 9; i++) {
    assert_int_equal(cprof__snap_ntype(&s, i), type[i]);
    assert_int_equal(cprof__snap_nname(&s, i), name[i]);
    assert_int_equal(cprof__snap_nid(&s, i), 2 * i + 1);
    assert_int_equal(cprof__snap_self(&s, i), self[i]);
  }
  for (uint32_t i = 0; i < 10; i++)
    assert_int_equal(s.first_edge[i], first_edge[i]);
  assert_non_null(s.detached); /* the field is there, all 0: none detached */
  for (uint32_t i = 0; i < 9; i++)
    assert_int_equal(s.detached[i], 0);
  cprof__snap_free(&s);
  free(text);
}

static char *variant(const char *from_sq, const char *to_sq);

/* Values that do not fit a shared word keep the wide records, and read
 * the same: an element index past 2^29 (an edge of 3 words), a meta with
 * over 32 node types (a node of 4). */
static void wide_records(void **state) {
  (void)state;
  char types[1024] = "'object shape'";
  for (int i = 0; i < 20; i++)
    snprintf(types + strlen(types), sizeof types - strlen(types), ",'t%d'", i);
  strcat(types, "]");
  char *a = variant("'object shape']", types), err[256] = "";
  char *sq = malloc(strlen(a) + 1);
  for (size_t i = 0; i <= strlen(a); i++)
    sq[i] = a[i] == '"' ? '\'' : a[i];
  free(a);
  char *at = strstr(sq, "5,1,7,1,1,14");
  assert_non_null(at);
  char *wide = malloc(strlen(sq) + 16);
  snprintf(wide, strlen(sq) + 16, "%.*s5,1,7,1,600000000,14%s", (int)(at - sq), sq,
           at + strlen("5,1,7,1,1,14"));
  char *text = dq(wide);
  free(sq), free(wide);
  cprof__snap_t s;
  int rc = analyse(text, &s, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
  assert_false(s.npacked);
  assert_int_equal(s.nf, 4);
  assert_false(s.epacked);
  assert_int_equal(s.ef, 3);
  assert_int_equal(cprof__snap_etype(&s, 1), 1);
  assert_int_equal(cprof__snap_ename(&s, 1), 600000000);
  assert_int_equal(cprof__snap_to(&s, 1), 2);
  assert_int_equal(cprof__snap_ntype(&s, 5), 3);
  assert_int_equal(cprof__snap_nname(&s, 5), 9);
  assert_int_equal(cprof__snap_nid(&s, 5), 11);
  assert_int_equal(cprof__snap_self(&s, 5), 1000);
  static const uint32_t dom[9] = {0, 0, 0, 1, 1, 1, 5, 0, 2};
  static const uint64_t retained[9] = {1397, 1360, 30, 100, 200, 1050, 50, 7, 30};
  for (int i = 0; i < 9; i++) {
    assert_int_equal(dominator_of(&s, i), dom[i]);
    assert_int_equal(s.retained[i], retained[i]);
  }
  cprof__snap_free(&s);
  free(text);
}

/* An array only Leaf 5 holds (Sys's edge to it made weak) counts in its
 * owner's shallow size, as DevTools shows it (snapshot_shallow.c). */
static void owned_array_in_owner(void **state) {
  (void)state;
  char *a = variant("3,9,13,50,0,0,0", "1,9,13,50,0,0,0"), err[256] = "";
  char *sq = malloc(strlen(a) + 1);
  for (size_t i = 0; i <= strlen(a); i++) /* back to single quotes for variant's base */
    sq[i] = a[i] == '"' ? '\'' : a[i];
  free(a);
  cprof__snap_t s;
  char *text = NULL;
  {
    char *at = strstr(sq, "2,13,42]");
    assert_non_null(at);
    at[0] = '6'; /* Sys -e-> Leaf 6 becomes weak */
    text = dq(sq);
  }
  int rc = analyse(text, &s, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
  assert_int_equal(cprof__snap_self(&s, 5), 1050);
  assert_int_equal(cprof__snap_self(&s, 6), 0);
  assert_int_equal(s.retained[5], 1050);
  assert_int_equal(s.retained[0], 1397);
  cprof__snap_free(&s);
  free(text);
  free(sq);
}

/* test/fuzz/corpus_snapshot/weakmap-detached.heapsnapshot: Global holds a
 * WeakMap (2) whose table (3) and key K (4) both hold V (5); a self edge on
 * Global; a native Binding (7) its embedder reports detached, holding
 * another (8); two objects (9, 10) in a cycle nothing reaches. */
static void weakmap_detached_rules(void **state) {
  (void)state;
  FILE *f = fopen(CPROF_FIXTURES "/../fuzz/corpus_snapshot/weakmap-detached.heapsnapshot", "rb");
  assert_non_null(f);
  char text[4096], err[256] = "";
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = '\0';
  cprof__snap_t s;
  int rc = analyse_len(text, len, &s, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
  /* the key's edge retains the value, the table's does not */
  assert_int_equal(dominator_of(&s, 5), 4);
  assert_int_equal(s.retained[4], 52 + 400);
  /* its distance is the greater of the two ways, key (2 + 1) and table
   * (3 + 1), as DevTools has it */
  assert_int_equal(s.dist[4], 2);
  assert_int_equal(s.dist[3], 3);
  assert_int_equal(s.dist[5], 4);
  /* owned arrays: the table in the WeakMap, the elements in K */
  assert_int_equal(cprof__snap_self(&s, 2), 24 + 64);
  assert_int_equal(cprof__snap_self(&s, 3), 0);
  assert_int_equal(cprof__snap_self(&s, 4), 12 + 40);
  /* detachedness spreads to the native node it holds */
  assert_non_null(s.detached);
  assert_true(s.detached[7] && s.detached[8]);
  char buf[300];
  assert_string_equal(cprof__snap_class_name(&s, cprof__snap_class_key(&s, 8), buf, sizeof buf),
                      "Detached Binding");
  /* the unreachable cycle goes to the root; its nodes have no distance */
  assert_int_equal(s.unreachable, 2);
  assert_int_equal(dominator_of(&s, 9), 0);
  assert_int_equal(s.dist[9], CPROF__SNAP_NO_DISTANCE);
  cprof__snap_free(&s);
}

static const cJSON *find_class(const cJSON *classes, const char *name) {
  const cJSON *c;
  cJSON_ArrayForEach(c, classes) {
    if (strcmp(cJSON_GetObjectItem(c, "name")->valuestring, name) == 0) return c;
  }
  fail_msg("no class %s", name);
  return NULL;
}

static double num(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(o, key);
  assert_true(cJSON_IsNumber(v));
  return v->valuedouble;
}

static void report_classes_and_paths(void **state) {
  (void)state;
  char *text = dq(TINY), *out = NULL, err[256] = "";
  int rc = cprof_snapshot_report(text, strlen(text), 20, &out, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
  cJSON *doc = cJSON_Parse(out);
  assert_non_null(doc);
  assert_int_equal(num(doc, "totalSize"), 1397);
  assert_int_equal(num(doc, "nodes"), 9);
  const cJSON *classes = cJSON_GetObjectItem(doc, "classes");
  /* Leaf: 5 dominates 6, so the class retains 1050, not 1100 */
  const cJSON *leaf = find_class(classes, "Leaf");
  assert_int_equal(num(leaf, "count"), 2);
  assert_int_equal(num(leaf, "selfSize"), 1050);
  assert_int_equal(num(leaf, "retainedSize"), 1050);
  const cJSON *node = find_class(classes, "Node");
  assert_int_equal(num(node, "count"), 2);
  assert_int_equal(num(node, "retainedSize"), 300);
  assert_int_equal(cJSON_GetArraySize(classes), 5); /* size-0 synthetic nodes are left out */
  /* the largest object first; the leaf's path goes root -> g -> a -> c -> d */
  const cJSON *objs = cJSON_GetObjectItem(doc, "objects");
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(objs, 0), "name")->valuestring,
                      "Global");
  const cJSON *o, *d = NULL;
  cJSON_ArrayForEach(o, objs) {
    if (num(o, "id") == 13) d = o;
  }
  assert_non_null(d);
  const cJSON *path = cJSON_GetObjectItem(d, "path");
  const char *want[] = {"g", "a", "c", "d"};
  assert_int_equal(cJSON_GetArraySize(path), 4);
  for (int i = 0; i < 4; i++)
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(path, i), "edge")->valuestring,
                        want[i]);
  cJSON_Delete(doc);
  free(out);
  free(text);
}

/* TINY with the first `from` replaced by `to`. */
static char *variant(const char *from_sq, const char *to_sq) {
  char *base = dq(TINY), *from = dq(from_sq), *to = dq(to_sq), *at = strstr(base, from);
  assert_non_null(at);
  size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
  char *s = malloc(n);
  assert_non_null(s);
  snprintf(s, n, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
  free(base), free(from), free(to);
  return s;
}

static void refused(const char *from, const char *to, int code, const char *msg) {
  char *text = variant(from, to), *out = NULL, err[256] = "";
  int rc = cprof_snapshot_report(text, strlen(text), 5, &out, err, sizeof err);
  if (rc != code) fail_msg("%s -> %s: rc %d (%s), want %d", from, to, rc, err, code);
  if (strstr(err, msg) == NULL) fail_msg("%s -> %s: message %s lacks %s", from, to, err, msg);
  assert_null(out);
  free(text);
}

static void hostile_indexes_refused(void **state) {
  (void)state;
  /* an edge to a field index that is not a node's start, then past the end */
  refused("'edges':[5,1,7,", "'edges':[5,1,8,", CPROF_ESCHEMA, "edge 0 points to 8");
  refused("'edges':[5,1,7,", "'edges':[5,1,63,", CPROF_ESCHEMA, "edge 0 points to 63");
  refused("'edges':[5,1,7,", "'edges':[7,1,7,", CPROF_ESCHEMA, "edge 0 has type 7");
  refused("'edges':[5,1,7,", "'edges':[5,99,7,", CPROF_ESCHEMA, "edge 0's name is string 99");
  refused("'nodes':[9,0,1,", "'nodes':[15,0,1,", CPROF_ESCHEMA, "node 0 has type 15");
  refused("'nodes':[9,0,1,", "'nodes':[9,14,1,", CPROF_ESCHEMA, "node 0's name is string 14");
  refused("'nodes':[9,0,1,0,2,", "'nodes':[9,0,1,0,3,", CPROF_ESCHEMA, "edge counts add up to 11");
  refused("'node_count':9", "'node_count':10", CPROF_ESCHEMA, "truncated?");
  refused("'nodes':[9,0,1,0,2,0,0,", "'nodes':[9,0,1,0,2,0,", CPROF_ESCHEMA, "whole number");
  refused("'nodes':[9,", "'nodes':[-9,", CPROF_ESCHEMA, "not an unsigned integer");
  refused("'nodes':[9,", "'nodes':[9.5,", CPROF_ESCHEMA, "not an integer");
  refused("'nodes':[9,", "'nodes':[4294967296,", CPROF_ESCHEMA, "over 4294967295");
  refused("'nodes':[9,", "'nodes':['9',", CPROF_ESCHEMA, "not an unsigned integer");
  refused("'node_fields':['type',", "'node_fields':['kind',", CPROF_ESCHEMA, "lacks one of type");
  refused("'meta'", "'mata'", CPROF_ESCHEMA, "no snapshot.meta");
  refused("'strings':[''", "'strings':[1", CPROF_ESCHEMA, "non-string");
  refused("'strings':['','g'", "'strings':['','\\x'", CPROF_EPARSE, "JSON string");
}

/* Every prefix of the snapshot is refused cleanly, never read past. */
static void every_truncation_refused(void **state) {
  (void)state;
  char *text = dq(TINY), err[256];
  size_t n = strlen(text);
  for (size_t len = 0; len < n; len++) {
    char *copy = malloc(len ? len : 1), *out = NULL; /* exact size: ASan sees overreads */
    memcpy(copy, text, len);
    int rc = cprof_snapshot_report(copy, len, 5, &out, err, sizeof err);
    if (rc != CPROF_EPARSE && rc != CPROF_ESCHEMA) fail_msg("prefix %zu: rc %d", len, rc);
    assert_null(out);
    free(copy);
  }
  free(text);
}

static void strings_decoded(void **state) {
  (void)state;
  /* escapes, a surrogate pair and a lone surrogate (V8 writes strings as
   * they are in the heap: U+FFFD, not a refused file) */
  char *text = variant("'Global'", "'G\\u00e9\\ud83d\\ude00\\ud800\\n'");
  char err[256] = "";
  cprof__snap_t s;
  int rc = analyse(text, &s, err, sizeof err);
  if (rc != CPROF_OK) fail_msg("rc %d: %s", rc, err);
  assert_string_equal(cprof__snap_str(&s, 2), "G\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbd\n");
  cprof__snap_free(&s);
  free(text);
}

static void bad_arguments(void **state) {
  (void)state;
  char *out = NULL, err[256] = "";
  assert_int_equal(cprof_snapshot_report("{}", 2, 0, &out, err, sizeof err), CPROF_EINVAL);
  assert_int_equal(
      cprof_snapshot_report_file("/nonexistent/x.heapsnapshot", 5, &out, err, sizeof err),
      CPROF_EIO);
  assert_non_null(strstr(err, "cannot read"));
  assert_int_equal(cprof_snapshot_report("", 0, 5, &out, err, sizeof err), CPROF_EPARSE);
  assert_null(out);
}

/* ---- a file that changes while it is read (snapshot_file.c) ---- */

typedef struct {
  const char *path;
  size_t at;     /* the piece before which the file changes */
  off_t to;      /* its new size (-1: a byte appended) */
  int changes;   /* how many times the hook changed it */
  size_t pieces; /* how many times it was called */
} shrink_t;

static void change_file(void *ctx, int fd, size_t done) {
  (void)fd;
  shrink_t *c = ctx;
  c->pieces++;
  if (done != c->at) return;
  c->changes++;
  if (c->to >= 0) {
    assert_int_equal(truncate(c->path, c->to), 0);
  } else {
    FILE *f = fopen(c->path, "ab");
    assert_non_null(f);
    fputc(' ', f);
    fclose(f);
  }
}

/* The tiny snapshot padded with trailing spaces to pad bytes, in a temp
 * file; its path in path. */
static char *padded_file(size_t pad, char *path) {
  char *text = dq(TINY);
  size_t len = strlen(text);
  strcpy(path, "/tmp/cprof-test-snapshot-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  for (size_t i = len; i < pad; i++)
    fputc(' ', f);
  fclose(f);
  return text;
}

/* Read as the parse needs it (cprof__snap_refill: nothing read at the
 * load), the file's report is the text's in memory, in 8 MiB pieces (a
 * file over CPROF__SNAP_READ_PIECE) or 16-byte ones (a piece's end in
 * every member). Truncated or grown before the piece at `at`: before the
 * first, between two pieces of the trailing whitespace (to nothing or to
 * half, or grown), or mid-document, mid-array (16-byte pieces): CPROF_EIO
 * naming the file, from the parse itself (never a parse error about the
 * text cut short), no signal (a mapped file was a SIGBUS). */
static void file_changed_while_read(void **state) {
  (void)state;
  char path[64], err[512];
  size_t size = CPROF__SNAP_READ_PIECE + (CPROF__SNAP_READ_PIECE / 2);
  char *text = padded_file(size, path), *out = NULL, *mem = NULL;
  size_t tiny = strlen(text);
  cprof__snap_map_t m;
  assert_int_equal(cprof__snap_load(path, &m, err, sizeof err), CPROF_OK);
  assert_int_equal(m.len, size);
  assert_int_equal(m.got, 0);
  assert_int_equal(cprof__snap_read_all(&m, err, sizeof err), CPROF_OK);
  assert_int_equal(m.got, size);
  assert_memory_equal(m.map, text, tiny);
  cprof__snap_unload(&m);
  assert_int_equal(cprof_snapshot_report(text, tiny, 5, &mem, err, sizeof err), CPROF_OK);
  assert_int_equal(cprof_snapshot_report_file(path, 5, &out, err, sizeof err), CPROF_OK);
  assert_string_equal(out, mem);
  free(out);
  unlink(path);
  /* 16-byte pieces, unchanged: one read a piece, as the parse asks */
  free(padded_file(tiny + 100, path));
  shrink_t none = {path, SIZE_MAX, 0, 0, 0};
  assert_int_equal(cprof__snap_load_hooked(path, &m, 16, change_file, &none, err, sizeof err),
                   CPROF_OK);
  assert_int_equal(cprof__snap_report(m.map, m.len, 5, &m, &out, err, sizeof err), CPROF_OK);
  assert_string_equal(out, mem);
  assert_int_equal(none.pieces, (tiny + 100 + 15) / 16);
  assert_int_equal(m.got, tiny + 100);
  cprof__snap_unload(&m);
  free(out);
  unlink(path);
  const struct {
    size_t pad, piece, at;
    off_t to;
  } cases[] = {{size, 0, 0, 0},
               {size, 0, 0, 100},
               {size, 0, CPROF__SNAP_READ_PIECE, 0},
               {size, 0, CPROF__SNAP_READ_PIECE, CPROF__SNAP_READ_PIECE + 10},
               {size, 0, CPROF__SNAP_READ_PIECE, -1},
               {tiny + 100, 16, 64, 0},
               {tiny + 100, 16, 64, 70},
               {tiny + 100, 16, 64, -1},
               {tiny + 100, 16, tiny / 32 * 16, (off_t)(tiny / 32 * 16 + 5)},
               {tiny + 100, 16, tiny / 16 * 16, -1}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    free(padded_file(cases[i].pad, path));
    shrink_t c = {path, cases[i].at, cases[i].to, 0, 0};
    err[0] = '\0';
    int rc = cprof__snap_load_hooked(path, &m, cases[i].piece, change_file, &c, err, sizeof err);
    assert_int_equal(rc, CPROF_OK);
    out = (char *)1;
    rc = cprof__snap_report(m.map, m.len, 5, &m, &out, err, sizeof err);
    if (rc != CPROF_EIO) fail_msg("case %zu: rc %d (%s)", i, rc, err);
    assert_int_equal(c.changes, 1);
    assert_null(out);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "changed while it was read"));
    cprof__snap_unload(&m);
    assert_null(m.map);
    unlink(path);
  }
  free(mem);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(dominator_tree),          cmocka_unit_test(report_classes_and_paths),
      cmocka_unit_test(hostile_indexes_refused), cmocka_unit_test(every_truncation_refused),
      cmocka_unit_test(strings_decoded),         cmocka_unit_test(bad_arguments),
      cmocka_unit_test(node_fields_packed),      cmocka_unit_test(wide_records),
      cmocka_unit_test(owned_array_in_owner),    cmocka_unit_test(weakmap_detached_rules),
      cmocka_unit_test(file_changed_while_read),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Source maps: VLQ decoding, lookup (trace-mapping's rules), source
 * resolution, index maps, malformed maps, finding a script's map on disk,
 * and mapping a profile's frames through the cache. The agreement with a
 * decoder someone else wrote is in test/js/api/sourcemaps.test.js. */
#define _XOPEN_SOURCE 700

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "rmtree.h"
#include "source.h"
#include "sourcemap.h"
#include "sourcemap_apply.h"
#include "sourcemap_find.h"
#include "sourcemap_url.h"

/* ---- decoding and lookup ---- */

static cprof_sourcemap_t *map_ok(const char *json, const char *base) {
  char err[256] = "";
  cprof_sourcemap_t *m = NULL;
  char *s = dq(json);
  int rc = cprof_sourcemap_parse(s, strlen(s), base, &m, err, sizeof err);
  free(s);
  if (rc != CPROF_OK) fail_msg("map parse failed (%d): %s", rc, err);
  assert_non_null(m);
  assert_true(cprof_sourcemap_bytes(m) > 0);
  return m;
}

static int map_fail(const char *json, char *err, size_t errlen) {
  cprof_sourcemap_t *m = (cprof_sourcemap_t *)&err;
  char *s = dq(json);
  err[0] = '\0';
  int rc = cprof_sourcemap_parse(s, strlen(s), "/app/", &m, err, errlen);
  free(s);
  assert_true(rc < 0);
  assert_null(m);
  assert_true(err[0] != '\0');
  return rc;
}

static void expect_pos(const cprof_sourcemap_t *m, int32_t line, int32_t col, const char *src,
                       int32_t oline, int32_t ocol, const char *name) {
  cprof_sm_pos_t p;
  if (!cprof_sourcemap_lookup(m, line, col, &p)) fail_msg("no mapping at %d:%d", line, col);
  assert_string_equal(p.source, src);
  assert_int_equal(p.line, oline);
  assert_int_equal(p.column, ocol);
  if (name)
    assert_string_equal(p.name, name);
  else
    assert_null(p.name);
}

/* sourcesContent is kept for a source that is not on disk, and only for
 * it: a source that is (test/c/Makefile) costs
 * nothing. "AAAA;ACAA": line 0 -> source 0, line 1 -> source 1. */
static void contents_kept_only_for_sources_not_on_disk(void **state) {
  (void)state;
  char json[1024];
  snprintf(json, sizeof json,
           "{'version':3,'sources':['/no/such/dir/gone.ts','%s/c/Makefile'],"
           "'sourcesContent':['let gone = 1\\nlet two = 2\\n','all:'],'mappings':'AAAA;ACAA'}",
           CPROF_FIXTURES "/..");
  cprof_sourcemap_t *m = map_ok(json, "/app/");
  cprof_sm_pos_t p;
  assert_true(cprof_sourcemap_lookup(m, 0, 0, &p));
  assert_string_equal(p.source, "/no/such/dir/gone.ts");
  assert_non_null(p.content);
  assert_string_equal(p.content, "let gone = 1\nlet two = 2\n");
  assert_true(cprof_sourcemap_lookup(m, 1, 0, &p));
  assert_null(p.content); /* on disk: read from there */
  cprof_sourcemap_free(m);
}

/* "AAAA,SAASA,IAAI;AACA": [0,0,0,0] [9,0,0,9,0] [13,0,0,13]; line 1:
 * [0,0,1,13] (every field but the generated column carries across lines). */
static const char *const SIMPLE = "{'version':3,'sources':['a.ts'],'names':['foo'],"
                                  "'mappings':'AAAA,SAASA,IAAI;AACA'}";

static void decode_and_lookup(void **state) {
  (void)state;
  cprof_sourcemap_t *m = map_ok(SIMPLE, "/app/dist/");
  expect_pos(m, 0, 0, "/app/dist/a.ts", 0, 0, NULL);
  expect_pos(m, 0, 8, "/app/dist/a.ts", 0, 0, NULL);   /* greatest lower bound */
  expect_pos(m, 0, 9, "/app/dist/a.ts", 0, 9, "foo");  /* exact, with its name */
  expect_pos(m, 0, 10, "/app/dist/a.ts", 0, 9, "foo"); /* V8's '(' after the name */
  expect_pos(m, 0, 500, "/app/dist/a.ts", 0, 13, NULL);
  expect_pos(m, 1, 7, "/app/dist/a.ts", 1, 13, NULL);
  cprof_sm_pos_t p;
  assert_false(cprof_sourcemap_lookup(m, 2, 0, &p)); /* past the map's lines */
  assert_false(cprof_sourcemap_lookup(m, -1, 0, &p));
  cprof_sourcemap_free(m);
}

static void column_before_first_mapping(void **state) {
  (void)state;
  /* Line 0 starts mapping at column 4 ("IAAA"), twice at the same column. */
  cprof_sourcemap_t *m =
      map_ok("{'version':3,'sources':['a.js'],'names':[],'mappings':'IAAA,AAAC'}", "/x/");
  expect_pos(m, 0, 0, "/x/a.js", 0, 1, NULL); /* nearest after: the last of equal ones */
  expect_pos(m, 0, -1, "/x/a.js", 0, 1, NULL);
  expect_pos(m, 0, 4, "/x/a.js", 0, 0, NULL); /* at: the first of equal ones */
  cprof_sourcemap_free(m);
}

static void segment_without_source_maps_nothing(void **state) {
  (void)state;
  cprof_sourcemap_t *m =
      map_ok("{'version':3,'sources':['a.js'],'names':[],'mappings':'AAAA,K'}", "/x/");
  cprof_sm_pos_t p;
  expect_pos(m, 0, 4, "/x/a.js", 0, 0, NULL);
  assert_false(cprof_sourcemap_lookup(m, 0, 5, &p));
  assert_false(cprof_sourcemap_lookup(m, 0, 99, &p));
  cprof_sourcemap_free(m);
}

static void unsorted_line_is_sorted_stably(void **state) {
  (void)state;
  /* Columns 10, 2, 10 (as deltas: 10, -8, +8); original lines 0, 1, 2. */
  cprof_sourcemap_t *m =
      map_ok("{'version':3,'sources':['a.js'],'names':[],'mappings':'UAAA,RACA,QACA'}", "/x/");
  expect_pos(m, 0, 2, "/x/a.js", 1, 0, NULL);
  expect_pos(m, 0, 10, "/x/a.js", 0, 0, NULL); /* first of the equal ones, in map order */
  cprof_sourcemap_free(m);
}

static void sources_resolve(void **state) {
  (void)state;
  cprof_sourcemap_t *m =
      map_ok("{'version':3,'sourceRoot':'../src/','sources':['./a.ts','x/../b.ts',"
             "'webpack://app/./c.ts','/abs/d.ts','file:///f%20g/e.ts'],"
             "'names':[],'mappings':'AAAA,CCAA,CCAA,CCAA,CCAA'}",
             "/app/dist/");
  expect_pos(m, 0, 0, "/app/src/a.ts", 0, 0, NULL);
  expect_pos(m, 0, 1, "/app/src/b.ts", 0, 0, NULL);
  expect_pos(m, 0, 2, "webpack://app/c.ts", 0, 0, NULL);
  expect_pos(m, 0, 3, "/abs/d.ts", 0, 0, NULL);
  expect_pos(m, 0, 4, "/f g/e.ts", 0, 0, NULL);
  cprof_sourcemap_free(m);
  /* ".." never climbs above the root. */
  m = map_ok("{'version':3,'sources':['../../../../etc/x.ts'],'names':[],'mappings':'AAAA'}",
             "/app/");
  expect_pos(m, 0, 0, "/etc/x.ts", 0, 0, NULL);
  cprof_sourcemap_free(m);
}

static void index_map_sections(void **state) {
  (void)state;
  /* Section 1 at 0:0 (a.ts), section 2 at 1:5 (b.ts), which stops section
   * 1's mappings at 1:5 and offsets its own first line by 5 columns. */
  cprof_sourcemap_t *m =
      map_ok("{'version':3,'sections':["
             "{'offset':{'line':0,'column':0},'map':{'version':3,'sources':['a.ts'],'names':['f'],"
             "'mappings':'AAAAA;AACA,UAAE'}},"
             "{'offset':{'line':1,'column':5},'map':{'version':3,'sources':['b.ts'],'names':['g'],"
             "'mappings':'AAAAA;AACA'}}]}",
             "/s/");
  expect_pos(m, 0, 0, "/s/a.ts", 0, 0, "f");
  expect_pos(m, 1, 0, "/s/a.ts", 1, 0, NULL);
  expect_pos(m, 1, 4, "/s/a.ts", 1, 0, NULL);
  expect_pos(m, 1, 5, "/s/b.ts", 0, 0, "g"); /* a.ts' segment at 1:10 was cut */
  expect_pos(m, 1, 12, "/s/b.ts", 0, 0, "g");
  expect_pos(m, 2, 0, "/s/b.ts", 1, 0, NULL);
  cprof_sourcemap_free(m);
}

static void malformed_maps(void **state) {
  (void)state;
  char err[256];
  assert_int_equal(map_fail("{'version':3,'mappings':", err, sizeof err), CPROF_EPARSE);
  assert_int_equal(map_fail("[1,2]", err, sizeof err), CPROF_ESCHEMA);
  assert_int_equal(map_fail("{'version':2,'sources':[],'mappings':''}", err, sizeof err),
                   CPROF_ESCHEMA);
  assert_int_equal(map_fail("{'version':3,'sources':['a'],'mappings':5}", err, sizeof err),
                   CPROF_ESCHEMA);
  static const char *const bad[] = {
      "AAAA,!!!!", /* not base64 */
      "ACAA",      /* no such source (index 1 of 1) */
      "AAAAC",     /* no such name */
      "AA",        /* two fields */
      "AAAAAA",    /* six fields */
      "DAAA",      /* negative column */
      "AAAg",      /* a VLQ cut short */
      "+//////D",  /* a value over 32 bits */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char json[200];
    snprintf(json, sizeof json, "{'version':3,'sources':['a'],'names':[],'mappings':'%s'}", bad[i]);
    assert_int_equal(map_fail(json, err, sizeof err), CPROF_ESCHEMA);
    assert_non_null(strstr(err, "mappings"));
  }
  assert_int_equal(map_fail("{'version':3,'sections':[{'offset':{'line':2,'column':0},'map':{"
                            "'version':3,'sources':[],'mappings':''}},{'offset':{'line':1,"
                            "'column':0},'map':{'version':3,'sources':[],'mappings':''}}]}",
                            err, sizeof err),
                   CPROF_ESCHEMA);
  assert_int_equal(map_fail("{'version':3,'sections':[{'map':{}}]}", err, sizeof err),
                   CPROF_ESCHEMA);
  /* A section far down the generated file would make the per-line index
   * gigabytes (the fuzzer's out-of-memory): refused above 2^22 lines. */
  assert_int_equal(map_fail("{'version':3,'sections':[{'offset':{'line':4194305,'column':0},"
                            "'map':{'version':3,'sources':[],'mappings':''}}]}",
                            err, sizeof err),
                   CPROF_ESCHEMA);
  assert_non_null(strstr(err, "out of range"));
  assert_int_equal(map_fail("{'version':3,'sections':[{'offset':{'line':4294967295,'column':0},"
                            "'map':{'version':3,'sections':[{'offset':{'line':2,'column':0},"
                            "'map':{'version':3,'sources':[],'mappings':''}}]}}]}",
                            err, sizeof err),
                   CPROF_ESCHEMA);
  /* The message never quotes the input (it may be any file). */
  assert_int_equal(map_fail("root:x:0:0:root:/root:/bin/bash", err, sizeof err), CPROF_EPARSE);
  assert_null(strstr(err, "root"));
}

/* ---- files ---- */

typedef struct {
  char dir[64];
} tmp_t;

static int setup(void **state) {
  tmp_t *t = calloc(1, sizeof *t);
  assert_non_null(t);
  strcpy(t->dir, "/tmp/cprof-sm-XXXXXX");
  assert_non_null(mkdtemp(t->dir));
  *state = t;
  return 0;
}

static int teardown(void **state) {
  tmp_t *t = *state;
  rmtree(t->dir);
  free(t);
  return 0;
}

static void put(const tmp_t *t, const char *name, const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", t->dir, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  char *s = dq(text);
  fputs(s, f);
  free(s);
  assert_int_equal(fclose(f), 0);
}

static int find(const tmp_t *t, const char *script, const cprof_sm_limits_t *lim,
                cprof_sourcemap_t **m, char *err, size_t errlen) {
  char path[256];
  cprof_sm_origin_t origin;
  snprintf(path, sizeof path, "%s/%s", t->dir, script);
  err[0] = '\0';
  return cprof_sourcemap_find(path, lim, m, &origin, err, errlen);
}

static const char *const MAP_JSON = "{'version':3,'sources':['../src/a.ts'],'names':['foo'],"
                                    "'mappings':'AAAA,SAASA'}";

static void find_external_inline_and_guess(void **state) {
  tmp_t *t = *state;
  char err[400], src[128];
  cprof_sourcemap_t *m;
  snprintf(src, sizeof src, "%s", t->dir);
  *strrchr(src, '/') = '\0'; /* the map's ../src resolves next to dir */
  strcat(src, "/src/a.ts");

  put(t, "ext.js", "function foo() {}\n//# sourceMappingURL=maps/ext.js.map\n\n");
  char maps[128];
  snprintf(maps, sizeof maps, "%s/maps", t->dir);
  assert_int_equal(mkdir(maps, 0700), 0);
  put(t, "maps/ext.js.map", MAP_JSON);
  assert_int_equal(find(t, "ext.js", NULL, &m, err, sizeof err), CPROF_OK);
  assert_non_null(m);
  cprof_sm_pos_t p;
  assert_true(cprof_sourcemap_lookup(m, 0, 10, &p));
  assert_string_equal(p.name, "foo");
  assert_non_null(strstr(p.source, "/src/a.ts")); /* relative to maps/, not the script */
  cprof_sourcemap_free(m);

  /* Inline: base64 of MAP_JSON with double quotes. */
  put(t, "inline.js",
      "x()\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,"
      "eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbIi4uL3NyYy9hLnRzIl0sIm5hbWVzIjpbImZvbyJdLCJtYXBwaW5ncyI6IkFB"
      "QUEsU0FBU0EifQ==\n");
  assert_int_equal(find(t, "inline.js", NULL, &m, err, sizeof err), CPROF_OK);
  assert_non_null(m);
  assert_true(cprof_sourcemap_lookup(m, 0, 9, &p));
  assert_string_equal(p.source, src);
  cprof_sourcemap_free(m);

  /* No comment: <file>.map; the legacy //@ form; neither: no map. */
  put(t, "guess.js", "f()\n");
  put(t, "guess.js.map", MAP_JSON);
  assert_int_equal(find(t, "guess.js", NULL, &m, err, sizeof err), CPROF_OK);
  assert_non_null(m);
  cprof_sourcemap_free(m);
  put(t, "legacy.js", "f()\n//@ sourceMappingURL=guess.js.map\n// trailing comment\n");
  assert_int_equal(find(t, "legacy.js", NULL, &m, err, sizeof err), CPROF_OK);
  assert_non_null(m);
  cprof_sourcemap_free(m);
  put(t, "none.js", "f()\n");
  assert_int_equal(find(t, "none.js", NULL, &m, err, sizeof err), CPROF_OK);
  assert_null(m);
  /* A link inside the code (a string), with code after it, is not one. */
  put(t, "code.js", "var s = 1;\n//# sourceMappingURL=guess.js.map\nrun(s)\n");
  assert_int_equal(find(t, "code.js", NULL, &m, err, sizeof err), CPROF_OK);
  assert_null(m);
}

static void find_failures(void **state) {
  tmp_t *t = *state;
  char err[400];
  cprof_sourcemap_t *m;
  put(t, "missing.js", "f()\n//# sourceMappingURL=nope.map\n");
  assert_int_equal(find(t, "missing.js", NULL, &m, err, sizeof err), CPROF_EIO);
  assert_null(m);
  assert_non_null(strstr(err, "nope.map"));
  put(t, "dir.js", "f()\n//# sourceMappingURL=.\n");
  assert_int_equal(find(t, "dir.js", NULL, &m, err, sizeof err), CPROF_EIO);
  assert_non_null(strstr(err, "not a regular file"));
  put(t, "http.js", "f()\n//# sourceMappingURL=https://example.com/x.map\n");
  assert_int_equal(find(t, "http.js", NULL, &m, err, sizeof err), CPROF_ESCHEMA);
  put(t, "b64.js", "f()\n//# sourceMappingURL=data:application/json;base64,***\n");
  assert_int_equal(find(t, "b64.js", NULL, &m, err, sizeof err), CPROF_EPARSE);
  put(t, "text.js", "f()\n//# sourceMappingURL=data:text/plain;base64,e30=\n");
  assert_int_equal(find(t, "text.js", NULL, &m, err, sizeof err), CPROF_ESCHEMA);
  /* A FIFO as the map: refused at once, never blocks. */
  char fifo[128];
  snprintf(fifo, sizeof fifo, "%s/fifo.map", t->dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  put(t, "fifo.js", "f()\n//# sourceMappingURL=fifo.map\n");
  assert_int_equal(find(t, "fifo.js", NULL, &m, err, sizeof err), CPROF_EIO);
  /* Bounds: the script, then the map. */
  put(t, "big.js", "f()\n//# sourceMappingURL=big.js.map\n");
  put(t, "big.js.map", MAP_JSON);
  cprof_sm_limits_t small = {8, 0, NULL};
  assert_int_equal(find(t, "big.js", &small, &m, err, sizeof err), CPROF_EIO);
  assert_non_null(strstr(err, "limit"));
  cprof_sm_limits_t small_map = {0, 16, NULL};
  assert_int_equal(find(t, "big.js", &small_map, &m, err, sizeof err), CPROF_EIO);
  assert_non_null(strstr(err, "limit"));
  /* A malformed map names the script and the map. */
  put(t, "bad.js.map", "{'version':3,'sources':[],'mappings':'!'}");
  put(t, "bad.js", "f()\n");
  assert_int_equal(find(t, "bad.js", NULL, &m, err, sizeof err), CPROF_ESCHEMA);
  assert_non_null(strstr(err, "bad.js.map"));
}

static void url_to_path(void **state) {
  (void)state;
  char *p;
  assert_string_equal(p = cprof__sm_url_to_path("/a/b.js"), "/a/b.js");
  free(p);
  assert_string_equal(p = cprof__sm_url_to_path("file:///a%20b/c.js?x#y"), "/a b/c.js");
  free(p);
  assert_string_equal(p = cprof__sm_url_to_path("file://localhost/a.js"), "/a.js");
  free(p);
  assert_null(cprof__sm_url_to_path("node:internal/timers"));
  assert_null(cprof__sm_url_to_path(""));
  assert_null(cprof__sm_url_to_path("https://x/a.js"));
  assert_null(cprof__sm_url_to_path("file://host/a.js"));
  assert_null(cprof__sm_url_to_path("file:///a%00b"));
}

/* Two functions on one generated line, as a minifier writes them: line 0
 * holds a helper (col 0, original line 0), function a (col 10: line 2;
 * col 11: a segment without a source; col 12: line 3) and function b (col
 * 30: line 10; col 32: line 11); line 1 maps col 0 to line 5, col 4 to 6. */
#define TWO_FN_MAP                                                                                 \
  "{'version':3,'sources':['src.js'],'names':[],"                                                  \
  "'mappings':'AAAA,UAEA,C,CACA,kBAOA,EACA;AANA,IACA'}"

static void lookup_in_a_span(void **state) {
  (void)state;
  cprof_sourcemap_t *m = map_ok(TWO_FN_MAP, "/app/");
  cprof_sm_pos_t p;
  assert_true(cprof_sourcemap_lookup_in(m, 0, 10, 30, &p));
  assert_int_equal(p.line, 2);
  assert_true(cprof_sourcemap_lookup_in(m, 0, 11, 30, &p)); /* col 11 maps nothing: col 12 */
  assert_int_equal(p.line, 3);
  assert_true(cprof_sourcemap_lookup_in(m, 0, 9, INT32_MAX, &p)); /* the first at or after */
  assert_int_equal(p.line, 2);
  assert_true(cprof_sourcemap_lookup_in(m, 0, 30, INT32_MAX, &p));
  assert_int_equal(p.line, 10);
  assert_false(cprof_sourcemap_lookup_in(m, 0, 13, 30, &p)); /* none in the span */
  assert_false(cprof_sourcemap_lookup_in(m, 0, 33, INT32_MAX, &p));
  assert_false(cprof_sourcemap_lookup_in(m, 0, 10, 10, &p));
  assert_true(cprof_sourcemap_lookup_in(m, 1, 0, 4, &p));
  assert_int_equal(p.line, 5);
  assert_false(cprof_sourcemap_lookup_in(m, 1, 5, 100, &p));
  assert_false(cprof_sourcemap_lookup_in(m, 2, 0, 100, &p));
  assert_false(cprof_sourcemap_lookup_in(m, -1, 0, 100, &p));
  cprof_sourcemap_free(m);
}

/* The line (1-based) of node's nth positionTicks entry. */
static int32_t tick_line(const cprof_profile_t *p, uint32_t node, int32_t nth) {
  int32_t k = nth;
  for (uint32_t i = 0; i < p->nline_ticks; i++)
    if (p->line_ticks[i].node == node && k-- == 0) return p->line_ticks[i].line;
  fail_msg("no entry %d of node %u", nth, node);
  return -1;
}

static uint32_t node_named(const cprof_profile_t *p, const char *name) {
  for (uint32_t i = 0; i < p->nnodes; i++)
    if (strcmp(p->frames[p->nodes[i].frame].name, name) == 0) return i;
  fail_msg("no node %s", name);
  return 0;
}

/* V8's positionTicks name a line and no column: each function's ticks on
 * its start line read as the first mapping inside it (from its start to
 * the next function's), never as the line's first mapping (the helper's,
 * or another function's); with no mapping inside, as the function's own
 * start; on a later line, as that line's first mapping. */
static void ticks_stay_in_their_function(void **state) {
  tmp_t *t = *state;
  put(t, "min.js", "x\ny\n//# sourceMappingURL=min.js.map\n");
  put(t, "min.js.map", TWO_FN_MAP);
  char json[2048];
#define FR(name, col)                                                                              \
  "'callFrame':{'functionName':'" name "','scriptId':'1','url':'file://%s/min.js',"                \
  "'lineNumber':0,'columnNumber':" #col "}"
  /* clang-format off */
  snprintf(json, sizeof json,
           "{'nodes':[{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
           "'lineNumber':-1,'columnNumber':-1},'children':[2,3,4]},"
           "{'id':2," FR("a", 10) ",'positionTicks':[{'line':1,'ticks':3},{'line':2,'ticks':1}]},"
           "{'id':3," FR("b", 30) ",'positionTicks':[{'line':1,'ticks':5}]},"
           "{'id':4," FR("c", 13) ",'positionTicks':[{'line':1,'ticks':2}]}],"
           "'startTime':0,'endTime':110,'samples':[2,3,4],'timeDeltas':[10,10,10]}",
           t->dir, t->dir, t->dir);
  /* clang-format on */
#undef FR
  cprof_profile_t *p = parse_ok(json);
  cprof_sm_frames_t *f;
  cprof_sm_stats_t st;
  uint32_t a = node_named(p, "a"), b = node_named(p, "b"), c = node_named(p, "c");
  assert_int_equal(tick_line(p, a, 0), 1); /* V8's */
  assert_int_equal(cprof_sourcemap_apply(p, NULL, NULL, &f, &st), CPROF_OK);
  assert_int_equal(tick_line(p, a, 0), 3);  /* col 10, not the helper's col 0 (line 1) */
  assert_int_equal(tick_line(p, a, 1), 6);  /* a later line: its first mapping */
  assert_int_equal(tick_line(p, b, 0), 11); /* col 30: b's own, not a's */
  assert_int_equal(tick_line(p, c, 0), 4);  /* nothing in [13, 30): c's own start (col 12) */
  cprof_sourcemap_swap(p, f);
  assert_int_equal(tick_line(p, b, 0), 1);
  cprof_sourcemap_release(p, f);
  cprof_profile_free(p);
}

/* "x.js has a source map", for line views not mapped: the comment at the
 * end of the text read, or of the file's tail; <script>.map beside it; not
 * for a file not named like source code, nor for another user's profile
 * whose owner could not reach the script or the map. */
static void has_map_hint(void **state) {
  tmp_t *t = *state;
  char url[256], lnk[256], dst[256];
  cprof__source_t src;
#define URL(name) (snprintf(url, sizeof url, "file://%s/%s", t->dir, name), url)
  put(t, "linked.js", "f()\n//# sourceMappingURL=nowhere.map\n");
  put(t, "plain.js", "f()\n");
  assert_true(cprof__source_has_map(URL("linked.js"), NULL, NULL)); /* the tail */
  assert_false(cprof__source_has_map(URL("plain.js"), NULL, NULL));
  assert_int_equal(cprof__source_read(URL("linked.js"), NULL, NULL, &src, NULL, 0), CPROF_OK);
  assert_true(cprof__source_has_map(URL("plain.js"), &src, NULL)); /* the text given wins */
  cprof__source_free(&src);
  put(t, "plain.js.map", "{}"); /* only its presence counts: never read */
  assert_true(cprof__source_has_map(URL("plain.js"), NULL, NULL));
  put(t, "notes.txt", "//# sourceMappingURL=x.map\n");
  assert_false(cprof__source_has_map(URL("notes.txt"), NULL, NULL));
  assert_false(cprof__source_has_map(URL("gone.js"), NULL, NULL));
  assert_false(cprof__source_has_map("node:fs", NULL, NULL));
  /* A link named like source code to a file that is not: as the reader. */
  snprintf(lnk, sizeof lnk, "%s/link.js", t->dir);
  snprintf(dst, sizeof dst, "%s/notes.txt", t->dir);
  assert_int_equal(symlink(dst, lnk), 0);
  assert_false(cprof__source_has_map(URL("link.js"), NULL, NULL));
  /* Another user's profile: a directory closed to them hides both ways. */
  cprof_source_owners_t o = {1, 0, {54321}, {54322}};
  assert_int_equal(chmod(t->dir, 0700), 0);
  assert_false(cprof__source_has_map(URL("linked.js"), NULL, &o));
  assert_false(cprof__source_has_map(URL("plain.js"), NULL, &o));
  assert_int_equal(chmod(t->dir, 0755), 0);
  assert_true(cprof__source_has_map(URL("linked.js"), NULL, &o));
  snprintf(dst, sizeof dst, "%s/plain.js.map", t->dir);
  assert_int_equal(chmod(dst, 0600), 0); /* the map beside it closed to them */
  assert_false(cprof__source_has_map(URL("plain.js"), NULL, &o));
  assert_true(cprof__source_has_map(URL("plain.js"), NULL, NULL));
#undef URL
}

/* ---- applying to a profile, through the cache ---- */

static cprof_profile_t *profile_at(const tmp_t *t) {
  char json[2048];
  snprintf(json, sizeof json,
           "{'head':{'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
           "'lineNumber':-1,'columnNumber':-1},'selfSize':0,'id':1,'children':["
           "{'callFrame':{'functionName':'a','scriptId':'1','url':'file://%s/app.js',"
           "'lineNumber':0,'columnNumber':10},'selfSize':100,'id':2,'children':[]},"
           "{'callFrame':{'functionName':'b','scriptId':'1','url':'%s/app.js',"
           "'lineNumber':5,'columnNumber':0},'selfSize':50,'id':3,'children':[]},"
           "{'callFrame':{'functionName':'c','scriptId':'2','url':'node:fs',"
           "'lineNumber':1,'columnNumber':1},'selfSize':25,'id':4,'children':[]}]},"
           "'samples':[{'size':100,'nodeId':2,'ordinal':1}]}",
           t->dir, t->dir);
  return parse_ok(json);
}

static uint32_t frame_named(const cprof_profile_t *p, const char *name) {
  for (uint32_t i = 0; i < p->nframes; i++)
    if (strcmp(p->frames[i].name, name) == 0) return i;
  fail_msg("no frame %s", name);
  return 0;
}

static void apply_swap_release(void **state) {
  tmp_t *t = *state;
  put(t, "app.js", "function a() {}\n//# sourceMappingURL=app.js.map\n");
  put(t, "app.js.map",
      "{'version':3,'sources':['a b.ts'],'names':['original'],"
      "'mappings':'AAAA,SAASA'}");
  cprof_profile_t *p = profile_at(t);
  cprof_smcache_t *c = cprof_smcache_new(1 << 20, NULL, NULL, NULL);
  cprof_sm_frames_t *f;
  cprof_sm_stats_t st;
  uint32_t a = frame_named(p, "a"), b = frame_named(p, "b");
  assert_int_equal(cprof_sourcemap_apply(p, c, NULL, &f, &st), CPROF_OK);
  assert_int_equal(st.frames, 2); /* node:fs and (root) name no file */
  assert_int_equal(st.mapped, 1);
  assert_int_equal(st.unmapped, 1); /* line 5 is past the map */
  assert_int_equal(st.scripts, 2);  /* one file under two urls */
  assert_int_equal(st.scripts_with_map, 2);
  assert_int_equal(st.map_errors, 0);
  char want[256];
  snprintf(want, sizeof want, "file://%s/a%%20b.ts", t->dir);
  assert_string_equal(p->frames[a].name, "original");
  assert_string_equal(p->frames[a].url, want);
  assert_int_equal(p->frames[a].line, 0);
  assert_int_equal(p->frames[a].column, 9);
  assert_string_equal(p->frames[b].name, "b");
  cprof_sourcemap_swap(p, f);
  assert_string_equal(p->frames[a].name, "a"); /* V8's, for the .heapprofile */
  assert_int_equal(p->frames[a].column, 10);
  cprof_sourcemap_swap(p, f);
  assert_string_equal(p->frames[a].name, "original");
  cprof_sourcemap_release(p, f);
  assert_string_equal(p->frames[a].name, "a");
  size_t maps, bytes;
  cprof_smcache_usage(c, &maps, &bytes);
  assert_int_equal(maps, 1);
  assert_true(bytes > 0);

  /* The cached map is used again; a changed map file is read again. */
  assert_int_equal(cprof_sourcemap_apply(p, c, NULL, &f, &st), CPROF_OK);
  assert_string_equal(p->frames[a].name, "original");
  cprof_sourcemap_release(p, f);
  put(t, "app.js.map",
      "{'version':3,'sources':['z.ts'],'names':['renamed'],"
      "'mappings':'AAAA,SAASA'}");
  struct timespec ts[2] = {{0, UTIME_NOW}, {time(NULL) + 5, 0}};
  char mp[256];
  snprintf(mp, sizeof mp, "%s/app.js.map", t->dir);
  assert_int_equal(utimensat(AT_FDCWD, mp, ts, 0), 0);
  assert_int_equal(cprof_sourcemap_apply(p, c, NULL, &f, &st), CPROF_OK);
  assert_string_equal(p->frames[a].name, "renamed");
  cprof_sourcemap_release(p, f);

  /* A malformed map: counted, its message kept, frames unmapped. */
  put(t, "app.js.map", "{'version':3,'sources':[],'mappings':'!'}");
  ts[1].tv_sec += 5;
  assert_int_equal(utimensat(AT_FDCWD, mp, ts, 0), 0);
  assert_int_equal(cprof_sourcemap_apply(p, c, NULL, &f, &st), CPROF_OK);
  assert_int_equal(st.mapped, 0);
  assert_int_equal(st.map_errors, 2);
  assert_non_null(strstr(st.errors[0], "app.js.map"));
  assert_string_equal(p->frames[a].name, "a");
  cprof_sourcemap_release(p, f);
  cprof_smcache_free(c);
  cprof_profile_free(p);
}

static void cache_bound_evicts(void **state) {
  tmp_t *t = *state;
  char name[32];
  for (int i = 0; i < 4; i++) {
    snprintf(name, sizeof name, "s%d.js", i);
    put(t, name, "f()\n");
    snprintf(name, sizeof name, "s%d.js.map", i);
    put(t, name, MAP_JSON);
  }
  cprof_sm_frames_t *f;
  cprof_sm_stats_t st;
  cprof_smcache_t *c = cprof_smcache_new(1, NULL, NULL, NULL); /* nothing fits */
  cprof_profile_t *p = profile_at(t);
  assert_int_equal(cprof_sourcemap_apply(p, c, NULL, &f, &st), CPROF_OK);
  cprof_sourcemap_release(p, f);
  size_t maps, bytes;
  cprof_smcache_usage(c, &maps, &bytes);
  assert_int_equal(maps, 0);
  assert_int_equal(bytes, 0);
  cprof_smcache_free(c);
  /* No cache at all works too. */
  assert_int_equal(cprof_sourcemap_apply(p, NULL, NULL, &f, &st), CPROF_OK);
  cprof_sourcemap_release(p, f);
  cprof_profile_free(p);
}

/* Issue 36: another user's profile uses a script's map only when that user
 * could read the script and the map file (their text, sourcesContent
 * included, would show): in a directory closed to them, or a map of mode
 * 0600 not theirs, the frames stay V8's and the reason is counted. */
static void apply_only_what_the_owner_reads(void **state) {
  tmp_t *t = *state;
  put(t, "app.js", "function a() {}\n//# sourceMappingURL=app.js.map\n");
  put(t, "app.js.map",
      "{'version':3,'sources':['a.ts'],'sourcesContent':['MARKER'],'names':['original'],"
      "'mappings':'AAAA,SAASA'}");
  char mp[256], js[256];
  snprintf(mp, sizeof mp, "%s/app.js.map", t->dir);
  snprintf(js, sizeof js, "%s/app.js", t->dir);
  cprof_source_owners_t o = {1, 0, {54321}, {54322}};
  cprof_sm_limits_t lim = {0, 0, &o};
  cprof_profile_t *p = profile_at(t);
  cprof_smcache_t *c = cprof_smcache_new(1 << 20, NULL, NULL, NULL);
  cprof_sm_frames_t *f;
  cprof_sm_stats_t st;
  uint32_t a = frame_named(p, "a");
  assert_int_equal(chmod(t->dir, 0700), 0);
  assert_int_equal(cprof_sourcemap_apply(p, c, &lim, &f, &st), CPROF_OK);
  assert_int_equal(st.mapped, 0);
  assert_int_equal(st.scripts_with_map, 0);
  assert_true(st.map_errors > 0);
  assert_non_null(
      strstr(st.errors[0], "is not used: the profile's owner (uid 54321) cannot reach"));
  assert_string_equal(p->frames[a].name, "a");
  assert_null(cprof_sourcemap_texts(f));
  cprof_sourcemap_release(p, f);
  assert_int_equal(chmod(t->dir, 0755), 0);
  assert_int_equal(chmod(js, 0644), 0);
  assert_int_equal(chmod(mp, 0600), 0);
  assert_int_equal(cprof_sourcemap_apply(p, c, &lim, &f, &st), CPROF_OK);
  assert_int_equal(st.mapped, 0);
  assert_non_null(strstr(st.errors[0], "cannot read it"));
  cprof_sourcemap_release(p, f);
  assert_int_equal(chmod(mp, 0644), 0); /* open to them: used, from the cache */
  assert_int_equal(cprof_sourcemap_apply(p, c, &lim, &f, &st), CPROF_OK);
  assert_int_equal(st.mapped, 1);
  assert_int_equal(st.map_errors, 0);
  assert_string_equal(p->frames[a].name, "original");
  assert_non_null(cprof_sourcemap_texts(f));
  cprof_sourcemap_release(p, f);
  cprof_smcache_free(c);
  cprof_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(decode_and_lookup),
      cmocka_unit_test(contents_kept_only_for_sources_not_on_disk),
      cmocka_unit_test(column_before_first_mapping),
      cmocka_unit_test(segment_without_source_maps_nothing),
      cmocka_unit_test(unsorted_line_is_sorted_stably),
      cmocka_unit_test(sources_resolve),
      cmocka_unit_test(index_map_sections),
      cmocka_unit_test(malformed_maps),
      cmocka_unit_test(url_to_path),
      cmocka_unit_test(lookup_in_a_span),
      cmocka_unit_test_setup_teardown(ticks_stay_in_their_function, setup, teardown),
      cmocka_unit_test_setup_teardown(has_map_hint, setup, teardown),
      cmocka_unit_test_setup_teardown(find_external_inline_and_guess, setup, teardown),
      cmocka_unit_test_setup_teardown(find_failures, setup, teardown),
      cmocka_unit_test_setup_teardown(apply_swap_release, setup, teardown),
      cmocka_unit_test_setup_teardown(apply_only_what_the_owner_reads, setup, teardown),
      cmocka_unit_test_setup_teardown(cache_bound_evicts, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

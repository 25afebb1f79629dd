/* The HTML viewer's exporter: the template around the data, the data as
 * JSON (read back with cJSON, a parser we did not write), its escaping
 * against names that try to end the script, and the diff's two slots. The
 * browser tests (test/js/viewer/viewer.test.js) check what the page shows. */
#define _GNU_SOURCE /* open_memstream, memmem */
#include <cjson/cJSON.h>

#include "helpers.h"

static const char *CPU =
    "{'nodes':["
    "{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'','lineNumber':-1,"
    "'columnNumber':-1},'children':[2,4]},"
    "{'id':2,'callFrame':{'functionName':'main','scriptId':'3','url':'file:///app/main.js',"
    "'lineNumber':9,'columnNumber':4},'children':[3]},"
    "{'id':3,'callFrame':{'functionName':'</script><script>alert(1)</script>\\u2028&x','scriptId':"
    "'3','url':'file:///app/<b>.js','lineNumber':19,'columnNumber':0}},"
    "{'id':4,'callFrame':{'functionName':'(idle)','scriptId':'0','url':'','lineNumber':-1,"
    "'columnNumber':-1}}],"
    "'startTime':1000,'endTime':2000,'samples':[3,3,2,4],'timeDeltas':[0,250,250,250]}";
/* weights 250 each: node 3: 500, node 2: 250, idle 250; total 1000 µs */

#define TPL_HEAD "<html><script type=\"application/json\">"
#define TPL_TAIL "</script></html>\n"

static char *render(const cprof_profile_t *a, const cprof_profile_t *b,
                    const cprof_export_opts_t *o, int *rc, size_t *len) {
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  assert_non_null(f);
  *rc = b ? cprof_diff_html(a, b, o, f) : cprof_export_html(a, o, f);
  assert_int_equal(fclose(f), 0);
  return buf;
}

/* The JSON between the template's head and tail, parsed. */
static cJSON *data_of(const char *page, size_t len, const char *head, const char *tail) {
  size_t hl = strlen(head), tl = strlen(tail);
  assert_true(len > hl + tl);
  assert_memory_equal(page, head, hl);
  assert_memory_equal(page + len - tl, tail, tl);
  const char *json = page + hl;
  size_t n = len - hl - tl;
  /* Nothing in the data can end the script or start markup. */
  assert_null(memchr(json, '<', n));
  assert_null(memchr(json, '>', n));
  assert_null(memchr(json, '&', n));
  assert_null(memmem(json, n, "\xE2\x80\xA8", 3));
  cJSON *d = cJSON_ParseWithLength(json, n);
  assert_non_null(d);
  return d;
}

static cJSON *get(const cJSON *o, const char *path) {
  char key[64];
  const cJSON *cur = o;
  while (*path) {
    size_t n = strcspn(path, ".");
    snprintf(key, sizeof key, "%.*s", (int)n, path);
    cur = cJSON_GetObjectItemCaseSensitive(cur, key);
    assert_non_null(cur);
    path += n + (path[n] == '.');
  }
  return (cJSON *)cur;
}

static void cpu_page(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(CPU);
  const char tpl[] = TPL_HEAD CPROF_HTML_MARKER TPL_TAIL;
  cprof_export_opts_t o = {.html_template = tpl,
                           .html_template_len = sizeof tpl - 1,
                           .title = "t<i>tle",
                           .interval = 250,
                           .start_time_ms = 1700000000000};
  int rc;
  size_t len;
  char *page = render(p, NULL, &o, &rc, &len);
  assert_int_equal(rc, CPROF_OK);
  cJSON *d = data_of(page, len, TPL_HEAD, TPL_TAIL);
  assert_string_equal(get(d, "format")->valuestring, "cprof-viewer");
  assert_int_equal(get(d, "version")->valueint, 1);
  assert_string_equal(get(d, "kind")->valuestring, "cpu");
  assert_true(cJSON_IsFalse(get(d, "diff")));
  assert_string_equal(get(d, "title")->valuestring, "t<i>tle");
  assert_string_equal(get(d, "unit")->valuestring, "us");
  assert_int_equal(get(d, "interval")->valueint, 250);
  assert_int_equal(get(d, "durationUs")->valueint, 1000);
  assert_true(get(d, "startTime")->valuedouble == 1700000000000.0);
  assert_int_equal(cJSON_GetArrayItem(get(d, "samples"), 0)->valueint, 4);
  assert_int_equal(cJSON_GetArrayItem(get(d, "total"), 0)->valueint, 1000);
  /* fns: the hostile name comes back exactly */
  cJSON *names = get(d, "fns.name"), *urls = get(d, "fns.url"), *lines = get(d, "fns.line");
  int nf = cJSON_GetArraySize(names), hostile = -1;
  assert_int_equal(nf, 4);
  for (int i = 0; i < nf; i++)
    if (strcmp(cJSON_GetArrayItem(names, i)->valuestring,
               "</script><script>alert(1)</script>\xE2\x80\xA8&x") == 0)
      hostile = i;
  assert_true(hostile >= 0);
  assert_string_equal(cJSON_GetArrayItem(urls, hostile)->valuestring, "/app/<b>.js");
  assert_int_equal(cJSON_GetArrayItem(lines, hostile)->valueint, 20);
  /* fns.col: 1-based, where the function starts (the source pane reads its body from it) */
  assert_int_equal(cJSON_GetArraySize(get(d, "fns.col")), nf);
  assert_int_equal(cJSON_GetArrayItem(get(d, "fns.col"), hostile)->valueint, 1);
  /* nodes: depth-first, root first, self sums to the total */
  cJSON *fn = get(d, "nodes.fn"), *depth = get(d, "nodes.depth"), *self = get(d, "nodes.self");
  int n = cJSON_GetArraySize(fn);
  assert_int_equal(n, 4);
  assert_int_equal(cJSON_GetArraySize(depth), n);
  assert_int_equal(cJSON_GetArraySize(self), n);
  assert_null(cJSON_GetObjectItemCaseSensitive(get(d, "nodes"), "self1"));
  assert_int_equal(cJSON_GetArrayItem(depth, 0)->valueint, 0);
  int64_t sum = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0)
      assert_true(cJSON_GetArrayItem(depth, i)->valueint <=
                  cJSON_GetArrayItem(depth, i - 1)->valueint + 1);
    sum += (int64_t)cJSON_GetArrayItem(self, i)->valuedouble;
    if (cJSON_GetArrayItem(fn, i)->valueint == hostile) {
      assert_int_equal(cJSON_GetArrayItem(depth, i)->valueint, 2);
      assert_int_equal(cJSON_GetArrayItem(self, i)->valueint, 500);
    }
  }
  assert_int_equal(sum, 1000);
  cJSON_Delete(d);
  free(page);
  cprof_profile_free(p);
}

static void diff_page(void **state) {
  (void)state;
  cprof_profile_t *a = parse_ok(CPU), *b = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  const char tpl[] = TPL_HEAD CPROF_HTML_MARKER TPL_TAIL;
  cprof_export_opts_t o = {.html_template = tpl, .html_template_len = sizeof tpl - 1};
  int rc;
  size_t len;
  char *page = render(a, b, &o, &rc, &len);
  assert_int_equal(rc, CPROF_OK);
  cJSON *d = data_of(page, len, TPL_HEAD, TPL_TAIL);
  assert_true(cJSON_IsTrue(get(d, "diff")));
  assert_int_equal(cJSON_GetArrayItem(get(d, "total"), 0)->valueint, 1000);
  assert_int_equal((int64_t)cJSON_GetArrayItem(get(d, "total"), 1)->valuedouble,
                   cprof_profile_total(b));
  assert_int_equal(cJSON_GetArrayItem(get(d, "samples"), 1)->valueint, (int)b->nsamples);
  cJSON *s0 = get(d, "nodes.self"), *s1 = get(d, "nodes.self1");
  assert_int_equal(cJSON_GetArraySize(s0), cJSON_GetArraySize(s1));
  int64_t sum0 = 0, sum1 = 0;
  for (int i = 0; i < cJSON_GetArraySize(s0); i++) {
    sum0 += (int64_t)cJSON_GetArrayItem(s0, i)->valuedouble;
    sum1 += (int64_t)cJSON_GetArrayItem(s1, i)->valuedouble;
  }
  assert_int_equal(sum0, 1000);
  assert_int_equal(sum1, cprof_profile_total(b));
  cJSON_Delete(d);
  free(page);
  /* a heap profile does not diff with a CPU one */
  cprof_profile_t *h = parse_file(CPROF_FIXTURES "/small.heapprofile");
  FILE *f = fopen("/dev/null", "w");
  assert_int_equal(cprof_diff_html(a, h, &o, f), CPROF_EINVAL);
  fclose(f);
  cprof_profile_free(h);
  cprof_profile_free(a);
  cprof_profile_free(b);
}

static void heap_and_templates(void **state) {
  (void)state;
  cprof_profile_t *h = parse_file(CPROF_FIXTURES "/small.heapprofile");
  int rc;
  size_t len;
  /* no template: a bare page that still carries the data */
  char *page = render(h, NULL, NULL, &rc, &len);
  assert_int_equal(rc, CPROF_OK);
  assert_non_null(strstr(page, "\"kind\":\"heap\""));
  assert_non_null(strstr(page, "\"unit\":\"bytes\""));
  assert_null(strstr(page, CPROF_HTML_MARKER));
  free(page);
  /* a template without the marker is refused; only the first marker is used */
  const char bad[] = "<html></html>";
  cprof_export_opts_t o = {.html_template = bad, .html_template_len = sizeof bad - 1};
  page = render(h, NULL, &o, &rc, &len);
  assert_int_equal(rc, CPROF_EINVAL);
  free(page);
  const char two[] = "A" CPROF_HTML_MARKER "B" CPROF_HTML_MARKER "C";
  o = (cprof_export_opts_t){.html_template = two, .html_template_len = sizeof two - 1};
  page = render(h, NULL, &o, &rc, &len);
  assert_int_equal(rc, CPROF_OK);
  assert_true(page[0] == 'A');
  assert_non_null(strstr(page, "}B" CPROF_HTML_MARKER "C"));
  free(page);
  cprof_profile_free(h);
}

static void long_and_invalid_names(void **state) {
  (void)state;
  /* a 10,000-character name and invalid UTF-8: kept whole, made valid */
  size_t n = 10000;
  char *json = malloc(n + 512);
  assert_non_null(json);
  int k = snprintf(json, 512,
                   "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\","
                   "\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},"
                   "\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"\xff");
  memset(json + k, 'x', n - 1);
  k += (int)n - 1;
  snprintf(json + k, 512,
           "\",\"scriptId\":\"1\",\"url\":\"\",\"lineNumber\":0,\"columnNumber\":0}}],"
           "\"startTime\":0,\"endTime\":10,\"samples\":[2],\"timeDeltas\":[0]}");
  char err[256] = "";
  cprof_profile_t *p = NULL;
  int rc = cprof_profile_parse(json, strlen(json), &p, err, sizeof err);
  free(json);
  if (rc != CPROF_OK) skip(); /* the parser refused the bytes: nothing to export */
  const char tpl[] = TPL_HEAD CPROF_HTML_MARKER TPL_TAIL;
  cprof_export_opts_t o = {.html_template = tpl, .html_template_len = sizeof tpl - 1};
  size_t len;
  char *page = render(p, NULL, &o, &rc, &len);
  assert_int_equal(rc, CPROF_OK);
  cJSON *d = data_of(page, len, TPL_HEAD, TPL_TAIL);
  cJSON *names = get(d, "fns.name");
  int found = 0;
  for (int i = 0; i < cJSON_GetArraySize(names); i++) {
    const char *s = cJSON_GetArrayItem(names, i)->valuestring;
    if (strncmp(s, "\xEF\xBF\xBD", 3) == 0 && strlen(s) == 3 + n - 1) found = 1;
  }
  assert_true(found);
  cJSON_Delete(d);
  free(page);
  cprof_profile_free(p);
}

/* base64 to bytes (the test's own decoder); returns the byte count. */
static size_t unbase64(const char *s, unsigned char *out, size_t cap) {
  static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  uint32_t acc = 0;
  int bits = 0;
  size_t n = 0;
  for (; *s && *s != '='; s++) {
    const char *at = strchr(A, *s);
    assert_non_null(at);
    acc = (acc << 6) | (uint32_t)(at - A), bits += 6;
    if (bits >= 8) {
      assert_true(n < cap);
      out[n++] = (unsigned char)(acc >> (bits - 8)), bits -= 8;
    }
  }
  return n;
}

/* The samples in order: each sample's node (its depth-first index) and
 * weight, 16-bit here; a weight over 65,535 µs makes them 32-bit. The marks
 * string comes back as written, escaped. */
static void timeline_and_marks(void **state) {
  (void)state;
  const char tpl[] = TPL_HEAD CPROF_HTML_MARKER TPL_TAIL;
  cprof_export_opts_t o = {.html_template = tpl,
                           .html_template_len = sizeof tpl - 1,
                           .html_marks = "{\"reason\":{\"trigger\":\"</script>\"}}"};
  for (int wide = 0; wide < 2; wide++) {
    char *json = strdup(CPU);
    if (wide) { /* the last gap 250 -> 70000 µs (endTime moves with it) */
      char *at = strstr(json, "250,250]");
      memcpy(at, "250,7e4]", 8);
      at = strstr(json, "'endTime':2000");
      memcpy(at, "'endTime':8000", 14); /* ends before the last sample: weight 0 */
    }
    cprof_profile_t *p = parse_ok(json);
    int rc;
    size_t len;
    char *page = render(p, NULL, &o, &rc, &len);
    assert_int_equal(rc, CPROF_OK);
    cJSON *d = data_of(page, len, TPL_HEAD, TPL_TAIL);
    assert_string_equal(get(d, "marks")->valuestring, "{\"reason\":{\"trigger\":\"</script>\"}}");
    assert_int_equal(get(d, "timeline.first")->valueint, 0);
    int nb = get(d, "timeline.nodeBits")->valueint, wb = get(d, "timeline.weightBits")->valueint;
    assert_int_equal(nb, 16);
    assert_int_equal(wb, wide ? 32 : 16);
    unsigned char nodes[64], weights[64];
    size_t nn = unbase64(get(d, "timeline.node")->valuestring, nodes, sizeof nodes);
    size_t nw = unbase64(get(d, "timeline.weight")->valuestring, weights, sizeof weights);
    assert_int_equal(nn, 4 * 2);
    assert_int_equal(nw, 4 * (size_t)(wb / 8));
    cJSON *fn = get(d, "nodes.fn"), *names = get(d, "fns.name");
    const char *want[] = {"main", "main", "main", "(idle)"}; /* the hostile leaf is under main */
    for (int i = 0; i < 4; i++) {
      int node = nodes[2 * i] | nodes[2 * i + 1] << 8;
      int f = cJSON_GetArrayItem(fn, node)->valueint;
      const char *name = cJSON_GetArrayItem(names, f)->valuestring;
      if (i < 2)
        assert_true(strstr(name, "</script>") == name); /* samples 0, 1: the leaf */
      else
        assert_string_equal(name, want[i]);
    }
    uint32_t w[4];
    for (int i = 0; i < 4; i++) {
      const unsigned char *b = weights + i * (wb / 8);
      w[i] = wb == 16 ? (uint32_t)(b[0] | b[1] << 8)
                      : (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                            (uint32_t)b[3] << 24;
    }
    assert_int_equal(w[0], 250);
    assert_int_equal(w[1], 250);
    assert_int_equal(w[2], wide ? 70000 : 250);
    assert_int_equal(w[3], wide ? 0 : 250);
    cJSON_Delete(d);
    free(page);
    cprof_profile_free(p);
    free(json);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpu_page),           cmocka_unit_test(diff_page),
      cmocka_unit_test(heap_and_templates), cmocka_unit_test(long_and_invalid_names),
      cmocka_unit_test(timeline_and_marks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

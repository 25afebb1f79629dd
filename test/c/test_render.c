/* The encoders under the derived formats: protobuf varints and fields, XML
 * escaping, UTF-8 counting, folded frames, frame labels and kinds, and the
 * function tree. */
#include "helpers.h"
#include "internal.h"
#include "export_folded.h"
#include "label.h"
#include "pb.h"
#include "tree.h"
#include "xml.h"

static void assert_bytes(const unsigned char *got, size_t n, const char *want_hex) {
  char hex[64] = "";
  for (size_t i = 0; i < n; i++)
    snprintf(hex + 2 * i, sizeof(hex) - 2 * i, "%02x", got[i]);
  assert_string_equal(hex, want_hex);
}

static void varint(uint64_t v, const char *want_hex) {
  unsigned char out[10];
  size_t n = cprof__pb_varint(out, v);
  assert_true(n >= 1 && n <= 10);
  assert_bytes(out, n, want_hex);
}

static void pb_varints(void **state) {
  (void)state;
  varint(0, "00");
  varint(1, "01");
  varint(127, "7f");
  varint(128, "8001");
  varint(150, "9601"); /* the protobuf documentation's example */
  varint(300, "ac02");
  varint(16383, "ff7f");
  varint(16384, "808001");
  varint(UINT32_MAX, "ffffffff0f");
  varint(UINT64_C(1) << 63, "80808080808080808001");
  varint(UINT64_MAX, "ffffffffffffffffff01");
  varint((uint64_t)(int64_t)-1, "ffffffffffffffffff01"); /* int64 -1: ten bytes */
}

static void pb_fields(void **state) {
  (void)state;
  cprof__buf_t b = {0};
  assert_int_equal(cprof__pb_put_int(&b, 1, 0), 0); /* proto3 default: omitted */
  assert_int_equal(b.len, 0);
  assert_int_equal(cprof__pb_put_int(&b, 1, 150), 0);
  assert_bytes(b.data, b.len, "089601");
  b.len = 0;
  assert_int_equal(cprof__pb_put_bytes(&b, 2, "testing", 7), 0);
  assert_bytes(b.data, b.len, "120774657374696e67");
  b.len = 0;
  assert_int_equal(cprof__pb_put_tag(&b, 16, 2), 0); /* two-byte tag */
  assert_bytes(b.data, b.len, "8201");
  b.len = 0;
  assert_int_equal(cprof__pb_put_bytes(&b, 6, "", 0), 0); /* empty string: tag and 0 */
  assert_bytes(b.data, b.len, "3200");
  cprof__buf_free(&b);
}

static void buf_grows(void **state) {
  (void)state;
  cprof__buf_t b = {0};
  for (int i = 0; i < 100000; i++)
    assert_int_equal(cprof__buf_put(&b, "abc", 3), 0);
  assert_int_equal(b.len, 300000);
  assert_memory_equal(b.data + 299997, "abc", 3);
  cprof__buf_free(&b);
  assert_null(b.data);
}

static char *xml(const char *s, size_t max) {
  FILE *f = tmpfile();
  size_t len;
  assert_non_null(f);
  assert_int_equal(cprof__xml_put(f, s, max), 0);
  char *out = slurp(f, &len);
  fclose(f);
  return out;
}

static void xml_escape_case(const char *in, size_t max, const char *want) {
  char *got = xml(in, max);
  assert_string_equal(got, want);
  free(got);
}

static void xml_escaping(void **state) {
  (void)state;
  xml_escape_case("plain", SIZE_MAX, "plain");
  xml_escape_case("a<b>&\"c'", SIZE_MAX, "a&lt;b&gt;&amp;&quot;c&#39;");
  xml_escape_case("</script><![CDATA[x]]>", SIZE_MAX, "&lt;/script&gt;&lt;![CDATA[x]]&gt;");
  xml_escape_case("caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x94\xA5", SIZE_MAX,
                  "caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x94\xA5"); /* valid UTF-8 kept */
  xml_escape_case("a\x01"
                  "b\x1F"
                  "c",
                  SIZE_MAX,
                  "a\xEF\xBF\xBD"
                  "b\xEF\xBF\xBD"
                  "c");
  xml_escape_case("tab\there", SIZE_MAX, "tab\there");
  xml_escape_case("line\nbreak", SIZE_MAX, "line&#10;break");
  xml_escape_case("bad\xFF"
                  "byte",
                  SIZE_MAX,
                  "bad\xEF\xBF\xBD"
                  "byte");
  xml_escape_case("cut\xE2\x82", SIZE_MAX, "cut\xEF\xBF\xBD\xEF\xBF\xBD");
  xml_escape_case("overlong\xC0\xAF", SIZE_MAX, "overlong\xEF\xBF\xBD\xEF\xBF\xBD");
  xml_escape_case("surrogate\xED\xA0\x80", SIZE_MAX,
                  "surrogate\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  xml_escape_case("\xEF\xBF\xBE", SIZE_MAX, "\xEF\xBF\xBD"); /* U+FFFE is not XML */
  /* max_chars counts code points, and an entity is one */
  xml_escape_case("abcdef", 3, "abc");
  xml_escape_case("\xC3\xA9\xC3\xA9\xC3\xA9", 2, "\xC3\xA9\xC3\xA9");
  xml_escape_case("<<<<", 2, "&lt;&lt;");
  xml_escape_case("", SIZE_MAX, "");
}

static void term_case(const char *in, const char *want) {
  FILE *f = tmpfile();
  size_t len;
  assert_non_null(f);
  assert_int_equal(cprof__term_put(f, in), 0);
  char *got = slurp(f, &len);
  fclose(f);
  assert_string_equal(got, want);
  free(got);
}

/* Issue 32: names reach a terminal with no control character raw. */
static void terminal_escaping(void **state) {
  (void)state;
  term_case("plain <b>&", "plain <b>&");
  term_case("caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x94\xA5",
            "caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x94\xA5"); /* valid UTF-8 kept */
  term_case("\x1B]0;title\x07\x1B[2J\x1B[31mred", "\\x1b]0;title\\x07\\x1b[2J\\x1b[31mred");
  term_case("a\nb\rc\td", "a\\nb\\rc\\td");
  term_case("del\x7F nul-free\x01", "del\\x7f nul-free\\x01");
  term_case("csi\xC2\x9B"
            "31m",
            "csi\\u009b31m"); /* C1 as UTF-8 */
  term_case("bidi\xE2\x80\xAE"
            "txt",
            "bidi\\u202etxt"); /* U+202E */
  term_case("bad\x9B"
            "byte\xFF",
            "bad\\x9bbyte\\xff");          /* invalid UTF-8 */
  term_case("back\\slash", "back\\slash"); /* kept as is */
  term_case("", "");
}

static void utf8_length(void **state) {
  (void)state;
  assert_int_equal(cprof__utf8_len(""), 0);
  assert_int_equal(cprof__utf8_len("abc"), 3);
  assert_int_equal(cprof__utf8_len("caf\xC3\xA9"), 4);
  assert_int_equal(cprof__utf8_len("\xF0\x9F\x94\xA5!"), 2);
  assert_int_equal(cprof__utf8_len("\xFF\xFE"), 2); /* invalid bytes: one each */
  const char *s = "a\xC3\xA9\xF0\x9F\x94\xA5z";
  assert_ptr_equal(cprof__utf8_skip(s, 0), s);
  assert_ptr_equal(cprof__utf8_skip(s, 2), s + 3);
  assert_ptr_equal(cprof__utf8_skip(s, 3), s + 7);
  assert_ptr_equal(cprof__utf8_skip(s, 99), s + 8); /* stops at the end */
}

static void folded_case(const char *label, const char *want) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%s", label);
  cprof__folded_clean(buf);
  assert_string_equal(buf, want);
}

static void folded_frames(void **state) {
  (void)state;
  folded_case("f (/a/b.js:3)", "f (/a/b.js:3)");
  folded_case("a;b;c", "a,b,c");
  folded_case("multi\nline\r\tname", "multi line  name");
  folded_case("", "");
}

static void label_case(const char *name, const char *url, int32_t line, const char *want) {
  cprof_frame_t f = {name, url, "1", line, 0};
  char *label = cprof__frame_label(&f);
  assert_non_null(label);
  assert_string_equal(label, want);
  free(label);
}

static void frame_labels(void **state) {
  (void)state;
  label_case("main", "file:///srv/app/x.js", 41, "main (/srv/app/x.js:42)");
  label_case("", "file:///srv/app/x.js", 0, "(anonymous) (/srv/app/x.js:1)");
  label_case("f", "node:internal/timers", 10, "f (node:internal/timers:11)");
  label_case("g", "https://example.com/a.js", -1, "g (https://example.com/a.js)");
  label_case("(garbage collector)", "", -1, "(garbage collector)");
  label_case("", "", -1, "(anonymous)");
}

static void kind_case(const char *name, const char *url, cprof__kind_t want) {
  cprof_frame_t f = {name, url, "0", 0, 0};
  assert_int_equal(cprof__frame_kind(&f), want);
}

static void frame_kinds(void **state) {
  (void)state;
  kind_case("main", "file:///srv/app/x.js", CPROF__KIND_APP);
  kind_case("main", "/srv/app/x.js", CPROF__KIND_APP);
  kind_case("get", "file:///srv/app/node_modules/express/lib/router.js", CPROF__KIND_DEPS);
  kind_case("emit", "node:events", CPROF__KIND_NODE);
  kind_case("listOnTimeout", "internal/timers.js", CPROF__KIND_NODE);
  kind_case("(garbage collector)", "", CPROF__KIND_NATIVE);
  kind_case("(program)", "", CPROF__KIND_NATIVE);
  kind_case("JSON.parse", "", CPROF__KIND_NATIVE);
  kind_case("(idle)", "", CPROF__KIND_IDLE);
}

static void values_for_people(void **state) {
  (void)state;
  char buf[64];
  cprof__fmt_value(buf, sizeof(buf), CPROF_KIND_CPU, 1234567);
  assert_string_equal(buf, "1234.57 ms");
  cprof__fmt_value(buf, sizeof(buf), CPROF_KIND_HEAP, 512);
  assert_string_equal(buf, "512 B");
  cprof__fmt_value(buf, sizeof(buf), CPROF_KIND_HEAP, 1536);
  assert_string_equal(buf, "1.5 KiB");
  cprof__fmt_value(buf, sizeof(buf), CPROF_KIND_HEAP, 3 * 1024 * 1024);
  assert_string_equal(buf, "3.00 MiB");
  assert_true(cprof__pct(1, 0) == 0.0);
  assert_true(cprof__pct(1, 4) == 25.0);
}

/* Two nodes of the same function under one parent merge; children sort by
 * label; totals and counts add up. */
static const char *MERGE =
    "{'nodes':["
    "{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'','lineNumber':-1,"
    "'columnNumber':-1},'children':[2,3,4]},"
    "{'id':2,'callFrame':{'functionName':'b','scriptId':'1','url':'file:///x.js','lineNumber':1,"
    "'columnNumber':0},'children':[5]},"
    "{'id':3,'callFrame':{'functionName':'a','scriptId':'1','url':'file:///x.js','lineNumber':0,"
    "'columnNumber':0}},"
    "{'id':4,'callFrame':{'functionName':'b','scriptId':'9','url':'file:///x.js','lineNumber':1,"
    "'columnNumber':0}},"
    "{'id':5,'callFrame':{'functionName':'c','scriptId':'1','url':'file:///x.js','lineNumber':2,"
    "'columnNumber':0}}],"
    "'startTime':0,'endTime':100,'samples':[2,3,4,5,5],'timeDeltas':[0,10,20,30,20]}";

static void tree_merges_siblings(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(MERGE);
  cprof__tree_t t;
  assert_int_equal(cprof__tree_build(&t, p), 0);
  /* (root), a, b (ids 2 and 4 merged: scriptId does not matter), c */
  assert_int_equal(t.nnodes, 4);
  assert_int_equal(t.max_depth, 2);
  const cprof__tnode_t *root = &t.nodes[0];
  const cprof__tnode_t *a = &t.nodes[root->first_child];
  const cprof__tnode_t *b = &t.nodes[a->next_sibling];
  assert_string_equal(t.fns[a->fn].label, "a (/x.js:1)");
  assert_string_equal(t.fns[b->fn].label, "b (/x.js:2)");
  assert_int_equal(b->next_sibling, CPROF_NONE);
  /* weights: 10, 20, 30, 20, 20 (the last up to endTime 100) */
  assert_int_equal(a->self[0], 20);
  assert_int_equal(b->self[0], 10 + 30);
  assert_int_equal(b->count[0], 2);
  assert_int_equal(b->total[0], 40 + 40);
  assert_int_equal(root->total[0], 100);
  assert_int_equal(t.total[0], 100);
  assert_int_equal(t.samples[0], 5);
  uint32_t found[4];
  assert_int_equal(cprof__tree_find_fns(&t, "b", found, 4), 1);
  assert_string_equal(t.fns[found[0]].label, "b (/x.js:2)");
  assert_int_equal(cprof__tree_find_fns(&t, "x.js:3", found, 4), 1); /* label substring */
  assert_int_equal(cprof__tree_find_fns(&t, "nope", found, 4), 0);
  cprof__tree_free(&t);
  cprof_profile_free(p);
}

static void tree_two_slots(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(MERGE);
  cprof_profile_t *q = parse_file(CPROF_FIXTURES "/small.heapprofile");
  cprof__tree_t t = {0};
  assert_int_equal(cprof__tree_add(&t, p, 0), 0);
  assert_int_equal(cprof__tree_add(&t, p, 1), 0);
  assert_int_equal(cprof__tree_add(&t, q, 1), CPROF_EINVAL); /* another kind */
  assert_int_equal(cprof__tree_add(&t, p, 2), CPROF_EINVAL);
  assert_int_equal(cprof__tree_finish(&t), 0);
  assert_int_equal(t.nnodes, 4);
  for (uint32_t i = 0; i < t.nnodes; i++) {
    assert_int_equal(t.nodes[i].self[0], t.nodes[i].self[1]);
    assert_int_equal(t.nodes[i].total[0], t.nodes[i].total[1]);
  }
  cprof__tree_free(&t);
  cprof_profile_free(p);
  cprof_profile_free(q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pb_varints),        cmocka_unit_test(pb_fields),
      cmocka_unit_test(buf_grows),         cmocka_unit_test(xml_escaping),
      cmocka_unit_test(utf8_length),       cmocka_unit_test(folded_frames),
      cmocka_unit_test(frame_labels),      cmocka_unit_test(frame_kinds),
      cmocka_unit_test(values_for_people), cmocka_unit_test(tree_merges_siblings),
      cmocka_unit_test(tree_two_slots),    cmocka_unit_test(terminal_escaping),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

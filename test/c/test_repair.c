/* cprof_cpu_text_repair: V8's CPU profile text with raw functionName and url
 * values, escaped back into JSON. Checked with cJSON (a decoder cprof did
 * not write) and with cprof's own parser. The property: for names and urls
 * drawn from every character class, the repaired text parses and gives back
 * each name and url byte for byte, or it does not parse at all (the caller
 * then falls back): never a valid profile with other names. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>

#include "helpers.h"

/* One node as V8 26 writes it, values raw. */
static void put_node(FILE *f, int id, const char *name, const char *url, int last, int order) {
  if (order == 0)
    fprintf(f,
            "{\"id\":%d,\"hitCount\":%d,\"callFrame\":{\"functionName\":\"%s\",\"lineNumber\":%d,"
            "\"columnNumber\":-1,\"scriptId\":%d,\"url\":\"%s\"}",
            id, id == 1 ? 0 : 1, name, id, id, url);
  else /* the inspector's order, scriptId a string */
    fprintf(f,
            "{\"id\":%d,\"callFrame\":{\"functionName\":\"%s\",\"scriptId\":\"%d\",\"url\":\"%s\","
            "\"lineNumber\":%d,\"columnNumber\":-1},\"hitCount\":%d",
            id, name, id, url, id, id == 1 ? 0 : 1);
  if (id == 1) fprintf(f, ",\"children\":[2,3]");
  if (id == 2) fprintf(f, ",\"positionTicks\":[{\"line\":3,\"ticks\":1}]");
  fprintf(f, "}%s", last ? "" : ",");
}

/* (root) with two children; names[i], urls[i] for nodes 2 and 3. */
static char *profile_text(const char *names[2], const char *urls[2], int order, size_t *len) {
  char *s = NULL;
  FILE *f = open_memstream(&s, len);
  assert_non_null(f);
  fprintf(f, "{\"nodes\":[");
  put_node(f, 1, "(root)", "", 0, order);
  put_node(f, 2, names[0], urls[0], 0, order);
  put_node(f, 3, names[1], urls[1], 1, order);
  fprintf(f, "],\"startTime\":0,\"endTime\":3000,\"samples\":[2,3,2],"
             "\"timeDeltas\":[1000,1000,1000]}");
  fclose(f);
  return s;
}

static const cJSON *node_frame(const cJSON *root, int i, const char *key) {
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
  const cJSON *frame = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, i), "callFrame");
  return cJSON_GetObjectItemCaseSensitive(frame, key);
}

/* 1: repaired and every value came back; 0: the repaired text does not
 * parse (or the cut failed). Fails the test on a wrong but valid result. */
static int round_trip(const char *names[2], const char *urls[2], int order) {
  size_t len, olen, nframes = 0;
  char *text = profile_text(names, urls, order, &len), *out = NULL;
  int rc = cprof_cpu_text_repair(text, len, &out, &olen, &nframes);
  free(text);
  if (rc == CPROF_EPARSE) return 0;
  assert_int_equal(rc, CPROF_OK);
  assert_int_equal(out[olen], '\0');
  cJSON *root = cJSON_ParseWithLength(out, olen);
  if (!root) {
    free(out);
    return 0;
  }
  for (int i = 0; i < 2; i++) {
    const cJSON *n = node_frame(root, i + 1, "functionName"), *u = node_frame(root, i + 1, "url");
    assert_true(cJSON_IsString(n) && cJSON_IsString(u));
    assert_string_equal(n->valuestring, names[i]);
    assert_string_equal(u->valuestring, urls[i]);
    const cJSON *sid = node_frame(root, i + 1, "scriptId"); /* quoted, as the inspector writes it */
    assert_true(cJSON_IsString(sid) && atoi(sid->valuestring) == i + 2);
  }
  assert_int_equal(nframes, 3);
  cprof_profile_t *p = parse_raw(out, olen); /* cprof's parser agrees */
  assert_int_equal(p->nsamples, 3);
  cprof_profile_free(p);
  cJSON_Delete(root);
  free(out);
  return 1;
}

static void repairs_the_regexp_frame(void **state) {
  (void)state;
  const char *names[2] = {"RegExp: ^(\\d+)-(\\w+)$", "main"};
  const char *urls[2] = {"", "/srv/app q\"d\\x/m.js"};
  for (int order = 0; order < 2; order++)
    assert_int_equal(round_trip(names, urls, order), 1);
}

static void valid_text_stays_valid(void **state) {
  (void)state;
  const char *names[2] = {"work", "(garbage collector)"};
  const char *urls[2] = {"file:///srv/app.js", ""};
  assert_int_equal(round_trip(names, urls, 0), 1);
}

/* Pieces from every class: plain, quote, backslash, control characters,
 * multi-byte UTF-8, U+FFFD (what a lone surrogate becomes on its way to C),
 * WTF-8 of a lone surrogate, and the text around the raw values. */
static const char *const PIECES[] = {
    "a",
    "Z9 ",
    "\"",
    "\\",
    "\\\\",
    "\\\"",
    "\\u0041",
    "\x01",
    "\n",
    "\t",
    "\x1f",
    "\x7f",
    "\xc3\xa9",
    "\xf0\x9f\x98\x80",
    "\xef\xbf\xbd",
    "\xed\xa0\x80",
    "\",\"scriptId\":\"",
    "\",\"lineNumber\":1,\"columnNumber\":2,\"scriptId\":3,\"url\":\"",
    "\"}",
    "\"},\"children\":[",
    "}]",
    "\"callFrame\":{\"functionName\":\"",
    ",{\"id\":",
    "RegExp: ",
};
#define NPIECES (sizeof PIECES / sizeof *PIECES)
#define CLASSES 16 /* PIECES before this are character classes */

/* xorshift: the same cases on every run. */
static uint32_t rnd(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static void random_value(uint32_t *seed, char *buf, size_t cap, size_t npieces) {
  size_t n = 0, k = rnd(seed) % 6;
  buf[0] = '\0';
  for (size_t i = 0; i < k; i++) {
    const char *p = PIECES[rnd(seed) % npieces];
    size_t m = strlen(p);
    if (n + m + 1 > cap) break;
    memcpy(buf + n, p, m + 1);
    n += m;
  }
}

/* n cases over the first npieces pieces: how many were repaired (the
 * rest were refused; round_trip fails the test on a wrong result). */
static int property(uint32_t seed, int n, size_t npieces) {
  char a[256], b[256], c[256], d[256];
  int ok = 0;
  for (int i = 0; i < n; i++) {
    random_value(&seed, a, sizeof a, npieces);
    random_value(&seed, b, sizeof b, npieces);
    random_value(&seed, c, sizeof c, npieces);
    random_value(&seed, d, sizeof d, npieces);
    const char *names[2] = {a, b}, *urls[2] = {c, d};
    ok += round_trip(names, urls, (int)(rnd(&seed) & 1));
  }
  return ok;
}

/* Names and urls mixing every character class: all repaired. */
static void property_every_character_class(void **state) {
  (void)state;
  assert_int_equal(property(0x9e3779b9, 20000, CLASSES), 20000);
}

/* With the text around raw values mixed in (fake tails, the frame key,
 * node ends): never a wrong result; the ambiguous ones are refused. */
static void property_with_structural_pieces(void **state) {
  (void)state;
  int ok = property(0x85ebca6b, 20000, NPIECES);
  print_message("structural property: %d repaired, %d refused (fallback)\n", ok, 20000 - ok);
  assert_true(ok > 5000);
}

/* Every character class alone, as a name and as a url: repaired. The
 * structural pieces after them may be refused (round_trip still fails the
 * test on a wrong result). */
static void each_class_alone_repairs(void **state) {
  (void)state;
  int refused = 0;
  for (size_t i = 0; i < NPIECES; i++) {
    const char *names[2] = {PIECES[i], "x"}, *urls[2] = {"u", PIECES[i]};
    for (int order = 0; order < 2; order++) {
      int ok = round_trip(names, urls, order);
      if (i < CLASSES) assert_int_equal(ok, 1);
      refused += !ok;
    }
  }
  print_message("structural pieces refused: %d of %d\n", refused, (int)(NPIECES - CLASSES) * 2);
}

static void refuses_what_it_cannot_cut(void **state) {
  (void)state;
  char *out = (char *)1;
  size_t olen;
  const char *bad = "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"x\"oops}]}";
  assert_int_equal(cprof_cpu_text_repair(bad, strlen(bad), &out, &olen, NULL), CPROF_EPARSE);
  assert_null(out);
  assert_int_equal(cprof_cpu_text_repair(NULL, 0, &out, &olen, NULL), CPROF_EINVAL);
  /* No callFrame at all: copied through. */
  assert_int_equal(cprof_cpu_text_repair("{}", 2, &out, &olen, NULL), CPROF_OK);
  assert_string_equal(out, "{}");
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(repairs_the_regexp_frame),
      cmocka_unit_test(valid_text_stays_valid),
      cmocka_unit_test(each_class_alone_repairs),
      cmocka_unit_test(property_every_character_class),
      cmocka_unit_test(property_with_structural_pieces),
      cmocka_unit_test(refuses_what_it_cannot_cut),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

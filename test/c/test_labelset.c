/* Labels per CPU sample (labelset.c): the ring's switches taken (order,
 * wrap, the profile's start, bad slots), the join to sample times, the
 * sidecar's text and pprof's sample labels. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <zlib.h>

#include "helpers.h"
#include "labelset.h"

/* clang-format off */
#define FRAME(name) "'callFrame':{'functionName':'" name "','scriptId':'1','url':'file:///a.js'," \
                    "'lineNumber':1,'columnNumber':1}"
/* root -> a, root -> b, root -> (idle): node ids 2, 3, 4 */
#define CPU(start, end, samples, deltas)                                                           \
  "{'nodes':[{'id':1," FRAME("(root)") ",'hitCount':0,'children':[2,3,4]},"                        \
  "{'id':2," FRAME("a") ",'hitCount':0},{'id':3," FRAME("b") ",'hitCount':0},"                    \
  "{'id':4," FRAME("(idle)") ",'hitCount':0}],"                                                    \
  "'startTime':" #start ",'endTime':" #end ",'samples':[" samples "],'timeDeltas':[" deltas "]}"
/* clang-format on */

/* A table of sets 1 {route: /a} and 2 {route: /b, tenant: t"1}. */
static cprof_labels_t *table(void) {
  const char *a[] = {"route", "/a"}, *b[] = {"route", "/b", "tenant", "t\"1"};
  cprof_labels_t *l = cprof_labels_new();
  assert_non_null(l);
  assert_int_equal(cprof_labels_add_set(l, a, 1), CPROF_OK);
  assert_int_equal(cprof_labels_add_set(l, b, 2), CPROF_OK);
  return l;
}

/* A ring of cap pairs holding switches (t, id) written in order. */
static double *ring_of(uint32_t cap, const double *sw, size_t n) {
  double *r = calloc(CPROF_LABEL_RING_SLOTS(cap), sizeof *r);
  assert_non_null(r);
  for (size_t k = 0; k < n; k++) {
    r[1 + 2 * (k % cap)] = sw[2 * k];
    r[2 + 2 * (k % cap)] = sw[2 * k + 1];
  }
  r[0] = (double)n;
  return r;
}

static void takes_switches_in_order_after_a_wrap(void **state) {
  (void)state;
  const double sw[] = {10, 1, 20, 0, 30, 2, 40, 0, 50, 1};
  double *r = ring_of(3, sw, 5); /* keeps 30, 40, 50 */
  cprof_labels_t *l = table();
  assert_int_equal(cprof_labels_take_ring(l, r, 3, 0), CPROF_OK);
  assert_int_equal(l->nsw, 3);
  assert_true(l->lost); /* nothing at or before 0 is left */
  assert_true(l->sw[0].t_us == 30 && l->sw[0].set == 2);
  assert_true(l->sw[2].t_us == 50 && l->sw[2].set == 1);
  /* From 45: the switch at 40 is the set current then, and nothing is lost. */
  assert_int_equal(cprof_labels_take_ring(l, r, 3, 45), CPROF_OK);
  assert_int_equal(l->nsw, 2);
  assert_false(l->lost);
  assert_true(l->sw[0].t_us == 40 && l->sw[0].set == 0);
  free(r);
  cprof_labels_free(l);
}

/* Span sets (lib/labels/otel.js): set + STRIDE * (seq + 1). The kept ones
 * are sets[span_at..] numbered span_first..; another reads as its set. */
static void decodes_span_sets(void **state) {
  (void)state;
  const double S = CPROF_LABEL_SPAN_STRIDE;
  const double sw[] = {10, 1 + S * 8, 20, 1 + S * 7, 30, 1 + S * 5, 40, 2 + S * 9, 50, 5 + S * 3};
  double *r = ring_of(8, sw, 5);
  cprof_labels_t *l = table(); /* sets 0, 1, 2 */
  const char *s7[] = {"route", "/a", "span_id", "00f067aa0ba902b7"};
  const char *s8[] = {"route", "/a", "span_id", "b7ad6b7169203331"};
  assert_int_equal(cprof_labels_add_set(l, s7, 2), CPROF_OK); /* 3: span set 6 */
  assert_int_equal(cprof_labels_add_set(l, s8, 2), CPROF_OK); /* 4: span set 7 */
  l->span_at = 3;
  l->span_first = 6;
  assert_int_equal(cprof_labels_take_ring(l, r, 8, 0), CPROF_OK);
  assert_int_equal(l->nsw, 5);
  assert_int_equal(l->sw[0].set, 4); /* seq 7 */
  assert_int_equal(l->sw[1].set, 3); /* seq 6 */
  assert_int_equal(l->sw[2].set, 1); /* seq 4: not kept, its set */
  assert_int_equal(l->sw[3].set, 2); /* seq 8: past the kept, its set */
  assert_int_equal(l->sw[4].set, 0); /* seq 2, set 5: not in the table */
  free(r);
  cprof_labels_free(l);
}

static void reads_bad_slots_safely(void **state) {
  (void)state;
  const double sw[] = {10, 1, NAN, 2, 30, -1, 40, 1e12, 50, 1.5};
  double *r = ring_of(8, sw, 5);
  cprof_labels_t *l = table();
  assert_int_equal(cprof_labels_take_ring(l, r, 8, 0), CPROF_OK);
  assert_int_equal(l->nsw, 4); /* the NaN time is skipped */
  assert_int_equal(l->sw[1].set, 0);
  assert_int_equal(l->sw[2].set, 0);
  assert_int_equal(l->sw[3].set, 1);
  const double counts[] = {NAN, -3, 2.5, INFINITY, 1e300};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
    r[0] = counts[i];
    assert_int_equal(cprof_labels_take_ring(l, r, 8, 0), CPROF_OK);
    assert_int_equal(l->nsw, 0);
  }
  assert_int_equal(cprof_labels_take_ring(l, r, 0, 0), CPROF_EINVAL);
  free(r);
  cprof_labels_free(l);
}

/* Samples at 110 (a), 120 (b), 130 (idle), 140 (a), 150 (a). */
#define FIVE CPU(100, 160, "2,3,4,2,2", "10,10,10,10,10")

static void joins_each_sample_to_the_set_current_then(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(FIVE);
  const double sw[] = {105, 1, 120, 2, 125, 1, 145, 0, 149, 7};
  double *r = ring_of(16, sw, 5);
  cprof_labels_t *l = table();
  assert_int_equal(cprof_labels_take_ring(l, r, 16, 100), CPROF_OK);
  assert_int_equal(cprof_labels_join(l, p), CPROF_OK);
  const uint32_t want[] = {1, 2, 0, 1, 0}; /* 130 is (idle); id 7 is not in the table */
  assert_int_equal(l->nsamples, 5);
  for (int i = 0; i < 5; i++)
    assert_int_equal(l->sample_set[i], want[i]);
  assert_int_equal(l->unknown, 0);
  free(r);
  cprof_labels_free(l);
  cprof_profile_free(p);
}

static void counts_samples_before_a_lost_span(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(FIVE);
  const double sw[] = {101, 1, 102, 0, 135, 2};
  double *r = ring_of(1, sw, 3); /* only 135 is left */
  cprof_labels_t *l = table();
  assert_int_equal(cprof_labels_take_ring(l, r, 1, 100), CPROF_OK);
  assert_true(l->lost);
  assert_int_equal(cprof_labels_join(l, p), CPROF_OK);
  assert_int_equal(l->unknown, 3);
  assert_int_equal(l->sample_set[3], 2);
  free(r);
  cprof_labels_free(l);
  cprof_profile_free(p);
}

static void joins_when_times_go_back(void **state) {
  (void)state;
  /* 110, 120, 115 (a negative delta, as V8 writes now and then), 125 */
  cprof_profile_t *p = parse_ok(CPU(100, 130, "2,3,2,3", "10,10,-5,10"));
  const double sw[] = {100, 1, 112, 2, 118, 1};
  double *r = ring_of(4, sw, 3);
  cprof_labels_t *l = table();
  assert_int_equal(cprof_labels_take_ring(l, r, 4, 100), CPROF_OK);
  assert_int_equal(cprof_labels_join(l, p), CPROF_OK);
  const uint32_t want[] = {1, 1, 2, 1};
  for (int i = 0; i < 4; i++)
    assert_int_equal(l->sample_set[i], want[i]);
  free(r);
  cprof_labels_free(l);
  cprof_profile_free(p);
}

/* v8.startCpuProfile's JSON: startTime modulo 2^32 µs (100 + 3 * 2^32 on the ring's clock). */
static void joins_a_start_time_modulo_2_32(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(FIVE);
  const double base = 3 * 0x1p32;
  const double sw[] = {base + 105, 1, base + 120, 2, base + 125, 1, base + 145, 0};
  double *r = ring_of(8, sw, 4);
  cprof_labels_t *l = table();
  assert_int_equal(cprof_labels_take_ring(l, r, 8, base + 99), CPROF_OK);
  assert_int_equal(cprof_labels_join(l, p), CPROF_OK);
  const uint32_t want[] = {1, 2, 0, 1, 0};
  for (int i = 0; i < 5; i++)
    assert_int_equal(l->sample_set[i], want[i]);
  free(r);
  cprof_labels_free(l);
  cprof_profile_free(p);
}

static char *written(const cprof_labels_t *l) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  assert_int_equal(cprof_labels_write(l, f), CPROF_OK);
  fclose(f);
  return text;
}

static void writes_the_sidecar(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(FIVE);
  const double sw[] = {105, 1, 120, 2, 125, 0};
  double *r = ring_of(8, sw, 3);
  cprof_labels_t *l = table();
  cprof_labels_take_ring(l, r, 8, 100);
  assert_int_equal(cprof_labels_join(l, p), CPROF_OK);
  char *text = written(l);
  assert_string_equal(text,
                      "{\"version\":1,\"sets\":[{},{\"route\":\"/a\"},{\"route\":\"/b\","
                      "\"tenant\":\"t\\\"1\"}],\"samples\":[1,2,0,0,0],\"unknownSamples\":0}\n");
  free(text);
  free(r);
  cprof_labels_free(l);
  cprof_profile_free(p);
}

static void refuses_past_the_caps(void **state) {
  (void)state;
  cprof_labels_t *l = cprof_labels_new();
  const char *kv[2 * (CPROF_LABEL_PAIRS_MAX + 1)];
  for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
    kv[i] = "x";
  assert_int_equal(cprof_labels_add_set(l, kv, CPROF_LABEL_PAIRS_MAX + 1), CPROF_EINVAL);
  assert_int_equal(cprof_labels_add_set(l, kv, CPROF_LABEL_PAIRS_MAX), CPROF_OK);
  kv[1] = NULL;
  assert_int_equal(cprof_labels_add_set(l, kv, 1), CPROF_EINVAL);
  assert_int_equal(l->nsets, 2);
  cprof_labels_free(l);
}

/* ---- pprof: the Samples' labels, decoded ---- */

static uint64_t varint(const unsigned char **p, const unsigned char *end) {
  uint64_t v = 0;
  for (int s = 0; *p < end; s += 7) {
    unsigned char b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << s;
    if (!(b & 0x80)) break;
  }
  return v;
}

/* Calls fn(field, bytes, len) per length-delimited field (varints: len = value, bytes NULL). */
static void fields(const unsigned char *p, const unsigned char *end,
                   void (*fn)(void *, uint32_t, const unsigned char *, uint64_t), void *ctx) {
  while (p < end) {
    uint64_t key = varint(&p, end);
    if ((key & 7) == 0) {
      fn(ctx, (uint32_t)(key >> 3), NULL, varint(&p, end));
    } else {
      assert_int_equal(key & 7, 2);
      uint64_t n = varint(&p, end);
      fn(ctx, (uint32_t)(key >> 3), p, n);
      p += n;
    }
  }
}

typedef struct {
  const unsigned char *strs[64];
  uint64_t str_len[64];
  uint32_t nstrs;
  uint64_t count;               /* the sample's first value */
  uint64_t label[4][2];         /* the sample's labels (key, str) */
  uint32_t nlabels;             /* of the sample being read */
  uint64_t by_str[64], nolabel; /* samples counted by label str, and without labels */
} pp_t;

static void on_label(void *ctx, uint32_t f, const unsigned char *b, uint64_t v) {
  pp_t *pp = ctx;
  (void)b;
  if (f == 1 || f == 2) pp->label[pp->nlabels][f - 1] = v;
}

static void on_sample(void *ctx, uint32_t f, const unsigned char *b, uint64_t n) {
  pp_t *pp = ctx;
  if (f == 2) { /* packed values: the count first */
    const unsigned char *p = b;
    pp->count = varint(&p, b + n);
  } else if (f == 3) {
    assert_true(pp->nlabels < 4);
    fields(b, b + n, on_label, pp);
    pp->nlabels++;
  }
}

static void on_profile(void *ctx, uint32_t f, const unsigned char *b, uint64_t n) {
  pp_t *pp = ctx;
  if (f == 6) {
    assert_true(pp->nstrs < 64);
    pp->strs[pp->nstrs] = b;
    pp->str_len[pp->nstrs++] = n;
  }
}

static void count_sample(void *ctx, uint32_t f, const unsigned char *b, uint64_t n) {
  pp_t *pp = ctx;
  if (f != 2) return;
  pp->nlabels = 0;
  fields(b, b + n, on_sample, pp);
  if (pp->nlabels == 0) pp->nolabel += pp->count;
  for (uint32_t k = 0; k < pp->nlabels; k++)
    pp->by_str[pp->label[k][1]] += pp->count;
}

static uint64_t samples_with(const pp_t *pp, const char *s) {
  for (uint32_t i = 0; i < pp->nstrs; i++)
    if (pp->str_len[i] == strlen(s) && memcmp(pp->strs[i], s, pp->str_len[i]) == 0)
      return pp->by_str[i];
  return 0;
}

static void writes_pprof_sample_labels(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(FIVE);
  const double sw[] = {105, 1, 120, 2, 125, 1, 145, 0};
  double *r = ring_of(8, sw, 4);
  cprof_labels_t *l = table();
  cprof_labels_take_ring(l, r, 8, 100);
  cprof_export_opts_t o = {0};
  char err[128];
  assert_int_equal(cprof_labels_apply(l, p, NULL, &o, err, sizeof err), CPROF_OK);
  assert_ptr_equal(o.labels, l);
  char *gz = NULL;
  size_t gzlen = 0;
  FILE *f = open_memstream(&gz, &gzlen);
  assert_int_equal(cprof_export_pprof(p, &o, f), CPROF_OK);
  fclose(f);
  unsigned char *raw = malloc(1 << 16);
  uLongf rawlen = 1 << 16;
  z_stream zs = {0};
  assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
  zs.next_in = (Bytef *)gz;
  zs.avail_in = (uInt)gzlen;
  zs.next_out = raw;
  zs.avail_out = (uInt)rawlen;
  assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
  rawlen = zs.total_out;
  inflateEnd(&zs);
  pp_t pp = {0};
  fields(raw, raw + rawlen, on_profile, &pp); /* the strings first: samples name them */
  fields(raw, raw + rawlen, count_sample, &pp);
  assert_int_equal(samples_with(&pp, "/a"), 2); /* 110 and 140 */
  assert_int_equal(samples_with(&pp, "/b"), 1);
  assert_int_equal(samples_with(&pp, "t\"1"), 1);
  assert_int_equal(pp.nolabel, 2); /* (idle) at 130, none at 150 */
  free(raw);
  free(gz);
  free(r);
  cprof_labels_free(l);
  cprof_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(takes_switches_in_order_after_a_wrap),
      cmocka_unit_test(reads_bad_slots_safely),
      cmocka_unit_test(decodes_span_sets),
      cmocka_unit_test(joins_each_sample_to_the_set_current_then),
      cmocka_unit_test(counts_samples_before_a_lost_span),
      cmocka_unit_test(joins_when_times_go_back),
      cmocka_unit_test(joins_a_start_time_modulo_2_32),
      cmocka_unit_test(writes_the_sidecar),
      cmocka_unit_test(refuses_past_the_caps),
      cmocka_unit_test(writes_pprof_sample_labels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

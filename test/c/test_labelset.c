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
  assert_int_equal(cprof_labels_apply(l, p, &o, err, sizeof err), CPROF_OK);
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

/* A sidecar read back (cprof html): the ids given whole, checked against
 * the table and then the profile's count, and the page carries them. */
static void gives_samples_for_the_page(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(FIVE);
  cprof_labels_t *l = table();
  const uint32_t ids[] = {0, 1, 2, 1, 0}, past[] = {0, 3};
  char err[128];
  cprof_export_opts_t o = {0};
  assert_int_equal(cprof_labels_give(l, past, 2), CPROF_EINVAL);
  assert_int_equal(cprof_labels_give(l, ids, 3), CPROF_OK);
  assert_int_equal(cprof_labels_apply(l, p, &o, err, sizeof err), CPROF_EINVAL);
  assert_non_null(strstr(err, "not this profile's labels"));
  assert_null(o.labels);
  assert_int_equal(cprof_labels_give(l, ids, 5), CPROF_OK);
  assert_int_equal(cprof_labels_apply(l, p, &o, err, sizeof err), CPROF_OK);
  assert_ptr_equal(o.labels, l);
  assert_int_equal(l->sample_set[2], 2); /* given, not joined: the (idle) sample keeps it */
  char *page = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&page, &len);
  assert_int_equal(cprof_export_html(p, &o, f), CPROF_OK);
  fclose(f);
  assert_non_null(strstr(page, ",\"labels\":{\"sets\":[[],[\"route\",\"/a\"],[\"route\",\"/b\","
                               "\"tenant\",\"t\\\"1\"]],\"setBits\":8,\"set\":\"AAECAQA=\"}"));
  free(page);
  cprof_labels_free(l);
  cprof_profile_free(p);
}

/* ---- across profiles: the union, the sidecar read back ---- */

/* Joined labels of n samples with sets[i] = {k: v_i} (given as values). */
static cprof_labels_t *joined(const char *key, const char *const *values, uint32_t nsets,
                              const uint32_t *samples, uint32_t n) {
  cprof_labels_t *l = cprof_labels_new();
  assert_non_null(l);
  for (uint32_t i = 0; i < nsets; i++) {
    const char *kv[] = {key, values[i]};
    assert_int_equal(cprof_labels_add_set(l, kv, 1), CPROF_OK);
  }
  l->sample_set = malloc((n ? n : 1) * sizeof *l->sample_set);
  memcpy(l->sample_set, samples, n * sizeof *samples);
  l->nsamples = n;
  l->joined = 1;
  return l;
}

static const char *set_value(const cprof_labels_t *l, uint32_t id) {
  return l->sets[id].n ? l->sets[id].kv[1] : "";
}

static void merges_sets_by_content(void **state) {
  (void)state;
  const char *va[] = {"/b", "/a", "/unused"}, *vb[] = {"/a", "/c"};
  const uint32_t sa[] = {2, 0, 1, 2}, sb[] = {1, 1, 2, 0, 9}; /* 9: not in b's table */
  cprof_labels_t *a = joined("route", va, 3, sa, 4), *b = joined("route", vb, 2, sb, 5);
  /* a set's order does not count: {tenant, route} of a is {route, tenant} of b */
  const char *x1[] = {"tenant", "t", "route", "/x"}, *x2[] = {"route", "/x", "tenant", "t"};
  cprof_labels_add_set(a, x1, 2);
  cprof_labels_add_set(b, x2, 2);
  a->sample_set[1] = 4; /* a: /a, {route:/x, tenant:t}, /b, /a */
  b->sample_set[3] = 3; /* b: /a, /a, /c, {route:/x, tenant:t}, 9 (not a set: none) */
  a->unknown = 1;
  const cprof_labels_t *in[] = {a, NULL, b};
  const uint32_t counts[] = {4, 3, 5};
  cprof_labels_t *m = NULL;
  assert_int_equal(cprof_labels_merge(in, counts, 3, &m), CPROF_OK);
  assert_true(m->joined);
  assert_int_equal(m->nsamples, 12);
  assert_int_equal(m->unknown, 1);
  /* first met first: /a (a's 2), {route:/x, tenant:t}, /b; /unused is left out */
  assert_int_equal(m->nsets, 5);
  assert_string_equal(set_value(m, 1), "/a");
  assert_int_equal(m->sets[2].n, 2);
  assert_string_equal(m->sets[2].kv[0], "route"); /* kept sorted by key */
  assert_string_equal(m->sets[2].kv[2], "tenant");
  assert_string_equal(set_value(m, 3), "/b");
  assert_string_equal(set_value(m, 4), "/c");
  const uint32_t want[] = {1, 2, 3, 1, 0, 0, 0, 1, 1, 4, 2, 0};
  for (int i = 0; i < 12; i++)
    assert_int_equal(m->sample_set[i], want[i]);
  char *text = written(m);
  assert_non_null(strstr(text, "\"samples\":[1,2,3,1,0,0,0,1,1,4,2,0],\"unknownSamples\":1}"));
  /* read back: the same labels */
  cprof_labels_t *back = NULL;
  char err[256];
  if (cprof_labels_read(text, strlen(text), &back, err, sizeof err) != CPROF_OK)
    fail_msg("%s", err);
  assert_int_equal(back->nsets, m->nsets);
  assert_int_equal(back->nsamples, 12);
  assert_int_equal(back->unknown, 1);
  assert_memory_equal(back->sample_set, m->sample_set, 12 * sizeof *m->sample_set);
  assert_string_equal(back->sets[2].kv[3], "t");
  free(text);
  /* a count that differs from the profile's is refused */
  const uint32_t bad[] = {4, 3, 6};
  cprof_labels_t *none = NULL;
  assert_int_equal(cprof_labels_merge(in, bad, 3, &none), CPROF_EINVAL);
  assert_null(none);
  cprof_labels_free(back);
  cprof_labels_free(m);
  cprof_labels_free(a);
  cprof_labels_free(b);
}

/* Two inputs of 600 distinct sets each, 100 of them shared: 1,000 sets
 * are kept, the samples of the other 100 carry the overflow set, and an
 * input's own overflow set is that one set. */
static void caps_the_union(void **state) {
  (void)state;
  char *va[601], *vb[601];
  uint32_t sa[601], sb[601];
  for (uint32_t i = 0; i < 600; i++) {
    va[i] = malloc(16);
    vb[i] = malloc(16);
    snprintf(va[i], 16, "/r%u", i);
    snprintf(vb[i], 16, "/r%u", i + 500); /* /r500../r599 in both */
    sa[i] = sb[i] = i + 1;
  }
  cprof_labels_t *a = joined("route", (const char *const *)va, 600, sa, 600);
  cprof_labels_t *b = joined("route", (const char *const *)vb, 600, sb, 600);
  const char *ov[] = {"cprof_overflow", "true"};
  assert_int_equal(cprof_labels_add_set(a, ov, 1), CPROF_OK); /* a's set 601 */
  a->sample_set = realloc(a->sample_set, 601 * sizeof *a->sample_set);
  a->sample_set[600] = 601;
  a->nsamples = 601;
  const cprof_labels_t *in[] = {a, b};
  const uint32_t counts[] = {601, 600};
  cprof_labels_t *m = NULL;
  assert_int_equal(cprof_labels_merge(in, counts, 2, &m), CPROF_OK);
  assert_int_equal(m->nsets, 1 + 1000 + 1); /* none, the cap, the overflow set */
  uint32_t over = m->sample_set[600], overflowed = 0;
  assert_string_equal(m->sets[over].kv[0], "cprof_overflow");
  for (uint32_t i = 0; i < 600; i++) /* a's sets and b's first 500 (100 shared) fit */
    assert_string_equal(set_value(m, m->sample_set[i]), va[i]);
  for (uint32_t i = 0; i < 600; i++) {
    if (m->sample_set[601 + i] == over)
      overflowed++;
    else
      assert_string_equal(set_value(m, m->sample_set[601 + i]), vb[i]);
  }
  assert_int_equal(overflowed, 100); /* /r1000../r1099 */
  assert_int_equal(m->sample_set[601 + 599], over);
  for (uint32_t i = 0; i < 600; i++) {
    free(va[i]);
    free(vb[i]);
  }
  cprof_labels_free(m);
  cprof_labels_free(a);
  cprof_labels_free(b);
}

static void reads_only_sidecars(void **state) {
  (void)state;
  static const char *const bad[] = {
      "",
      "[]",
      "{\"version\":2,\"sets\":[{}],\"samples\":[]}",
      "{\"version\":1,\"samples\":[]}",
      "{\"version\":1,\"sets\":[{\"a\":\"b\"}],\"samples\":[]}",
      "{\"version\":1,\"sets\":[{},{\"a\":1}],\"samples\":[]}",
      "{\"version\":1,\"sets\":[{},{\"a\":\"1\",\"a\":\"2\"}],\"samples\":[]}",
      "{\"version\":1,\"sets\":[{}],\"samples\":[1]}",
      "{\"version\":1,\"sets\":[{}],\"samples\":[-1]}",
      "{\"version\":1,\"sets\":[{}],\"samples\":[0],\"unknownSamples\":2}",
      "{\"version\":1,\"sets\":[{}],\"samples\":[0]} x",
  };
  char err[256];
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cprof_labels_t *l = (cprof_labels_t *)1;
    int rc = cprof_labels_read(bad[i], strlen(bad[i]), &l, err, sizeof err);
    if (rc != CPROF_EPARSE && rc != CPROF_ESCHEMA) fail_msg("read %s: %d", bad[i], rc);
    assert_null(l);
    assert_true(err[0] != '\0');
  }
  const char *ok = "{\"x\":[1,{}],\"samples\":[1,0],\"sets\":[{},{\"k\":\"v\\n\"}],\"version\":1}";
  cprof_labels_t *l = NULL;
  assert_int_equal(cprof_labels_read(ok, strlen(ok), &l, err, sizeof err), CPROF_OK);
  assert_int_equal(l->nsamples, 2);
  assert_string_equal(l->sets[1].kv[1], "v\n");
  /* a window's lead trimmed by the ring */
  cprof_labels_drop_leading(l, 1);
  assert_int_equal(l->nsamples, 1);
  assert_int_equal(l->sample_set[0], 0);
  assert_true(cprof_labels_bytes(l) > 0);
  cprof_labels_free(l);
  char *side = cprof_labels_sidecar_name("/d/cpu-1.CPUProfile");
  assert_string_equal(side, "/d/cpu-1.labels.json");
  free(side);
  assert_null(cprof_labels_sidecar_name("/d/heap.heapprofile"));
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
      cmocka_unit_test(gives_samples_for_the_page),
      cmocka_unit_test(merges_sets_by_content),
      cmocka_unit_test(caps_the_union),
      cmocka_unit_test(reads_only_sidecars),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The merge part of one fuzz iteration (cprof_profile_merge, merge.h),
 * included by harness.c after its checks, so the libFuzzer target and the
 * cmocka replay both run it:
 *
 *   - an input with a NUL byte (never valid JSON) is two profiles, before
 *     and after the first NUL: both are parsed and merged;
 *   - every input that parses is merged with its second parse.
 *
 * Oracles: mixed kinds are refused with CPROF_EINVAL and nothing else is;
 * the merged sample count is the sum; the total is the sum of totals; every
 * merged sample has the call frame its input sample had; the roots merge;
 * CPU: the first profile's last sample lasts what it did in its own file or
 * until the second's first sample on their shared clock, never longer (no
 * time between the profiles is charged to it);
 * every exporter takes the merged profile (the .cpuprofile / .heapprofile
 * output parses again to the same shape); merging the result alone keeps
 * its total and samples. */
#include "merge.h"

static int same_frame(const cprof_frame_t *a, const cprof_frame_t *b) {
  return strcmp(a->name, b->name) == 0 && strcmp(a->url, b->url) == 0 && a->line == b->line &&
         a->column == b->column;
}

/* Sample i of m, and sample j of input q, name the same call frame. */
static void check_sample(const cprof_profile_t *m, uint32_t i, const cprof_profile_t *q,
                         uint32_t j) {
  const cprof_frame_t *mf = &m->frames[m->nodes[m->samples[i]].frame];
  const cprof_frame_t *qf = &q->frames[q->nodes[q->samples[j]].frame];
  /* Every root becomes the merged root, whatever its frame. */
  if (q->samples[j] == 0)
    FUZZ_CHECK(m->samples[i] == 0, "merged sample %u left the root", i);
  else
    FUZZ_CHECK(same_frame(mf, qf), "merged sample %u is %s, its input sample %u was %s", i,
               mf->name, j, qf->name);
}

/* Timestamps far from int64_t's ends, so no sum below saturates. */
#define SANE_US (INT64_C(1) << 52)

static int sane_clock(const cprof_profile_t *q) {
  int64_t t = q->start_time;
  if (t < -SANE_US || t > SANE_US || q->end_time < -SANE_US || q->end_time > SANE_US) return 0;
  for (uint32_t i = 0; i < q->nsamples; i++) {
    int64_t d = q->time_deltas != NULL ? q->time_deltas[i] : 0;
    if (d < -SANE_US || d > SANE_US || (t += d) < -SANE_US || t > SANE_US) return 0;
  }
  return 1;
}

static int64_t last_sample_time(const cprof_profile_t *q) {
  int64_t t = q->start_time;
  for (uint32_t i = 0; i < q->nsamples; i++)
    t += q->time_deltas != NULL ? q->time_deltas[i] : 0;
  return t;
}

/* Where a ends and b begins in m: a's last sample lasts its own weight (b
 * placed end to end) or until b's first sample on their one clock (b
 * continues a: then it started no later than a ended). */
static void check_boundary(const cprof_profile_t *a, const cprof_profile_t *b,
                           const cprof_profile_t *m) {
  if (a->nsamples == 0 || b->nsamples == 0 || !sane_clock(a) || !sane_clock(b)) return;
  int64_t own = cprof_sample_weight(a, a->nsamples - 1);
  int64_t d = m->time_deltas[a->nsamples];
  int64_t b_first = b->start_time + (b->time_deltas != NULL ? b->time_deltas[0] : 0);
  int64_t true_gap = b_first - last_sample_time(a);
  FUZZ_CHECK(d == own || (d == true_gap && d > 0 && b->start_time <= a->end_time),
             "a's last sample lasts %lld in the merge: its own %lld, to b's first %lld",
             (long long)d, (long long)own, (long long)true_gap);
}

static void check_merged(const cprof_profile_t *a, const cprof_profile_t *b,
                         const cprof_profile_t *m) {
  FUZZ_CHECK(m->kind == a->kind, "merged kind %d from %d", m->kind, a->kind);
  FUZZ_CHECK(m->nsamples == a->nsamples + b->nsamples, "merged %u samples from %u + %u",
             m->nsamples, a->nsamples, b->nsamples);
  FUZZ_CHECK(m->nnodes >= 1 && m->nnodes <= a->nnodes + b->nnodes - 1,
             "merged %u nodes from %u + %u", m->nnodes, a->nnodes, b->nnodes);
  int64_t ta = cprof_profile_total(a), tb = cprof_profile_total(b);
  /* Selfs are never negative; below saturation the sum is exact. */
  if (ta >= 0 && tb >= 0 && ta < INT64_MAX / 2 && tb < INT64_MAX / 2)
    FUZZ_CHECK(cprof_profile_total(m) == ta + tb, "merged total %lld != %lld + %lld",
               (long long)cprof_profile_total(m), (long long)ta, (long long)tb);
  for (uint32_t i = 0; i < a->nsamples; i++)
    check_sample(m, i, a, i);
  for (uint32_t i = 0; i < b->nsamples; i++)
    check_sample(m, a->nsamples + i, b, i);
  if (m->kind == CPROF_KIND_CPU) {
    FUZZ_CHECK(m->start_time == a->start_time, "merged start %lld != first start %lld",
               (long long)m->start_time, (long long)a->start_time);
    check_boundary(a, b, m);
  } else if (a->nsamples > 0 && b->nsamples > 0) {
    /* Ordinals are at most 2^53 in a file: no saturation here. */
    uint64_t max_a = 0, min_b = UINT64_MAX;
    for (uint32_t i = 0; i < a->nsamples; i++)
      if (m->sample_ordinals[i] > max_a) max_a = m->sample_ordinals[i];
    for (uint32_t i = a->nsamples; i < m->nsamples; i++)
      if (m->sample_ordinals[i] < min_b) min_b = m->sample_ordinals[i];
    FUZZ_CHECK(max_a < min_b,
               "the second profile's ordinals (from %llu) are not after the "
               "first's (to %llu)",
               (unsigned long long)min_b, (unsigned long long)max_a);
  }
  FUZZ_CHECK(cprof_profile_bytes(m) > 0, "a merged profile holds no bytes");
}

/* Merges a then b; checks what merge.h promises. */
static void fuzz_merge_pair(const cprof_profile_t *a, const cprof_profile_t *b) {
  cprof_profile_t *in[2] = {(cprof_profile_t *)a, (cprof_profile_t *)b}, *m = NULL;
  int rc = cprof_profile_merge(in, 2, &m);
  if (a->kind != b->kind) {
    FUZZ_CHECK(rc == CPROF_EINVAL && m == NULL, "mixed kinds merged: %d", rc);
    return;
  }
  if (rc == CPROF_ENOMEM) return;
  FUZZ_CHECK(rc == CPROF_OK && m != NULL, "merge of two parsed profiles: %d", rc);
  check_merged(a, b, m);
  cprof_export_opts_t o = {.interval = 1000, .title = "merge", .top = 10};
  fuzz_in_t ex = {m, a, &o};
  run_exporters(&ex);

  cprof_profile_t *again = NULL;
  rc = cprof_profile_merge(&m, 1, &again);
  if (rc == CPROF_OK) {
    FUZZ_CHECK(cprof_profile_total(again) == cprof_profile_total(m) &&
                   again->nsamples == m->nsamples && again->nnodes == m->nnodes,
               "merging a merged profile alone changed it");
    cprof_profile_free(again);
  } else {
    FUZZ_CHECK(rc == CPROF_ENOMEM, "merge of a merged profile: %d", rc);
  }
  cprof_profile_free(m);
}

static cprof_profile_t *parse_part(const uint8_t *data, size_t size) {
  cprof_profile_t *p = NULL;
  char *json = malloc(size ? size : 1);
  if (json == NULL) return NULL;
  memcpy(json, data, size);
  if (cprof_profile_parse(json, size, &p, NULL, 0) != CPROF_OK) p = NULL;
  free(json);
  return p;
}

/* Two profiles split at the first NUL byte, when there is one. */
static void fuzz_merge_split(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  if (nul == NULL) return;
  size_t n = (size_t)(nul - data);
  cprof_profile_t *a = parse_part(data, n), *b = parse_part(nul + 1, size - n - 1);
  if (a != NULL && b != NULL) fuzz_merge_pair(a, b);
  cprof_profile_free(a);
  cprof_profile_free(b);
}

/* Labels per sample (labelset.h) in one fuzz iteration, included by
 * harness.c: every CPU profile that parses is joined to a ring made of the
 * input's own bytes (doubles: times, set ids and the count, NaN and all),
 * at a capacity and a start from the input. Oracles: every sample's set is
 * in the table, the unknown samples are at most the samples, the sidecar is
 * JSON cJSON reads back with one set per sample, and pprof accepts the
 * labels. The sidecar reads back (cprof_labels_read) to as many sets and
 * samples, and merged with l gives each sample its set twice over; the
 * input's own bytes are read as a sidecar too (never a crash). */
#include "labelset.h"

/* l's sidecar read back, and l merged with it: the same set (by content)
 * for each sample, in both halves. */
static void fuzz_labels_merge(const cprof_labels_t *l, const cprof_profile_t *p) {
  char *buf = NULL;
  size_t len = 0;
  cprof_labels_t *back = NULL, *m = NULL;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return;
  int rc = cprof_labels_write(l, f);
  fclose(f);
  if (rc == CPROF_OK && cprof_labels_read(buf, len, &back, NULL, 0) == CPROF_OK)
    FUZZ_CHECK(back->nsamples == l->nsamples && back->nsets == l->nsets, "sidecar read back");
  { /* the read-back when it read (its strings may not be UTF-8), else l again */
    const cprof_labels_t *in[2] = {l, back ? back : l};
    const uint32_t counts[2] = {p->nsamples, p->nsamples};
    if (cprof_labels_merge(in, counts, 2, &m) == CPROF_OK) {
      FUZZ_CHECK(m->nsamples == 2 * l->nsamples, "merged %u of 2 x %u", m->nsamples, l->nsamples);
      for (uint32_t i = 0; i < l->nsamples; i++) {
        FUZZ_CHECK(
            m->sample_set[i] == m->sample_set[l->nsamples + i] && m->sample_set[i] < m->nsets,
            "sample %u: set %u, then %u", i, m->sample_set[i], m->sample_set[l->nsamples + i]);
        FUZZ_CHECK(m->sets[m->sample_set[i]].n == l->sets[l->sample_set[i]].n, "sample %u's set",
                   i);
      }
    }
  }
  cprof_labels_free(m);
  cprof_labels_free(back);
  free(buf);
}

static void fuzz_labels(const cprof_profile_t *p, const uint8_t *data, size_t size, uint8_t k) {
  cprof_labels_t *side = NULL;
  if (cprof_labels_read((const char *)data, size, &side, NULL, 0) == CPROF_OK)
    for (uint32_t i = 0; i < side->nsamples; i++)
      FUZZ_CHECK(side->sample_set[i] < side->nsets, "sidecar sample %u: set %u", i,
                 side->sample_set[i]);
  cprof_labels_free(side);
  if (p->kind != CPROF_KIND_CPU) return;
  uint32_t cap = 1u + k % 16u;
  size_t need = CPROF_LABEL_RING_SLOTS(cap) * sizeof(double);
  double *ring = calloc(CPROF_LABEL_RING_SLOTS(cap), sizeof(double));
  cprof_labels_t *l = cprof_labels_new();
  const char *kv[] = {"route", "/a\"\x01\xff", "k", ""};
  if (!ring || !l || cprof_labels_add_set(l, kv, 2) != CPROF_OK ||
      cprof_labels_add_set(l, kv, 1) != CPROF_OK)
    goto done;
  memcpy(ring, data, size < need ? size : need);
  if (k & 16) ring[0] = (double)(k % 40); /* a count the ring can hold, or past it */
  double from = k & 32 ? (double)p->start_time : (double)(int8_t)k;
  if (cprof_labels_take_ring(l, ring, cap, from) != CPROF_OK) goto done;
  FUZZ_CHECK(l->nsw <= cap, "took %zu switches from a ring of %u", l->nsw, cap);
  if (cprof_labels_join(l, p) != CPROF_OK) goto done;
  FUZZ_CHECK(l->nsamples == p->nsamples && l->unknown <= l->nsamples, "join: %u of %u unknown",
             l->unknown, l->nsamples);
  for (uint32_t i = 0; i < l->nsamples; i++)
    FUZZ_CHECK(l->sample_set[i] < l->nsets, "sample %u: set %u of %u", i, l->sample_set[i],
               l->nsets);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f) {
    int rc = cprof_labels_write(l, f);
    fclose(f);
    if (rc == CPROF_OK) {
      cJSON *j = cJSON_ParseWithLength(buf, len);
      FUZZ_CHECK(j != NULL, "the sidecar is not JSON");
      cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "samples");
      FUZZ_CHECK(cJSON_GetArraySize(s) == (int)p->nsamples, "sidecar samples");
      cJSON_Delete(j);
    }
    free(buf);
  }
  fuzz_labels_merge(l, p);
  cprof_export_opts_t o = {.labels = l};
  buf = NULL;
  f = open_memstream(&buf, &len);
  if (f) {
    int rc = cprof_export_pprof(p, &o, f);
    fclose(f);
    FUZZ_CHECK(rc == CPROF_OK || rc == CPROF_ENOMEM, "pprof with labels: %d", rc);
    free(buf);
  }
done:
  free(ring);
  cprof_labels_free(l);
}

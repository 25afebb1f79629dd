/* Labels per sample (labelset.h) in one fuzz iteration, included by
 * harness.c: every CPU profile that parses is joined to a ring made of the
 * input's own bytes (doubles: times, set ids and the count, NaN and all),
 * at a capacity and a start from the input. Oracles: every sample's set is
 * in the table, the unknown samples are at most the samples, the sidecar is
 * JSON cJSON reads back with one set per sample, and pprof accepts the
 * labels. */
#include "labelset.h"

static void fuzz_labels(const cprof_profile_t *p, const uint8_t *data, size_t size, uint8_t k) {
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

/* Labels per CPU sample: the set table, the ring's switches, the join to
 * the samples' times, the sidecar and pprof's rows (labelset.h). */
#include "labelset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "profile.h"

static char *copy(const char *s) {
  size_t n = strlen(s) + 1;
  char *c = malloc(n);
  return c ? memcpy(c, s, n) : NULL;
}

cprof_labels_t *cprof_labels_new(void) {
  cprof_labels_t *l = calloc(1, sizeof *l);
  if (l && !(l->sets = calloc(1, sizeof *l->sets))) {
    free(l);
    return NULL;
  }
  if (l) l->nsets = l->sets_cap = 1;
  return l;
}

void cprof_labels_free(cprof_labels_t *l) {
  if (!l) return;
  for (uint32_t i = 0; i < l->nsets; i++) {
    for (uint32_t k = 0; k < 2 * l->sets[i].n; k++)
      free(l->sets[i].kv[k]);
    free(l->sets[i].kv);
  }
  free(l->sets);
  free(l->sw);
  free(l->file);
  free(l->sample_set);
  free(l);
}

int cprof_labels_add_set(cprof_labels_t *l, const char *const *kv, uint32_t n) {
  if (!l || (n && !kv) || n > CPROF_LABEL_PAIRS_MAX || l->nsets >= CPROF_LABEL_SETS_MAX)
    return CPROF_EINVAL;
  if (l->nsets == l->sets_cap) { /* doubling: thousands of span sets are added one by one */
    uint32_t cap =
        l->sets_cap * 2u < CPROF_LABEL_SETS_MAX ? l->sets_cap * 2u : CPROF_LABEL_SETS_MAX;
    cprof_label_set_t *sets = realloc(l->sets, cap * sizeof *sets);
    if (!sets) return CPROF_ENOMEM;
    l->sets = sets;
    l->sets_cap = cap;
  }
  cprof_label_set_t s = {n, n ? calloc(2u * n, sizeof(char *)) : NULL};
  if (n && !s.kv) return CPROF_ENOMEM;
  for (uint32_t k = 0; k < 2 * n; k++) {
    if (!kv[k] || !(s.kv[k] = copy(kv[k]))) {
      for (uint32_t j = 0; j < k; j++)
        free(s.kv[j]);
      free(s.kv);
      return kv[k] ? CPROF_ENOMEM : CPROF_EINVAL;
    }
  }
  l->sets[l->nsets++] = s;
  return CPROF_OK;
}

int cprof_labels_take_ring(cprof_labels_t *l, const double *ring, uint32_t cap, double from_us) {
  if (!l || !ring || cap == 0) return CPROF_EINVAL;
  double count = ring[0];
  uint64_t written = isfinite(count) && count >= 0 && count < 0x1p53 && count == floor(count)
                         ? (uint64_t)count
                         : 0;
  uint64_t first = written - (written < cap ? written : cap), start = first;
  int found = 0;
  for (uint64_t k = written; k > first && !found; k--) { /* newest first: the span's start */
    const double t = ring[1 + 2 * ((k - 1) % cap)];
    if (isfinite(t) && t <= from_us) {
      start = k - 1;
      found = 1;
    }
  }
  free(l->sw);
  l->sw = written > start ? malloc((size_t)(written - start) * sizeof *l->sw) : NULL;
  l->nsw = 0;
  if (written > start && !l->sw) return CPROF_ENOMEM;
  for (uint64_t k = start; k < written; k++) {
    const double *pair = ring + 1 + 2 * (k % cap);
    if (!isfinite(pair[0])) continue;
    double id = pair[1];
    if (isfinite(id) && id >= CPROF_LABEL_SPAN_STRIDE && id < 0x1p53) {
      double seq = floor(id / CPROF_LABEL_SPAN_STRIDE) - 1;
      id -= (seq + 1) * CPROF_LABEL_SPAN_STRIDE; /* the label set's id */
      if (l->span_at > 0 && seq >= l->span_first && seq - l->span_first < l->nsets - l->span_at)
        id = l->span_at + (seq - l->span_first);
      else if (id >= l->nsets)
        id = 0; /* not a set of the table: none */
    }
    uint32_t set = isfinite(id) && id >= 0 && id < CPROF_LABEL_SETS_MAX ? (uint32_t)id : 0;
    l->sw[l->nsw++] = (cprof_label_switch_t){pair[0], set};
  }
  l->lost = !found && first > 0;
  l->from_us = from_us;
  return CPROF_OK;
}

int cprof_labels_give(cprof_labels_t *l, const uint32_t *ids, uint32_t n) {
  if (!l || (n && !ids)) return CPROF_EINVAL;
  for (uint32_t i = 0; i < n; i++)
    if (ids[i] >= l->nsets) return CPROF_EINVAL;
  uint32_t *copy_ids = malloc((n ? n : 1) * sizeof *copy_ids);
  if (!copy_ids) return CPROF_ENOMEM;
  if (n) memcpy(copy_ids, ids, n * sizeof *copy_ids);
  free(l->sample_set);
  l->sample_set = copy_ids;
  l->nsamples = n;
  l->joined = 1;
  return CPROF_OK;
}

/* The index of the last switch at or before t, or -1 (none). hint: the
 * previous sample's answer, where the search starts when times go forward. */
static long switch_at(const cprof_labels_t *l, double t, long hint) {
  if (hint >= 0 && l->sw[hint].t_us <= t) {
    while ((size_t)(hint + 1) < l->nsw && l->sw[hint + 1].t_us <= t)
      hint++;
    return hint;
  }
  size_t lo = 0, hi = l->nsw; /* first switch after t, by binary search */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->sw[mid].t_us <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (long)lo - 1;
}

int cprof_labels_join(cprof_labels_t *l, const cprof_profile_t *p) {
  if (!l || !p || p->kind != CPROF_KIND_CPU || (p->nsamples && !p->time_deltas))
    return CPROF_EINVAL;
  free(l->sample_set);
  l->sample_set = malloc((p->nsamples ? p->nsamples : 1) * sizeof *l->sample_set);
  if (!l->sample_set) return CPROF_ENOMEM;
  l->nsamples = p->nsamples;
  l->unknown = 0;
  double t = (double)p->start_time;
  if (l->from_us > 0) t += nearbyint((l->from_us - t) / 0x1p32) * 0x1p32;
  long at = -1;
  for (uint32_t i = 0; i < p->nsamples; i++) {
    t += (double)p->time_deltas[i];
    at = l->nsw ? switch_at(l, t, at) : -1;
    uint32_t set = at >= 0 ? l->sw[at].set : 0;
    /* (idle) is the loop waiting: no code of any set runs */
    if (strcmp(p->frames[p->nodes[p->samples[i]].frame].name, "(idle)") == 0) set = 0;
    l->sample_set[i] = set < l->nsets ? set : 0;
    if (at < 0 && l->lost) l->unknown++;
  }
  l->joined = 1;
  return CPROF_OK;
}

/* ---- the sidecar ---- */

static void put_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(f, "\\u%04x", *c);
    else
      fputc(*c, f);
  }
  fputc('"', f);
}

int cprof_labels_write(const cprof_labels_t *l, FILE *f) {
  if (!l || !f || (l->nsamples && !l->sample_set)) return CPROF_EINVAL;
  fputs("{\"version\":1,\"sets\":[", f);
  for (uint32_t i = 0; i < l->nsets; i++) {
    fputs(i ? ",{" : "{", f);
    for (uint32_t k = 0; k < l->sets[i].n; k++) {
      if (k) fputc(',', f);
      put_json_string(f, l->sets[i].kv[2 * k]);
      fputc(':', f);
      put_json_string(f, l->sets[i].kv[2 * k + 1]);
    }
    fputc('}', f);
  }
  fputs("],\"samples\":[", f);
  for (uint32_t i = 0; i < l->nsamples; i++)
    fprintf(f, i ? ",%u" : "%u", l->sample_set[i]);
  fprintf(f, "],\"unknownSamples\":%u}\n", l->unknown);
  return ferror(f) ? CPROF_EIO : CPROF_OK;
}

/* ---- pprof's rows ---- */

static int row_cmp(const void *va, const void *vb) {
  const cprof_label_row_t *a = va, *b = vb;
  if (a->tnode != b->tnode) return a->tnode < b->tnode ? -1 : 1;
  return a->set < b->set ? -1 : a->set > b->set;
}

int cprof_labels_rows(const cprof_labels_t *l, const cprof_profile_t *p, const uint32_t *node_of,
                      cprof_label_row_t **rows, uint32_t *nrows) {
  if (!l || !p || !node_of || !rows || !nrows || l->nsamples != p->nsamples) return CPROF_EINVAL;
  cprof_label_row_t *r = malloc((p->nsamples ? p->nsamples : 1) * sizeof *r);
  if (!r) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < p->nsamples; i++)
    r[i] =
        (cprof_label_row_t){node_of[p->samples[i]], l->sample_set[i], 1, cprof_sample_weight(p, i)};
  qsort(r, p->nsamples, sizeof *r, row_cmp);
  uint32_t n = 0; /* equal (tree node, set) rows summed */
  for (uint32_t i = 0; i < p->nsamples; i++) {
    if (n > 0 && row_cmp(&r[i], &r[n - 1]) == 0) {
      r[n - 1].count++;
      r[n - 1].self = cprof__sat_add(r[n - 1].self, r[i].self);
    } else {
      r[n++] = r[i];
    }
  }
  *rows = r;
  *nrows = n;
  return CPROF_OK;
}

/* ---- the job's step ---- */

int cprof_labels_apply(cprof_labels_t *l, const cprof_profile_t *p, cprof_export_opts_t *o,
                       char *errbuf, size_t errlen) {
  if (!l || !p || p->kind != CPROF_KIND_CPU) return CPROF_OK;
  if (l->joined && l->nsamples != p->nsamples) {
    snprintf(errbuf, errlen,
             "the labels hold %u samples, the profile %u: not this profile's labels", l->nsamples,
             p->nsamples);
    return CPROF_EINVAL;
  }
  int rc = l->joined ? CPROF_OK : cprof_labels_join(l, p);
  if (rc != CPROF_OK) {
    snprintf(errbuf, errlen, "cannot join the labels to the samples: %s", cprof_strerror(rc));
    return rc;
  }
  o->labels = l;
  return CPROF_OK;
}

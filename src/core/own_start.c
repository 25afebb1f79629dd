/* The profiler's own start call, taken out of a CPU profile.
 *
 * V8's sampler runs from the moment Profiler.start begins, and start itself
 * takes milliseconds (V8 logs the code that exists), so a profile's first
 * sample or two are cprof's own start call: dispatch <- nativeStart <-
 * start. They are the leading samples whose stack holds a frame of the
 * profiler's own code; they are dropped from the model and from V8's text
 * alike, so the .cpuprofile, the summary and every format agree.
 *
 * Dropping sample i folds its time delta into the next one: a delta is the
 * gap before its sample, so every kept sample keeps its timestamp and
 * startTime, endTime stay. The time a dropped sample stood for (up to the
 * first kept sample) is then counted nowhere, like the gap between
 * startTime and the first sample already is. */
#include "own_start.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "export.h"
#include "internal.h"
#include "parse_value.h"
#include "profile.h"
#include "reader.h"

static int own_frame(const cprof_frame_t *f, const char *prefix, size_t n) {
  return strncmp(f->url, prefix, n) == 0;
}

/* Whether the stack of node has a frame whose url starts with prefix. */
static int own_stack(const cprof_profile_t *p, uint32_t node, const char *prefix, size_t n) {
  for (uint32_t i = node; i != CPROF_NONE; i = p->nodes[i].parent)
    if (own_frame(&p->frames[p->nodes[i].frame], prefix, n)) return 1;
  return 0;
}

uint32_t cprof_profile_leading_own(const cprof_profile_t *p, const char *url_prefix) {
  if (p == NULL || p->kind != CPROF_KIND_CPU || url_prefix == NULL || url_prefix[0] == '\0')
    return 0;
  size_t n = strlen(url_prefix);
  uint32_t k = 0;
  while (k < p->nsamples && own_stack(p, p->samples[k], url_prefix, n))
    k++;
  return k < p->nsamples ? k : 0; /* all of it: nothing else to show, keep it */
}

int cprof_profile_drop_leading(cprof_profile_t *p, uint32_t k) {
  if (p == NULL || p->kind != CPROF_KIND_CPU || k >= p->nsamples || p->time_deltas == NULL)
    return k == 0 && p != NULL ? CPROF_OK : CPROF_EINVAL;
  if (k == 0) return CPROF_OK;
  int64_t gap = 0;
  for (uint32_t i = 0; i < k; i++) {
    gap = cprof__sat_add(gap, p->time_deltas[i]);
    cprof_node_t *n = &p->nodes[p->samples[i]];
    if (n->hit_count > 0) n->hit_count--;
  }
  p->time_deltas[k] = cprof__sat_add(p->time_deltas[k], gap);
  memmove(p->samples, p->samples + k, (size_t)(p->nsamples - k) * sizeof(*p->samples));
  memmove(p->time_deltas, p->time_deltas + k, (size_t)(p->nsamples - k) * sizeof(*p->time_deltas));
  p->nsamples -= k;
  cprof__profile_fill_values(p);
  return CPROF_OK;
}

/* ---- the same edit on V8's text ---- */

/* Where elements 0 .. k of an array are: the start of 0 and of k, the end
 * of k, and the sum of their numbers (when sum is asked for). */
typedef struct {
  size_t start0, startk, endk;
  int64_t sum;
} span_t;

static int array_span(cprof__rd_t *r, uint32_t k, int numbers, span_t *s) {
  int first = 1, rc;
  uint32_t i = 0;
  if ((rc = cprof__rd_open(r, '[')) != CPROF_OK) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1) {
    if (i == 0) s->start0 = cprof__rd_offset(r);
    if (i == k) s->startk = cprof__rd_offset(r);
    if (i <= k && numbers) {
      int64_t v; /* read as the parser reads deltas */
      if (!cprof__rd_i64(r, &v)) return r->err ? r->err : CPROF_ESCHEMA;
      s->sum = cprof__sat_add(s->sum, v);
    } else if ((rc = cprof__rd_skip(r)) != CPROF_OK) {
      return rc;
    }
    if (i == k) s->endk = cprof__rd_offset(r);
    i++;
  }
  return rc < 0 ? rc : i > k ? CPROF_OK : CPROF_ESCHEMA;
}

/* The samples and timeDeltas members of the profile object. */
static int find_spans(const char *text, size_t len, uint32_t k, span_t *samples, span_t *deltas) {
  cprof__rd_t r;
  const char *key;
  size_t klen;
  int first = 1, rc, seen = 0;
  cprof__rd_init(&r, text, len, NULL, 0);
  rc = cprof__rd_open(&r, '{');
  while (rc == CPROF_OK && (rc = cprof__rd_member(&r, &first, &key, &klen)) == 1) {
    /* The first of a key wins, as in the parser. */
    if (CPROF__KEY(key, klen, "samples") && !(seen & 1)) {
      rc = array_span(&r, k, 0, samples);
      seen |= 1;
    } else if (CPROF__KEY(key, klen, "timeDeltas") && !(seen & 2)) {
      rc = array_span(&r, k, 1, deltas);
      seen |= 2;
    } else {
      rc = cprof__rd_skip(&r);
    }
  }
  cprof__rd_free(&r);
  return rc < 0 ? rc : seen == 3 ? CPROF_OK : CPROF_ESCHEMA;
}

typedef struct {
  size_t from, to;
  const char *with;
} cut_t;

int cprof_write_text_drop_leading(const char *text, size_t len, uint32_t k, FILE *f) {
  span_t s = {0}, d = {0};
  char gap[24];
  if (text == NULL || f == NULL) return CPROF_EINVAL;
  if (k == 0) return fwrite(text, 1, len, f) == len ? CPROF_OK : CPROF_EIO;
  int rc = find_spans(text, len, k, &s, &d);
  if (rc != CPROF_OK) return rc;
  snprintf(gap, sizeof gap, "%lld", (long long)d.sum);
  /* samples loses elements 0 .. k-1 with their separators; timeDeltas'
   * first k + 1 become their sum. V8 writes samples first; either works. */
  cut_t a = {s.start0, s.startk, ""}, b = {d.start0, d.endk, gap};
  cut_t cuts[2] = {a.from < b.from ? a : b, a.from < b.from ? b : a};
  size_t at = 0;
  for (int i = 0; i < 2; i++) {
    size_t n = cuts[i].from - at;
    if (fwrite(text + at, 1, n, f) != n || fputs(cuts[i].with, f) == EOF) return CPROF_EIO;
    at = cuts[i].to;
  }
  return fwrite(text + at, 1, len - at, f) == len - at ? CPROF_OK : CPROF_EIO;
}

/* Self time per line of each function (see lines.h for the split rule). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "lines.h"

typedef struct {
  uint32_t func;
  cprof_line_t l;
} entry_t;

void cprof_lines_split(int64_t self, const uint32_t *ticks, uint32_t n, int64_t *shares) {
  uint64_t sum = 0;
  uint32_t best = 0;
  for (uint32_t i = 0; i < n; i++) {
    sum += ticks[i];
    if (ticks[i] > ticks[best]) best = i;
  }
  int64_t given = 0;
  for (uint32_t i = 0; i < n; i++) {
    int64_t s = 0;
    if (self > 0 && sum > 0) {
      /* self * ticks / sum without overflow: q * t + r * t / sum, r < sum. */
      uint64_t q = (uint64_t)self / sum, r = (uint64_t)self % sum, t = ticks[i];
      if (sum <= UINT32_MAX)
        s = (int64_t)(q * t + r * t / sum);
      else /* absurd tick counts: round down in floating point */
        s = (int64_t)(q * t + (uint64_t)((long double)r * (long double)t / (long double)sum));
    }
    shares[i] = s;
    given += s;
  }
  if (n > 0) shares[best] += self - given; /* the floors' remainder */
}

void cprof_lines_node(int64_t self, const cprof_line_tick_t *t, uint32_t n, uint32_t *scratch,
                      int64_t *shares) {
  int64_t sum = 0;
  for (uint32_t k = 0; k < n; k++) {
    sum = cprof__sat_add(sum, t[k].self);
    scratch[k] = t[k].ticks;
  }
  if (sum == self && self != 0) {
    for (uint32_t k = 0; k < n; k++)
      shares[k] = t[k].self;
    return;
  }
  cprof_lines_split(self, scratch, n, shares);
}

static int entry_cmp(const void *va, const void *vb) {
  const entry_t *a = va, *b = vb;
  if (a->func != b->func) return a->func < b->func ? -1 : 1;
  if (a->l.url != b->l.url) {
    int c = strcmp(a->l.url, b->l.url);
    if (c != 0) return c;
  }
  return a->l.line < b->l.line ? -1 : a->l.line > b->l.line;
}

typedef struct {
  entry_t *e;
  uint32_t n;
  uint32_t *ticks; /* scratch for one node's run */
  int64_t *shares;
} acc_t;

/* One node's run of positionTicks [i, j) into entries. */
static void add_run(const cprof_profile_t *p, const cprof_line_tick_t *t, uint32_t n, uint32_t func,
                    acc_t *a) {
  const cprof_node_t *node = &p->nodes[t[0].node];
  const char *url = p->frames[node->frame].url;
  cprof_lines_node(node->self, t, n, a->ticks, a->shares);
  for (uint32_t k = 0; k < n; k++)
    if (a->shares[k] != 0)
      a->e[a->n++] = (entry_t){func, {t[k].url ? t[k].url : url, t[k].line, a->shares[k]}};
}

static int collect(const cprof_profile_t *p, const cprof_flat_t *flat, const unsigned char *want,
                   acc_t *a, unsigned char *covered) {
  const cprof_line_tick_t *t = p->line_ticks;
  uint32_t longest = 1;
  for (uint32_t i = 0, j; i < p->nline_ticks; i = j) {
    for (j = i + 1; j < p->nline_ticks && t[j].node == t[i].node;)
      j++;
    if (j - i > longest) longest = j - i;
  }
  a->ticks = malloc((size_t)longest * sizeof *a->ticks);
  a->shares = malloc((size_t)longest * sizeof *a->shares);
  if (!a->ticks || !a->shares) return CPROF_ENOMEM;
  for (uint32_t i = 0, j; i < p->nline_ticks; i = j) {
    for (j = i + 1; j < p->nline_ticks && t[j].node == t[i].node;)
      j++;
    uint32_t node = t[i].node, func = flat->func_of[p->nodes[node].frame];
    if (covered[node]) continue; /* a node's entries come together: a second run is bogus */
    covered[node] = 1;
    if (func != CPROF_NONE && (!want || want[func])) add_run(p, &t[i], j - i, func, a);
  }
  for (uint32_t i = 0; i < p->nnodes; i++) {
    const cprof_node_t *node = &p->nodes[i];
    uint32_t func = flat->func_of[node->frame];
    if (covered[i] || node->self == 0 || func == CPROF_NONE || (want && !want[func])) continue;
    a->e[a->n++] = (entry_t){func, {p->frames[node->frame].url, 0, node->self}};
  }
  return CPROF_OK;
}

/* Sorted entries, equal (func, url, line) summed, into out. */
static int pack(acc_t *a, uint32_t nfuncs, cprof_lines_t *out) {
  qsort(a->e, a->n, sizeof *a->e, entry_cmp);
  out->first = calloc((size_t)nfuncs + 1, sizeof *out->first);
  out->lines = malloc(((size_t)a->n + 1) * sizeof *out->lines);
  if (!out->first || !out->lines) return CPROF_ENOMEM;
  out->nfuncs = nfuncs;
  uint32_t n = 0;
  for (uint32_t i = 0; i < a->n; i++) {
    if (n > 0 && entry_cmp(&a->e[i], &a->e[i - 1]) == 0) {
      out->lines[n - 1].self = cprof__sat_add(out->lines[n - 1].self, a->e[i].l.self);
      continue;
    }
    out->lines[n++] = a->e[i].l;
    out->first[a->e[i].func + 1]++;
  }
  for (uint32_t f = 0; f < nfuncs; f++)
    out->first[f + 1] += out->first[f];
  out->nlines = n;
  return CPROF_OK;
}

int cprof_lines_build(const cprof_profile_t *p, const cprof_flat_t *flat, const unsigned char *want,
                      cprof_lines_t *out) {
  if (!out) return CPROF_EINVAL;
  *out = (cprof_lines_t){0};
  if (!p || !flat || !flat->func_of || flat->nframes != p->nframes || cprof__check_model(p) != 0)
    return CPROF_EINVAL;
  acc_t a = {0};
  unsigned char *covered = calloc((size_t)p->nnodes, 1);
  a.e = malloc(((size_t)p->nline_ticks + p->nnodes) * sizeof *a.e);
  int rc = covered && a.e ? collect(p, flat, want, &a, covered) : CPROF_ENOMEM;
  if (rc == CPROF_OK) rc = pack(&a, flat->nfuncs, out);
  free(covered);
  free(a.e);
  free(a.ticks);
  free(a.shares);
  if (rc != CPROF_OK) cprof_lines_free(out);
  return rc;
}

void cprof_lines_free(cprof_lines_t *l) {
  if (!l) return;
  free(l->lines);
  free(l->first);
  *l = (cprof_lines_t){0};
}

/* Diff of two profiles of the same kind: a per-function table and a
 * differential flame graph. Profiles of different lengths are compared by
 * shares: each function's self (or total) as a percentage of its own
 * profile's total, so a 10 s profile and a 30 s one compare fairly. The
 * file writers of every diff output (the HTML one included) are here too. */
#include "diff.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export.h"
#include "internal.h"
#include "fsutil.h"
#include "export_svg.h"
#include "label.h"
#include "tree.h"
#include "xml.h"

#define TOP_DEFAULT 30

static int merged_tree(cprof__tree_t *t, const cprof_profile_t *a, const cprof_profile_t *b) {
  *t = (cprof__tree_t){0};
  if (a == NULL || b == NULL || a->kind != b->kind) return CPROF_EINVAL;
  int rc = cprof__tree_add(t, a, 0);
  if (rc == 0) rc = cprof__tree_add(t, b, 1);
  if (rc == 0) rc = cprof__tree_finish(t);
  if (rc != 0) cprof__tree_free(t);
  return rc;
}

typedef struct {
  int64_t self[2], total[2];
  double key; /* change of self share, percentage points */
  uint32_t fn;
} drow_t;

/* Per-function self and total in both slots; a recursive function's total
 * counts each sample once (only its outermost nodes add). */
static int fn_sums(const cprof__tree_t *t, drow_t *rows) {
  uint32_t *on_stack = calloc((size_t)t->nfns + 1, sizeof(*on_stack));
  if (on_stack == NULL) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < t->nfns; i++)
    rows[i] = (drow_t){.fn = i};
  for (uint32_t i = 0; i < t->nnodes; i++)
    for (int s = 0; s < 2; s++)
      rows[t->nodes[i].fn].self[s] =
          cprof__sat_add(rows[t->nodes[i].fn].self[s], t->nodes[i].self[s]);
  uint32_t cur = 0;
  for (;;) {
    const cprof__tnode_t *n = &t->nodes[cur];
    if (on_stack[n->fn]++ == 0)
      for (int s = 0; s < 2; s++)
        rows[n->fn].total[s] = cprof__sat_add(rows[n->fn].total[s], n->total[s]);
    if (n->first_child != CPROF_NONE) {
      cur = n->first_child;
      continue;
    }
    for (;;) {
      on_stack[t->nodes[cur].fn]--;
      if (cur == 0 || t->nodes[cur].next_sibling != CPROF_NONE) break;
      cur = t->nodes[cur].parent;
    }
    if (cur == 0) break;
    cur = t->nodes[cur].next_sibling;
  }
  free(on_stack);
  return 0;
}

static int drow_cmp(const void *va, const void *vb) {
  const drow_t *a = va, *b = vb;
  double ka = fabs(a->key), kb = fabs(b->key);
  if (ka != kb) return ka > kb ? -1 : 1;
  return a->fn < b->fn ? -1 : a->fn > b->fn;
}

static int table(FILE *f, const cprof__tree_t *t, const cprof_export_opts_t *o) {
  drow_t *rows = malloc(((size_t)t->nfns + 1) * sizeof(*rows));
  char v0[64], v1[64];
  int err = 0;
  if (rows == NULL) return CPROF_ENOMEM;
  if ((err = fn_sums(t, rows)) != 0) {
    free(rows);
    return err;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < t->nfns; i++) {
    drow_t *r = &rows[i];
    const cprof_frame_t *fr = t->fns[r->fn].frame;
    if (fr->url[0] == '\0' && strcmp(fr->name, "(root)") == 0) continue;
    if (r->total[0] == 0 && r->total[1] == 0) continue;
    r->key = cprof__pct(r->self[1], t->total[1]) - cprof__pct(r->self[0], t->total[0]);
    rows[n++] = *r;
  }
  qsort(rows, n, sizeof(*rows), drow_cmp);
  unsigned top = o->top ? o->top : TOP_DEFAULT;
  if (n > top) n = top;
  /* names and the title come from files: escaped for the terminal */
  if (o->title != NULL && o->title[0] != '\0' &&
      (cprof__term_put(f, o->title) != 0 || fputs("\n", f) == EOF))
    err = CPROF_EIO;
  cprof__fmt_value(v0, sizeof(v0), t->kind, t->total[0]);
  cprof__fmt_value(v1, sizeof(v1), t->kind, t->total[1]);
  if (fprintf(f,
              "before: %" PRIu64 " samples, %s; after: %" PRIu64 " samples, %s\n"
              "Shares are %% of each profile's own total; pts = percentage points.\n"
              "Top %" PRIu32 " functions by change of self share:\n\n"
              "%13s %13s %8s %8s %8s  %8s %8s %8s  %s\n",
              t->samples[0], v0, t->samples[1], v1, n, "self before", "self after", "self%",
              "self%", "change", "total%", "total%", "change", "function") < 0 ||
      fprintf(f, "%13s %13s %8s %8s %8s  %8s %8s %8s\n", "", "", "before", "after", "pts", "before",
              "after", "pts") < 0)
    err = CPROF_EIO;
  for (uint32_t i = 0; i < n && !err; i++) {
    const drow_t *r = &rows[i];
    double sb = cprof__pct(r->self[0], t->total[0]), sa = cprof__pct(r->self[1], t->total[1]);
    double tb = cprof__pct(r->total[0], t->total[0]), ta = cprof__pct(r->total[1], t->total[1]);
    cprof__fmt_value(v0, sizeof(v0), t->kind, r->self[0]);
    cprof__fmt_value(v1, sizeof(v1), t->kind, r->self[1]);
    if (fprintf(f, "%13s %13s %7.2f%% %7.2f%% %+8.2f  %7.2f%% %7.2f%% %+8.2f  ", v0, v1, sb, sa,
                sa - sb, tb, ta, ta - tb) < 0 ||
        cprof__term_put(f, t->fns[r->fn].label) != 0 || fputs("\n", f) == EOF)
      err = CPROF_EIO;
  }
  free(rows);
  if (err) return err;
  return fflush(f) != 0 || ferror(f) ? CPROF_EIO : 0;
}

int cprof_diff_text(const cprof_profile_t *before, const cprof_profile_t *after,
                    const cprof_export_opts_t *o, FILE *f) {
  static const cprof_export_opts_t defaults = {0};
  cprof__tree_t t;
  if (f == NULL) return CPROF_EINVAL;
  int rc = merged_tree(&t, before, after);
  if (rc != 0) return rc;
  rc = table(f, &t, o ? o : &defaults);
  cprof__tree_free(&t);
  return rc;
}

int cprof_diff_svg(const cprof_profile_t *before, const cprof_profile_t *after,
                   const cprof_export_opts_t *o, FILE *f) {
  cprof__tree_t t;
  if (f == NULL) return CPROF_EINVAL;
  int rc = merged_tree(&t, before, after);
  if (rc != 0) return rc;
  rc = cprof__svg_write(f, &t, 1, o);
  cprof__tree_free(&t);
  return rc;
}

/* A diff writer (cprof_diff_svg, cprof_diff_html) and its arguments, for
 * cprof_write_atomic_fn's callback. */
typedef struct {
  int (*fn)(const cprof_profile_t *, const cprof_profile_t *, const cprof_export_opts_t *, FILE *);
  const cprof_profile_t *a, *b;
  const cprof_export_opts_t *o;
} diff_ctx_t;

static int write_diff(void *ctx, FILE *f) {
  const diff_ctx_t *d = ctx;
  return d->fn(d->a, d->b, d->o, f);
}

static int write_diff_file(const char *dir, const char *name, diff_ctx_t *ctx, long long *size_out,
                           char *errbuf, size_t errlen) {
  return (ctx->o && ctx->o->keep_existing ? cprof_write_new_fn : cprof_write_atomic_fn)(
      dir, name, write_diff, ctx, size_out, errbuf, errlen);
}

int cprof_write_diff_svg(const char *dir, const char *name, const cprof_profile_t *before,
                         const cprof_profile_t *after, const cprof_export_opts_t *o,
                         long long *size_out, char *errbuf, size_t errlen) {
  diff_ctx_t ctx = {cprof_diff_svg, before, after, o};
  return write_diff_file(dir, name, &ctx, size_out, errbuf, errlen);
}

int cprof_write_diff_html(const char *dir, const char *name, const cprof_profile_t *before,
                          const cprof_profile_t *after, const cprof_export_opts_t *o,
                          long long *size_out, char *errbuf, size_t errlen) {
  diff_ctx_t ctx = {cprof_diff_html, before, after, o};
  return write_diff_file(dir, name, &ctx, size_out, errbuf, errlen);
}

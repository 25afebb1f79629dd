/* Diff of two profiles of the same kind: a per-function table and a
 * differential flame graph. Profiles of different lengths are compared by
 * shares: each function's self (or total) as a percentage of its own
 * profile's busy time, so a 10 s profile and a 30 s one compare fairly. The
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
  uint64_t count[2]; /* samples whose leaf is the function (CPU) */
  double key;        /* change of self share of busy time, percentage points */
  uint32_t fn;
} drow_t;

/* What the shares are of. A CPU profile's busy time is its total without
 * (idle): V8 samples a waiting event loop as (idle), which is no code's
 * time, and speedscope leaves it out too (DevTools files it as Idle).
 * (program) and (garbage collector) are CPU work: they stay in, and in the
 * ranking. A heap profile has no idle: busy is its total. */
typedef struct {
  int64_t busy[2], idle[2];
  uint64_t busy_samples[2], idle_samples[2];
} busy_t;

static int is_root(const cprof_frame_t *fr) {
  return fr->url[0] == '\0' && strcmp(fr->name, "(root)") == 0;
}

/* Per-function self, self samples and total in both slots; a recursive
 * function's total counts each sample once (only its outermost nodes add). */
static int fn_sums(const cprof__tree_t *t, drow_t *rows) {
  uint32_t *on_stack = calloc((size_t)t->nfns + 1, sizeof(*on_stack));
  if (on_stack == NULL) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < t->nfns; i++)
    rows[i] = (drow_t){.fn = i};
  for (uint32_t i = 0; i < t->nnodes; i++)
    for (int s = 0; s < 2; s++) {
      drow_t *r = &rows[t->nodes[i].fn];
      r->self[s] = cprof__sat_add(r->self[s], t->nodes[i].self[s]);
      r->count[s] += t->nodes[i].count[s];
    }
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

/* The rows of the functions in either profile but (root) and (idle), by
 * the change of their share of busy time, the largest first; *n of them,
 * and the busy time in *b. NULL when out of memory. */
static drow_t *ranked(const cprof__tree_t *t, uint32_t *n, busy_t *b, int *err) {
  drow_t *rows = malloc(((size_t)t->nfns + 1) * sizeof(*rows));
  *n = 0;
  *b = (busy_t){{t->total[0], t->total[1]}, {0, 0}, {t->samples[0], t->samples[1]}, {0, 0}};
  if (rows == NULL) {
    *err = CPROF_ENOMEM;
    return NULL;
  }
  if ((*err = fn_sums(t, rows)) != 0) {
    free(rows);
    return NULL;
  }
  for (uint32_t i = 0; i < t->nfns; i++)
    if (t->fns[i].kind == CPROF__KIND_IDLE)
      for (int s = 0; s < 2; s++) {
        b->idle[s] += rows[i].self[s];
        b->idle_samples[s] += rows[i].count[s];
      }
  for (int s = 0; s < 2; s++) {
    b->busy[s] = t->total[s] - b->idle[s];
    b->busy_samples[s] = t->samples[s] - b->idle_samples[s];
  }
  for (uint32_t i = 0; i < t->nfns; i++) {
    drow_t *r = &rows[i];
    if (is_root(t->fns[r->fn].frame) || t->fns[r->fn].kind == CPROF__KIND_IDLE) continue;
    if (r->total[0] == 0 && r->total[1] == 0) continue;
    r->key = cprof__pct(r->self[1], b->busy[1]) - cprof__pct(r->self[0], b->busy[0]);
    rows[(*n)++] = *r;
  }
  qsort(rows, *n, sizeof(*rows), drow_cmp);
  return rows;
}

static int table(FILE *f, const cprof__tree_t *t, const cprof_export_opts_t *o) {
  char v0[64], v1[64], b0[64], b1[64];
  int err = 0, cpu = t->kind == CPROF_KIND_CPU;
  uint32_t n;
  busy_t b;
  drow_t *rows = ranked(t, &n, &b, &err);
  if (rows == NULL) return err;
  unsigned top = o->top ? o->top : TOP_DEFAULT;
  if (n > top) n = top;
  /* names and the title come from files: escaped for the terminal */
  if (o->title != NULL && o->title[0] != '\0' &&
      (cprof__term_put(f, o->title) != 0 || fputs("\n", f) == EOF))
    err = CPROF_EIO;
  cprof__fmt_value(v0, sizeof(v0), t->kind, t->total[0]);
  cprof__fmt_value(v1, sizeof(v1), t->kind, t->total[1]);
  cprof__fmt_value(b0, sizeof(b0), t->kind, b.busy[0]);
  cprof__fmt_value(b1, sizeof(b1), t->kind, b.busy[1]);
  if (cpu ? fprintf(f,
                    "before: %" PRIu64 " samples, %s, busy %s; after: %" PRIu64
                    " samples, %s, busy %s\n"
                    "Shares are %% of each profile's busy time (its total without (idle), which "
                    "is waiting, not code); pts = percentage points.\n",
                    t->samples[0], v0, b0, t->samples[1], v1, b1) < 0
          : fprintf(f,
                    "before: %" PRIu64 " samples, %s; after: %" PRIu64 " samples, %s\n"
                    "Shares are %% of each profile's own total; pts = percentage points.\n",
                    t->samples[0], v0, t->samples[1], v1) < 0)
    err = CPROF_EIO;
  if (fprintf(f,
              "Top %" PRIu32 " functions by change of self share:\n\n"
              "%13s %13s %8s %8s %8s  %8s %8s %8s  %s\n",
              n, "self before", "self after", "self%", "self%", "change", "total%", "total%",
              "change", "function") < 0 ||
      fprintf(f, "%13s %13s %8s %8s %8s  %8s %8s %8s\n", "", "", "before", "after", "pts", "before",
              "after", "pts") < 0)
    err = CPROF_EIO;
  for (uint32_t i = 0; i < n && !err; i++) {
    const drow_t *r = &rows[i];
    double sb = cprof__pct(r->self[0], b.busy[0]), sa = cprof__pct(r->self[1], b.busy[1]);
    double tb = cprof__pct(r->total[0], b.busy[0]), ta = cprof__pct(r->total[1], b.busy[1]);
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

/* A JSON string; a byte that is not UTF-8 becomes U+FFFD. */
static int json_str(FILE *f, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  uint32_t cp;
  if (fputc('"', f) == EOF) return -1;
  while (*u) {
    size_t n = cprof__utf8_next(u, &cp);
    int rc;
    if (n == 0) {
      rc = fputs("\\ufffd", f);
      n = 1;
    } else if (cp == '"' || cp == '\\') {
      rc = fprintf(f, "\\%c", (char)cp);
    } else if (cp < 0x20 || cp == 0x7f) {
      rc = fprintf(f, "\\u%04" PRIx32, cp);
    } else {
      rc = fwrite(u, 1, n, f) == n ? 0 : EOF;
    }
    if (rc < 0) return -1;
    u += n;
  }
  return fputc('"', f) == EOF ? -1 : 0;
}

static int json_pair_i64(FILE *f, const char *key, int64_t a, int64_t b) {
  return fprintf(f, ",\"%s\":[%" PRId64 ",%" PRId64 "]", key, a, b) < 0 ? -1 : 0;
}

/* Every ranked function (not only --top) with its figures in both
 * profiles, for the CLI's gate and summaries (lib/cli/diff.js):
 * {"kind","samples","total","busy","busySamples","idle","idleSamples",
 *  "functions":[{"name","url","line","label","self","total","selfSamples"}]},
 * each figure a [before, after] pair; line is 1-based (0: none). */
static int json_rows(FILE *f, const cprof__tree_t *t) {
  uint32_t n;
  busy_t b;
  int err = 0, bad = 0;
  drow_t *rows = ranked(t, &n, &b, &err);
  if (rows == NULL) return err;
  bad |= fprintf(f, "{\"kind\":\"%s\"", t->kind == CPROF_KIND_CPU ? "cpu" : "heap") < 0;
  bad |= json_pair_i64(f, "samples", (int64_t)t->samples[0], (int64_t)t->samples[1]);
  bad |= json_pair_i64(f, "total", t->total[0], t->total[1]);
  bad |= json_pair_i64(f, "busy", b.busy[0], b.busy[1]);
  bad |= json_pair_i64(f, "busySamples", (int64_t)b.busy_samples[0], (int64_t)b.busy_samples[1]);
  bad |= json_pair_i64(f, "idle", b.idle[0], b.idle[1]);
  bad |= json_pair_i64(f, "idleSamples", (int64_t)b.idle_samples[0], (int64_t)b.idle_samples[1]);
  bad |= fputs(",\"functions\":[", f) == EOF;
  for (uint32_t i = 0; i < n && !bad; i++) {
    const drow_t *r = &rows[i];
    const cprof__fn_t *fn = &t->fns[r->fn];
    bad |= fputs(i ? ",{\"name\":" : "{\"name\":", f) == EOF;
    bad |= json_str(f, fn->frame->name[0] ? fn->frame->name : "(anonymous)");
    bad |= fputs(",\"url\":", f) == EOF;
    bad |= json_str(f, cprof__short_url(fn->frame->url));
    bad |= fprintf(f, ",\"line\":%" PRId64 ",\"label\":",
                   fn->frame->line >= 0 ? (int64_t)fn->frame->line + 1 : 0) < 0;
    bad |= json_str(f, fn->label);
    bad |= json_pair_i64(f, "self", r->self[0], r->self[1]);
    bad |= json_pair_i64(f, "total", r->total[0], r->total[1]);
    bad |= json_pair_i64(f, "selfSamples", (int64_t)r->count[0], (int64_t)r->count[1]);
    bad |= fputc('}', f) == EOF;
  }
  bad |= fputs("]}\n", f) == EOF;
  free(rows);
  if (bad) return CPROF_EIO;
  return fflush(f) != 0 || ferror(f) ? CPROF_EIO : 0;
}

int cprof_diff_text(const cprof_profile_t *before, const cprof_profile_t *after,
                    const cprof_export_opts_t *o, FILE *f) {
  static const cprof_export_opts_t defaults = {0};
  cprof__tree_t t;
  if (f == NULL) return CPROF_EINVAL;
  int rc = merged_tree(&t, before, after);
  if (rc != 0) return rc;
  if (!o) o = &defaults;
  rc = o->diff_json ? json_rows(f, &t) : table(f, &t, o);
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

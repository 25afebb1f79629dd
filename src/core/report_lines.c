/* "Self time by line" for the text report (see report_lines.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "label.h"
#include "lines.h"
#include "report_lines.h"
#include "source.h"
#include "xml.h"

#define MATCH_MAX 8     /* functions one name may list */
#define SPAN_MAX 80     /* a function's lines shown as a whole block up to this span */
#define SOURCE_COLS 100 /* source text shown per line, in bytes */

typedef struct {
  FILE *f;
  int err;
  const cprof_profile_t *p;
  const cprof_flat_t *flat;
  const cprof_lines_t *lines;
  const cprof_source_texts_t *texts;
  const cprof_source_owners_t *owners;
  int hint;                          /* the profile is not mapped: name scripts with a map */
  const char *hinted[MATCH_MAX * 2]; /* the scripts named so, once each */
  unsigned nhinted;
} lrep_t;

/* Profile and file text for a terminal: controls as visible escapes
 * (cprof__term_put, the rule every text output follows). */
static void put_text(lrep_t *r, const char *s) {
  if (!r->err && cprof__term_put(r->f, s) != CPROF_OK) r->err = CPROF_EIO;
}

static void putf(lrep_t *r, const char *fmt, ...) CPROF__PRINTF(2, 3);
static void putf(lrep_t *r, const char *fmt, ...) {
  va_list ap;
  if (r->err) return;
  va_start(ap, fmt);
  if (vfprintf(r->f, fmt, ap) < 0) r->err = CPROF_EIO;
  va_end(ap);
}

/* Source text as one line: cut at SOURCE_COLS bytes (on a UTF-8
 * boundary), tabs as a space, then escaped as all terminal text is (a
 * source can hold ESC, or bidirectional controls). */
static void put_source(lrep_t *r, const char *s, size_t n) {
  char buf[SOURCE_COLS + 4];
  size_t k = 0;
  if (n > SOURCE_COLS) {
    n = SOURCE_COLS;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
      n--;
  }
  for (size_t i = 0; i < n && s[i] != '\0'; i++)
    buf[k++] = s[i] == '\t' ? ' ' : s[i];
  buf[k] = '\0';
  putf(r, "  ");
  put_text(r, buf);
}

static int pseudo(const cprof_frame_t *fr) {
  return fr->url[0] == '\0';
}

static int matches(const cprof_frame_t *fr, const char *name) {
  if (strcmp(fr->name, name) == 0) return 1;
  char *label = cprof__frame_label(fr);
  int m = label && strstr(label, name) != NULL;
  free(label);
  return m;
}

unsigned cprof__lines_matches(const cprof_profile_t *p, const cprof_flat_t *flat,
                              const char *name) {
  unsigned n = 0;
  for (uint32_t i = 0; i < flat->nfuncs; i++)
    n += !pseudo(&p->frames[flat->funcs[i].frame]) &&
         matches(&p->frames[flat->funcs[i].frame], name);
  return n;
}

/* The functions to list, best self first, into out; how many. */
static uint32_t pick(const cprof_profile_t *p, const cprof_flat_t *flat, const char *name,
                     uint32_t *out) {
  cprof_func_t best[CPROF__LINES_TOP + 8];
  uint32_t n = 0;
  if (name) {
    for (uint32_t i = 0; i < flat->nfuncs && n < MATCH_MAX; i++)
      if (!pseudo(&p->frames[flat->funcs[i].frame]) &&
          matches(&p->frames[flat->funcs[i].frame], name))
        out[n++] = i;
    return n;
  }
  /* Pseudo frames ((program), (garbage collector)) have no lines: skip them. */
  size_t got = cprof_flat_top(flat, p, CPROF_TOP_SKIP_ROOT | CPROF_TOP_SKIP_IDLE, best,
                              sizeof best / sizeof *best);
  for (size_t i = 0; i < got && n < CPROF__LINES_TOP; i++) {
    if (pseudo(&p->frames[best[i].frame]) || best[i].self <= 0) continue;
    out[n++] = flat->func_of[best[i].frame];
  }
  return n;
}

static void row(lrep_t *r, int64_t self, int64_t fself, int32_t line, int has_self,
                const cprof__source_t *src) {
  char v[64] = "";
  const char *s;
  size_t n;
  if (has_self) {
    cprof__fmt_value(v, sizeof v, r->p->kind, self);
    putf(r, "%12s %6.1f%% %6" PRId32, v, cprof__pct(self, fself), line);
  } else {
    putf(r, "%12s %7s %6" PRId32, "", "", line);
  }
  if (src && cprof__source_line(src, line, &s, &n)) put_source(r, s, n);
  putf(r, "\n");
}

/* The profile is not mapped through source maps and the minified or
 * compiled lines below are all it shows: once per script that has a map,
 * a line saying so. */
static void hint_map(lrep_t *r, const char *url, const cprof__source_t *src) {
  for (unsigned i = 0; i < r->nhinted; i++)
    if (strcmp(r->hinted[i], url) == 0) return;
  if (!cprof__source_has_map(url, src, r->owners)) return;
  if (r->nhinted < sizeof r->hinted / sizeof *r->hinted) r->hinted[r->nhinted++] = url;
  putf(r, "  ");
  put_text(r, cprof__short_url(url));
  putf(r, " has a source map: --source-maps shows the original lines\n");
}

/* Lines [a, b) of one url: the whole span from the first to the last
 * sampled line when it is short, else the sampled lines alone. */
static void one_file(lrep_t *r, uint32_t a, uint32_t b, int64_t fself, int own) {
  const cprof_line_t *L = r->lines->lines;
  cprof__source_t src;
  char why[160];
  int have = cprof__source_read(L[a].url, r->texts, r->owners, &src, why, sizeof why) == CPROF_OK;
  if (!own) {
    putf(r, "  in ");
    put_text(r, cprof__short_url(L[a].url));
    putf(r, ":\n");
  }
  if (!have && why[0]) {
    putf(r, "  (source not shown: ");
    put_text(r, cprof__short_url(L[a].url));
    putf(r, ": ");
    put_text(r, why);
    putf(r, "; the line table alone)\n");
  } else if (!have) {
    putf(r, "  (source not readable at ");
    put_text(r, cprof__short_url(L[a].url));
    putf(r, ": the line table alone)\n");
  }
  if (r->hint && (have || !why[0])) hint_map(r, L[a].url, have ? &src : NULL);
  int32_t lo = L[a].line, hi = L[b - 1].line;
  if (have && hi - lo < SPAN_MAX) {
    uint32_t k = a;
    for (int32_t line = lo; line <= hi; line++) {
      int has = k < b && L[k].line == line;
      row(r, has ? L[k].self : 0, fself, line, has, &src);
      k += has;
    }
  } else {
    for (uint32_t k = a; k < b; k++) {
      if (k > a && L[k].line > L[k - 1].line + 1 && have) putf(r, "%34s\n", "...");
      row(r, L[k].self, fself, L[k].line, 1, have ? &src : NULL);
    }
  }
  if (have) cprof__source_free(&src);
}

static void one_function(lrep_t *r, uint32_t fn) {
  const cprof_func_t *F = &r->flat->funcs[fn];
  const cprof_frame_t *fr = &r->p->frames[F->frame];
  const cprof_line_t *L = r->lines->lines;
  uint32_t a = r->lines->first[fn], b = r->lines->first[fn + 1];
  char v[64], *label = cprof__frame_label(fr);
  if (!label) {
    r->err = CPROF_ENOMEM;
    return;
  }
  cprof__fmt_value(v, sizeof v, r->p->kind, F->self);
  putf(r, "\n");
  put_text(r, label);
  putf(r, ": %s self, %.1f%% of the total\n", v, cprof__pct(F->self, r->flat->total));
  free(label);
  putf(r, "%12s %7s %6s  %s\n", "self", "share", "line", "source");
  /* Line 0 first (no line), then each url's run; the function's own file first. */
  for (uint32_t k = a; k < b; k++) {
    if (L[k].line != 0) continue;
    cprof__fmt_value(v, sizeof v, r->p->kind, L[k].self);
    putf(r, "%12s %6.1f%% %6s  (no line: the profile has no positionTicks here)\n", v,
         cprof__pct(L[k].self, F->self), "-");
  }
  for (int pass = 0; pass < 2 && !r->err; pass++) {
    for (uint32_t k = a; k < b && !r->err;) {
      uint32_t e = k;
      while (e < b && strcmp(L[e].url, L[k].url) == 0)
        e++;
      uint32_t s = k;
      while (s < e && L[s].line == 0)
        s++;
      int own = strcmp(L[k].url, fr->url) == 0;
      if (s < e && own == (pass == 0)) one_file(r, s, e, F->self, own);
      k = e;
    }
  }
}

int cprof__report_lines(FILE *f, cprof_analysis_t *a, const cprof_export_opts_t *o) {
  const cprof_profile_t *p = a->p;
  const cprof_flat_t *flat;
  int rc = cprof_analysis_flat(a, &flat);
  if (rc != CPROF_OK) return rc;
  lrep_t r = {f, 0, p, flat, NULL, o->source_texts, o->source_owners, o->source_map_hint, {0}, 0};
  uint32_t fns[MATCH_MAX > CPROF__LINES_TOP ? MATCH_MAX : CPROF__LINES_TOP];
  const char *name = o->lines_focus && o->lines_focus[0] ? o->lines_focus : NULL;
  if (p->kind != CPROF_KIND_CPU) {
    putf(&r, "\nSelf size by line: not in heap profiles (V8's sampling heap profiler records "
             "no position within a function, only the function)\n");
    return r.err;
  }
  uint32_t n = pick(p, flat, name, fns);
  putf(&r, "\nSelf time by line (from V8's positionTicks; each function's lines add up to its "
           "self time)\n");
  if (n == 0 && name) {
    putf(&r, "No function matches \"");
    put_text(&r, name);
    putf(&r, "\"\n");
  }
  if (n == 0) return r.err;
  if ((rc = cprof_analysis_lines(a, &r.lines)) != CPROF_OK) return rc;
  for (uint32_t i = 0; i < n && !r.err; i++)
    one_function(&r, fns[i]);
  return r.err;
}

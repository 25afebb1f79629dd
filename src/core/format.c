/* Dispatch by derived format (declared in export.h): a cprof_format_t to
 * its writer, its file extension, and an atomic file. The one place that
 * depends on every derived-format writer; none depends back on it. */
#include "format.h"

#include <stdio.h>

#include "analysis.h"
#include "error.h"
#include "export.h"
#include "fsutil.h"
#include "internal.h"

/* ---- formats ---- */

static const cprof_analysis_writer_fn WRITERS[CPROF_FORMAT_COUNT] = {
    cprof__export_pprof, cprof__export_folded, cprof__export_svg, cprof__export_text,
    cprof__export_html};

int cprof_export_analysis(cprof_format_t fmt, cprof_analysis_t *a, const cprof_export_opts_t *o,
                          FILE *f) {
  static const cprof_export_opts_t defaults = {0};
  if ((unsigned)fmt >= CPROF_FORMAT_COUNT || a == NULL || a->p == NULL || f == NULL)
    return CPROF_EINVAL;
  return WRITERS[fmt](a, o ? o : &defaults, f);
}

int cprof_export_format(cprof_format_t fmt, const cprof_profile_t *p, const cprof_export_opts_t *o,
                        FILE *f) {
  if ((unsigned)fmt >= CPROF_FORMAT_COUNT) return CPROF_EINVAL;
  return cprof_analysis_write_once(p, o, f, WRITERS[fmt]);
}

const char *cprof_format_ext(cprof_format_t fmt) {
  static const char *ext[CPROF_FORMAT_COUNT] = {"pb.gz", "folded", "svg", "txt", "html"};
  return (unsigned)fmt < CPROF_FORMAT_COUNT ? ext[fmt] : NULL;
}

typedef struct {
  cprof_format_t fmt;
  cprof_analysis_t *a;
  const cprof_export_opts_t *o;
} format_ctx_t;

static int write_format(void *ctx, FILE *f) {
  const format_ctx_t *c = ctx;
  return cprof_export_analysis(c->fmt, c->a, c->o, f);
}

int cprof_write_analysis(const char *dir, const char *name, cprof_format_t fmt, cprof_analysis_t *a,
                         const cprof_export_opts_t *o, long long *size_out, char *errbuf,
                         size_t errlen) {
  format_ctx_t c = {fmt, a, o};
  if ((unsigned)fmt >= CPROF_FORMAT_COUNT)
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "unknown output format %d", (int)fmt);
  return (o && o->keep_existing ? cprof_write_new_fn : cprof_write_atomic_fn)(
      dir, name, write_format, &c, size_out, errbuf, errlen);
}

int cprof_write_format(const char *dir, const char *name, cprof_format_t fmt,
                       const cprof_profile_t *p, const cprof_export_opts_t *o, long long *size_out,
                       char *errbuf, size_t errlen) {
  cprof_analysis_t a;
  cprof_analysis_init(&a, p);
  int rc = cprof_write_analysis(dir, name, fmt, &a, o, size_out, errbuf, errlen);
  cprof_analysis_free(&a);
  return rc;
}

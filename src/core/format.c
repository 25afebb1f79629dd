/* Dispatch by derived format (declared in export.h): a cprof_format_t to
 * its writer, its file extension, and an atomic file. The one place that
 * depends on every derived-format writer; none depends back on it. */
#include "format.h"

#include <stdio.h>

#include "error.h"
#include "export.h"
#include "fsutil.h"
#include "internal.h"
#include "report_text.h"

/* ---- formats ---- */

int cprof_export_format(cprof_format_t fmt, const cprof_profile_t *p, const cprof_export_opts_t *o,
                        FILE *f) {
  switch (fmt) {
  case CPROF_FORMAT_PPROF:
    return cprof_export_pprof(p, o, f);
  case CPROF_FORMAT_FOLDED:
    return cprof_export_folded(p, o, f);
  case CPROF_FORMAT_SVG:
    return cprof_export_svg(p, o, f);
  case CPROF_FORMAT_TXT:
    return cprof_report_text(p, o, f);
  case CPROF_FORMAT_HTML:
    return cprof_export_html(p, o, f);
  default:
    return CPROF_EINVAL;
  }
}

const char *cprof_format_ext(cprof_format_t fmt) {
  static const char *ext[CPROF_FORMAT_COUNT] = {"pb.gz", "folded", "svg", "txt", "html"};
  return (unsigned)fmt < CPROF_FORMAT_COUNT ? ext[fmt] : NULL;
}

typedef struct {
  cprof_format_t fmt;
  const cprof_profile_t *p;
  const cprof_export_opts_t *o;
} format_ctx_t;

static int write_format(void *ctx, FILE *f) {
  const format_ctx_t *c = ctx;
  return cprof_export_format(c->fmt, c->p, c->o, f);
}

int cprof_write_format(const char *dir, const char *name, cprof_format_t fmt,
                       const cprof_profile_t *p, const cprof_export_opts_t *o, long long *size_out,
                       char *errbuf, size_t errlen) {
  format_ctx_t c = {fmt, p, o};
  if ((unsigned)fmt >= CPROF_FORMAT_COUNT)
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "unknown output format %d", (int)fmt);
  return (o && o->keep_existing ? cprof_write_new_fn : cprof_write_atomic_fn)(
      dir, name, write_format, &c, size_out, errbuf, errlen);
}

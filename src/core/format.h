/* The writers by format (format.c): cprof_format_t to its exporter, its
 * extension, and a profile written to a file in it. */
#ifndef CPROF_FORMAT_H
#define CPROF_FORMAT_H

#include <stdio.h>

#include "export.h"
#include "profile.h"

/* Dispatch by format. */
int cprof_export_format(cprof_format_t fmt, const cprof_profile_t *p, const cprof_export_opts_t *o,
                        FILE *f);

/* The same over a's profile, drawing on a's tree, flat profile and lines
 * (built by the first writer that needs each, kept for the next). */
struct cprof_analysis_s;
int cprof_export_analysis(cprof_format_t fmt, struct cprof_analysis_s *a,
                          const cprof_export_opts_t *o, FILE *f);

/* The file extension of a format, without the dot: "pb.gz", "folded",
 * "svg", "txt", "html". */
const char *cprof_format_ext(cprof_format_t fmt);

/* Writes p in fmt to dir/name atomically (cprof_write_atomic; with
 * o->keep_existing, cprof_write_new_fn). */
int cprof_write_format(const char *dir, const char *name, cprof_format_t fmt,
                       const cprof_profile_t *p, const cprof_export_opts_t *o, long long *size_out,
                       char *errbuf, size_t errlen);

/* cprof_write_format of a's profile, over a (a job writing several formats). */
int cprof_write_analysis(const char *dir, const char *name, cprof_format_t fmt,
                         struct cprof_analysis_s *a, const cprof_export_opts_t *o,
                         long long *size_out, char *errbuf, size_t errlen);

#endif

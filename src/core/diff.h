/* The diff of two profiles of the same kind (diff.c): the table, the
 * differential flame graph, and the diff's views written to files (the
 * diff's HTML viewer is export_html.c's cprof_diff_html, export.h). */
#ifndef CPROF_DIFF_H
#define CPROF_DIFF_H

#include <stdio.h>

#include "export.h"
#include "profile.h"

/* Per-function table: self and total before and after, as shares of each
 * profile's busy time (CPU: the total without (idle); heap: the total) and
 * in the unit, sorted by the change of self share; (idle) is not ranked.
 * With o->diff_json, every ranked function's figures as one JSON object
 * instead (diff.c's json_rows says its shape). */
int cprof_diff_text(const cprof_profile_t *before, const cprof_profile_t *after,
                    const cprof_export_opts_t *o, FILE *f);

/* Differential flame graph: the shape of after, each frame coloured by the
 * change of its self share: red grew, blue shrank. */
int cprof_diff_svg(const cprof_profile_t *before, const cprof_profile_t *after,
                   const cprof_export_opts_t *o, FILE *f);

/* cprof_diff_html to dir/name atomically (cprof_write_format's rule for o->keep_existing,
 * format.h). */
int cprof_write_diff_html(const char *dir, const char *name, const cprof_profile_t *before,
                          const cprof_profile_t *after, const cprof_export_opts_t *o,
                          long long *size_out, char *errbuf, size_t errlen);

/* cprof_diff_svg to dir/name atomically (the same rule). */
int cprof_write_diff_svg(const char *dir, const char *name, const cprof_profile_t *before,
                         const cprof_profile_t *after, const cprof_export_opts_t *o,
                         long long *size_out, char *errbuf, size_t errlen);

#endif

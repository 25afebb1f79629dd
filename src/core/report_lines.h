/* The text report's "Self time by line" section (report_lines.c), like
 * `go tool pprof -list`: for the top functions by self (or those a name
 * matches), the self time of each line with the source beside it when the
 * file can be read. Internal to report_text.c. */
#ifndef CPROF_REPORT_LINES_H
#define CPROF_REPORT_LINES_H

#include <stdio.h>

#include "aggregate.h"
#include "analysis.h"
#include "export.h"
#include "profile.h"

#define CPROF__LINES_TOP 5 /* functions listed without a name */

/* The section for a's profile, from a's flat profile and lines. CPROF_OK,
 * CPROF_EIO (write) or CPROF_ENOMEM. */
int cprof__report_lines(FILE *f, cprof_analysis_t *a, const cprof_export_opts_t *o);

/* How many functions name matches (exactly, or as a part of its label). */
unsigned cprof__lines_matches(const cprof_profile_t *p, const cprof_flat_t *flat, const char *name);

#endif

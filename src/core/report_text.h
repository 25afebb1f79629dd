/* The text report of a profile (report_text.c): top functions, the tree,
 * the focus's callers, self time by line. */
#ifndef CPROF_REPORT_TEXT_H
#define CPROF_REPORT_TEXT_H

#include <stdio.h>

#include "export.h"
#include "profile.h"

/* The report; opts as export.h says (NULL = all defaults). */
int cprof_report_text(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);

/* How many functions the text report's focus name matches (0: the report
 * would have no bottom-up section for it). */
unsigned cprof_report_matches(const cprof_profile_t *p, const char *name);

/* The same over a job's analysis (analysis.h), whose tree the report reuses. */
struct cprof_analysis_s;
unsigned cprof__analysis_matches(struct cprof_analysis_s *a, const char *name);

#endif

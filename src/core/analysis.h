/* One analysis of a profile, shared by the writers of a job: the function
 * tree, the flat profile and every function's lines, each built on first
 * use and kept, so a stop or a conversion to five formats builds each once.
 * The profile must not change while the analysis holds it (frames are
 * borrowed). The job's result carries one (job_request.h). */
#ifndef CPROF_ANALYSIS_H
#define CPROF_ANALYSIS_H

#include <stdio.h>

#include "aggregate.h"
#include "export.h"
#include "lines.h"
#include "profile.h"

struct cprof__tree_s; /* tree.h (internal) */

typedef struct cprof_analysis_s {
  const cprof_profile_t *p;
  struct cprof__tree_s *tree; /* one slot, finished; node_of maps p's nodes */
  cprof_flat_t flat;          /* the flat profile */
  cprof_lines_t lines;        /* every function's self time by line (CPU) */
  unsigned built;             /* CPROF__ANALYSIS_* bits: the parts held by value */
  unsigned builds;            /* how many parts were built: the tests check one each */
} cprof_analysis_t;

#define CPROF__ANALYSIS_FLAT 1u
#define CPROF__ANALYSIS_LINES 2u

/* An analysis of p with nothing built yet. */
void cprof_analysis_init(cprof_analysis_t *a, const cprof_profile_t *p);

/* Each part, built on the first call: CPROF_OK with *out set, or the
 * builder's error (CPROF_EINVAL for a model that does not check,
 * CPROF_ENOMEM), and the next call tries again. */
int cprof_analysis_tree(cprof_analysis_t *a, const struct cprof__tree_s **out);
int cprof_analysis_flat(cprof_analysis_t *a, const cprof_flat_t **out);
int cprof_analysis_lines(cprof_analysis_t *a, const cprof_lines_t **out);

/* Frees the tree (the largest part) once the writers are done; the flat
 * profile and the lines stay for the summary. */
void cprof_analysis_drop_tree(cprof_analysis_t *a);

void cprof_analysis_free(cprof_analysis_t *a);

/* A writer over an analysis (export.h's cprof__export_*). */
typedef int (*cprof_analysis_writer_fn)(cprof_analysis_t *a, const cprof_export_opts_t *o, FILE *f);

/* fn over a one-off analysis of p: the writers' profile entry points. */
int cprof_analysis_write_once(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f,
                              cprof_analysis_writer_fn fn);

#endif

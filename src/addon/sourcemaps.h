/* The job's source-map step (see src/core/sourcemap.h for the why). */
#ifndef CPROF_ADDON_SOURCEMAPS_H
#define CPROF_ADDON_SOURCEMAPS_H

#include <string.h>

#include "../core/cprof.h"

/* cprof_sourcemap_apply with the process-wide cache. Any thread. */
int cprof__map_frames(cprof_profile_t *p, const cprof_source_owners_t *owners,
                      cprof_sm_frames_t **out, cprof_sm_stats_t *stats);

/* Adds b's counts (and errors, while there is room) to sum: a diff maps two
 * profiles and reports once. */
void cprof__add_sm_stats(cprof_sm_stats_t *sum, const cprof_sm_stats_t *b);

#endif

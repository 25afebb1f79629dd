/* The merge job's load step (job_merge.c): several profile files read and
 * merged into one, for cprof merge and --from/--to over a store. job_run.c
 * calls it with its own file loader; this unit needs only the core. */
#ifndef CPROF_JOB_MERGE_H
#define CPROF_JOB_MERGE_H

#include <stddef.h>

#include "../core/cprof.h"

/* Loads one profile file as the job does (read, parse; errors name the
 * file into the job's message): called once per path. */
typedef int (*cprof_job_load_fn)(void *ctx, const char *path, cprof_profile_t **out);

/* Loads every path in order and merges them into *out, in steps of a
 * bounded number of files. Files of two kinds are CPROF_EINVAL, errbuf
 * naming one of each. With need_samples, a merged profile without samples
 * is CPROF_ESCHEMA. Any error: *out NULL, nothing held. */
int cprof__job_merge_files(char *const *paths, size_t n, int need_samples, cprof_job_load_fn load,
                           void *ctx, cprof_profile_t **out, char *errbuf, size_t errlen);

#endif

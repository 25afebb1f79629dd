/* The job's steps as they share it (job.h): job.c dispatches by kind,
 * job_load.c gives a profile kind its profile, job_tail.c summarises and
 * writes it, job_merge.c merges profile files in steps. Internal: the core
 * and its tests only. */
#ifndef CPROF_JOB_INTERNAL_H
#define CPROF_JOB_INTERNAL_H

#include <stddef.h>

#include "job_request.h"

/* One running job: what each step reads and fills. */
typedef struct {
  cprof_job_in_t *in;
  cprof_job_out_t *out;
  cprof_job_err_t *err;
} cprof__run_t;

/* The job's error message buffer (the code is each step's return value). */
#define CPROF__JOB_ERRBUF(r) (r)->err->msg, sizeof(r)->err->msg

/* The profile kinds' loader: out->profile (a diff's out->profile_b too). */
int cprof__job_load(cprof__run_t *r);

/* The shared tail: shaped, summarised, rendered, written. */
int cprof__job_tail(cprof__run_t *r);

/* Reads a whole regular file into *buf (NUL-terminated); profile set: the
 * file's owner goes to out->owners (the line views show what they could
 * read). Errors name the file. */
int cprof__job_read_file(cprof__run_t *r, const char *path, int profile, char **buf, size_t *len);

/* Loads one profile file as the job does (read, parse; errors name the
 * file into the job's message): called once per path. labels not NULL: a
 * CPU profile's labels too, from its sidecar (labelset.h; *labels NULL
 * when it has none). */
typedef int (*cprof__job_load_fn)(void *ctx, const char *path, cprof_profile_t **out,
                                  cprof_labels_t **labels);

/* Loads every path in order and merges them into *out, in steps of a
 * bounded number of files; labels not NULL: the CPU profiles' labels
 * merged as their samples are (*labels; NULL for heap profiles). Files of
 * two kinds are CPROF_EINVAL, errbuf naming one of each. With
 * need_samples, a merged profile without samples is CPROF_ESCHEMA. Any
 * error: *out NULL, nothing held. */
int cprof__job_merge_files(char *const *paths, size_t n, int need_samples, cprof__job_load_fn load,
                           void *ctx, cprof_profile_t **out, cprof_labels_t **labels, char *errbuf,
                           size_t errlen);

#endif

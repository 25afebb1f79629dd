/* cprof's background work, as one request type: a job says its kind and
 * carries what that kind reads; cprof_job_run does it on whatever thread
 * calls it (the addon: a libuv worker, src/addon/work.c) and leaves what it
 * made in a cprof_job_out_t, or the reason in a cprof_job_err_t. libuv's
 * uv_fs_t and its one uv__fs_work switch are the model.
 *
 * The profile kinds (STOP_CPU .. PRODUCE) share one pipeline: the kind's
 * loader gives the profile (job_load.c), then one tail shapes, summarises,
 * renders and writes it (job_tail.c). The other kinds run a core operation
 * of their own: a heap snapshot's analysis, a recorder window's conversion,
 * the deferred malloc_trim. The request's types are job_request.h. */
#ifndef CPROF_JOB_H
#define CPROF_JOB_H

#include "job_request.h"

/* Runs in's kind; out must start zeroed. CPROF_OK, or the error (also in
 * err->code) with err->msg saying it; out then holds what was made before
 * (a failed write keeps the summary: the caller can still report it). */
int cprof_job_run(cprof_job_in_t *in, cprof_job_out_t *out, cprof_job_err_t *err);

/* Whether a failed job's out holds a result worth reporting with its error
 * (a profile kind whose write failed after the summary was made). */
int cprof_job_has_result(const cprof_job_t *job);

/* Frees in's buffers (and calls src.produce_free); in is zeroed. */
void cprof_job_in_free(cprof_job_in_t *in);

/* Frees out's results; the profiles go with their mapped frames. */
void cprof_job_out_free(cprof_job_out_t *out);

/* A job from calloc: its in, its out, then the job. NULL-safe. */
void cprof_job_free(cprof_job_t *job);

/* TRIM: 1 when the caller should queue a trim job (none is queued and not
 * yet started: a queued one covers the caller's frees too); then it must
 * queue one, or call cprof_job_trim_unclaim when it cannot. 0 without
 * glibc (nothing to trim). Any thread. */
int cprof_job_trim_claim(void);
void cprof_job_trim_unclaim(void);

/* The process-wide cache of decoded source maps (64 MiB, least recently
 * used first) for in.sm_cache; NULL when it cannot be made. Any thread. */
cprof_smcache_t *cprof_job_smcache(void);

#endif

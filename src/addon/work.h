/* The addon's one way to do background work, after libuv's
 * uv__work_submit(loop, w, kind, work, done): a core job (src/core/job.h)
 * runs on a libuv worker thread through cprof_job_run; back on the main
 * thread its promise is settled (the job's error mapped to an ERR_CPROF_*
 * error) and the caller's done runs. What the job means to JS is the
 * caller's: how its value is built, what done does. */
#ifndef CPROF_WORK_H
#define CPROF_WORK_H

#include <node_api.h>

#include "../core/cprof.h"

typedef struct {
  const char *name; /* the async resource's name, "cprof:<what>" */
  /* The value the job's promise resolves with, and what a failed job's
   * error carries as err.result when cprof_job_has_result. NULL with a
   * pending exception: the promise rejects with that. A NULL value
   * function: the job has no promise. */
  napi_value (*value)(napi_env env, const cprof_job_t *job);
  /* Main thread, once the promise is settled; ran is 0 when the job was
   * cancelled or the environment is going away (then no JS: env may be
   * NULL). Called once per queued job; the job is freed after it. NULL:
   * nothing to do. */
  void (*done)(napi_env env, int ran, cprof_job_t *job, void *ctx);
} cprof_work_ops_t;

/* Queues job (from calloc; the work's from here on). With ops->value,
 * *promise is the job's promise. 0; or -1 with nothing thrown, the job
 * freed and done never called: the caller says what failed. */
int cprof__work_submit(napi_env env, cprof_job_t *job, const cprof_work_ops_t *ops, void *ctx,
                       napi_value *promise);

#endif

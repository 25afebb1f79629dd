/* A deferred malloc_trim (see trim.h): a TRIM job through work.h. */
#include "trim.h"

#include <stdlib.h>

#include "../core/cprof.h"
#include "work.h"

static const cprof_work_ops_t OPS = {"cprof:trim", NULL, NULL};

void cprof__trim_soon(napi_env env) {
  cprof_job_t *job;
  if (!cprof_job_trim_claim()) return; /* queued already, or nothing to trim */
  if (!(job = calloc(1, sizeof *job))) {
    cprof_job_trim_unclaim();
    return;
  }
  job->in.kind = CPROF_JOB_TRIM;
  if (cprof__work_submit(env, job, &OPS, NULL, NULL) != 0) cprof_job_trim_unclaim();
}

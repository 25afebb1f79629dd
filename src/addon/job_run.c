/* A profile job queued (job_run.h): the core runs it (src/core/job.c), the
 * work unit settles its promise with the value job_result.c builds. */
#include "job_run.h"

#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "job_result.h"
#include "trim.h"
#include "v8cpu.h"
#include "work.h"

static void done(napi_env env, int ran, cprof_job_t *job, void *ctx) {
  (void)ctx;
  /* A v8 text that did not parse: the inspector from now on (v8cpu.h). */
  if (job->out.v8_failed) cprof__v8cpu_disable();
  /* Freed memory goes back to the OS after the promise is settled, not
   * before: the trim walks every arena (trim.h). */
  if (ran) cprof__trim_soon(env);
}

static const cprof_work_ops_t OPS = {"cprof:job", cprof__job_result, done};

napi_value cprof__job_queue(napi_env env, cprof_job_in_t *in) {
  cprof_job_t *job = calloc(1, sizeof *job);
  napi_value promise;
  if (!job) {
    cprof_job_in_free(in);
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory queueing the profile job");
    return NULL;
  }
  job->in = *in;
  memset(in, 0, sizeof *in);
  if (job->in.want.source_maps) job->in.sm_cache = cprof_job_smcache();
  if (cprof__work_submit(env, job, &OPS, NULL, &promise) != 0) {
    cprof__throw_last_error(env, "queueing the profile job");
    return NULL;
  }
  return promise;
}

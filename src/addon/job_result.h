/* Building a finished job's JS value on the main thread (job_result.c). */
#ifndef CPROF_JOB_RESULT_H
#define CPROF_JOB_RESULT_H

#include <node_api.h>

#include "../core/cprof.h"

/* { kind, samples, durationMs, summary, file?, outputs?, text?, nodes?, sourceMaps? }
 * (see cprof__job_queue); NULL with a pending exception on failure. */
napi_value cprof__job_result(napi_env env, const cprof_job_t *job);

#endif

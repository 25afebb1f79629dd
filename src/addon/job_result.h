/* Building a finished job's JS value on the main thread (job_result.c). */
#ifndef CPROF_JOB_RESULT_H
#define CPROF_JOB_RESULT_H

#include <node_api.h>

#include "job_state.h"

/* { kind, samples, durationMs, summary, file?, outputs?, text?, nodes? }
 * (see cprof__job_queue); NULL with a pending exception on failure. */
napi_value cprof__job_result(napi_env env, const job_t *job);

/* The ERR_CPROF_* error of a failed job; an ERR_CPROF_IO error carries
 * err.result with what was written before the failure. */
napi_value cprof__job_failure(napi_env env, const job_t *job);

#endif

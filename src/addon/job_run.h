/* A profile job (src/core/job.h: a stop, a file command, a recorder dump)
 * queued through work.h: its JS value built by job_result.c, and after it
 * settles, what the process learned (v8cpu.h) and the deferred trim. */
#ifndef CPROF_JOB_RUN_H
#define CPROF_JOB_RUN_H

#include <node_api.h>

#include "../core/cprof.h"

/* Queues the job and returns its promise. Takes ownership of in's buffers,
 * also on failure (then it throws and returns NULL). The promise resolves
 * with { kind, samples, durationMs, summary, file?: { path, size },
 * outputs?: { pprof|folded|svg|txt|html: { path, size } }, text?, nodes?,
 * sourceMaps?: { frames, mapped, unmapped, scripts, scriptsWithMap, errors } } and
 * rejects with an ERR_CPROF_* error; an ERR_CPROF_IO error carries
 * err.result, the same object with only the files written before. */
napi_value cprof__job_queue(napi_env env, cprof_job_in_t *in);

#endif

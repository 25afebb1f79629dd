/* Giving a job's freed memory back to the OS, after the job has settled.
 *
 * glibc keeps what a thread frees in that thread's arena, so each libuv
 * thread that ran a job would hold its profile's text and model (MBs) as
 * free-but-resident memory for the life of the app; malloc_trim(0) returns
 * it. But malloc_trim walks every arena, the main thread's included, and
 * madvises each free page run it finds: on Node 26, whose main arena holds
 * many freed runs just after Profiler.stop, that took 5-40 ms (100 ms under
 * strace) while the stop's promise waited for it. So the trim is its own
 * job (src/core/job.h, CPROF_JOB_TRIM), queued once the job has settled:
 * the file is on disk and the promise resolved before it starts. */
#ifndef CPROF_TRIM_H
#define CPROF_TRIM_H

#include <node_api.h>

/* Queues one malloc_trim on the threadpool unless one is already queued and
 * not yet started (the queued one then covers this job's frees too). A
 * no-op without glibc. Never throws: a trim that cannot be queued is
 * skipped (the memory stays reusable by the next job). */
void cprof__trim_soon(napi_env env);

#endif

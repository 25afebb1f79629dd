/* V8's CPU profiler through Node's v8.startCpuProfile (Node.js 26), the
 * CPU controller's first choice where it fits. Its stop returns the
 * profile as JSON text without the inspector's round trip (a message
 * dispatch, V8's protocol serialiser, a JSON reply): measured on Node 26.10
 * its stop pause is about half the inspector's (docs/benchmarks.md).
 *
 * Used only where it does what the user asked:
 *   - Node 26.x: 26.10 honours sampleInterval, in milliseconds; 24.x takes
 *     the option but samples every ~1 ms whatever it says (probed with
 *     bench/v8cpu-probe.js); a later major is used once probed the same way.
 *   - a whole-millisecond interval (the option has no finer unit);
 *   - CPROF_TRANSPORT unset (any value asks for the inspector);
 *   - no earlier v8 text of this process failed its repair (below).
 * Its text writes callFrame names and urls unescaped: the job repairs it
 * (src/core/repair.c) before anything is written. A text the repair refuses,
 * or that still does not parse, is written as V8 made it (nothing lost),
 * the stop fails with a message that says so, and every later CPU profile
 * of the process goes through the inspector. */
#ifndef CPROF_V8CPU_H
#define CPROF_V8CPU_H

#include <node_api.h>

/* 1 when a CPU profile at interval_us should use v8.startCpuProfile (see
 * above). Never throws. */
int cprof__v8cpu_usable(napi_env env, double interval_us);

/* Starts the profile; *handle refers to the SyncCPUProfileHandle (stop it
 * with cprof__v8heap_stop / _discard: the handles share stop()). 0, or -1
 * after throwing ERR_CPROF_INSPECTOR. */
int cprof__v8cpu_start(napi_env env, double interval_us, napi_ref *handle);

/* After a v8 text that could not be repaired: the inspector from now on.
 * Any thread. */
void cprof__v8cpu_disable(void);

#endif

/* The CPU controller: Profiler.enable / setSamplingInterval / start, and at
 * stop the one piece of main-thread work cprof adds: taking V8's reply text.
 * Everything after that runs in a job (job.c). */
#include <stdio.h>
#include <stdlib.h>

#include "addon.h"
#include "args.h"
#include "errors.h"
#include "job.h"
#include "macros.h"

/* cpuStart(intervalUs, timeoutMs, onTimeout) → transport name */
napi_value cprof__cpu_start(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  napi_value argv[3], result;
  double interval, timeout;
  char params[64];
  if (!addon || cprof__args(env, info, 3, argv) != 0 ||
      cprof__arg_double(env, argv[0], "interval", &interval) != 0 ||
      cprof__arg_double(env, argv[1], "timeout", &timeout) != 0)
    return NULL;
  if (addon->cpu.insp) {
    cprof__throw(env, "ERR_CPROF_BUSY",
                 "a CPU profile is already running: call stop() first, or wait for its timeout");
    return NULL;
  }
  if (!(addon->cpu.insp = cprof__insp_open(env))) return NULL;
  snprintf(params, sizeof params, "{\"interval\":%.0f}", interval);
  if (cprof__insp_call_ok(env, addon->cpu.insp, "Profiler.enable", NULL) != 0 ||
      cprof__insp_call_ok(env, addon->cpu.insp, "Profiler.setSamplingInterval", params) != 0 ||
      cprof__insp_call_ok(env, addon->cpu.insp, "Profiler.start", NULL) != 0 ||
      (timeout > 0 && !(addon->cpu.timer = cprof__timer_start(env, (uint64_t)timeout, argv[2])))) {
    cprof__ctl_reset(env, &addon->cpu);
    return NULL;
  }
  NAPI_CALL(env, napi_create_string_utf8(env, cprof__insp_transport(addon->cpu.insp),
                                         NAPI_AUTO_LENGTH, &result));
  return result;
}

/* cpuStop(dir, name, top) → Promise<job result> */
napi_value cprof__cpu_stop(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  cprof_job_in_t in = {0};
  napi_value argv[3];
  double top;
  if (!addon || cprof__args(env, info, 3, argv) != 0 ||
      cprof__arg_double(env, argv[2], "top", &top) != 0)
    return NULL;
  if (!addon->cpu.insp) {
    cprof__throw(env, "ERR_CPROF_NOT_STARTED", "no CPU profile is running: call start() first");
    return NULL;
  }
  if (cprof__arg_string(env, argv[0], "dir", &in.dir) != 0 ||
      cprof__arg_string(env, argv[1], "name", &in.name) != 0 ||
      cprof__insp_call(env, addon->cpu.insp, "Profiler.stop", NULL, &in.json, &in.len) != 0) {
    cprof__job_in_free(&in);
    cprof__ctl_reset(env, &addon->cpu);
    return NULL;
  }
  cprof__ctl_reset(env, &addon->cpu); /* disconnecting also disables the domain */
  in.top = top > 0 ? (unsigned)top : 0;
  return cprof__job_queue(env, &in);
}

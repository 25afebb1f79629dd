/* The CPU controller's commands (V8 Profiler domain). */
#include <stdio.h>

#include "addon.h"
#include "args.h"
#include "ctl.h"
#include "entry.h"
#include "errors.h"
#include "inspector.h"
#include "job_args.h"
#include "labels.h"
#include "v8cpu.h"

/* cpuStart(intervalUs, timeoutMs, onTimeout) → transport name: "v8"
 * (v8.startCpuProfile, see v8cpu.h), else the inspector's. */
napi_value cprof__cpu_start(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  napi_value argv[3];
  double interval, timeout;
  char params[64];
  if (!addon || cprof__args(env, info, 3, argv) != 0 ||
      cprof__arg_double(env, argv[0], "interval", &interval) != 0 ||
      cprof__arg_double(env, argv[1], "timeout", &timeout) != 0)
    return NULL;
  /* The flight recorder may be running: V8 runs several CPU profiles at once (each inspector
   * session, and v8.startCpuProfile, has its own profiler and sampler), so this profile holds
   * its own span beside the recorder's windows (docs/recorder.md). */
  if (cprof__v8cpu_usable(env, interval))
    return cprof__ctl_start_v8cpu(env, &addon->cpu, interval, timeout, argv[2]);
  snprintf(params, sizeof params, "{\"interval\":%.0f}", interval);
  /* Every script's line ends first where V8 needs it (inspector.h). */
  const cprof_cmd_t cmds[] = {{"Debugger.enable", NULL},
                              {"Debugger.disable", NULL},
                              {"Profiler.enable", NULL},
                              {"Profiler.setSamplingInterval", params},
                              {"Profiler.start", NULL}};
  size_t skip = cprof__insp_line_ends_needed(env) ? 0 : 2;
  return cprof__ctl_start(env, &addon->cpu, "CPU", cmds + skip, 5 - skip, timeout, argv[2]);
}

/* cpuStop(dir, name, top, exportOpts?) → Promise<job result> */
napi_value cprof__cpu_stop(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  cprof_job_in_t in = {.kind = CPROF_JOB_STOP_CPU};
  napi_value argv[4];
  if (!addon || cprof__args(env, info, 4, argv) != 0 || cprof__job_args(env, argv, &in) != 0 ||
      cprof__job_export_args(env, argv[3], &in) != 0 || cprof__labels_args(env, argv[3], &in) != 0)
    return NULL;
  in.src.v8_text = addon->cpu.v8_handle != NULL; /* v8.startCpuProfile's: repaired first */
  return cprof__ctl_stop(env, &addon->cpu, "CPU", "Profiler.stop", &in);
}

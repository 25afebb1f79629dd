/* The heap controller's commands (V8 HeapProfiler domain, sampling). */
#include <stdio.h>

#include "addon.h"
#include "args.h"

/* heapStart(intervalBytes, stackDepth, includeCollected, timeoutMs, onTimeout) */
napi_value cprof__heap_start(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  napi_value argv[5];
  double interval, depth, timeout;
  bool collected = false;
  char params[192];
  if (!addon || cprof__args(env, info, 5, argv) != 0 ||
      cprof__arg_double(env, argv[0], "interval", &interval) != 0 ||
      cprof__arg_double(env, argv[1], "stackDepth", &depth) != 0 ||
      cprof__arg_bool(env, argv[2], "includeCollected", &collected) != 0 ||
      cprof__arg_double(env, argv[3], "timeout", &timeout) != 0)
    return NULL;
  const char *inc = collected ? "true" : "false";
  snprintf(params, sizeof params,
           "{\"samplingInterval\":%.0f,\"stackDepth\":%.0f,"
           "\"includeObjectsCollectedByMajorGC\":%s,\"includeObjectsCollectedByMinorGC\":%s}",
           interval, depth, inc, inc);
  const cprof_cmd_t cmds[] = {{"HeapProfiler.enable", NULL},
                              {"HeapProfiler.startSampling", params}};
  return cprof__ctl_start(env, &addon->heap, "heap", cmds, 2, timeout, argv[4]);
}

/* heapStop(dir, name, top, stackDepth, exportOpts?) → Promise<job result> */
napi_value cprof__heap_stop(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  cprof_job_in_t in = {0};
  napi_value argv[5];
  double depth;
  if (!addon || cprof__args(env, info, 5, argv) != 0 ||
      cprof__arg_double(env, argv[3], "stackDepth", &depth) != 0 ||
      cprof__job_args(env, argv, &in) != 0 || cprof__job_export_args(env, argv[4], &in) != 0)
    return NULL;
  in.max_depth = depth > 0 ? (unsigned)depth : 0;
  return cprof__ctl_stop(env, &addon->heap, "heap", "HeapProfiler.stopSampling", &in);
}

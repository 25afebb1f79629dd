/* The heap controller's commands (V8 HeapProfiler domain, sampling). */
#include "addon.h"
#include "args.h"
#include "ctl.h"
#include "entry.h"
#include "errors.h"
#include "inspector.h"
#include "job_args.h"
#include "recorder.h"
#include "v8heap.h"

/* heapStart(intervalBytes, stackDepth, includeCollected, forceGC, timeoutMs, onTimeout)
 * → transport: "v8" (v8.startHeapProfile, Node >= 26), else the inspector's
 * ("connection" or "session"), whose stop always runs a full GC. */
napi_value cprof__heap_start(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  napi_value argv[6];
  double interval, depth, timeout;
  bool collected = false, force_gc = false;
  char params[192];
  if (!addon || cprof__args(env, info, 6, argv) != 0 ||
      cprof__arg_double(env, argv[0], "interval", &interval) != 0 ||
      cprof__arg_double(env, argv[1], "stackDepth", &depth) != 0 ||
      cprof__arg_bool(env, argv[2], "includeCollected", &collected) != 0 ||
      cprof__arg_bool(env, argv[3], "forceGC", &force_gc) != 0 ||
      cprof__arg_double(env, argv[4], "timeout", &timeout) != 0)
    return NULL;
  if (cprof__rec_heap_running(addon->recorder)) {
    cprof__throw(env, "ERR_CPROF_BUSY",
                 "the flight recorder samples the heap: use recorder.dump({ kind: 'heap' }), or "
                 "recorder.stop() before heap.start()");
    return NULL;
  }
  if (cprof__v8heap_usable(env))
    return cprof__ctl_start_v8heap(env, &addon->heap, interval, depth, collected, force_gc, timeout,
                                   argv[5]);
  cprof__insp_heap_params(params, sizeof params, interval, depth, collected);
  const cprof_cmd_t cmds[] = {{"HeapProfiler.enable", NULL},
                              {"HeapProfiler.startSampling", params}};
  return cprof__ctl_start(env, &addon->heap, "heap", cmds, 2, timeout, argv[5]);
}

/* heapStop(dir, name, top, stackDepth, exportOpts?) → Promise<job result> */
napi_value cprof__heap_stop(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  cprof_job_in_t in = {.kind = CPROF_JOB_STOP_HEAP};
  napi_value argv[5];
  double depth;
  if (!addon || cprof__args(env, info, 5, argv) != 0 ||
      cprof__arg_double(env, argv[3], "stackDepth", &depth) != 0 ||
      cprof__job_args(env, argv, &in) != 0 || cprof__job_export_args(env, argv[4], &in) != 0)
    return NULL;
  in.want.max_depth = depth > 0 ? (unsigned)depth : 0;
  return cprof__ctl_stop(env, &addon->heap, "heap", "HeapProfiler.stopSampling", &in);
}

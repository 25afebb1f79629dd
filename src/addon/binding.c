/* The one registration file: the module's exports, each a function of
 * entry.h, once the environment's state is installed (addon.c). */
#include "addon.h"
#include "entry.h"
#include "labels.h"
#include "macros.h"

static int export_fn(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value fn;
  NAPI_CALL_INT(env, napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &fn));
  NAPI_CALL_INT(env, napi_set_named_property(env, exports, name, fn));
  return 0;
}

NAPI_MODULE_INIT() {
  if (cprof__addon_install(env) != 0) return NULL;
  if (export_fn(env, exports, "cpuStart", cprof__cpu_start) ||
      export_fn(env, exports, "cpuStop", cprof__cpu_stop) ||
      export_fn(env, exports, "heapStart", cprof__heap_start) ||
      export_fn(env, exports, "heapStop", cprof__heap_stop) ||
      export_fn(env, exports, "analyze", cprof__analyze) ||
      export_fn(env, exports, "convert", cprof__convert) ||
      export_fn(env, exports, "diff", cprof__diff) ||
      export_fn(env, exports, "merge", cprof__merge) ||
      export_fn(env, exports, "signalWatch", cprof__signal_watch) ||
      export_fn(env, exports, "signalUnwatch", cprof__signal_unwatch) ||
      export_fn(env, exports, "recStart", cprof__recorder_start) ||
      export_fn(env, exports, "recRotate", cprof__recorder_rotate) ||
      export_fn(env, exports, "recStop", cprof__recorder_stop) ||
      export_fn(env, exports, "recStatus", cprof__recorder_status) ||
      export_fn(env, exports, "recDump", cprof__recorder_dump) ||
      export_fn(env, exports, "snapshotReport", cprof__snapshot_report) ||
      export_fn(env, exports, "snapshotDiff", cprof__snapshot_diff) ||
      export_fn(env, exports, "snapshotView", cprof__snapshot_view) ||
      export_fn(env, exports, "labelsRing", cprof__labels_ring))
    return NULL;
  return exports;
}

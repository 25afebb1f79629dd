/* The one registration file: per-environment state, teardown, exports. */
#include <stdlib.h>

#include "addon.h"
#include "args.h"
#include "errors.h"
#include "job.h"
#include "macros.h"
#include "recorder.h"
#include "signal.h"

cprof_addon_t *cprof__addon(napi_env env) {
  cprof_addon_t *addon = NULL;
  if (napi_get_instance_data(env, (void **)&addon) != napi_ok || !addon) {
    cprof__throw(env, "ERR_CPROF_INTERNAL", "cprof's per-environment state is missing");
    return NULL;
  }
  return addon;
}

/* analyze(path, top, wantNodes) → Promise<job result>: the native core on
 * any profile file, read and parsed off the main thread. */
napi_value cprof__analyze(napi_env env, napi_callback_info info) {
  cprof_job_in_t in = {0};
  napi_value argv[3];
  double top;
  bool nodes = false;
  if (cprof__args(env, info, 3, argv) != 0 ||
      cprof__arg_string(env, argv[0], "path", &in.path) != 0 ||
      cprof__arg_double(env, argv[1], "top", &top) != 0 ||
      napi_get_value_bool(env, argv[2], &nodes) != napi_ok) {
    cprof__job_in_free(&in);
    if (!in.path) cprof__throw(env, "ERR_CPROF_INVALID_ARG", "path must be a string");
    return NULL;
  }
  in.top = top > 0 ? (unsigned)top : 0;
  in.want_nodes = nodes;
  return cprof__job_queue(env, &in);
}

/* The CLI's entry points: the same job on profile files, nothing in JS.
 * file_job(paths, dir, top, exportOpts) fills a job from argv. */
static napi_value file_job(napi_env env, napi_callback_info info, int two_paths) {
  cprof_job_in_t in = {0};
  napi_value argv[5];
  double top = 0;
  size_t i = 0;
  if (cprof__args(env, info, 5, argv) != 0) return NULL;
  if (cprof__arg_string(env, argv[i++], "path", &in.path) != 0 || !in.path ||
      (two_paths && (cprof__arg_string(env, argv[i++], "path", &in.path_b) != 0 || !in.path_b)) ||
      cprof__arg_string(env, argv[i++], "dir", &in.dir) != 0 ||
      cprof__arg_double(env, argv[i++], "top", &top) != 0) {
    cprof__job_in_free(&in);
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", "path must be a string");
    return NULL;
  }
  in.top = top > 0 ? (unsigned)top : 0;
  if (cprof__job_export_args(env, argv[i], &in) != 0) return NULL;
  return cprof__job_queue(env, &in);
}

/* convert(path, dir | null, top, { outs, text, focus, cut, needSamples, ... })
 * → Promise<result with outputs, and text when asked>: cprof convert, flame
 * and (with text: true and no dir) cprof report. */
static napi_value convert(napi_env env, napi_callback_info info) {
  return file_job(env, info, 0);
}

/* diff(before, after, dir | null, top, { text, outs: { svg }, ... }) */
static napi_value diff(napi_env env, napi_callback_info info) {
  return file_job(env, info, 1);
}

/* Environment teardown: no JS may run now; stop triggers, drop sessions. */
static void cleanup_hook(void *arg) {
  cprof_addon_t *addon = arg;
  addon->exiting = 1;
  cprof__ctl_abandon(addon->env, &addon->cpu);
  cprof__ctl_abandon(addon->env, &addon->heap);
  cprof__rec_abandon(addon->env);
  for (int i = 0; i < CPROF_SIGNAL_SLOTS; i++) {
    cprof__signal_stop(addon->signals[i]);
    addon->signals[i] = NULL;
  }
}

static void finalize_addon(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

static int export_fn(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value fn;
  NAPI_CALL_INT(env, napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &fn));
  NAPI_CALL_INT(env, napi_set_named_property(env, exports, name, fn));
  return 0;
}

NAPI_MODULE_INIT() {
  cprof_addon_t *addon = calloc(1, sizeof *addon);
  if (!addon) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory loading cprof");
    return NULL;
  }
  addon->env = env;
  if (napi_set_instance_data(env, addon, finalize_addon, NULL) != napi_ok) {
    free(addon);
    cprof__throw_last_error(env, "napi_set_instance_data");
    return NULL;
  }
  NAPI_CALL(env, napi_add_env_cleanup_hook(env, cleanup_hook, addon));
  if (export_fn(env, exports, "cpuStart", cprof__cpu_start) ||
      export_fn(env, exports, "cpuStop", cprof__cpu_stop) ||
      export_fn(env, exports, "heapStart", cprof__heap_start) ||
      export_fn(env, exports, "heapStop", cprof__heap_stop) ||
      export_fn(env, exports, "analyze", cprof__analyze) ||
      export_fn(env, exports, "convert", convert) || export_fn(env, exports, "diff", diff) ||
      export_fn(env, exports, "merge", cprof__merge) ||
      export_fn(env, exports, "signalWatch", cprof__signal_watch) ||
      export_fn(env, exports, "signalUnwatch", cprof__signal_unwatch) ||
      export_fn(env, exports, "recStart", cprof__rec_start) ||
      export_fn(env, exports, "recRotate", cprof__rec_rotate) ||
      export_fn(env, exports, "recStop", cprof__rec_stop) ||
      export_fn(env, exports, "recStatus", cprof__rec_status) ||
      export_fn(env, exports, "recDump", cprof__rec_dump))
    return NULL;
  return exports;
}

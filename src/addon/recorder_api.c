/* The flight recorder's JS entry points (recorder.h does the work): the
 * environment's recorder, its arguments, and what excludes it. */
#include "addon.h"
#include "args.h"
#include "entry.h"
#include "errors.h"
#include "macros.h"
#include "recorder.h"

static int busy(napi_env env, const cprof_addon_t *addon, double heap_interval) {
  const char *why = NULL;
  if (cprof__rec_running(addon->recorder))
    why = "the recorder is already running: call recorder.stop() first to start it with other "
          "options";
  else if (heap_interval > 0 && cprof__ctl_running(&addon->heap))
    why = "a heap profile started with heap.start() is running: stop it first, or start the "
          "recorder without heap";
  if (why) cprof__throw(env, "ERR_CPROF_BUSY", why);
  return why != NULL;
}

/* recStart(intervalUs, keepMs, maxBytes, store, onWindow, heapIntervalBytes,
 * push) → transport. heapIntervalBytes 0 or undefined: no heap windows.
 * push: undefined or { maxSamples, maxBytes } (recorder.h). */
napi_value cprof__recorder_start(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  cprof_rec_opts_t o = {0};
  napi_value argv[7], transport;
  napi_valuetype t;
  cprof_rec_t *rec;
  if (!addon || cprof__args(env, info, 7, argv) != 0 ||
      cprof__arg_double(env, argv[0], "interval", &o.interval_us) != 0 ||
      cprof__arg_double(env, argv[1], "keep", &o.keep_ms) != 0 ||
      cprof__arg_double(env, argv[2], "maxBytes", &o.max_bytes) != 0)
    return NULL;
  NAPI_CALL(env, napi_typeof(env, argv[5], &t));
  if (t != napi_undefined && cprof__arg_double(env, argv[5], "heapInterval", &o.heap_interval) != 0)
    return NULL;
  if (busy(env, addon, o.heap_interval) ||
      !(rec = cprof__rec_start(env, &o, argv[3], argv[6], argv[4])))
    return NULL;
  cprof__rec_release(env, addon->recorder); /* the previous recording's rings */
  addon->recorder = rec;
  NAPI_CALL(env,
            napi_create_string_utf8(env, cprof__rec_transport(rec), NAPI_AUTO_LENGTH, &transport));
  return transport;
}

/* recRotate() → the number of the window it ended (0 if that one was lost). */
napi_value cprof__recorder_rotate(napi_env env, napi_callback_info info) {
  (void)info;
  cprof_addon_t *addon = cprof__addon(env);
  return addon ? cprof__rec_rotate(env, addon->recorder) : NULL;
}

/* recStop() → the number of the last window (0 if lost). The rings stay
 * for a last dump until the next start. */
napi_value cprof__recorder_stop(napi_env env, napi_callback_info info) {
  (void)info;
  cprof_addon_t *addon = cprof__addon(env);
  return addon ? cprof__rec_stop(env, addon->recorder) : NULL;
}

/* recStatus() → the status object, or null when never started. */
napi_value cprof__recorder_status(napi_env env, napi_callback_info info) {
  (void)info;
  cprof_addon_t *addon = cprof__addon(env);
  return addon ? cprof__rec_status(env, addon->recorder) : NULL;
}

/* recDump(lastMs, dir, name, top, exportOpts, heap) → { promise, from, to,
 * windows }; heap true: the heap windows. */
napi_value cprof__recorder_dump(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  napi_value argv[6];
  napi_valuetype t;
  double last;
  bool heap = false;
  if (!addon || cprof__args(env, info, 6, argv) != 0 ||
      cprof__arg_double(env, argv[0], "last", &last) != 0)
    return NULL;
  NAPI_CALL(env, napi_typeof(env, argv[5], &t));
  if (t != napi_undefined && cprof__arg_bool(env, argv[5], "heap", &heap) != 0) return NULL;
  return cprof__rec_dump(env, addon->recorder, argv + 1, last, heap);
}

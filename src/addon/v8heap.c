#include "v8heap.h"

#include <stdio.h>
#include <stdlib.h>

#include "errors.h"
#include "jsutil.h"
#include "macros.h"

static napi_value start_fn(napi_env env, napi_value *v8) {
  napi_value fn;
  napi_valuetype type;
  if (!(*v8 = cprof__js_builtin(env, "node:v8")) ||
      napi_get_named_property(env, *v8, "startHeapProfile", &fn) != napi_ok ||
      napi_typeof(env, fn, &type) != napi_ok || type != napi_function)
    return NULL;
  return fn;
}

int cprof__v8heap_usable(napi_env env) {
  napi_value v8;
  if (getenv("CPROF_TRANSPORT") != NULL) return 0;
  return start_fn(env, &v8) != NULL;
}

static int set_bool(napi_env env, napi_value obj, const char *key, bool v) {
  napi_value b;
  NAPI_CALL_INT(env, napi_get_boolean(env, v, &b));
  NAPI_CALL_INT(env, napi_set_named_property(env, obj, key, b));
  return 0;
}

static void fail(napi_env env, const char *what) {
  char cause[256], msg[400];
  cprof__js_take_exception(env, cause, sizeof cause);
  snprintf(msg, sizeof msg,
           "%s failed (%s). Is another heap profiler running in this process? Stop it first", what,
           cause);
  cprof__throw(env, "ERR_CPROF_INSPECTOR", msg);
}

int cprof__v8heap_start(napi_env env, double interval, double depth, bool collected, bool force_gc,
                        napi_ref *handle) {
  napi_value v8, fn = start_fn(env, &v8), opts, h;
  if (!fn) {
    cprof__throw(env, "ERR_CPROF_INTERNAL", "v8.startHeapProfile is missing");
    return -1;
  }
  NAPI_CALL_INT(env, napi_create_object(env, &opts));
  if (cprof__js_set_num(env, opts, "sampleInterval", interval) != 0 ||
      cprof__js_set_num(env, opts, "stackDepth", depth) != 0 ||
      set_bool(env, opts, "forceGC", force_gc) != 0 ||
      set_bool(env, opts, "includeObjectsCollectedByMajorGC", collected) != 0 ||
      set_bool(env, opts, "includeObjectsCollectedByMinorGC", collected) != 0)
    return -1;
  if (napi_call_function(env, v8, fn, 1, &opts, &h) != napi_ok) {
    fail(env, "v8.startHeapProfile()");
    return -1;
  }
  NAPI_CALL_INT(env, napi_create_reference(env, h, 1, handle));
  return 0;
}

/* handle.stop(): the profile as a JS string (heap, and CPU: v8cpu.h). */
static napi_value call_stop(napi_env env, napi_ref handle) {
  napi_value h, fn, out;
  NAPI_CALL(env, napi_get_reference_value(env, handle, &h));
  NAPI_CALL(env, napi_get_named_property(env, h, "stop", &fn));
  if (napi_call_function(env, h, fn, 0, NULL, &out) != napi_ok) {
    fail(env, "stopping the profile of v8.startHeapProfile() or v8.startCpuProfile()");
    return NULL;
  }
  return out;
}

int cprof__v8heap_stop(napi_env env, napi_ref handle, char **json, size_t *len) {
  napi_value s = call_stop(env, handle);
  napi_valuetype type;
  napi_delete_reference(env, handle);
  if (!s) return -1;
  NAPI_CALL_INT(env, napi_typeof(env, s, &type));
  if (type != napi_string) {
    cprof__throw(env, "ERR_CPROF_INSPECTOR", "the v8 profile handle's stop() gave no profile");
    return -1;
  }
  return cprof__js_string_copy(env, s, json, len);
}

/* A pending exception (the reason for discarding) is kept across the call. */
void cprof__v8heap_discard(napi_env env, napi_ref handle) {
  napi_value saved = NULL, exc;
  bool pending = false;
  if (!handle) return;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending)
    napi_get_and_clear_last_exception(env, &saved);
  if (!call_stop(env, handle)) napi_get_and_clear_last_exception(env, &exc);
  napi_delete_reference(env, handle);
  if (saved) napi_throw(env, saved);
}

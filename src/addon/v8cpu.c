#include "v8cpu.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "errors.h"
#include "jsutil.h"
#include "macros.h"

static atomic_bool disabled;

void cprof__v8cpu_disable(void) {
  atomic_store(&disabled, true);
}

static napi_value start_fn(napi_env env, napi_value *v8) {
  napi_value fn;
  napi_valuetype type;
  if (!(*v8 = cprof__js_builtin(env, "node:v8")) ||
      napi_get_named_property(env, *v8, "startCpuProfile", &fn) != napi_ok ||
      napi_typeof(env, fn, &type) != napi_ok || type != napi_function)
    return NULL;
  return fn;
}

int cprof__v8cpu_usable(napi_env env, double interval_us) {
  const napi_node_version *ver;
  napi_value v8;
  if (getenv("CPROF_TRANSPORT") != NULL || atomic_load(&disabled)) return 0;
  if (!(interval_us >= 1000) || fmod(interval_us, 1000) != 0) return 0;
  if (napi_get_node_version(env, &ver) != napi_ok || ver->major != 26) return 0;
  return start_fn(env, &v8) != NULL;
}

int cprof__v8cpu_start(napi_env env, double interval_us, napi_ref *handle) {
  napi_value v8, fn = start_fn(env, &v8), opts, ms, h;
  char cause[256], msg[400];
  if (!fn) {
    cprof__throw(env, "ERR_CPROF_INTERNAL", "v8.startCpuProfile is missing");
    return -1;
  }
  NAPI_CALL_INT(env, napi_create_object(env, &opts));
  NAPI_CALL_INT(env, napi_create_double(env, interval_us / 1000, &ms));
  NAPI_CALL_INT(env, napi_set_named_property(env, opts, "sampleInterval", ms));
  if (napi_call_function(env, v8, fn, 1, &opts, &h) != napi_ok) {
    cprof__js_take_exception(env, cause, sizeof cause);
    snprintf(msg, sizeof msg,
             "v8.startCpuProfile() failed (%s). Set CPROF_TRANSPORT=session to profile through "
             "the inspector instead",
             cause);
    cprof__throw(env, "ERR_CPROF_INSPECTOR", msg);
    return -1;
  }
  NAPI_CALL_INT(env, napi_create_reference(env, h, 1, handle));
  return 0;
}

#include "jsutil.h"

#include <stdio.h>
#include <stdlib.h>

#include "errors.h"
#include "macros.h"

napi_value cprof__js_global(napi_env env, const char *name) {
  napi_value global, v;
  NAPI_CALL(env, napi_get_global(env, &global));
  NAPI_CALL(env, napi_get_named_property(env, global, name, &v));
  return v;
}

int cprof__js_string_copy(napi_env env, napi_value v, char **out, size_t *len) {
  size_t n = 0;
  NAPI_CALL_INT(env, napi_get_value_string_utf8(env, v, NULL, 0, &n));
  char *buf = malloc(n + 1);
  if (!buf) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory copying a profile from V8");
    return -1;
  }
  if (napi_get_value_string_utf8(env, v, buf, n + 1, &n) != napi_ok) {
    free(buf);
    cprof__throw_last_error(env, "napi_get_value_string_utf8");
    return -1;
  }
  *out = buf;
  *len = n;
  return 0;
}

void cprof__js_take_exception(napi_env env, char *buf, size_t len) {
  napi_value exc, msg;
  size_t n = 0;
  snprintf(buf, len, "unknown error");
  if (napi_get_and_clear_last_exception(env, &exc) != napi_ok ||
      napi_coerce_to_string(env, exc, &msg) != napi_ok ||
      napi_get_value_string_utf8(env, msg, buf, len, &n) != napi_ok)
    return;
}

napi_value cprof__js_builtin(napi_env env, const char *id) {
  napi_value process = cprof__js_global(env, "process"), get, name, mod, exc;
  napi_valuetype type;
  if (!process) return NULL;
  if (napi_get_named_property(env, process, "getBuiltinModule", &get) != napi_ok ||
      napi_typeof(env, get, &type) != napi_ok || type != napi_function ||
      napi_create_string_utf8(env, id, NAPI_AUTO_LENGTH, &name) != napi_ok)
    return NULL;
  if (napi_call_function(env, process, get, 1, &name, &mod) != napi_ok) {
    napi_get_and_clear_last_exception(env, &exc);
    return NULL;
  }
  if (napi_typeof(env, mod, &type) != napi_ok || type != napi_object) return NULL;
  return mod;
}

int cprof__js_set_num(napi_env env, napi_value obj, const char *key, double v) {
  napi_value n;
  NAPI_CALL_INT(env, napi_create_double(env, v, &n));
  NAPI_CALL_INT(env, napi_set_named_property(env, obj, key, n));
  return 0;
}

int cprof__js_set_str(napi_env env, napi_value obj, const char *key, const char *v) {
  napi_value s;
  NAPI_CALL_INT(env, napi_create_string_utf8(env, v, NAPI_AUTO_LENGTH, &s));
  NAPI_CALL_INT(env, napi_set_named_property(env, obj, key, s));
  return 0;
}

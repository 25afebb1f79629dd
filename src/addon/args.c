#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "macros.h"

static int invalid(napi_env env, const char *what, const char *expected) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s must be %s", what, expected);
  cprof__throw(env, "ERR_CPROF_INVALID_ARG", msg);
  return -1;
}

int cprof__args(napi_env env, napi_callback_info info, size_t n, napi_value *argv) {
  size_t argc = n;
  NAPI_CALL_INT(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  for (size_t i = argc; i < n; i++)
    NAPI_CALL_INT(env, napi_get_undefined(env, &argv[i]));
  return 0;
}

/* 0 when v is of type want; else throws "<what> must be <expected>". */
static int expect(napi_env env, napi_value v, napi_valuetype want, const char *what,
                  const char *expected) {
  napi_valuetype t;
  NAPI_CALL_INT(env, napi_typeof(env, v, &t));
  return t == want ? 0 : invalid(env, what, expected);
}

int cprof__arg_double(napi_env env, napi_value v, const char *what, double *out) {
  if (expect(env, v, napi_number, what, "a number") != 0) return -1;
  NAPI_CALL_INT(env, napi_get_value_double(env, v, out));
  return 0;
}

int cprof__arg_bool(napi_env env, napi_value v, const char *what, bool *out) {
  if (expect(env, v, napi_boolean, what, "a boolean") != 0) return -1;
  NAPI_CALL_INT(env, napi_get_value_bool(env, v, out));
  return 0;
}

int cprof__arg_string(napi_env env, napi_value v, const char *what, char **out) {
  napi_valuetype t;
  size_t n;
  *out = NULL;
  NAPI_CALL_INT(env, napi_typeof(env, v, &t));
  if (t == napi_undefined || t == napi_null) return 0;
  if (t != napi_string) return invalid(env, what, "a string");
  NAPI_CALL_INT(env, napi_get_value_string_utf8(env, v, NULL, 0, &n));
  if (!(*out = malloc(n + 1))) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory reading an argument");
    return -1;
  }
  if (napi_get_value_string_utf8(env, v, *out, n + 1, &n) != napi_ok) {
    free(*out);
    *out = NULL;
    cprof__throw_last_error(env, "napi_get_value_string_utf8");
    return -1;
  }
  /* C reads up to the first NUL: "a\0b" would be "a". Paths, names and
   * texts alike are refused (lib/validate.js validatePath says it first). */
  if (strlen(*out) != n) {
    free(*out);
    *out = NULL;
    return invalid(env, what, "a string without NUL characters (\\0): C would end it there");
  }
  return 0;
}

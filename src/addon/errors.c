#include "errors.h"

#include <stdio.h>

#include "../core/cprof.h"

const char *cprof__js_code(int core_err) {
  switch (core_err) {
  case CPROF_EIO:
    return "ERR_CPROF_IO";
  case CPROF_EPROTO:
    return "ERR_CPROF_INSPECTOR";
  case CPROF_EPARSE:
  case CPROF_ESCHEMA:
    return "ERR_CPROF_BAD_PROFILE";
  case CPROF_EINVAL:
    return "ERR_CPROF_INVALID_ARG";
  case CPROF_EEXIST:
    return "ERR_CPROF_EXISTS";
  case CPROF_ENOMEM:
    return "ERR_CPROF_NOMEM";
  default:
    return "ERR_CPROF_INTERNAL";
  }
}

napi_value cprof__make_error(napi_env env, const char *code, const char *message) {
  napi_value js_code, js_msg, err;
  if (napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &js_code) != napi_ok ||
      napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &js_msg) != napi_ok ||
      napi_create_error(env, js_code, js_msg, &err) != napi_ok)
    return NULL;
  return err;
}

void cprof__throw(napi_env env, const char *code, const char *message) {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) != napi_ok || pending) return;
  napi_throw_error(env, code, message);
}

void cprof__throw_last_error(napi_env env, const char *call) {
  const napi_extended_error_info *info = NULL;
  char msg[256];
  napi_get_last_error_info(env, &info);
  snprintf(msg, sizeof msg, "cprof internal error: %s failed (%s)", call,
           info && info->error_message ? info->error_message : "unknown");
  cprof__throw(env, "ERR_CPROF_INTERNAL", msg);
}

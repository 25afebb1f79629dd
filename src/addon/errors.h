/* JS errors with a stable err.code (ERR_CPROF_*), made in one place. */
#ifndef CPROF_ERRORS_H
#define CPROF_ERRORS_H

#include <node_api.h>

/* The ERR_CPROF_* code for a negative core code (CPROF_E*). */
const char *cprof__js_code(int core_err);

/* Creates an Error with message and err.code = code. NULL on failure. */
napi_value cprof__make_error(napi_env env, const char *code, const char *message);

/* Throws such an error unless an exception is already pending. */
void cprof__throw(napi_env env, const char *code, const char *message);

/* Throws ERR_CPROF_INTERNAL naming a failed Node-API call (with Node's
 * message for it) unless an exception is already pending. */
void cprof__throw_last_error(napi_env env, const char *call);

#endif

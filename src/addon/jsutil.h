/* Small JS helpers shared by the addon's units (inspector.c, v8heap.c,
 * recorder.c, job_result.c). */
#ifndef CPROF_JSUTIL_H
#define CPROF_JSUTIL_H

#include <node_api.h>
#include <stddef.h>

/* globalThis[name]; throws and returns NULL on failure. */
napi_value cprof__js_global(napi_env env, const char *name);

/* A JS string as a malloc'd, NUL-terminated UTF-8 copy. 0, or -1 after
 * throwing (ERR_CPROF_NOMEM when out of memory). */
int cprof__js_string_copy(napi_env env, napi_value v, char **out, size_t *len);

/* Clears the pending JS exception and copies its message into buf. */
void cprof__js_take_exception(napi_env env, char *buf, size_t len);

/* process.getBuiltinModule(id), or NULL with no exception pending when
 * this Node.js lacks it. */
napi_value cprof__js_builtin(napi_env env, const char *id);

/* obj[key] = v (a number, a string); 0, or -1 after throwing. */
int cprof__js_set_num(napi_env env, napi_value obj, const char *key, double v);
int cprof__js_set_str(napi_env env, napi_value obj, const char *key, const char *v);

#endif

/* Argument readers for the binding's functions. lib/ validates the public
 * options; these only guard the boundary and throw ERR_CPROF_INVALID_ARG. */
#ifndef CPROF_ARGS_H
#define CPROF_ARGS_H

#include <node_api.h>
#include <stddef.h>

/* Reads up to n arguments (missing ones are undefined). 0 or -1. */
int cprof__args(napi_env env, napi_callback_info info, size_t n, napi_value *argv);

/* A number; -1 (and a throw) if v is not one. */
int cprof__arg_double(napi_env env, napi_value v, const char *what, double *out);

/* A boolean; -1 (and a throw) if v is not one. */
int cprof__arg_bool(napi_env env, napi_value v, const char *what, bool *out);

/* A malloc'd copy of a string; NULL in *out for undefined/null. */
int cprof__arg_string(napi_env env, napi_value v, const char *what, char **out);

#endif

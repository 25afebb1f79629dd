/* One macro family for Node-API status checks (after Node's own
 * test/js-native-api/common.h): every napi_status is checked, and a failure
 * becomes a pending JS exception unless one is already pending. */
#ifndef CPROF_MACROS_H
#define CPROF_MACROS_H

#include <node_api.h>

#include "errors.h" /* cprof__throw_last_error */

/* Evaluate a napi call; on failure throw and return `ret`. */
#define NAPI_CALL_RET(env, call, ret)                                                              \
  do {                                                                                             \
    if ((call) != napi_ok) {                                                                       \
      cprof__throw_last_error((env), #call);                                                       \
      return ret;                                                                                  \
    }                                                                                              \
  } while (0)

#define NAPI_CALL(env, call) NAPI_CALL_RET(env, call, NULL)

/* Same, for functions that return a core error code (int). */
#define NAPI_CALL_INT(env, call) NAPI_CALL_RET(env, call, -1)

/* Same, for void functions. */
#define NAPI_CALL_VOID(env, call) NAPI_CALL_RET(env, call, )

#endif

/* signalWatch/signalUnwatch: the environment's signal trigger slots (one
 * for CPU, one for heap), each holding a trigger from signal.c. */
#include "addon.h"
#include "args.h"
#include "entry.h"
#include "errors.h"
#include "macros.h"
#include "signal.h"

/* signalWatch(slot, signum, fn): replaces the slot's trigger. */
napi_value cprof__signal_watch(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  napi_valuetype t;
  double slot, signum;
  cprof_addon_t *addon = cprof__addon(env);
  if (!addon || cprof__args(env, info, 3, argv) != 0 ||
      cprof__arg_double(env, argv[0], "slot", &slot) != 0 ||
      cprof__arg_double(env, argv[1], "signal", &signum) != 0)
    return NULL;
  NAPI_CALL(env, napi_typeof(env, argv[2], &t));
  if (t != napi_function || !(slot >= 0 && slot < CPROF_SIGNAL_SLOTS) ||
      signum != (double)(int)signum) {
    cprof__throw(env, "ERR_CPROF_INVALID_ARG",
                 "signalWatch(slot, signal, fn) takes a slot, a signal number and a function");
    return NULL;
  }
  cprof_signal_t *s = cprof__signal_start(env, (int)signum, argv[2]);
  if (!s) return NULL;
  cprof__signal_stop(addon->signals[(int)slot]);
  addon->signals[(int)slot] = s;
  return NULL;
}

/* signalUnwatch(slot): removes the slot's trigger, if any. */
napi_value cprof__signal_unwatch(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  double slot;
  cprof_addon_t *addon = cprof__addon(env);
  if (!addon || cprof__args(env, info, 1, argv) != 0 ||
      cprof__arg_double(env, argv[0], "slot", &slot) != 0)
    return NULL;
  if (!(slot >= 0 && slot < CPROF_SIGNAL_SLOTS)) {
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", "signalUnwatch(slot): no such slot");
    return NULL;
  }
  cprof__signal_stop(addon->signals[(int)slot]);
  addon->signals[(int)slot] = NULL;
  return NULL;
}

/* Per-environment state (instance data, see addon.h): made when the addon
 * loads into an environment, found by every entry point, torn down by a
 * cleanup hook. */
#include <stdlib.h>

#include "addon.h"
#include "errors.h"
#include "label_ring.h"
#include "macros.h"
#include "recorder.h"

cprof_addon_t *cprof__addon(napi_env env) {
  cprof_addon_t *addon = NULL;
  if (napi_get_instance_data(env, (void **)&addon) != napi_ok || !addon) {
    cprof__throw(env, "ERR_CPROF_INTERNAL", "cprof's per-environment state is missing");
    return NULL;
  }
  return addon;
}

/* Environment teardown: no JS may run now; stop triggers, drop sessions. */
static void cleanup_hook(void *arg) {
  cprof_addon_t *addon = arg;
  addon->exiting = 1;
  cprof__ctl_abandon(addon->env, &addon->cpu);
  cprof__ctl_abandon(addon->env, &addon->heap);
  cprof__rec_abandon(addon->env, addon->recorder);
  addon->recorder = NULL;
  cprof__label_ring_free(addon->env, addon->label_ring);
  addon->label_ring = NULL;
  for (int i = 0; i < CPROF_SIGNAL_SLOTS; i++) {
    cprof__signal_stop(addon->signals[i]);
    addon->signals[i] = NULL;
  }
}

static void finalize_addon(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

int cprof__addon_install(napi_env env) {
  cprof_addon_t *addon = calloc(1, sizeof *addon);
  if (!addon) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory loading cprof");
    return -1;
  }
  addon->env = env;
  if (napi_set_instance_data(env, addon, finalize_addon, NULL) != napi_ok) {
    free(addon);
    cprof__throw_last_error(env, "napi_set_instance_data");
    return -1;
  }
  NAPI_CALL_INT(env, napi_add_env_cleanup_hook(env, cleanup_hook, addon));
  return 0;
}

#include "timer.h"

#include <stdlib.h>
#include <uv.h>

#include "errors.h"
#include "macros.h"

struct cprof_timer_s {
  uv_timer_t handle; /* first: the close callback casts back */
  napi_env env;
  napi_ref fn;
  napi_async_context ctx;
};

static void release(cprof_timer_t *t) {
  if (t->fn) napi_delete_reference(t->env, t->fn);
  if (t->ctx) napi_async_destroy(t->env, t->ctx);
  t->fn = NULL;
  t->ctx = NULL;
}

static void close_cb(uv_handle_t *h) {
  free(h);
}

static void fire_cb(uv_timer_t *h) {
  cprof_timer_t *t = (cprof_timer_t *)h;
  napi_handle_scope scope;
  napi_value fn, recv, ignored;
  if (!t->fn || napi_open_handle_scope(t->env, &scope) != napi_ok) return;
  if (napi_get_reference_value(t->env, t->fn, &fn) == napi_ok &&
      napi_get_global(t->env, &recv) == napi_ok && /* make_callback wants an object */
      napi_make_callback(t->env, t->ctx, recv, fn, 0, NULL, &ignored) != napi_ok) {
    /* The JS side reports its own failures; never leave one pending. */
    napi_get_and_clear_last_exception(t->env, &ignored);
  }
  napi_close_handle_scope(t->env, scope);
}

cprof_timer_t *cprof__timer_start(napi_env env, uint64_t ms, napi_value fn) {
  uv_loop_t *loop;
  napi_value name;
  cprof_timer_t *t = calloc(1, sizeof *t);
  if (!t) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory arming the profile timer");
    return NULL;
  }
  t->env = env;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok ||
      napi_create_string_utf8(env, "cprof:timer", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_async_init(env, NULL, name, &t->ctx) != napi_ok ||
      napi_create_reference(env, fn, 1, &t->fn) != napi_ok || uv_timer_init(loop, &t->handle)) {
    release(t);
    free(t);
    cprof__throw_last_error(env, "arming the profile timer");
    return NULL;
  }
  /* The loop's cached time lags while JS runs: without this a timeout armed
   * late in a busy tick fires early, and the profile is shorter than asked. */
  uv_update_time(loop);
  uv_timer_start(&t->handle, fire_cb, ms, 0);
  uv_unref((uv_handle_t *)&t->handle);
  return t;
}

void cprof__timer_stop(cprof_timer_t *t) {
  if (!t) return;
  release(t);
  uv_timer_stop(&t->handle);
  uv_close((uv_handle_t *)&t->handle, close_cb);
}

#include "signal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "errors.h"
#include "macros.h"

struct cprof_signal_s {
  uv_signal_t handle; /* first: the close callback casts back */
  napi_env env;
  napi_ref fn;
  napi_async_context ctx;
};

const char *cprof__signal_refusal(int signum) {
  switch (signum) {
  case SIGUSR1:
    return "Node.js uses it to open the inspector";
  case SIGINT:
  case SIGTERM:
    return "it asks the process to stop";
  case SIGKILL:
  case SIGSTOP:
    return "it cannot be caught";
  case SIGPROF:
    return "V8's CPU sampler uses it";
  case SIGCHLD:
    return "libuv uses it to watch child processes";
  case SIGPIPE:
    return "Node.js ignores it: writes to closed sockets raise it";
  case SIGSEGV:
  case SIGBUS:
  case SIGFPE:
  case SIGILL:
  case SIGABRT:
  case SIGTRAP:
  case SIGSYS:
    return "it reports a fault and cannot be handled later on the event loop";
  default:
    return signum > 0 && signum < NSIG ? "" : "it is not a signal number";
  }
}

static void release(cprof_signal_t *s) {
  if (s->fn) napi_delete_reference(s->env, s->fn);
  if (s->ctx) napi_async_destroy(s->env, s->ctx);
  s->fn = NULL;
  s->ctx = NULL;
}

static void close_cb(uv_handle_t *h) {
  free(h);
}

static void fire_cb(uv_signal_t *h, int signum) {
  cprof_signal_t *s = (cprof_signal_t *)h;
  napi_handle_scope scope;
  napi_value fn, recv, ignored;
  (void)signum;
  if (!s->fn || napi_open_handle_scope(s->env, &scope) != napi_ok) return;
  if (napi_get_reference_value(s->env, s->fn, &fn) == napi_ok &&
      napi_get_global(s->env, &recv) == napi_ok && /* make_callback wants an object */
      napi_make_callback(s->env, s->ctx, recv, fn, 0, NULL, &ignored) != napi_ok) {
    /* The JS side reports its own failures; never leave one pending. */
    napi_get_and_clear_last_exception(s->env, &ignored);
  }
  napi_close_handle_scope(s->env, scope);
}

cprof_signal_t *cprof__signal_start(napi_env env, int signum, napi_value fn) {
  uv_loop_t *loop;
  napi_value name;
  char msg[160];
  int rc;
  const char *why = cprof__signal_refusal(signum);
  if (*why) {
    snprintf(msg, sizeof msg, "signal %d cannot be a cprof trigger: %s", signum, why);
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", msg);
    return NULL;
  }
  cprof_signal_t *s = calloc(1, sizeof *s);
  if (!s) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory installing the signal trigger");
    return NULL;
  }
  s->env = env;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok ||
      napi_create_string_utf8(env, "cprof:signal", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_async_init(env, NULL, name, &s->ctx) != napi_ok ||
      napi_create_reference(env, fn, 1, &s->fn) != napi_ok || uv_signal_init(loop, &s->handle)) {
    release(s);
    free(s);
    cprof__throw_last_error(env, "installing the signal trigger");
    return NULL;
  }
  if ((rc = uv_signal_start(&s->handle, fire_cb, signum)) != 0) {
    release(s);
    uv_close((uv_handle_t *)&s->handle, close_cb);
    snprintf(msg, sizeof msg, "cannot watch signal %d: %s", signum, uv_strerror(rc));
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", msg);
    return NULL;
  }
  uv_unref((uv_handle_t *)&s->handle);
  return s;
}

void cprof__signal_stop(cprof_signal_t *s) {
  if (!s) return;
  release(s);
  uv_signal_stop(&s->handle);
  uv_close((uv_handle_t *)&s->handle, close_cb);
}

/* One sampling controller, shared by CPU and heap: open a session, post the
 * start commands, arm the timeout; at stop take V8's reply text and queue the
 * job. The kinds differ only in their commands (cpu.c, heap.c). */
#include <stdio.h>
#include <stdlib.h>

#include "addon.h"
#include "errors.h"
#include "job.h"
#include "macros.h"

void cprof__ctl_reset(napi_env env, cprof_ctl_t *ctl) {
  cprof__timer_stop(ctl->timer);
  cprof__insp_close(env, ctl->insp);
  ctl->timer = NULL;
  ctl->insp = NULL;
}

void cprof__ctl_abandon(napi_env env, cprof_ctl_t *ctl) {
  cprof__timer_stop(ctl->timer);
  cprof__insp_abandon(env, ctl->insp);
  ctl->timer = NULL;
  ctl->insp = NULL;
}

napi_value cprof__ctl_start(napi_env env, cprof_ctl_t *ctl, const char *what,
                            const cprof_cmd_t *cmds, size_t ncmds, double timeout_ms,
                            napi_value on_timeout) {
  napi_value transport;
  char msg[160];
  if (ctl->insp) {
    snprintf(msg, sizeof msg,
             "a %s profile is already running: call stop() first, or wait for its timeout", what);
    cprof__throw(env, "ERR_CPROF_BUSY", msg);
    return NULL;
  }
  if (!(ctl->insp = cprof__insp_open(env))) return NULL;
  for (size_t i = 0; i < ncmds; i++) {
    if (cprof__insp_call_ok(env, ctl->insp, cmds[i].method, cmds[i].params) != 0) {
      cprof__ctl_reset(env, ctl);
      return NULL;
    }
  }
  if (timeout_ms > 0 && !(ctl->timer = cprof__timer_start(env, (uint64_t)timeout_ms, on_timeout))) {
    cprof__ctl_reset(env, ctl);
    return NULL;
  }
  NAPI_CALL(env, napi_create_string_utf8(env, cprof__insp_transport(ctl->insp), NAPI_AUTO_LENGTH,
                                         &transport));
  return transport;
}

napi_value cprof__ctl_stop(napi_env env, cprof_ctl_t *ctl, const char *what,
                           const char *stop_method, cprof_job_in_t *in) {
  char msg[160];
  if (!ctl->insp) {
    snprintf(msg, sizeof msg, "no %s profile is running: call start() first", what);
    cprof__job_in_free(in);
    cprof__throw(env, "ERR_CPROF_NOT_STARTED", msg);
    return NULL;
  }
  int rc = cprof__insp_call(env, ctl->insp, stop_method, NULL, &in->json, &in->len);
  cprof__ctl_reset(env, ctl); /* disconnecting also disables the domain */
  if (rc != 0) {
    cprof__job_in_free(in);
    return NULL;
  }
  return cprof__job_queue(env, in);
}

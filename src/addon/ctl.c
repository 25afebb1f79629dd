/* One sampling controller, shared by CPU and heap: open a session, post the
 * start commands, arm the timeout; at stop take V8's reply text and queue the
 * job. The kinds differ only in their commands (cpu.c, heap.c). */
#include <stdio.h>
#include <stdlib.h>

#include "ctl.h"
#include "errors.h"
#include "job_args.h"
#include "job_run.h"
#include "macros.h"
#include "v8cpu.h"
#include "v8heap.h"

void cprof__ctl_reset(napi_env env, cprof_ctl_t *ctl) {
  cprof__timer_stop(ctl->timer);
  cprof__insp_close(env, ctl->insp);
  cprof__v8heap_discard(env, ctl->v8_handle);
  *ctl = (cprof_ctl_t){0};
}

/* At environment teardown: no JS runs, so a v8.start*Profile handle is not
 * stopped, but its reference is deleted (Node 26 does not free a strong
 * reference with the environment: LeakSanitizer saw it at every exit while
 * profiling). */
void cprof__ctl_abandon(napi_env env, cprof_ctl_t *ctl) {
  cprof__timer_stop(ctl->timer);
  cprof__insp_abandon(env, ctl->insp);
  if (ctl->v8_handle) napi_delete_reference(env, ctl->v8_handle);
  *ctl = (cprof_ctl_t){0};
}

static int busy(napi_env env, const cprof_ctl_t *ctl, const char *what) {
  char msg[160];
  if (!cprof__ctl_running(ctl)) return 0;
  snprintf(msg, sizeof msg,
           "a %s profile is already running: call stop() first, or wait for its timeout", what);
  cprof__throw(env, "ERR_CPROF_BUSY", msg);
  return 1;
}

/* Arms the timeout of a started controller; returns the transport name. */
static napi_value armed(napi_env env, cprof_ctl_t *ctl, double timeout_ms, napi_value on_timeout,
                        const char *transport_name) {
  napi_value transport;
  if (timeout_ms > 0 && !(ctl->timer = cprof__timer_start(env, (uint64_t)timeout_ms, on_timeout))) {
    cprof__ctl_reset(env, ctl);
    return NULL;
  }
  NAPI_CALL(env, napi_create_string_utf8(env, transport_name, NAPI_AUTO_LENGTH, &transport));
  return transport;
}

napi_value cprof__ctl_start(napi_env env, cprof_ctl_t *ctl, const char *what,
                            const cprof_cmd_t *cmds, size_t ncmds, double timeout_ms,
                            napi_value on_timeout) {
  if (busy(env, ctl, what) || !(ctl->insp = cprof__insp_open(env))) return NULL;
  for (size_t i = 0; i < ncmds; i++) {
    if (cprof__insp_call_ok(env, ctl->insp, cmds[i].method, cmds[i].params) != 0) {
      cprof__ctl_reset(env, ctl);
      return NULL;
    }
  }
  return armed(env, ctl, timeout_ms, on_timeout, cprof__insp_transport(ctl->insp));
}

napi_value cprof__ctl_start_v8heap(napi_env env, cprof_ctl_t *ctl, double interval, double depth,
                                   bool collected, bool force_gc, double timeout_ms,
                                   napi_value on_timeout) {
  if (busy(env, ctl, "heap") ||
      cprof__v8heap_start(env, interval, depth, collected, force_gc, &ctl->v8_handle) != 0)
    return NULL;
  return armed(env, ctl, timeout_ms, on_timeout, "v8");
}

napi_value cprof__ctl_start_v8cpu(napi_env env, cprof_ctl_t *ctl, double interval_us,
                                  double timeout_ms, napi_value on_timeout) {
  if (busy(env, ctl, "CPU") || cprof__v8cpu_start(env, interval_us, &ctl->v8_handle) != 0)
    return NULL;
  return armed(env, ctl, timeout_ms, on_timeout, "v8");
}

napi_value cprof__ctl_stop(napi_env env, cprof_ctl_t *ctl, const char *what,
                           const char *stop_method, cprof_job_in_t *in) {
  char msg[160];
  int rc;
  if (!cprof__ctl_running(ctl)) {
    snprintf(msg, sizeof msg, "no %s profile is running: call start() first", what);
    cprof_job_in_free(in);
    cprof__throw(env, "ERR_CPROF_NOT_STARTED", msg);
    return NULL;
  }
  if (ctl->v8_handle) {
    rc = cprof__v8heap_stop(env, ctl->v8_handle, &in->src.json, &in->src.len);
    ctl->v8_handle = NULL; /* stopped and freed either way */
  } else {
    rc = cprof__insp_call(env, ctl->insp, stop_method, NULL, &in->src.json, &in->src.len);
  }
  cprof__ctl_reset(env, ctl); /* disconnecting also disables the domain */
  if (rc != 0) {
    cprof_job_in_free(in);
    return NULL;
  }
  return cprof__job_queue(env, in);
}

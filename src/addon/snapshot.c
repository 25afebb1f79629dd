/* snapshotReport(path, top) → Promise<string>: `cprof snapshot`'s analysis
 * of a .heapsnapshot (core/heapsnapshot.h), read and analysed on a libuv
 * worker thread; the promise gets the report's JSON text. Only the CLI
 * calls it: a snapshot's analysis costs memory in proportion to the
 * snapshot, never something to do inside a profiled app. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cprof.h"
#include "args.h"
#include "entry.h"
#include "errors.h"

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  char *path;
  unsigned top;
  char *json; /* the report, on success */
  int err;
  char errbuf[1024];
} snap_job_t;

static void snap_free(snap_job_t *j) {
  free(j->path);
  free(j->json);
  free(j);
}

static void execute_cb(napi_env env, void *data) {
  (void)env;
  snap_job_t *j = data;
  j->err = cprof_snapshot_report_file(j->path, j->top, &j->json, j->errbuf, sizeof j->errbuf);
}

static void complete_cb(napi_env env, napi_status status, void *data) {
  snap_job_t *j = data;
  napi_value value = NULL;
  if (status == napi_ok && env) {
    if (j->err == CPROF_OK &&
        napi_create_string_utf8(env, j->json, NAPI_AUTO_LENGTH, &value) == napi_ok) {
      napi_resolve_deferred(env, j->deferred, value);
    } else {
      char msg[1200];
      snprintf(msg, sizeof msg, "%s: %s", j->err ? cprof_strerror(j->err) : "out of memory",
               j->errbuf[0] ? j->errbuf : "the report did not fit in a string");
      value = cprof__make_error(env, cprof__js_code(j->err ? j->err : CPROF_ENOMEM), msg);
      if (value) napi_reject_deferred(env, j->deferred, value);
    }
  }
  napi_delete_async_work(env, j->work);
  snap_free(j);
}

napi_value cprof__snapshot_report(napi_env env, napi_callback_info info) {
  napi_value argv[2], promise, name;
  double top = 0;
  snap_job_t *j = calloc(1, sizeof *j);
  if (j == NULL) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory queueing the snapshot analysis");
    return NULL;
  }
  if (cprof__args(env, info, 2, argv) != 0 ||
      cprof__arg_string(env, argv[0], "path", &j->path) != 0 || j->path == NULL ||
      cprof__arg_double(env, argv[1], "top", &top) != 0 || !(top >= 1) ||
      top > CPROF_SNAPSHOT_TOP_MAX) {
    snap_free(j);
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", "snapshotReport(path, top): top is 1 to 1000");
    return NULL;
  }
  j->top = (unsigned)top;
  if (napi_create_string_utf8(env, "cprof:snapshot", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_promise(env, &j->deferred, &promise) != napi_ok ||
      napi_create_async_work(env, NULL, name, execute_cb, complete_cb, j, &j->work) != napi_ok ||
      napi_queue_async_work(env, j->work) != napi_ok) {
    if (j->work) napi_delete_async_work(env, j->work);
    snap_free(j);
    cprof__throw_last_error(env, "queueing the snapshot analysis");
    return NULL;
  }
  return promise;
}

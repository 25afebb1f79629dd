/* snapshotReport(path, top) → Promise<string>: `cprof snapshot`'s analysis
 * of a .heapsnapshot (core/heapsnapshot.h), read and analysed on a libuv
 * worker thread; the promise gets the report's JSON text.
 * snapshotDiff([a, b, c?], top) → Promise<string>: `cprof snapshot diff`,
 * the same way (the snapshots one after another).
 * snapshotView(path, classes) → Promise<string>: the HTML viewer's data
 * (cprof_snapshot_view), for cprof html and cprof ui. Only the CLI and ui
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
  char *paths[3]; /* one: the report or view; two or three: the diff */
  unsigned n, top;
  int view;   /* one path: the viewer's data rather than the report */
  char *json; /* the report, on success */
  int err;
  char errbuf[1024];
} snap_job_t;

static void snap_free(snap_job_t *j) {
  for (unsigned i = 0; i < 3; i++)
    free(j->paths[i]);
  free(j->json);
  free(j);
}

static void execute_cb(napi_env env, void *data) {
  (void)env;
  snap_job_t *j = data;
  if (j->view)
    j->err = cprof_snapshot_view_file(j->paths[0], j->top, &j->json, j->errbuf, sizeof j->errbuf);
  else if (j->n == 1)
    j->err = cprof_snapshot_report_file(j->paths[0], j->top, &j->json, j->errbuf, sizeof j->errbuf);
  else
    j->err = cprof_snapshot_diff_files((const char *const *)j->paths, j->n, j->top, &j->json,
                                       j->errbuf, sizeof j->errbuf);
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

static napi_value queue(napi_env env, snap_job_t *j) {
  napi_value promise, name;
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

static int top_arg(napi_env env, napi_value v, snap_job_t *j) {
  double top = 0;
  if (cprof__arg_double(env, v, "top", &top) != 0 || !(top >= 1) || top > CPROF_SNAPSHOT_TOP_MAX)
    return -1;
  j->top = (unsigned)top;
  return 0;
}

/* snapshotReport's one path. */
static int path_arg(napi_env env, napi_value v, snap_job_t *j) {
  j->n = 1;
  return cprof__arg_string(env, v, "path", &j->paths[0]) != 0 || j->paths[0] == NULL ? -1 : 0;
}

/* snapshotView's one path. */
static int view_arg(napi_env env, napi_value v, snap_job_t *j) {
  j->view = 1;
  return path_arg(env, v, j);
}

/* The paths array: two or three strings. */
static int paths_arg(napi_env env, napi_value v, snap_job_t *j) {
  bool is_array = false;
  uint32_t n = 0;
  if (napi_is_array(env, v, &is_array) != napi_ok || !is_array ||
      napi_get_array_length(env, v, &n) != napi_ok || n < 2 || n > 3)
    return -1;
  for (uint32_t i = 0; i < n; i++, j->n++) {
    napi_value p;
    if (napi_get_element(env, v, i, &p) != napi_ok ||
        cprof__arg_string(env, p, "path", &j->paths[i]) != 0 || j->paths[i] == NULL)
      return -1;
  }
  return 0;
}

/* (paths, top): the job queued, its promise returned; or a throw with
 * usage. */
static napi_value start(napi_env env, napi_callback_info info,
                        int (*paths)(napi_env, napi_value, snap_job_t *), const char *usage) {
  napi_value argv[2];
  snap_job_t *j = calloc(1, sizeof *j);
  if (j == NULL) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory queueing the snapshot analysis");
    return NULL;
  }
  if (cprof__args(env, info, 2, argv) != 0 || paths(env, argv[0], j) != 0 ||
      top_arg(env, argv[1], j) != 0) {
    snap_free(j);
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", usage);
    return NULL;
  }
  return queue(env, j);
}

napi_value cprof__snapshot_report(napi_env env, napi_callback_info info) {
  return start(env, info, path_arg, "snapshotReport(path, top): top is 1 to 1000");
}

napi_value cprof__snapshot_diff(napi_env env, napi_callback_info info) {
  return start(env, info, paths_arg, "snapshotDiff(paths, top): two or three paths, top 1 to 1000");
}

napi_value cprof__snapshot_view(napi_env env, napi_callback_info info) {
  return start(env, info, view_arg, "snapshotView(path, classes): classes is 1 to 1000");
}

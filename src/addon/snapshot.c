/* snapshotReport(path, top) → Promise<string>: `cprof snapshot`'s analysis
 * of a .heapsnapshot (core/heapsnapshot.h), read and analysed on a libuv
 * worker thread; the promise gets the report's JSON text.
 * snapshotDiff([a, b, c?], top) → Promise<string>: `cprof snapshot diff`,
 * the same way (the snapshots one after another).
 * snapshotView(path, classes) → Promise<string>: the HTML viewer's data
 * (cprof_snapshot_view), for cprof html and cprof ui. Only the CLI and ui
 * calls it: a snapshot's analysis costs memory in proportion to the
 * snapshot, never something to do inside a profiled app. */
#include <stdlib.h>

#include "../core/cprof.h"
#include "args.h"
#include "entry.h"
#include "errors.h"
#include "work.h"

/* The report's JSON text as a JS string. */
static napi_value json_value(napi_env env, const cprof_job_t *job) {
  napi_value value;
  if (napi_create_string_utf8(env, job->out.text, job->out.text_len, &value) == napi_ok)
    return value;
  cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory: the report did not fit in a string");
  return NULL;
}

static const cprof_work_ops_t OPS = {"cprof:snapshot", json_value, NULL};

static napi_value queue(napi_env env, cprof_job_t *j) {
  napi_value promise;
  if (cprof__work_submit(env, j, &OPS, NULL, &promise) != 0) {
    cprof__throw_last_error(env, "queueing the snapshot analysis");
    return NULL;
  }
  return promise;
}

static int top_arg(napi_env env, napi_value v, cprof_job_t *j) {
  double top = 0;
  if (cprof__arg_double(env, v, "top", &top) != 0 || !(top >= 1) || top > CPROF_SNAPSHOT_TOP_MAX)
    return -1;
  j->in.want.top = (unsigned)top;
  return 0;
}

/* Room for n paths (all freed with the job, read or not). */
static int alloc_paths(cprof_job_t *j, uint32_t n) {
  if (!(j->in.src.paths = calloc(n, sizeof *j->in.src.paths))) return -1;
  j->in.src.npaths = n;
  return 0;
}

/* snapshotReport's one path. */
static int path_arg(napi_env env, napi_value v, cprof_job_t *j) {
  if (alloc_paths(j, 1) != 0) return -1;
  j->in.kind = CPROF_JOB_SNAPSHOT;
  return cprof__arg_string(env, v, "path", &j->in.src.paths[0]) != 0 || !j->in.src.paths[0] ? -1
                                                                                            : 0;
}

/* snapshotView's one path. */
static int view_arg(napi_env env, napi_value v, cprof_job_t *j) {
  int rc = path_arg(env, v, j);
  j->in.kind = CPROF_JOB_SNAPSHOT_VIEW;
  return rc;
}

/* The paths array: two or three strings. */
static int paths_arg(napi_env env, napi_value v, cprof_job_t *j) {
  bool is_array = false;
  uint32_t n = 0;
  if (napi_is_array(env, v, &is_array) != napi_ok || !is_array ||
      napi_get_array_length(env, v, &n) != napi_ok || n < 2 || n > 3 || alloc_paths(j, n) != 0)
    return -1;
  j->in.kind = CPROF_JOB_SNAPSHOT;
  for (uint32_t i = 0; i < n; i++) {
    napi_value p;
    if (napi_get_element(env, v, i, &p) != napi_ok ||
        cprof__arg_string(env, p, "path", &j->in.src.paths[i]) != 0 || !j->in.src.paths[i])
      return -1;
  }
  return 0;
}

/* (paths, top): the job queued, its promise returned; or a throw with
 * usage. */
static napi_value start(napi_env env, napi_callback_info info,
                        int (*paths)(napi_env, napi_value, cprof_job_t *), const char *usage) {
  napi_value argv[2];
  cprof_job_t *j = calloc(1, sizeof *j);
  if (j == NULL) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory queueing the snapshot analysis");
    return NULL;
  }
  if (cprof__args(env, info, 2, argv) != 0 || paths(env, argv[0], j) != 0 ||
      top_arg(env, argv[1], j) != 0) {
    cprof_job_free(j);
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

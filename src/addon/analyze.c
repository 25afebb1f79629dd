/* The job on profile files, nothing sampled: analyze() for the API and
 * convert()/diff() for the CLI (lib/cli). */
#include "args.h"
#include "entry.h"
#include "errors.h"
#include "job.h"

/* analyze(path, top, wantNodes) → Promise<job result>: the native core on
 * any profile file, read and parsed off the main thread. */
napi_value cprof__analyze(napi_env env, napi_callback_info info) {
  cprof_job_in_t in = {0};
  napi_value argv[3];
  double top;
  bool nodes = false;
  if (cprof__args(env, info, 3, argv) != 0 ||
      cprof__arg_string(env, argv[0], "path", &in.path) != 0 ||
      cprof__arg_double(env, argv[1], "top", &top) != 0 ||
      napi_get_value_bool(env, argv[2], &nodes) != napi_ok) {
    cprof__job_in_free(&in);
    if (!in.path) cprof__throw(env, "ERR_CPROF_INVALID_ARG", "path must be a string");
    return NULL;
  }
  in.top = top > 0 ? (unsigned)top : 0;
  in.want_nodes = nodes;
  return cprof__job_queue(env, &in);
}

/* The CLI's entry points: the same job on profile files, nothing in JS.
 * file_job(paths, dir, top, exportOpts) fills a job from argv. */
static napi_value file_job(napi_env env, napi_callback_info info, int two_paths) {
  cprof_job_in_t in = {0};
  napi_value argv[5];
  double top = 0;
  size_t i = 0;
  if (cprof__args(env, info, 5, argv) != 0) return NULL;
  if (cprof__arg_string(env, argv[i++], "path", &in.path) != 0 || !in.path ||
      (two_paths && (cprof__arg_string(env, argv[i++], "path", &in.path_b) != 0 || !in.path_b)) ||
      cprof__arg_string(env, argv[i++], "dir", &in.dir) != 0 ||
      cprof__arg_double(env, argv[i++], "top", &top) != 0) {
    cprof__job_in_free(&in);
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", "path must be a string");
    return NULL;
  }
  in.top = top > 0 ? (unsigned)top : 0;
  if (cprof__job_export_args(env, argv[i], &in) != 0) return NULL;
  return cprof__job_queue(env, &in);
}

/* convert(path, dir | null, top, { outs, text, focus, cut, needSamples, ... })
 * → Promise<result with outputs, and text when asked>: cprof convert, flame
 * and (with text: true and no dir) cprof report. */
napi_value cprof__convert(napi_env env, napi_callback_info info) {
  return file_job(env, info, 0);
}

/* diff(before, after, dir | null, top, { text, outs: { svg }, ... }) */
napi_value cprof__diff(napi_env env, napi_callback_info info) {
  return file_job(env, info, 1);
}

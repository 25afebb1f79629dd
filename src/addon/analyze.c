/* The job on profile files, nothing sampled: analyze() for the API and
 * convert()/diff()/merge() for the CLI (lib/cli). */
#include <stdlib.h>

#include "args.h"
#include "entry.h"
#include "errors.h"
#include "job_args.h"
#include "job_run.h"
#include "labels.h"
#include "macros.h"

/* analyze(path, top, wantNodes, wantLines?) → Promise<job result>: the
 * native core on any profile file, read and parsed off the main thread. */
napi_value cprof__analyze(napi_env env, napi_callback_info info) {
  cprof_job_in_t in = {.kind = CPROF_JOB_FILE};
  napi_value argv[4];
  double top;
  bool nodes = false, lines = false;
  if (cprof__args(env, info, 4, argv) != 0 ||
      cprof__arg_string(env, argv[0], "path", &in.src.path) != 0 ||
      cprof__arg_double(env, argv[1], "top", &top) != 0 ||
      napi_get_value_bool(env, argv[2], &nodes) != napi_ok) {
    cprof_job_in_free(&in);
    if (!in.src.path) cprof__throw(env, "ERR_CPROF_INVALID_ARG", "path must be a string");
    return NULL;
  }
  in.want.top = top > 0 ? (unsigned)top : 0;
  in.want.nodes = nodes;
  /* undefined (not passed) reads as false */
  in.want.lines = napi_get_value_bool(env, argv[3], &lines) == napi_ok && lines;
  return cprof__job_queue(env, &in);
}

/* The CLI's entry points: the same job on profile files, nothing in JS.
 * file_job(paths, dir, top, exportOpts) fills a job from argv. */
static napi_value file_job(napi_env env, napi_callback_info info, int two_paths) {
  cprof_job_in_t in = {.kind = two_paths ? CPROF_JOB_DIFF : CPROF_JOB_FILE};
  napi_value argv[5];
  double top = 0;
  size_t i = 0;
  if (cprof__args(env, info, 5, argv) != 0) return NULL;
  if (cprof__arg_string(env, argv[i++], "path", &in.src.path) != 0 || !in.src.path ||
      (two_paths &&
       (cprof__arg_string(env, argv[i++], "path", &in.src.path_b) != 0 || !in.src.path_b)) ||
      cprof__arg_string(env, argv[i++], "dir", &in.dest.dir) != 0 ||
      cprof__arg_double(env, argv[i++], "top", &top) != 0) {
    cprof_job_in_free(&in);
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", "path must be a string");
    return NULL;
  }
  in.want.top = top > 0 ? (unsigned)top : 0;
  if (cprof__job_export_args(env, argv[i], &in) != 0) return NULL;
  /* convert: a .labels.json read back (lib/viewer/labels-file.js) for the page */
  if (!two_paths && cprof__labels_args(env, argv[i], &in) != 0) return NULL;
  return cprof__job_queue(env, &in);
}

/* convert(path, dir | null, top, { outs, text, focus, cut, needSamples, labels, ... })
 * → Promise<result with outputs, and text when asked>: cprof convert, flame
 * and (with text: true and no dir) cprof report. */
napi_value cprof__convert(napi_env env, napi_callback_info info) {
  return file_job(env, info, 0);
}

/* diff(before, after, dir | null, top, { text, outs: { svg }, ... }) */
napi_value cprof__diff(napi_env env, napi_callback_info info) {
  return file_job(env, info, 1);
}

/* paths[]: an array of at least one string, copied into in. */
static int read_paths(napi_env env, napi_value arr, cprof_job_in_t *in) {
  bool is_array = false;
  uint32_t n = 0;
  NAPI_CALL_INT(env, napi_is_array(env, arr, &is_array));
  if (is_array) NAPI_CALL_INT(env, napi_get_array_length(env, arr, &n));
  if (!is_array || n == 0) {
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", "paths must be a non-empty array of file paths");
    return -1;
  }
  if (!(in->src.paths = calloc(n, sizeof *in->src.paths))) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory for the merge's paths");
    return -1;
  }
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    NAPI_CALL_INT(env, napi_get_element(env, arr, i, &v));
    if (cprof__arg_string(env, v, "path", &in->src.paths[i]) != 0) return -1;
    in->src.npaths = i + 1;
    if (!in->src.paths[i]) {
      cprof__throw(env, "ERR_CPROF_INVALID_ARG", "every path to merge must be a string");
      return -1;
    }
  }
  return 0;
}

/* merge(paths[], dir | null, name | null, top, exportOpts) → Promise<job
 * result>: the files read, parsed and merged in order (job_merge.c), then
 * what convert does; name: the merged .cpuprofile/.heapprofile in dir. */
napi_value cprof__merge(napi_env env, napi_callback_info info) {
  cprof_job_in_t in = {.kind = CPROF_JOB_MERGE};
  napi_value argv[5];
  double top = 0;
  if (cprof__args(env, info, 5, argv) != 0) return NULL;
  if (read_paths(env, argv[0], &in) != 0 ||
      cprof__arg_string(env, argv[1], "dir", &in.dest.dir) != 0 ||
      cprof__arg_string(env, argv[2], "name", &in.dest.name) != 0 ||
      cprof__arg_double(env, argv[3], "top", &top) != 0) {
    cprof_job_in_free(&in);
    return NULL;
  }
  in.want.top = top > 0 ? (unsigned)top : 0;
  if (cprof__job_export_args(env, argv[4], &in) != 0) return NULL;
  return cprof__job_queue(env, &in);
}

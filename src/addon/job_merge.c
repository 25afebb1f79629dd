/* cprof merge and --from/--to over a store: the job of job.c with several
 * input files, loaded and merged (core/merge.h) on the worker thread before
 * the usual summary, text and outputs. */
#include <stdio.h>
#include <stdlib.h>

#include "../core/error.h"
#include "../core/merge.h"
#include "../core/profile.h"
#include "args.h"
#include "errors.h"
#include "job.h"
#include "macros.h"

static const char *kind_name(const cprof_profile_t *p) {
  return p->kind == CPROF_KIND_CPU ? "CPU" : "heap";
}

static void free_all(cprof_profile_t **ps, size_t n) {
  for (size_t i = 0; i < n; i++)
    cprof_profile_free(ps[i]);
  free(ps);
}

int cprof__job_merge_files(char *const *paths, size_t n, int need_samples, cprof_job_load_fn load,
                           void *ctx, cprof_profile_t **out, char *errbuf, size_t errlen) {
  cprof_profile_t **ps = calloc(n, sizeof *ps);
  size_t loaded = 0; /* ps is calloc'd: the unloaded stay NULL */
  int rc = ps ? CPROF_OK : CPROF_ENOMEM;
  /* Every input is held until the merge: it needs them all at once, and
   * the models are far smaller than their text. */
  for (; rc == CPROF_OK && loaded < n; loaded++) {
    if ((rc = load(ctx, paths[loaded], &ps[loaded])) != CPROF_OK) break;
    if (ps[loaded]->kind != ps[0]->kind) {
      snprintf(errbuf, errlen, "cannot merge a %s profile (%s) with a %s profile (%s)",
               kind_name(ps[0]), paths[0], kind_name(ps[loaded]), paths[loaded]);
      rc = CPROF_EINVAL;
    }
  }
  if (rc == CPROF_OK && (rc = cprof_profile_merge(ps, n, out)) != CPROF_OK)
    snprintf(errbuf, errlen, "cannot merge %zu profiles: %s", n, cprof_strerror(rc));
  if (ps) free_all(ps, n);
  if (rc == CPROF_OK && need_samples && (*out)->nsamples == 0) {
    snprintf(errbuf, errlen, "the %zu merged profiles hold no samples, so there is nothing to show",
             n);
    cprof_profile_free(*out);
    *out = NULL;
    rc = CPROF_ESCHEMA;
  }
  return rc;
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
  if (!(in->paths = calloc(n, sizeof *in->paths))) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory for the merge's paths");
    return -1;
  }
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    NAPI_CALL_INT(env, napi_get_element(env, arr, i, &v));
    if (cprof__arg_string(env, v, "path", &in->paths[i]) != 0) return -1;
    in->npaths = i + 1;
    if (!in->paths[i]) {
      cprof__throw(env, "ERR_CPROF_INVALID_ARG", "every path to merge must be a string");
      return -1;
    }
  }
  return 0;
}

napi_value cprof__merge(napi_env env, napi_callback_info info) {
  cprof_job_in_t in = {0};
  napi_value argv[5];
  double top = 0;
  if (cprof__args(env, info, 5, argv) != 0) return NULL;
  if (read_paths(env, argv[0], &in) != 0 || cprof__arg_string(env, argv[1], "dir", &in.dir) != 0 ||
      cprof__arg_string(env, argv[2], "name", &in.name) != 0 ||
      cprof__arg_double(env, argv[3], "top", &top) != 0) {
    cprof__job_in_free(&in);
    return NULL;
  }
  in.top = top > 0 ? (unsigned)top : 0;
  if (cprof__job_export_args(env, argv[4], &in) != 0) return NULL;
  return cprof__job_queue(env, &in);
}

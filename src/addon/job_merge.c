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

static const char *kind_name(cprof_kind_t kind) {
  return kind == CPROF_KIND_CPU ? "CPU" : "heap";
}

/* Files loaded per merge step. A store may hold a day of windows (8,640 of
 * 10 s): held all at once, their models (64 KiB of string arena each at
 * least) would take GBs. So the merge goes in steps: the result so far
 * plus the next BATCH files. Merging is associative in everything but the
 * clock check, which then compares a file with the merged result so far
 * instead of the file before it: the same answer for one process's windows
 * (they follow one another), and back to back, as documented, for another's. */
#define BATCH 128

static void free_all(cprof_profile_t **ps, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cprof_profile_free(ps[i]);
    ps[i] = NULL;
  }
}

/* Loads paths[0..n) into ps[0..n), all of one kind: *kind, or the first
 * file's when *first_path is NULL (both are then set). */
static int load_batch(char *const *paths, size_t n, cprof_job_load_fn load, void *ctx,
                      cprof_profile_t **ps, const char **first_path, cprof_kind_t *kind,
                      char *errbuf, size_t errlen) {
  for (size_t i = 0; i < n; i++) {
    int rc = load(ctx, paths[i], &ps[i]);
    if (rc != CPROF_OK) return rc;
    if (*first_path == NULL) {
      *first_path = paths[i];
      *kind = ps[i]->kind;
    } else if (ps[i]->kind != *kind) {
      snprintf(errbuf, errlen, "cannot merge a %s profile (%s) with a %s profile (%s)",
               kind_name(*kind), *first_path, kind_name(ps[i]->kind), paths[i]);
      return CPROF_EINVAL;
    }
  }
  return CPROF_OK;
}

int cprof__job_merge_files(char *const *paths, size_t n, int need_samples, cprof_job_load_fn load,
                           void *ctx, cprof_profile_t **out, char *errbuf, size_t errlen) {
  /* ps[0] is the result so far (NULL at first), ps[1..] the batch. */
  cprof_profile_t *ps[BATCH + 1] = {NULL};
  const char *first_path = NULL;
  cprof_kind_t kind = CPROF_KIND_CPU;
  int rc = CPROF_OK;
  *out = NULL;
  for (size_t done = 0; rc == CPROF_OK && done < n;) {
    size_t k = n - done < BATCH ? n - done : BATCH;
    rc = load_batch(paths + done, k, load, ctx, ps + 1, &first_path, &kind, errbuf, errlen);
    done += k;
    cprof_profile_t *merged = NULL;
    size_t from = ps[0] == NULL ? 1 : 0;
    if (rc == CPROF_OK && (rc = cprof_profile_merge(ps + from, k + 1 - from, &merged)) != CPROF_OK)
      snprintf(errbuf, errlen, "cannot merge %zu profiles: %s", n, cprof_strerror(rc));
    free_all(ps, k + 1);
    ps[0] = merged;
  }
  if (rc != CPROF_OK) {
    cprof_profile_free(ps[0]);
    return rc;
  }
  if (need_samples && ps[0]->nsamples == 0) {
    snprintf(errbuf, errlen, "the %zu merged profiles hold no samples, so there is nothing to show",
             n);
    cprof_profile_free(ps[0]);
    return CPROF_ESCHEMA;
  }
  *out = ps[0];
  return CPROF_OK;
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

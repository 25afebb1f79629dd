/* cprof merge and --from/--to over a store: the job's load step for
 * several files, read and merged (merge.h) before the usual summary, text
 * and outputs (job_tail.c). */
#include <stdio.h>

#include "error.h"
#include "job_internal.h"
#include "merge.h"

static const char *kind_name(cprof_kind_t kind) {
  return kind == CPROF_KIND_CPU ? "CPU" : "heap";
}

/* Files loaded per merge step. A store may hold a day of windows (8,640 of
 * 10 s): held all at once, their models (64 KiB of string arena each at
 * least) would take GBs. So the merge goes in steps: the result so far
 * plus the next BATCH files. Merging is associative in everything but the
 * clock check, which then compares a file with the merged result so far
 * instead of the file before it: the same answer for one process's windows
 * (they follow one another), and end to end, as documented, for another's. */
#define BATCH 128

static void free_all(cprof_profile_t **ps, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cprof_profile_free(ps[i]);
    ps[i] = NULL;
  }
}

/* Loads paths[0..n) into ps[0..n), all of one kind: *kind, or the first
 * file's when *first_path is NULL (both are then set). */
static int load_batch(char *const *paths, size_t n, cprof__job_load_fn load, void *ctx,
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

int cprof__job_merge_files(char *const *paths, size_t n, int need_samples, cprof__job_load_fn load,
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

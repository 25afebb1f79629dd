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
 * (they follow one another), and end to end, as documented, for another's.
 * Labels go in the same steps: the result's so far, then the batch's, in
 * the order their samples are concatenated. */
#define BATCH 128

static void free_all(cprof_profile_t **ps, cprof_labels_t **ls, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cprof_profile_free(ps[i]);
    cprof_labels_free(ls[i]);
    ps[i] = NULL;
    ls[i] = NULL;
  }
}

/* Loads paths[0..n) into ps[0..n) (and their labels into ls, when asked),
 * all of one kind: *kind, or the first file's when *first_path is NULL
 * (both are then set). */
static int load_batch(char *const *paths, size_t n, cprof__job_load_fn load, void *ctx,
                      cprof_profile_t **ps, cprof_labels_t **ls, const char **first_path,
                      cprof_kind_t *kind, char *errbuf, size_t errlen) {
  for (size_t i = 0; i < n; i++) {
    int rc = load(ctx, paths[i], &ps[i], ls ? &ls[i] : NULL);
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

/* The step's labels, as its profiles were merged: ls[k] belongs to ps[k]. */
static int merge_labels(cprof_profile_t *const *ps, cprof_labels_t *const *ls, size_t n,
                        cprof_labels_t **out) {
  uint32_t counts[BATCH + 1];
  for (size_t k = 0; k < n; k++)
    counts[k] = ps[k]->nsamples;
  return cprof_labels_merge((const cprof_labels_t *const *)ls, counts, n, out);
}

int cprof__job_merge_files(char *const *paths, size_t n, int need_samples, cprof__job_load_fn load,
                           void *ctx, cprof_profile_t **out, cprof_labels_t **labels, char *errbuf,
                           size_t errlen) {
  /* ps[0] is the result so far (NULL at first), ps[1..] the batch; ls the
   * labels of each, when asked for. */
  cprof_profile_t *ps[BATCH + 1] = {NULL};
  cprof_labels_t *ls[BATCH + 1] = {NULL};
  const char *first_path = NULL;
  cprof_kind_t kind = CPROF_KIND_CPU;
  int rc = CPROF_OK;
  *out = NULL;
  if (labels) *labels = NULL;
  for (size_t done = 0; rc == CPROF_OK && done < n;) {
    size_t k = n - done < BATCH ? n - done : BATCH;
    rc = load_batch(paths + done, k, load, ctx, ps + 1, labels ? ls + 1 : NULL, &first_path, &kind,
                    errbuf, errlen);
    done += k;
    cprof_profile_t *merged = NULL;
    cprof_labels_t *merged_ls = NULL;
    size_t from = ps[0] == NULL ? 1 : 0;
    if (rc == CPROF_OK && (rc = cprof_profile_merge(ps + from, k + 1 - from, &merged)) != CPROF_OK)
      snprintf(errbuf, errlen, "cannot merge %zu profiles: %s", n, cprof_strerror(rc));
    if (rc == CPROF_OK && labels && kind == CPROF_KIND_CPU &&
        (rc = merge_labels(ps + from, ls + from, k + 1 - from, &merged_ls)) != CPROF_OK)
      snprintf(errbuf, errlen, "cannot merge the labels of %zu profiles: %s", n,
               cprof_strerror(rc));
    free_all(ps, ls, k + 1);
    ps[0] = merged;
    ls[0] = merged_ls;
    if (rc != CPROF_OK) free_all(ps, ls, 1);
  }
  if (rc != CPROF_OK) return rc;
  if (need_samples && ps[0]->nsamples == 0) {
    snprintf(errbuf, errlen, "the %zu merged profiles hold no samples, so there is nothing to show",
             n);
    free_all(ps, ls, 1);
    return CPROF_ESCHEMA;
  }
  *out = ps[0];
  if (labels) *labels = ls[0];
  return CPROF_OK;
}

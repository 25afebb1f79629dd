/* cprof_job_run (job.h): one switch over the job kinds, what each kind
 * needs checked first, and the job's release. */
#define _POSIX_C_SOURCE 200809L /* pthread mutexes */

#include "job.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "error.h"
#include "heapsnapshot.h"
#include "job_internal.h"

/* 1 when paths holds n > 0 paths, none NULL. */
static int have_paths(char *const *paths, size_t n) {
  for (size_t i = 0; paths && i < n; i++)
    if (!paths[i]) return 0;
  return paths && n > 0;
}

/* A request that lacks what its kind reads: a caller's bug, never a crash. */
static const char *missing(const cprof_job_in_t *in) {
  const cprof_job_src_t *s = &in->src;
  switch (in->kind) {
  case CPROF_JOB_STOP_CPU:
  case CPROF_JOB_STOP_HEAP:
    return s->json ? NULL : "the profile text";
  case CPROF_JOB_FILE:
    return s->path ? NULL : "the profile file";
  case CPROF_JOB_DIFF:
    return s->path && s->path_b ? NULL : "the two profile files";
  case CPROF_JOB_MERGE:
    return have_paths(s->paths, s->npaths) ? NULL : "the files to merge";
  case CPROF_JOB_PRODUCE:
    return s->produce ? NULL : "the profile's producer";
  case CPROF_JOB_SNAPSHOT:
    return have_paths(s->paths, s->npaths) && s->npaths <= 3 ? NULL : "one to three snapshots";
  case CPROF_JOB_SNAPSHOT_VIEW:
    return have_paths(s->paths, s->npaths) && s->npaths == 1 ? NULL : "one snapshot file";
  case CPROF_JOB_WINDOW:
    return s->window.text.json && s->window.cfg && s->window.ring ? NULL : "the window";
  case CPROF_JOB_TRIM:
    return NULL;
  default:
    return "a known kind";
  }
}

/* A heap snapshot's report, diff or viewer data; the message leads with
 * what kind of failure it is (the CLI prints it as it is). */
static int run_snapshot(cprof__run_t *r) {
  const cprof_job_in_t *in = r->in;
  char **paths = in->src.paths, why[sizeof r->err->msg - 64] = "";
  int rc;
  if (in->kind == CPROF_JOB_SNAPSHOT_VIEW)
    rc = cprof_snapshot_view_file(paths[0], in->want.top, &r->out->text, why, sizeof why);
  else if (in->src.npaths == 1)
    rc = cprof_snapshot_report_file(paths[0], in->want.top, &r->out->text, why, sizeof why);
  else
    rc = cprof_snapshot_diff_files((const char *const *)paths, (unsigned)in->src.npaths,
                                   in->want.top, &r->out->text, why, sizeof why);
  if (rc == CPROF_OK)
    r->out->text_len = strlen(r->out->text);
  else
    snprintf(CPROF__JOB_ERRBUF(r), "%s: %s", cprof_strerror(rc), why[0] ? why : "no reason given");
  return rc;
}

static int run_window(cprof__run_t *r) {
  cprof_job_window_t *w = &r->in->src.window;
  return cprof_window_convert(w->cfg, &w->text, w->ring, w->trend, &r->out->made,
                              CPROF__JOB_ERRBUF(r));
}

#ifdef __GLIBC__
/* Set while a trim is queued and not yet started. Cleared when the trim
 * starts, so a job that ends during a trim queues another, which sees that
 * job's frees. Process-wide, as glibc's arenas are. */
static atomic_bool trim_queued;

int cprof_job_trim_claim(void) {
  bool was = false;
  return atomic_compare_exchange_strong(&trim_queued, &was, true);
}

void cprof_job_trim_unclaim(void) {
  atomic_store(&trim_queued, false);
}

/* glibc keeps what a thread frees in that thread's arena: each thread that
 * ran a job would hold its profile's text and model (MBs) as free but
 * resident memory. malloc_trim walks every arena and gives it back. */
static int run_trim(cprof__run_t *r) {
  (void)r;
  atomic_store(&trim_queued, false);
  malloc_trim(0);
  return CPROF_OK;
}
#else
int cprof_job_trim_claim(void) {
  return 0;
}

void cprof_job_trim_unclaim(void) {}

static int run_trim(cprof__run_t *r) {
  (void)r;
  return CPROF_OK;
}
#endif

/* The profile kinds: the kind's loader, then the shared tail. */
static int run_profile(cprof__run_t *r) {
  int rc = cprof__job_load(r);
  return rc != CPROF_OK ? rc : cprof__job_tail(r);
}

int cprof_job_run(cprof_job_in_t *in, cprof_job_out_t *out, cprof_job_err_t *err) {
  cprof__run_t r = {in, out, err};
  const char *what = missing(in);
  int rc;
  err->code = CPROF_OK;
  err->msg[0] = '\0';
  if (what) {
    snprintf(err->msg, sizeof err->msg, "job kind %d needs %s", (int)in->kind, what);
    rc = CPROF_EINVAL;
  } else if (in->kind == CPROF_JOB_SNAPSHOT || in->kind == CPROF_JOB_SNAPSHOT_VIEW) {
    rc = run_snapshot(&r);
  } else if (in->kind == CPROF_JOB_WINDOW) {
    rc = run_window(&r);
  } else if (in->kind == CPROF_JOB_TRIM) {
    rc = run_trim(&r);
  } else {
    rc = run_profile(&r);
  }
  err->code = rc;
  return rc;
}

int cprof_job_has_result(const cprof_job_t *job) {
  return job->err.code == CPROF_EIO && job->out.profile != NULL;
}

void cprof_job_in_free(cprof_job_in_t *in) {
  cprof_job_src_t *src = &in->src;
  free(src->json);
  free(src->path);
  free(src->path_b);
  for (size_t i = 0; i < src->npaths; i++)
    free(src->paths[i]);
  free(src->paths);
  if (src->produce_free) src->produce_free(src->produce_ctx);
  free(src->window.text.json);
  cprof_labels_free(src->window.text.labels);
  free(in->dest.dir);
  free(in->dest.name);
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++)
    free(in->dest.outs[i]);
  free(in->dest.html_path);
  cprof_labels_free(in->labels);
  free(in->title);
  free(in->focus);
  free(in->lines_focus);
  free(in->marks);
  free(in->main);
  free(in->own_url);
  memset(in, 0, sizeof *in);
}

void cprof_job_out_free(cprof_job_out_t *out) {
  if (out->profile) cprof_sourcemap_release(out->profile, out->sm);
  if (out->profile_b) cprof_sourcemap_release(out->profile_b, out->sm_b);
  cprof_profile_free(out->profile);
  cprof_profile_free(out->profile_b);
  cprof_analysis_free(&out->analysis);
  free(out->top);
  free(out->file);
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++)
    free(out->out_paths[i]);
  free(out->text);
  free(out->labels_path);
  free(out->html_template);
  cprof_window_made_free(&out->made);
  memset(out, 0, sizeof *out);
}

void cprof_job_free(cprof_job_t *job) {
  if (!job) return;
  cprof_job_in_free(&job->in);
  cprof_job_out_free(&job->out);
  free(job);
}

/* ---- the source-map cache shared by every job of the process ---- */

/* Decoded maps kept for the life of the process: enough for a large bundle
 * and its map several times over; least recently used maps go first. */
#define SMCACHE_MAX_BYTES (64u * 1024 * 1024)

static pthread_mutex_t smcache_mutex = PTHREAD_MUTEX_INITIALIZER;
static cprof_smcache_t *smcache;

static void smcache_lock(void *ctx) {
  pthread_mutex_lock(ctx);
}

static void smcache_unlock(void *ctx) {
  pthread_mutex_unlock(ctx);
}

/* Made on first use under its own mutex: not pthread_once, which glibc
 * 2.34 versioned anew, above the prebuilds' floor of 2.28. NULL (out of
 * memory): every job loads its maps. */
cprof_smcache_t *cprof_job_smcache(void) {
  pthread_mutex_lock(&smcache_mutex);
  if (!smcache)
    smcache = cprof_smcache_new(SMCACHE_MAX_BYTES, smcache_lock, smcache_unlock, &smcache_mutex);
  pthread_mutex_unlock(&smcache_mutex);
  return smcache;
}

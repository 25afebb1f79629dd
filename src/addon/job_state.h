/* A queued job as its units share it: the input (job.h), the N-API work
 * and promise, and what the worker thread produced. job_run.c fills it on
 * the worker thread; job_result.c reads it on the main thread. */
#ifndef CPROF_JOB_STATE_H
#define CPROF_JOB_STATE_H

#include <node_api.h>
#include <stddef.h>

#include "../core/cprof.h"
#include "job.h"
#include "sourcemaps.h"

/* A job's error: a core code (CPROF_E*) and its message. */
typedef struct {
  int code; /* CPROF_OK: none */
  char msg[1024];
} cprof_job_err_t;

typedef struct {
  cprof_job_in_t in;
  napi_async_work work;
  napi_deferred deferred;
  /* results, filled on the worker thread */
  cprof_profile_t *profile;
  cprof_flat_t flat;
  cprof_func_t *top;
  size_t ntop;
  cprof_lines_t lines;        /* in.want_lines: the top functions' lines */
  cprof_profile_t *profile_b; /* diff: the "after" profile */
  cprof_job_err_t err;        /* the job's: what its promise rejects with */
  cprof_job_err_t write_err;  /* STOP_CPU: writing V8's text failed; reported after the
                                 parse, so that err.result still has the summary */
  int v8_failed;              /* src.v8_text: the repair refused the text */
  char *file;                 /* dir/name once written */
  int raw;                    /* STOP_CPU: file is V8's own text, written before the parse */
  long long size;
  char *out_paths[CPROF_FORMAT_COUNT]; /* dir/outs[f] once written */
  long long out_sizes[CPROF_FORMAT_COUNT];
  char *text; /* want_text: the report */
  size_t text_len;
  cprof_sm_frames_t *sm, *sm_b; /* source_maps: V8's frames, swapped out */
  cprof_sm_stats_t sm_stats;
  char *html_template; /* the viewer page read from in.html_path */
  /* the owners of the profile files read, other than this process's user:
   * the line views show only the sources they could read (issue 36) */
  cprof_source_owners_t owners;
} job_t;

#endif

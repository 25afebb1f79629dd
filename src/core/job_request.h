/* A job's request and result (types only; job.h runs them): what each
 * kind reads (cprof_job_in_t), what a run made (cprof_job_out_t), why it
 * failed (cprof_job_err_t). Apart from job.h so that the job's steps
 * (job_internal.h) share the types without depending on the dispatcher
 * that calls them. */
#ifndef CPROF_JOB_REQUEST_H
#define CPROF_JOB_REQUEST_H

#include <stddef.h>

#include "aggregate.h"
#include "analysis.h"
#include "export.h"
#include "format.h"
#include "lines.h"
#include "profile.h"
#include "sourcemap_apply.h"
#include "labelset.h"
#include "window.h"

typedef enum {
  CPROF_JOB_STOP_CPU,      /* src.json: the inspector's Profiler.stop reply, or v8.startCpuProfile's
                              text (src.v8_text); its profile text is written as V8 made it */
  CPROF_JOB_STOP_HEAP,     /* src.json: the inspector's HeapProfiler.stopSampling reply, or
                              v8.startHeapProfile's text */
  CPROF_JOB_FILE,          /* src.path: a profile file (analyze, convert, report) */
  CPROF_JOB_DIFF,          /* src.path before, src.path_b after (diff) */
  CPROF_JOB_MERGE,         /* src.paths: profile files merged in order (merge, --from/--to) */
  CPROF_JOB_PRODUCE,       /* src.produce: called for the profile (the recorder's dump) */
  CPROF_JOB_SNAPSHOT,      /* src.paths: one .heapsnapshot's report (want.top rows), or the diff
                              of two or three; out.text is the report's JSON */
  CPROF_JOB_SNAPSHOT_VIEW, /* src.paths[0]: the HTML viewer's data (want.top classes) */
  CPROF_JOB_WINDOW,        /* src.window: a recorder window converted (window.h) */
  CPROF_JOB_TRIM,          /* freed memory given back to the OS (cprof_job_trim_claim) */
  CPROF_JOB_KINDS
} cprof_job_kind_t;

/* Gives the profile (PRODUCE), and when labels is not NULL its samples'
 * labels (labelset.h; *labels NULL: none); errbuf says why not. */
typedef int (*cprof_job_produce_fn)(void *ctx, cprof_profile_t **out, cprof_labels_t **labels,
                                    char *errbuf, size_t errlen);

/* WINDOW: the text is the job's, the rest the recorder's (it outlives the job). */
typedef struct {
  cprof_window_text_t text;
  const cprof_window_cfg_t *cfg;
  cprof_ring_t *ring;
  cprof_trend_t *trend; /* heap windows' trend, or NULL */
} cprof_job_window_t;

/* The job's source; the members of its kind are set, all owned. */
typedef struct {
  char *json;   /* STOP_*: JSON text to parse (freed once parsed) */
  size_t len;   /* its length */
  int v8_text;  /* STOP_CPU: json is v8.startCpuProfile's text: repaired, then as a reply */
  char *path;   /* FILE, DIFF: the profile file ("before" for a diff) */
  char *path_b; /* DIFF: the "after" profile file */
  char **paths; /* MERGE: profile files merged in this order; SNAPSHOT*: the snapshots */
  size_t npaths;
  cprof_job_produce_fn produce;    /* PRODUCE; produce_free(ctx) runs when the job is */
  void (*produce_free)(void *ctx); /* freed, also if it never ran */
  void *produce_ctx;
  cprof_job_window_t window; /* WINDOW */
} cprof_job_src_t;

/* What a profile job writes; nothing when dir is NULL. */
typedef struct {
  char *dir;                      /* output directory */
  int own_dir;                    /* dir is cprof's default: it must be the user's private one */
  char *name;                     /* the .cpuprofile/.heapprofile name inside dir, or NULL */
  char *outs[CPROF_FORMAT_COUNT]; /* derived formats' names inside dir, or NULL; for a diff,
                                     outs[SVG] and outs[HTML] are the differential views */
  char *html_path;                /* html: the viewer template file, read by the job */
} cprof_job_dest_t;

/* What the result carries, and what the profile must be. */
typedef struct {
  unsigned top;       /* how many functions the summary lists (SNAPSHOT*: rows, classes) */
  int nodes;          /* every node's id, self and total */
  int lines;          /* each top function's self time per line */
  int text;           /* out.text: the text report (or the diff table) */
  int need_samples;   /* a profile without samples is an error (the CLI) */
  int source_maps;    /* map frames through source maps for every derived output */
  unsigned max_depth; /* heap: frames kept per stack (0 = all) */
} cprof_job_want_t;

typedef struct {
  cprof_job_kind_t kind;
  cprof_job_src_t src;
  cprof_job_dest_t dest;
  cprof_job_want_t want;
  cprof_export_opts_t opts; /* title, focus, main, lines_focus, html_marks point at the
                               owned copies below */
  char *title, *focus, *main, *lines_focus;
  char *marks;               /* viewerMarks: JSON text the html page carries as a string */
  char *own_url;             /* STOP_CPU: the url prefix of cprof's own code; leading samples in
                                it are its start call, dropped (own_start.c); NULL: none */
  cprof_smcache_t *sm_cache; /* source_maps: decoded maps shared across jobs (not owned;
                                NULL: each job decodes its own) */
  cprof_labels_t *labels;    /* label sets (labelset.h): STOP_CPU's switches to join; MERGE,
                                PRODUCE: ask for the inputs' labels, merged by the loader.
                                ->file: the sidecar's name in dest.dir. NULL: none */
} cprof_job_in_t;

/* A job's error: a code (CPROF_E*) and its message. */
typedef struct {
  int code; /* CPROF_OK: none */
  char msg[1024];
} cprof_job_err_t;

/* What a job made; all owned (cprof_job_out_free). */
typedef struct {
  cprof_profile_t *profile;   /* the profile kinds: the profile (a diff's "before") */
  cprof_profile_t *profile_b; /* DIFF: the "after" profile */
  cprof_analysis_t analysis;  /* profile's flat profile (and with want.lines every function's
                                 lines), shared with the writers (analysis.h) */
  cprof_func_t *top;          /* the summary's top functions */
  size_t ntop;
  char *file; /* dest.dir/dest.name once written */
  long long size;
  char *out_paths[CPROF_FORMAT_COUNT]; /* dest.dir/outs[f] once written */
  long long out_sizes[CPROF_FORMAT_COUNT];
  char *labels_path; /* in.labels' sidecar, dest.dir/in.labels->file, once written */
  long long labels_size;
  char *text; /* want.text: the report; SNAPSHOT*: the JSON */
  size_t text_len;
  cprof_sm_stats_t sm_stats; /* want.source_maps */
  int v8_failed; /* STOP_CPU with v8_text: V8's text did not parse (the caller should profile
                    through the inspector from now on) */
  cprof_window_made_t made; /* WINDOW */
  /* internal to the job */
  int raw;                      /* STOP_CPU: file is V8's own text, written before the parse */
  cprof_job_err_t write_err;    /* that write's failure, reported after the parse */
  cprof_sm_frames_t *sm, *sm_b; /* V8's frames, swapped out */
  char *html_template;          /* read from dest.html_path */
  cprof_source_owners_t owners; /* the owners of the profile files read (issue 36) */
} cprof_job_out_t;

/* The whole request, as a caller that queues it holds it. */
typedef struct {
  cprof_job_in_t in;
  cprof_job_out_t out;
  cprof_job_err_t err;
} cprof_job_t;

#endif

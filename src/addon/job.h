/* The off-thread half of a stop or a file command: one napi_async_work
 * that loads a profile (parses the inspector's JSON text, reads profile
 * files, or has the recorder's windows merged), aggregates, writes the
 * output files atomically, and settles a promise with the summary.
 * This header is the job's input, shared by three units: job_args.c
 * (job_args.h) reads it from JS values, job_run.c (job_run.h) queues and
 * runs it (the worker thread: one loader per kind, then one shared tail),
 * job_result.c builds its JS result.
 * (snapshot.c's `cprof snapshot` analysis is a job of its own: its result is
 * a report's JSON text, not a profile, and it shares nothing of the tail.) */
#ifndef CPROF_JOB_H
#define CPROF_JOB_H

#include <node_api.h>
#include <stddef.h>

#include "../core/cprof.h"

/* Where a job's profile comes from: each kind has its loader (job_run.c). */
typedef enum {
  CPROF_JOB_STOP_CPU,  /* src.json: the inspector's Profiler.stop reply, or v8.startCpuProfile's
                          text (src.v8_text); its profile text is written as V8 made it */
  CPROF_JOB_STOP_HEAP, /* src.json: the inspector's HeapProfiler.stopSampling reply, or
                          v8.startHeapProfile's text */
  CPROF_JOB_FILE,      /* src.path: a profile file (analyze, convert, report) */
  CPROF_JOB_DIFF,      /* src.path before, src.path_b after (diff) */
  CPROF_JOB_MERGE,     /* src.paths: profile files merged in order (merge, --from/--to) */
  CPROF_JOB_PRODUCE,   /* src.produce: run on the worker thread (the recorder's dump) */
  CPROF_JOB_KINDS
} cprof_job_kind_t;

/* Gives the profile on the worker thread; errbuf says why not. */
typedef int (*cprof_job_produce_fn)(void *ctx, cprof_profile_t **out, char *errbuf, size_t errlen);

/* The profile's source; the members of the job's kind are set, all owned. */
typedef struct {
  char *json;   /* STOP_*: JSON text to parse (freed once parsed) */
  size_t len;   /* its length */
  int v8_text;  /* STOP_CPU: json is v8.startCpuProfile's text: repaired, then as a reply */
  char *path;   /* FILE, DIFF: the profile file ("before" for a diff) */
  char *path_b; /* DIFF: the "after" profile file */
  char **paths; /* MERGE: profile files merged in this order */
  size_t npaths;
  cprof_job_produce_fn produce;    /* PRODUCE; produce_free(ctx) runs when the job is */
  void (*produce_free)(void *ctx); /* freed, also if it never ran */
  void *produce_ctx;
} cprof_job_src_t;

/* What the job writes; nothing when dir is NULL. */
typedef struct {
  char *dir;                      /* output directory */
  int own_dir;                    /* dir is cprof's default: it must be the user's private one */
  char *name;                     /* the .cpuprofile/.heapprofile name inside dir, or NULL */
  char *outs[CPROF_FORMAT_COUNT]; /* derived formats' names inside dir, or NULL; for a diff,
                                     outs[SVG] and outs[HTML] are the differential views */
  char *html_path;                /* html: the viewer template file, read on the worker */
} cprof_job_out_t;

/* What the result carries, and what the profile must be. */
typedef struct {
  unsigned top;       /* how many functions the summary lists */
  int nodes;          /* every node's id, self and total */
  int lines;          /* each top function's self time per line */
  int text;           /* result.text: the text report (or the diff table) */
  int need_samples;   /* a profile without samples is an error (the CLI) */
  int source_maps;    /* map frames through source maps for every derived output */
  unsigned max_depth; /* heap: frames kept per stack (0 = all) */
} cprof_job_want_t;

typedef struct {
  cprof_job_kind_t kind;
  cprof_job_src_t src;
  cprof_job_out_t out;
  cprof_job_want_t want;
  cprof_export_opts_t opts; /* title, focus, main, lines_focus, html_marks point at the
                               owned copies below */
  char *title, *focus, *main, *lines_focus;
  char *marks;            /* viewerMarks: JSON text the html page carries as a string */
  char *own_url;          /* STOP_CPU: the url prefix of cprof's own code; leading samples in
                             it are its start call, dropped (own_start.c); NULL: none */
  cprof_labels_t *labels; /* STOP_CPU: label sets and switches to join (labels.h); NULL: none */
} cprof_job_in_t;

#endif

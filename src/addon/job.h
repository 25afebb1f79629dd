/* The off-thread half of a stop: one napi_async_work that parses the
 * inspector's JSON text (or reads a profile file), aggregates, writes the
 * output file atomically, and settles a promise with the summary.
 * The interface of three units: job_args.c reads a job's input from JS
 * values, job_run.c queues and runs it (the worker thread), job_result.c
 * builds its JS result. */
#ifndef CPROF_JOB_H
#define CPROF_JOB_H

#include <node_api.h>
#include <stddef.h>

#include "../core/cprof.h"

typedef struct {
  char *json;   /* JSON text to parse (owned, freed once parsed), or NULL */
  size_t len;   /* its length */
  char *path;   /* a profile file to read instead of json (owned), or NULL */
  char *path_b; /* diff: the "after" profile file (owned); path is "before" */
  char **paths; /* merge: profile files (owned) merged in this order, instead of path */
  size_t npaths;
  char *dir;   /* output directory (owned), or NULL to write nothing */
  int own_dir; /* dir is cprof's default: it must be the user's private one */
  char *name;  /* the .cpuprofile/.heapprofile name inside dir (owned), or NULL */
  char *outs[CPROF_FORMAT_COUNT]; /* derived formats' names inside dir (owned), or NULL;
                                     for a diff, outs[SVG] is the differential graph */
  unsigned top;                   /* how many functions the summary lists */
  int want_nodes;                 /* also return every node's id, self and total */
  int want_lines;                 /* summary: each top function's self time per line */
  unsigned max_depth;             /* heap: frames kept per stack (0 = all) */
  int raw_reply;            /* json is a CPU inspector reply: write its profile text as the file */
  int v8_text;              /* json is v8.startCpuProfile's text: repaired, then as raw_reply */
  int want_text;            /* result.text: the text report (or the diff table) */
  int need_samples;         /* a profile without samples is an error (the CLI) */
  int source_maps;          /* map frames through source maps for every derived output */
  cprof_export_opts_t opts; /* title, focus and main point at the owned copies below */
  char *title, *focus, *main, *lines_focus;
  char *marks;     /* viewerMarks: JSON text the html page carries as a string */
  char *own_url;   /* CPU: the url prefix of cprof's own code; leading samples in
                      it are its start call, dropped (own_start.c); NULL: none */
  char *html_path; /* html: the viewer template file, read on the worker (owned) */
  /* Instead of json or path: run on the worker thread, gives the profile
   * (the recorder's dump: a merge of its windows). produce_free(ctx) runs
   * when the job is freed, also if it never ran. */
  int (*produce)(void *ctx, cprof_profile_t **out, char *errbuf, size_t errlen);
  void (*produce_free)(void *ctx);
  void *produce_ctx;
} cprof_job_in_t;

/* Queues the job and returns its promise. Takes ownership of in's buffers,
 * also on failure (then it throws and returns NULL). The promise resolves
 * with { kind, samples, durationMs, summary, file?: { path, size },
 * outputs?: { pprof|folded|svg|txt|html: { path, size } }, text?, nodes?,
 * sourceMaps?: { frames, mapped, unmapped, scripts, scriptsWithMap, errors } } and
 * rejects with an ERR_CPROF_* error; an ERR_CPROF_IO error carries
 * err.result, the same object with only the files written before. */
napi_value cprof__job_queue(napi_env env, cprof_job_in_t *in);

/* Reads (dir, name, top) from argv[0..2] into in. 0, or -1 with a throw. */
int cprof__job_args(napi_env env, napi_value *argv, cprof_job_in_t *in);

/* Reads an export options object (undefined: none) into in:
 *   { outs: { pprof?, folded?, svg?, txt?, html?: file name }, interval, startTime,
 *     duration (µs), includeCollected, title, top (text rows), cut (%), focus,
 *     text (bool), needSamples (bool), keepExisting (bool: never replace a
 *     file, ERR_CPROF_EXISTS instead), main (pprof: the main script),
 *     ownUrl (CPU: drop the leading samples in code under this url),
 *     ownDir (bool: dir is cprof's default, checked with CPROF_DIR_OWN),
 *     sourceMaps (bool: map frames for every derived output),
 *     htmlTemplate (html: the viewer page's file, read on the worker),
 *     lines (bool: self time per line in the summary, the text report and
 *     the HTML viewer), linesFocus (text: the functions listed by line),
 *     pprofLines (bool: pprof with one Location per line) }
 * 0, or -1 with a throw (in is then freed). */
int cprof__job_export_args(napi_env env, napi_value obj, cprof_job_in_t *in);

/* The JS name of a derived format ("pprof", "folded", "svg", "txt", "html"). */
const char *cprof__format_name(cprof_format_t fmt);

/* Frees in's buffers (for callers that fail before queueing). */
void cprof__job_in_free(cprof_job_in_t *in);

#endif

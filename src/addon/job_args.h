/* A job's input read from JS values (job_args.c): the stop functions'
 * (dir, name, top) and the export options object. */
#ifndef CPROF_JOB_ARGS_H
#define CPROF_JOB_ARGS_H

#include <node_api.h>

#include "../core/cprof.h"

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
 * 0, or -1 with a throw (in is then freed: cprof_job_in_free). */
int cprof__job_export_args(napi_env env, napi_value obj, cprof_job_in_t *in);

/* The JS name of a derived format ("pprof", "folded", "svg", "txt", "html"). */
const char *cprof__format_name(cprof_format_t fmt);

#endif

/* Reading a job's input from JS values (see src/core/job.h): the stop functions'
 * (dir, name, top) and the export options object. */
#include "job_args.h"

#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "errors.h"
#include "macros.h"

static const char *const FORMAT_NAMES[CPROF_FORMAT_COUNT] = {"pprof", "folded", "svg", "txt",
                                                             "html"};

const char *cprof__format_name(cprof_format_t fmt) {
  return (unsigned)fmt < CPROF_FORMAT_COUNT ? FORMAT_NAMES[fmt] : NULL;
}

/* obj[key] if present (not undefined or null); 0 = absent, 1 = *out set. */
static int opt_prop(napi_env env, napi_value obj, const char *key, napi_value *out) {
  bool has = false;
  napi_valuetype t;
  NAPI_CALL_INT(env, napi_has_named_property(env, obj, key, &has));
  if (!has) return 0;
  NAPI_CALL_INT(env, napi_get_named_property(env, obj, key, out));
  NAPI_CALL_INT(env, napi_typeof(env, *out, &t));
  return t != napi_undefined && t != napi_null;
}

static int opt_double(napi_env env, napi_value obj, const char *key, double *out) {
  napi_value v;
  int has = opt_prop(env, obj, key, &v);
  return has <= 0 ? has : cprof__arg_double(env, v, key, out);
}

static int opt_bool(napi_env env, napi_value obj, const char *key, int *out) {
  napi_value v;
  bool b = false;
  int has = opt_prop(env, obj, key, &v);
  if (has <= 0) return has;
  if (cprof__arg_bool(env, v, key, &b) != 0) return -1;
  *out = b;
  return 0;
}

static int opt_string(napi_env env, napi_value obj, const char *key, char **out) {
  napi_value v;
  int has = opt_prop(env, obj, key, &v);
  return has <= 0 ? has : cprof__arg_string(env, v, key, out);
}

/* labelsFile: the inputs' labels merged (a merge, a dump), their sidecar
 * under this name in dir (labelset.h). */
static int labels_file(napi_env env, napi_value obj, cprof_job_in_t *in) {
  char *file = NULL;
  if (opt_string(env, obj, "labelsFile", &file) != 0) return -1;
  if (!file) return 0;
  cprof_labels_free(in->labels);
  if (!(in->labels = cprof_labels_new())) {
    free(file);
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory for the labels");
    return -1;
  }
  in->labels->file = file;
  return 0;
}

static int export_args(napi_env env, napi_value obj, cprof_job_in_t *in) {
  napi_value outs;
  double interval = 0, start = 0, duration = 0, top = 0, cut = 0;
  int has;
  if ((has = opt_prop(env, obj, "outs", &outs)) < 0) return -1;
  for (int i = 0; has && i < CPROF_FORMAT_COUNT; i++)
    if (opt_string(env, outs, FORMAT_NAMES[i], &in->dest.outs[i]) != 0) return -1;
  if (opt_double(env, obj, "interval", &interval) != 0 ||
      opt_double(env, obj, "startTime", &start) != 0 ||
      opt_double(env, obj, "duration", &duration) != 0 ||
      opt_bool(env, obj, "includeCollected", &in->opts.include_collected) != 0 ||
      opt_string(env, obj, "title", &in->title) != 0 || opt_double(env, obj, "top", &top) != 0 ||
      opt_double(env, obj, "cut", &cut) != 0 || opt_string(env, obj, "focus", &in->focus) != 0 ||
      opt_bool(env, obj, "text", &in->want.text) != 0 ||
      opt_bool(env, obj, "diffJson", &in->opts.diff_json) != 0 ||
      opt_bool(env, obj, "needSamples", &in->want.need_samples) != 0 ||
      opt_bool(env, obj, "keepExisting", &in->opts.keep_existing) != 0 ||
      opt_string(env, obj, "main", &in->main) != 0 ||
      opt_string(env, obj, "ownUrl", &in->own_url) != 0 ||
      opt_bool(env, obj, "ownDir", &in->dest.own_dir) != 0 ||
      opt_bool(env, obj, "sourceMaps", &in->want.source_maps) != 0 ||
      opt_string(env, obj, "htmlTemplate", &in->dest.html_path) != 0 ||
      opt_bool(env, obj, "lines", &in->opts.lines) != 0 ||
      opt_string(env, obj, "linesFocus", &in->lines_focus) != 0 ||
      opt_bool(env, obj, "pprofLines", &in->opts.pprof_lines) != 0 ||
      opt_string(env, obj, "viewerMarks", &in->marks) != 0 || labels_file(env, obj, in) != 0)
    return -1;
  in->want.lines = in->opts.lines;
  in->opts.lines_focus = in->lines_focus;
  in->opts.interval = interval > 0 ? (int64_t)interval : 0;
  in->opts.start_time_ms = start > 0 ? (int64_t)start : 0;
  in->opts.duration_us = duration > 0 ? (int64_t)duration : 0;
  in->opts.top = top > 0 && top < 1e6 ? (unsigned)top : 0;
  in->opts.cut_percent = cut > 0 ? cut : 0;
  in->opts.title = in->title;
  in->opts.focus = in->focus;
  in->opts.html_marks = in->marks;
  in->opts.main = in->main;
  return 0;
}

int cprof__job_export_args(napi_env env, napi_value obj, cprof_job_in_t *in) {
  napi_valuetype t;
  if (napi_typeof(env, obj, &t) != napi_ok) {
    cprof_job_in_free(in);
    cprof__throw_last_error(env, "napi_typeof");
    return -1;
  }
  if (t == napi_undefined || t == napi_null) return 0;
  if (t != napi_object) {
    cprof_job_in_free(in);
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", "export options must be an object");
    return -1;
  }
  if (export_args(env, obj, in) != 0) {
    cprof_job_in_free(in);
    return -1;
  }
  return 0;
}

int cprof__job_args(napi_env env, napi_value *argv, cprof_job_in_t *in) {
  double top;
  if (cprof__arg_string(env, argv[0], "dir", &in->dest.dir) != 0 ||
      cprof__arg_string(env, argv[1], "name", &in->dest.name) != 0 ||
      cprof__arg_double(env, argv[2], "top", &top) != 0) {
    cprof_job_in_free(in);
    return -1;
  }
  in->want.top = top > 0 ? (unsigned)top : 0;
  return 0;
}

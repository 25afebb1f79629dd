/* A finished job as a JS value, built on the main thread (see
 * job_result.h): the summary in the units users read, the files written,
 * the text report (a failed job's err.result too: work.c). */
#include "job_result.h"

#include "../core/cprof.h"
#include "errors.h"
#include "job_args.h"
#include "jsutil.h"
#include "macros.h"

/* Profile values in the unit users read: ms for CPU (µs inside), bytes. */
static double unit_value(const cprof_job_t *job, int64_t v) {
  return job->out.profile->kind == CPROF_KIND_CPU ? (double)v / 1000.0 : (double)v;
}

static double percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* lines: [{ url, line, self, selfPercent, share }] of one function, by url
 * then line; line 0 holds time without a line; share is % of its self. */
static int set_lines(napi_env env, const cprof_job_t *job, const cprof_func_t *fn, napi_value o) {
  const cprof_lines_t *l = &job->out.analysis.lines;
  uint32_t f = job->out.analysis.flat.func_of[fn->frame];
  napi_value arr, item;
  if (!l->first || f >= l->nfuncs) return 0;
  uint32_t a = l->first[f], b = l->first[f + 1];
  NAPI_CALL_INT(env, napi_create_array_with_length(env, b - a, &arr));
  for (uint32_t i = a; i < b; i++) {
    const cprof_line_t *x = &l->lines[i];
    NAPI_CALL_INT(env, napi_create_object(env, &item));
    if (cprof__js_set_str(env, item, "url", x->url) ||
        cprof__js_set_num(env, item, "line", x->line) ||
        cprof__js_set_num(env, item, "self", unit_value(job, x->self)) ||
        cprof__js_set_num(env, item, "selfPercent",
                          percent(x->self, job->out.analysis.flat.total)) ||
        cprof__js_set_num(env, item, "share", percent(x->self, fn->self)))
      return -1;
    NAPI_CALL_INT(env, napi_set_element(env, arr, i - a, item));
  }
  NAPI_CALL_INT(env, napi_set_named_property(env, o, "lines", arr));
  return 0;
}

static napi_value make_func(napi_env env, const cprof_job_t *job, const cprof_func_t *fn) {
  const cprof_frame_t *fr = &job->out.profile->frames[fn->frame];
  int64_t total = job->out.analysis.flat.total;
  napi_value o;
  NAPI_CALL(env, napi_create_object(env, &o));
  if (cprof__js_set_str(env, o, "functionName", fr->name) ||
      cprof__js_set_str(env, o, "url", fr->url) ||
      cprof__js_set_num(env, o, "line", fr->line >= 0 ? fr->line + 1 : 0) ||
      cprof__js_set_num(env, o, "column", fr->column >= 0 ? fr->column + 1 : 0) ||
      cprof__js_set_num(env, o, "self", unit_value(job, fn->self)) ||
      cprof__js_set_num(env, o, "selfPercent", percent(fn->self, total)) ||
      cprof__js_set_num(env, o, "total", unit_value(job, fn->total)) ||
      cprof__js_set_num(env, o, "totalPercent", percent(fn->total, total)))
    return NULL;
  if (job->in.want.lines && set_lines(env, job, fn, o) != 0) return NULL;
  return o;
}

static int set_special(napi_env env, const cprof_job_t *job, napi_value summary, const char *key,
                       const char *frame_name) {
  int64_t self = cprof_flat_special(&job->out.analysis.flat, job->out.profile, frame_name);
  napi_value o;
  NAPI_CALL_INT(env, napi_create_object(env, &o));
  if (cprof__js_set_num(env, o, "self", unit_value(job, self)) ||
      cprof__js_set_num(env, o, "percent", percent(self, job->out.analysis.flat.total)))
    return -1;
  NAPI_CALL_INT(env, napi_set_named_property(env, summary, key, o));
  return 0;
}

static napi_value make_summary(napi_env env, const cprof_job_t *job) {
  napi_value s, top, item;
  int cpu = job->out.profile->kind == CPROF_KIND_CPU;
  NAPI_CALL(env, napi_create_object(env, &s));
  if (cprof__js_set_str(env, s, "unit", cpu ? "ms" : "bytes") ||
      cprof__js_set_num(env, s, "total", unit_value(job, job->out.analysis.flat.total)))
    return NULL;
  NAPI_CALL(env, napi_create_array_with_length(env, job->out.ntop, &top));
  for (size_t i = 0; i < job->out.ntop; i++) {
    if (!(item = make_func(env, job, &job->out.top[i]))) return NULL;
    NAPI_CALL(env, napi_set_element(env, top, (uint32_t)i, item));
  }
  NAPI_CALL(env, napi_set_named_property(env, s, "top", top));
  if (cpu && (set_special(env, job, s, "gc", "(garbage collector)") ||
              set_special(env, job, s, "idle", "(idle)") ||
              set_special(env, job, s, "program", "(program)")))
    return NULL;
  return s;
}

/* nodes: [{ id, self, total }] in tree order (root first). */
static napi_value make_nodes(napi_env env, const cprof_job_t *job) {
  const cprof_profile_t *p = job->out.profile;
  napi_value arr, o;
  NAPI_CALL(env, napi_create_array_with_length(env, p->nnodes, &arr));
  for (uint32_t i = 0; i < p->nnodes; i++) {
    NAPI_CALL(env, napi_create_object(env, &o));
    if (cprof__js_set_num(env, o, "id", p->nodes[i].id) ||
        cprof__js_set_num(env, o, "self", unit_value(job, p->nodes[i].self)) ||
        cprof__js_set_num(env, o, "total", unit_value(job, p->nodes[i].total)))
      return NULL;
    NAPI_CALL(env, napi_set_element(env, arr, i, o));
  }
  return arr;
}

/* outputs: { labels?, <format>: { path, size } } for every file written
 * beside the profile (labels: its sidecar, labelset.h). */
static int make_outputs(napi_env env, const cprof_job_t *job, napi_value r) {
  napi_value outs, o;
  int any = 0;
  NAPI_CALL_INT(env, napi_create_object(env, &outs));
  if (job->out.labels_path) {
    NAPI_CALL_INT(env, napi_create_object(env, &o));
    if (cprof__js_set_str(env, o, "path", job->out.labels_path) ||
        cprof__js_set_num(env, o, "size", (double)job->out.labels_size))
      return -1;
    NAPI_CALL_INT(env, napi_set_named_property(env, outs, "labels", o));
    any = 1;
  }
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++) {
    if (!job->out.out_paths[i]) continue;
    NAPI_CALL_INT(env, napi_create_object(env, &o));
    if (cprof__js_set_str(env, o, "path", job->out.out_paths[i]) ||
        cprof__js_set_num(env, o, "size", (double)job->out.out_sizes[i]))
      return -1;
    NAPI_CALL_INT(env,
                  napi_set_named_property(env, outs, cprof__format_name((cprof_format_t)i), o));
    any = 1;
  }
  if (any) NAPI_CALL_INT(env, napi_set_named_property(env, r, "outputs", outs));
  return 0;
}

/* sourceMaps: { frames, mapped, unmapped, scripts, scriptsWithMap, mapErrors, errors } */
static int make_sm_stats(napi_env env, const cprof_job_t *job, napi_value r) {
  const cprof_sm_stats_t *st = &job->out.sm_stats;
  napi_value o, errs;
  NAPI_CALL_INT(env, napi_create_object(env, &o));
  if (cprof__js_set_num(env, o, "frames", st->frames) ||
      cprof__js_set_num(env, o, "mapped", st->mapped) ||
      cprof__js_set_num(env, o, "unmapped", st->unmapped) ||
      cprof__js_set_num(env, o, "scripts", st->scripts) ||
      cprof__js_set_num(env, o, "scriptsWithMap", st->scripts_with_map) ||
      cprof__js_set_num(env, o, "mapErrors", st->map_errors))
    return -1;
  NAPI_CALL_INT(env, napi_create_array(env, &errs));
  for (uint32_t i = 0; i < CPROF_SM_ERRORS && st->errors[i][0]; i++) {
    napi_value s;
    NAPI_CALL_INT(env, napi_create_string_utf8(env, st->errors[i], NAPI_AUTO_LENGTH, &s));
    NAPI_CALL_INT(env, napi_set_element(env, errs, i, s));
  }
  NAPI_CALL_INT(env, napi_set_named_property(env, o, "errors", errs));
  NAPI_CALL_INT(env, napi_set_named_property(env, r, "sourceMaps", o));
  return 0;
}

napi_value cprof__job_result(napi_env env, const cprof_job_t *job) {
  const cprof_profile_t *p = job->out.profile;
  napi_value r, summary, nodes, file;
  NAPI_CALL(env, napi_create_object(env, &r));
  if (cprof__js_set_str(env, r, "kind", p->kind == CPROF_KIND_CPU ? "cpu" : "heap") ||
      cprof__js_set_num(env, r, "samples", p->nsamples))
    return NULL;
  if (p->kind == CPROF_KIND_CPU &&
      cprof__js_set_num(env, r, "durationMs", (double)(p->end_time - p->start_time) / 1000.0))
    return NULL;
  /* V8 can list heap samples whose node it pruned (collected objects'). */
  if (p->kind == CPROF_KIND_HEAP &&
      cprof__js_set_num(env, r, "droppedSamples", cprof_profile_dropped_samples(p)))
    return NULL;
  if (!(summary = make_summary(env, job))) return NULL;
  NAPI_CALL(env, napi_set_named_property(env, r, "summary", summary));
  if (job->in.want.nodes) {
    if (!(nodes = make_nodes(env, job))) return NULL;
    NAPI_CALL(env, napi_set_named_property(env, r, "nodes", nodes));
  }
  if (job->out.file) {
    NAPI_CALL(env, napi_create_object(env, &file));
    if (cprof__js_set_str(env, file, "path", job->out.file) ||
        cprof__js_set_num(env, file, "size", (double)job->out.size))
      return NULL;
    NAPI_CALL(env, napi_set_named_property(env, r, "file", file));
  }
  if (make_outputs(env, job, r) != 0) return NULL;
  if (job->in.want.source_maps && make_sm_stats(env, job, r) != 0) return NULL;
  if (job->out.text) {
    napi_value text;
    NAPI_CALL(env, napi_create_string_utf8(env, job->out.text, job->out.text_len, &text));
    NAPI_CALL(env, napi_set_named_property(env, r, "text", text));
  }
  return r;
}

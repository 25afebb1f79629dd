#include "job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/stat.h>

#include "../core/aggregate.h"
#include "../core/error.h"
#include "../core/export.h"
#include "../core/fsutil.h"
#include "../core/profile.h"
#include "args.h"
#include "errors.h"
#include "macros.h"

typedef struct {
  cprof_job_in_t in;
  napi_async_work work;
  napi_deferred deferred;
  /* results, filled on the worker thread */
  cprof_profile_t *profile;
  cprof_flat_t flat;
  cprof_func_t *top;
  size_t ntop;
  cprof_profile_t *profile_b; /* diff: the "after" profile */
  int err;
  char errbuf[1024];
  char *file; /* dir/name once written */
  long long size;
  char *out_paths[CPROF_FORMAT_COUNT]; /* dir/outs[f] once written */
  long long out_sizes[CPROF_FORMAT_COUNT];
  char *text; /* want_text: the report */
  size_t text_len;
  char *html_template; /* the viewer page read from in.html_path */
} job_t;

static const char *const FORMAT_NAMES[CPROF_FORMAT_COUNT] = {"pprof", "folded", "svg", "txt",
                                                             "html"};

const char *cprof__format_name(cprof_format_t fmt) {
  return (unsigned)fmt < CPROF_FORMAT_COUNT ? FORMAT_NAMES[fmt] : NULL;
}

void cprof__job_in_free(cprof_job_in_t *in) {
  free(in->json);
  free(in->path);
  free(in->path_b);
  free(in->dir);
  free(in->name);
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++)
    free(in->outs[i]);
  free(in->title);
  free(in->focus);
  free(in->html_path);
  memset(in, 0, sizeof *in);
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

static int export_args(napi_env env, napi_value obj, cprof_job_in_t *in) {
  napi_value outs;
  double interval = 0, start = 0, duration = 0, top = 0, cut = 0;
  int has;
  if ((has = opt_prop(env, obj, "outs", &outs)) < 0) return -1;
  for (int i = 0; has && i < CPROF_FORMAT_COUNT; i++)
    if (opt_string(env, outs, FORMAT_NAMES[i], &in->outs[i]) != 0) return -1;
  if (opt_double(env, obj, "interval", &interval) != 0 ||
      opt_double(env, obj, "startTime", &start) != 0 ||
      opt_double(env, obj, "duration", &duration) != 0 ||
      opt_bool(env, obj, "includeCollected", &in->opts.include_collected) != 0 ||
      opt_string(env, obj, "title", &in->title) != 0 ||
      opt_string(env, obj, "htmlTemplate", &in->html_path) != 0 ||
      opt_double(env, obj, "top", &top) != 0 || opt_double(env, obj, "cut", &cut) != 0 ||
      opt_string(env, obj, "focus", &in->focus) != 0 ||
      opt_bool(env, obj, "text", &in->want_text) != 0 ||
      opt_bool(env, obj, "needSamples", &in->need_samples) != 0)
    return -1;
  in->opts.interval = interval > 0 ? (int64_t)interval : 0;
  in->opts.start_time_ms = start > 0 ? (int64_t)start : 0;
  in->opts.duration_us = duration > 0 ? (int64_t)duration : 0;
  in->opts.top = top > 0 && top < 1e6 ? (unsigned)top : 0;
  in->opts.cut_percent = cut > 0 ? cut : 0;
  in->opts.title = in->title;
  in->opts.focus = in->focus;
  return 0;
}

int cprof__job_export_args(napi_env env, napi_value obj, cprof_job_in_t *in) {
  napi_valuetype t;
  if (napi_typeof(env, obj, &t) != napi_ok) {
    cprof__job_in_free(in);
    cprof__throw_last_error(env, "napi_typeof");
    return -1;
  }
  if (t == napi_undefined || t == napi_null) return 0;
  if (t != napi_object) {
    cprof__job_in_free(in);
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", "export options must be an object");
    return -1;
  }
  if (export_args(env, obj, in) != 0) {
    cprof__job_in_free(in);
    return -1;
  }
  return 0;
}

int cprof__job_args(napi_env env, napi_value *argv, cprof_job_in_t *in) {
  double top;
  if (cprof__arg_string(env, argv[0], "dir", &in->dir) != 0 ||
      cprof__arg_string(env, argv[1], "name", &in->name) != 0 ||
      cprof__arg_double(env, argv[2], "top", &top) != 0) {
    cprof__job_in_free(in);
    return -1;
  }
  in->top = top > 0 ? (unsigned)top : 0;
  return 0;
}

static void job_free(job_t *job) {
  cprof__job_in_free(&job->in);
  cprof_profile_free(job->profile);
  cprof_profile_free(job->profile_b);
  cprof_flat_free(&job->flat);
  free(job->top);
  free(job->file);
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++)
    free(job->out_paths[i]);
  free(job->text);
  free(job->html_template);
  free(job);
}

/* Reads a whole file: the CLI and analyze() path. */
static int read_file(job_t *job, const char *path, char **out, size_t *len) {
  FILE *f = fopen(path, "rb");
  struct stat st;
  long n;
  char *buf;
  if (f && fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
    fclose(f);
    snprintf(job->errbuf, sizeof job->errbuf, "cannot read %s: %s", path,
             S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
    return CPROF_EIO;
  }
  if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    snprintf(job->errbuf, sizeof job->errbuf, "cannot read %s: %s", path, strerror(errno));
    if (f) fclose(f);
    return CPROF_EIO;
  }
  buf = malloc((size_t)n + 1);
  *len = buf ? fread(buf, 1, (size_t)n, f) : 0;
  int bad = !buf || ferror(f);
  fclose(f);
  if (bad) {
    snprintf(job->errbuf, sizeof job->errbuf, "cannot read %s: %s", path,
             buf ? strerror(errno) : "out of memory");
    free(buf);
    return buf ? CPROF_EIO : CPROF_ENOMEM;
  }
  buf[*len] = '\0';
  *out = buf;
  return CPROF_OK;
}

/* Reads (if path) and parses; a file's errors name the file. */
static int load(job_t *job, const char *path, char **json, size_t *len, cprof_profile_t **out) {
  int rc;
  if (path && (rc = read_file(job, path, json, len)) != CPROF_OK) return rc;
  rc = cprof_profile_parse(*json, *len, out, job->errbuf, sizeof job->errbuf);
  free(*json); /* never hold the profile twice */
  *json = NULL;
  if (rc != CPROF_OK && path) {
    char msg[sizeof job->errbuf];
    snprintf(msg, sizeof msg, "%s: %.700s", path,
             job->errbuf[0] ? job->errbuf : cprof_strerror(rc));
    memcpy(job->errbuf, msg, sizeof msg);
    return rc;
  }
  if (rc == CPROF_OK && job->in.need_samples && (*out)->nsamples == 0) {
    snprintf(job->errbuf, sizeof job->errbuf,
             "%s: empty profile: it holds no samples, so there is nothing to show",
             path ? path : "the profile");
    return CPROF_ESCHEMA;
  }
  return rc;
}

static char *join_path(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/%s", dir, name);
  return s;
}

/* The HTML viewer's page, read here on the worker thread. */
static int read_html_template(job_t *job) {
  size_t len = 0;
  if (!job->in.outs[CPROF_FORMAT_HTML] || !job->in.html_path) return CPROF_OK;
  int rc = read_file(job, job->in.html_path, &job->html_template, &len);
  job->in.opts.html_template = job->html_template;
  job->in.opts.html_template_len = len;
  return rc;
}

static int write_formats(job_t *job) {
  int rc = read_html_template(job);
  if (rc != CPROF_OK) return rc;
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++) {
    if (!job->in.outs[i]) continue;
    if (job->profile_b && i == CPROF_FORMAT_SVG)
      rc = cprof_write_diff_svg(job->in.dir, job->in.outs[i], job->profile, job->profile_b,
                                &job->in.opts, &job->out_sizes[i], job->errbuf, sizeof job->errbuf);
    else if (job->profile_b && i == CPROF_FORMAT_HTML)
      rc =
          cprof_write_diff_html(job->in.dir, job->in.outs[i], job->profile, job->profile_b,
                                &job->in.opts, &job->out_sizes[i], job->errbuf, sizeof job->errbuf);
    else if (job->profile_b)
      continue; /* a diff writes only its graph */
    else
      rc = cprof_write_format(job->in.dir, job->in.outs[i], (cprof_format_t)i, job->profile,
                              &job->in.opts, &job->out_sizes[i], job->errbuf, sizeof job->errbuf);
    if (rc != CPROF_OK) return rc;
    if (!(job->out_paths[i] = join_path(job->in.dir, job->in.outs[i]))) return CPROF_ENOMEM;
  }
  return CPROF_OK;
}

/* The text report, or a diff's table, into job->text. */
static int render_text(job_t *job) {
  FILE *f = open_memstream(&job->text, &job->text_len);
  int rc;
  if (!f) return CPROF_ENOMEM;
  if (job->profile_b)
    rc = cprof_diff_text(job->profile, job->profile_b, &job->in.opts, f);
  else
    rc = cprof_report_text(job->profile, &job->in.opts, f);
  if (fclose(f) != 0 && rc == CPROF_OK) rc = CPROF_ENOMEM;
  if (rc != CPROF_OK) {
    snprintf(job->errbuf, sizeof job->errbuf, "cannot render the report: %s", cprof_strerror(rc));
    free(job->text);
    job->text = NULL;
  }
  return rc;
}

typedef struct {
  const char *text;
  size_t len;
} span_t;

static int write_span(void *ctx, FILE *f) {
  const span_t *s = ctx;
  return fwrite(s->text, 1, s->len, f) == s->len ? CPROF_OK : CPROF_EIO;
}

/* The CPU reply's profile text, written as V8 made it (positionTicks and
 * all) before the parse: the file is on disk as soon as it can be. 0 with
 * *done = 0 when the reply is not of that shape: write_output then exports
 * the parsed model. */
static int write_raw(job_t *job, int *done) {
  span_t s;
  size_t off;
  *done = 0;
  if (!cprof_reply_profile_span(job->in.json, job->in.len, &off, &s.len)) return CPROF_OK;
  s.text = job->in.json + off;
  int rc = cprof_mkdirp(job->in.dir, 0700, job->errbuf, sizeof job->errbuf);
  if (rc == CPROF_OK)
    rc = cprof_write_atomic_fn(job->in.dir, job->in.name, write_span, &s, &job->size, job->errbuf,
                               sizeof job->errbuf);
  if (rc == CPROF_OK && !(job->file = join_path(job->in.dir, job->in.name))) rc = CPROF_ENOMEM;
  *done = rc == CPROF_OK;
  return rc;
}

static int write_output(job_t *job) {
  int rc = cprof_mkdirp(job->in.dir, 0700, job->errbuf, sizeof job->errbuf);
  if (rc != CPROF_OK || !job->in.name) return rc;
  cprof_exporter_fn fn =
      job->profile->kind == CPROF_KIND_HEAP ? cprof_export_heapprofile : cprof_export_cpuprofile;
  rc = cprof_write_atomic(job->in.dir, job->in.name, fn, job->profile, &job->size, job->errbuf,
                          sizeof job->errbuf);
  if (rc != CPROF_OK) return rc;
  if (!(job->file = join_path(job->in.dir, job->in.name))) return CPROF_ENOMEM;
  return CPROF_OK;
}

static int run(job_t *job) {
  int raw = 0, wrc = CPROF_OK;
  char werr[sizeof job->errbuf] = "";
  if (job->in.raw_reply && job->in.json && job->in.dir && job->in.name) wrc = write_raw(job, &raw);
  /* After a failed write the parse still runs: err.result keeps the summary.
   * The parse clears errbuf: keep the write's message (it names the errno). */
  if (wrc != CPROF_OK) memcpy(werr, job->errbuf, sizeof werr);
  int rc = load(job, job->in.path, &job->in.json, &job->in.len, &job->profile);
  if (rc != CPROF_OK) return rc;
  if (job->in.path_b) {
    char *json = NULL;
    size_t len = 0;
    if ((rc = load(job, job->in.path_b, &json, &len, &job->profile_b)) != CPROF_OK) return rc;
    if (job->profile->kind != job->profile_b->kind) {
      snprintf(job->errbuf, sizeof job->errbuf,
               "cannot diff a %s profile (%s) with a %s profile (%s)",
               job->profile->kind == CPROF_KIND_CPU ? "CPU" : "heap", job->in.path,
               job->profile_b->kind == CPROF_KIND_CPU ? "CPU" : "heap", job->in.path_b);
      return CPROF_EINVAL;
    }
  }
  if (job->in.max_depth &&
      (rc = cprof_profile_limit_depth(job->profile, job->in.max_depth)) != CPROF_OK)
    return rc;
  if (job->in.focus && cprof_report_matches(job->profile, job->in.focus) == 0) {
    snprintf(job->errbuf, sizeof job->errbuf,
             "%s: no function named \"%s\" (or with it in its name)",
             job->in.path ? job->in.path : "the profile", job->in.focus);
    return CPROF_EINVAL;
  }
  if ((rc = cprof_flat_build(job->profile, &job->flat)) != CPROF_OK) return rc;
  if (!(job->top = calloc(job->in.top ? job->in.top : 1, sizeof *job->top))) return CPROF_ENOMEM;
  job->ntop = cprof_flat_top(&job->flat, job->profile, CPROF_TOP_SKIP_ROOT | CPROF_TOP_SKIP_IDLE,
                             job->top, job->in.top);
  if (job->in.want_text && (rc = render_text(job)) != CPROF_OK) return rc;
  if (!job->in.dir) return CPROF_OK;
  if (wrc != CPROF_OK) {
    memcpy(job->errbuf, werr, sizeof werr);
    return wrc;
  }
  if (!raw && (rc = write_output(job)) != CPROF_OK) return rc;
  return write_formats(job);
}

static void execute_cb(napi_env env, void *data) {
  (void)env;
  job_t *job = data;
  job->err = run(job);
#ifdef __GLIBC__
  /* glibc keeps what a thread frees in that thread's arena: without this,
   * each libuv thread that ran a job holds its profile's text and model
   * (MBs) as free-but-resident memory for the life of the app. */
  malloc_trim(0);
#endif
}

/* ---- building the JS result on the main thread ---- */

static int set_num(napi_env env, napi_value obj, const char *key, double v) {
  napi_value n;
  NAPI_CALL_INT(env, napi_create_double(env, v, &n));
  NAPI_CALL_INT(env, napi_set_named_property(env, obj, key, n));
  return 0;
}

static int set_str(napi_env env, napi_value obj, const char *key, const char *v) {
  napi_value s;
  NAPI_CALL_INT(env, napi_create_string_utf8(env, v, NAPI_AUTO_LENGTH, &s));
  NAPI_CALL_INT(env, napi_set_named_property(env, obj, key, s));
  return 0;
}

/* Profile values in the unit users read: ms for CPU (µs inside), bytes. */
static double unit_value(const job_t *job, int64_t v) {
  return job->profile->kind == CPROF_KIND_CPU ? (double)v / 1000.0 : (double)v;
}

static double percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static napi_value make_func(napi_env env, const job_t *job, const cprof_func_t *fn) {
  const cprof_frame_t *fr = &job->profile->frames[fn->frame];
  int64_t total = job->flat.total;
  napi_value o;
  NAPI_CALL(env, napi_create_object(env, &o));
  if (set_str(env, o, "functionName", fr->name) || set_str(env, o, "url", fr->url) ||
      set_num(env, o, "line", fr->line >= 0 ? fr->line + 1 : 0) ||
      set_num(env, o, "column", fr->column >= 0 ? fr->column + 1 : 0) ||
      set_num(env, o, "self", unit_value(job, fn->self)) ||
      set_num(env, o, "selfPercent", percent(fn->self, total)) ||
      set_num(env, o, "total", unit_value(job, fn->total)) ||
      set_num(env, o, "totalPercent", percent(fn->total, total)))
    return NULL;
  return o;
}

static int set_special(napi_env env, const job_t *job, napi_value summary, const char *key,
                       const char *frame_name) {
  int64_t self = cprof_flat_special(&job->flat, job->profile, frame_name);
  napi_value o;
  NAPI_CALL_INT(env, napi_create_object(env, &o));
  if (set_num(env, o, "self", unit_value(job, self)) ||
      set_num(env, o, "percent", percent(self, job->flat.total)))
    return -1;
  NAPI_CALL_INT(env, napi_set_named_property(env, summary, key, o));
  return 0;
}

static napi_value make_summary(napi_env env, const job_t *job) {
  napi_value s, top, item;
  int cpu = job->profile->kind == CPROF_KIND_CPU;
  NAPI_CALL(env, napi_create_object(env, &s));
  if (set_str(env, s, "unit", cpu ? "ms" : "bytes") ||
      set_num(env, s, "total", unit_value(job, job->flat.total)))
    return NULL;
  NAPI_CALL(env, napi_create_array_with_length(env, job->ntop, &top));
  for (size_t i = 0; i < job->ntop; i++) {
    if (!(item = make_func(env, job, &job->top[i]))) return NULL;
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
static napi_value make_nodes(napi_env env, const job_t *job) {
  const cprof_profile_t *p = job->profile;
  napi_value arr, o;
  NAPI_CALL(env, napi_create_array_with_length(env, p->nnodes, &arr));
  for (uint32_t i = 0; i < p->nnodes; i++) {
    NAPI_CALL(env, napi_create_object(env, &o));
    if (set_num(env, o, "id", p->nodes[i].id) ||
        set_num(env, o, "self", unit_value(job, p->nodes[i].self)) ||
        set_num(env, o, "total", unit_value(job, p->nodes[i].total)))
      return NULL;
    NAPI_CALL(env, napi_set_element(env, arr, i, o));
  }
  return arr;
}

/* outputs: { <format>: { path, size } } for every derived file written. */
static int make_outputs(napi_env env, const job_t *job, napi_value r) {
  napi_value outs, o;
  int any = 0;
  NAPI_CALL_INT(env, napi_create_object(env, &outs));
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++) {
    if (!job->out_paths[i]) continue;
    NAPI_CALL_INT(env, napi_create_object(env, &o));
    if (set_str(env, o, "path", job->out_paths[i]) ||
        set_num(env, o, "size", (double)job->out_sizes[i]))
      return -1;
    NAPI_CALL_INT(env, napi_set_named_property(env, outs, FORMAT_NAMES[i], o));
    any = 1;
  }
  if (any) NAPI_CALL_INT(env, napi_set_named_property(env, r, "outputs", outs));
  return 0;
}

static napi_value make_result(napi_env env, const job_t *job) {
  const cprof_profile_t *p = job->profile;
  napi_value r, summary, nodes, file;
  NAPI_CALL(env, napi_create_object(env, &r));
  if (set_str(env, r, "kind", p->kind == CPROF_KIND_CPU ? "cpu" : "heap") ||
      set_num(env, r, "samples", p->nsamples))
    return NULL;
  if (p->kind == CPROF_KIND_CPU &&
      set_num(env, r, "durationMs", (double)(p->end_time - p->start_time) / 1000.0))
    return NULL;
  if (!(summary = make_summary(env, job))) return NULL;
  NAPI_CALL(env, napi_set_named_property(env, r, "summary", summary));
  if (job->in.want_nodes) {
    if (!(nodes = make_nodes(env, job))) return NULL;
    NAPI_CALL(env, napi_set_named_property(env, r, "nodes", nodes));
  }
  if (job->file) {
    NAPI_CALL(env, napi_create_object(env, &file));
    if (set_str(env, file, "path", job->file) || set_num(env, file, "size", (double)job->size))
      return NULL;
    NAPI_CALL(env, napi_set_named_property(env, r, "file", file));
  }
  if (make_outputs(env, job, r) != 0) return NULL;
  if (job->text) {
    napi_value text;
    NAPI_CALL(env, napi_create_string_utf8(env, job->text, job->text_len, &text));
    NAPI_CALL(env, napi_set_named_property(env, r, "text", text));
  }
  return r;
}

static napi_value make_failure(napi_env env, const job_t *job) {
  const char *msg = job->errbuf[0] ? job->errbuf : cprof_strerror(job->err);
  napi_value err = cprof__make_error(env, cprof__js_code(job->err), msg), partial;
  /* Nothing the profile said is lost when only the write failed. */
  if (err && job->err == CPROF_EIO && job->profile && (partial = make_result(env, job)))
    napi_set_named_property(env, err, "result", partial);
  return err;
}

static void complete_cb(napi_env env, napi_status status, void *data) {
  job_t *job = data;
  napi_value value = NULL, exc;
  if (status == napi_ok && env) {
    value = job->err == CPROF_OK ? make_result(env, job) : make_failure(env, job);
    if (!value) { /* building the value threw: reject with that */
      if (napi_get_and_clear_last_exception(env, &exc) == napi_ok) value = exc;
      job->err = job->err ? job->err : CPROF_ENOMEM;
    }
    if (value)
      (job->err == CPROF_OK ? napi_resolve_deferred : napi_reject_deferred)(env, job->deferred,
                                                                            value);
  }
  napi_delete_async_work(env, job->work);
  job_free(job);
}

napi_value cprof__job_queue(napi_env env, cprof_job_in_t *in) {
  job_t *job = calloc(1, sizeof *job);
  napi_value promise, name;
  if (!job) {
    cprof__job_in_free(in);
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory queueing the profile job");
    return NULL;
  }
  job->in = *in;
  memset(in, 0, sizeof *in);
  if (napi_create_string_utf8(env, "cprof:job", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_promise(env, &job->deferred, &promise) != napi_ok ||
      napi_create_async_work(env, NULL, name, execute_cb, complete_cb, job, &job->work) !=
          napi_ok ||
      napi_queue_async_work(env, job->work) != napi_ok) {
    /* A created deferred that is never settled is collected with the promise. */
    if (job->work) napi_delete_async_work(env, job->work);
    job_free(job);
    cprof__throw_last_error(env, "queueing the profile job");
    return NULL;
  }
  return promise;
}

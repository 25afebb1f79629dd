/* A job's life (see job.h): queued on the main thread, run on a libuv
 * worker thread (its kind's loader, then the shared tail: aggregate, render,
 * write), settled on the main thread with the value job_result.c builds. */
#include "job_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/cprof.h"
#include "errors.h"
#include "job_args.h"
#include "job_merge.h"
#include "job_result.h"
#include "job_state.h"
#include "macros.h"
#include "trim.h"
#include "v8cpu.h"
#include "sourcemaps.h"

static void job_free(job_t *job) {
  cprof__job_in_free(&job->in);
  if (job->profile) cprof_sourcemap_release(job->profile, job->sm);
  if (job->profile_b) cprof_sourcemap_release(job->profile_b, job->sm_b);
  cprof_profile_free(job->profile);
  cprof_profile_free(job->profile_b);
  cprof_flat_free(&job->flat);
  cprof_lines_free(&job->lines);
  free(job->top);
  free(job->file);
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++)
    free(job->out_paths[i]);
  free(job->text);
  free(job->html_template);
  free(job);
}

/* The job's error message (the code is run's return value). */
#define ERRBUF(job) (job)->err.msg, sizeof(job)->err.msg

/* Reads a whole file: the CLI and analyze() path. A profile file's owner
 * (profile set) goes to job->owners. */
static int read_file(job_t *job, const char *path, int profile, char **out, size_t *len) {
  FILE *f = fopen(path, "rb");
  struct stat st;
  long n;
  char *buf;
  int have_st = f && fstat(fileno(f), &st) == 0;
  if (have_st && !S_ISREG(st.st_mode)) {
    fclose(f);
    snprintf(ERRBUF(job), "cannot read %s: %s", path,
             S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
    return CPROF_EIO;
  }
  if (!f || !have_st || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0) {
    snprintf(ERRBUF(job), "cannot read %s: %s", path, strerror(errno));
    if (f) fclose(f);
    return CPROF_EIO;
  }
  if (profile) { /* whose profile it is: the line views show what they could read */
    cprof_source_owners_add(&job->owners, (uint32_t)st.st_uid, (uint32_t)st.st_gid);
    job->in.opts.source_owners = &job->owners;
  }
  buf = malloc((size_t)n + 1);
  *len = buf ? fread(buf, 1, (size_t)n, f) : 0;
  int bad = !buf || ferror(f);
  fclose(f);
  if (bad) {
    snprintf(ERRBUF(job), "cannot read %s: %s", path, buf ? strerror(errno) : "out of memory");
    free(buf);
    return buf ? CPROF_EIO : CPROF_ENOMEM;
  }
  buf[*len] = '\0';
  *out = buf;
  return CPROF_OK;
}

/* Reads (if path) and parses; a file's errors name the file. need: a
 * profile without samples is an error. */
static int load(job_t *job, const char *path, char **json, size_t *len, int need,
                cprof_profile_t **out) {
  int rc;
  if (path && (rc = read_file(job, path, 1, json, len)) != CPROF_OK) return rc;
  rc = cprof_profile_parse(*json, *len, out, ERRBUF(job));
  free(*json); /* never hold the profile twice */
  *json = NULL;
  if (rc != CPROF_OK && path) {
    char msg[sizeof job->err.msg];
    snprintf(msg, sizeof msg, "%s: %.700s", path,
             job->err.msg[0] ? job->err.msg : cprof_strerror(rc));
    memcpy(job->err.msg, msg, sizeof msg);
    return rc;
  }
  if (rc == CPROF_OK && need && (*out)->nsamples == 0) {
    snprintf(ERRBUF(job), "%s: empty profile: it holds no samples, so there is nothing to show",
             path ? path : "the profile");
    return CPROF_ESCHEMA;
  }
  return rc;
}

/* ---- writing ---- */

/* The HTML viewer's page, read here on the worker thread. */
static int read_html_template(job_t *job) {
  size_t len = 0;
  if (!job->in.out.outs[CPROF_FORMAT_HTML] || !job->in.out.html_path) return CPROF_OK;
  int rc = read_file(job, job->in.out.html_path, 0, &job->html_template, &len);
  job->in.opts.html_template = job->html_template;
  job->in.opts.html_template_len = len;
  return rc;
}

/* One derived output; a diff writes only its graph and its page. */
static int write_format(job_t *job, int i) {
  const char *dir = job->in.out.dir, *name = job->in.out.outs[i];
  long long *size = &job->out_sizes[i];
  if (!job->profile_b)
    return cprof_write_format(dir, name, (cprof_format_t)i, job->profile, &job->in.opts, size,
                              ERRBUF(job));
  if (i == CPROF_FORMAT_SVG)
    return cprof_write_diff_svg(dir, name, job->profile, job->profile_b, &job->in.opts, size,
                                ERRBUF(job));
  if (i == CPROF_FORMAT_HTML)
    return cprof_write_diff_html(dir, name, job->profile, job->profile_b, &job->in.opts, size,
                                 ERRBUF(job));
  return CPROF_OK;
}

static int write_formats(job_t *job) {
  int rc = read_html_template(job);
  if (rc != CPROF_OK) return rc;
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++) {
    if (!job->in.out.outs[i] || (job->profile_b && i != CPROF_FORMAT_SVG && i != CPROF_FORMAT_HTML))
      continue;
    if ((rc = write_format(job, i)) != CPROF_OK) return rc;
    if (!(job->out_paths[i] = cprof_path_join(job->in.out.dir, job->in.out.outs[i])))
      return CPROF_ENOMEM;
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
    snprintf(ERRBUF(job), "cannot render the report: %s", cprof_strerror(rc));
    free(job->text);
    job->text = NULL;
  }
  return rc;
}

typedef struct {
  const char *text;
  size_t len;
  uint32_t drop; /* leading samples to leave out (cprof's own start) */
} span_t;

static int write_span(void *ctx, FILE *f) {
  const span_t *s = ctx;
  return cprof_write_text_drop_leading(s->text, s->len, s->drop, f);
}

/* Creates the output directory, or checks the one that is there: see
 * cprof_dir_prepare for the rules. */
static int prepare_dir(job_t *job, cprof_job_err_t *e) {
  return cprof_dir_prepare(job->in.out.dir, job->in.out.own_dir ? CPROF_DIR_OWN : 0, e->msg,
                           sizeof e->msg);
}

/* The CPU reply's profile text, written as V8 made it (positionTicks and
 * all) but for the drop leading samples: the file is on disk as soon as it
 * can be. Nothing when the reply is not of that shape: the tail then
 * exports the parsed model. A failure goes to write_err, reported after
 * the parse (the shared tail). */
static void write_raw(job_t *job, uint32_t drop) {
  const cprof_job_src_t *src = &job->in.src;
  cprof_job_err_t *e = &job->write_err;
  span_t s = {NULL, 0, drop};
  size_t off;
  if (!job->in.out.dir || !job->in.out.name) return;
  if (src->v8_text) { /* the profile itself, repaired or as V8 made it */
    off = 0;
    s.len = src->len;
  } else if (!cprof_reply_profile_span(src->json, src->len, &off, &s.len)) {
    return;
  }
  s.text = src->json + off;
  int rc = prepare_dir(job, e);
  if (rc == CPROF_OK)
    rc = cprof_write_atomic_fn(job->in.out.dir, job->in.out.name, write_span, &s, &job->size,
                               e->msg, sizeof e->msg);
  if (rc == CPROF_OK && !(job->file = cprof_path_join(job->in.out.dir, job->in.out.name)))
    rc = CPROF_ENOMEM;
  job->raw = rc == CPROF_OK;
  e->code = rc;
}

/* The profile in its own V8 format, as a cprof_write_fn. */
static int write_model(void *ctx, FILE *f) {
  const cprof_profile_t *p = ctx;
  return p->kind == CPROF_KIND_HEAP ? cprof_export_heapprofile(p, f)
                                    : cprof_export_cpuprofile(p, f);
}

static int write_output(job_t *job) {
  int rc = prepare_dir(job, &job->err);
  if (rc != CPROF_OK || !job->in.out.name) return rc;
  if (job->sm) cprof_sourcemap_swap(job->profile, job->sm); /* V8's own positions */
  /* keepExisting (the CLI's overwrite rule, e.g. cprof merge without -o):
   * never replace a file that appeared since the CLI checked. */
  rc = (job->in.opts.keep_existing ? cprof_write_new_fn : cprof_write_atomic_fn)(
      job->in.out.dir, job->in.out.name, write_model, job->profile, &job->size, ERRBUF(job));
  if (job->sm) cprof_sourcemap_swap(job->profile, job->sm);
  if (rc != CPROF_OK) return rc;
  if (!(job->file = cprof_path_join(job->in.out.dir, job->in.out.name))) return CPROF_ENOMEM;
  return CPROF_OK;
}

/* ---- the loaders, one per kind: each gives job->profile (a diff also
 * job->profile_b) ---- */

/* v8.startCpuProfile's text with its raw names escaped (v8cpu.h). A text
 * the repair refuses stays as V8 made it: it is written so, and its parse
 * fails (v8_failed tells the message). */
static void repair_v8(job_t *job) {
  cprof_job_src_t *src = &job->in.src;
  char *fixed;
  size_t len;
  if (cprof_cpu_text_repair(src->json, src->len, &fixed, &len, NULL) != CPROF_OK) {
    job->v8_failed = 1;
    return;
  }
  free(src->json);
  src->json = fixed;
  src->len = len;
}

/* A v8 text that does not parse: the inspector from now on, and the message
 * says where V8's text is. */
static int v8_fallback(job_t *job, int rc) {
  char msg[sizeof job->err.msg];
  cprof__v8cpu_disable();
  snprintf(msg, sizeof msg,
           "%.500s (v8.startCpuProfile's text%s; it is kept as written%s%s); later CPU profiles of "
           "this process go through the inspector",
           job->err.msg[0] ? job->err.msg : cprof_strerror(rc),
           job->v8_failed ? " could not be repaired" : " still did not parse after its repair",
           job->file ? " in " : "", job->file ? job->file : "");
  memcpy(job->err.msg, msg, sizeof msg);
  return rc;
}

/* The CPU reply with cprof's own start call dropped: which leading samples
 * are its own is in the tree, so the parse comes first, then V8's text is
 * written without them (even when the parse failed, as V8 made it: the
 * parse's message stays the job's), then the text goes. */
static int load_own(job_t *job) {
  cprof_job_src_t *src = &job->in.src;
  int rc = cprof_profile_parse(src->json, src->len, &job->profile, ERRBUF(job));
  uint32_t k = rc == CPROF_OK ? cprof_profile_leading_own(job->profile, job->in.own_url) : 0;
  if (k > 0) rc = cprof_profile_drop_leading(job->profile, k);
  write_raw(job, rc == CPROF_OK ? k : 0);
  free(src->json); /* never hold the profile twice */
  src->json = NULL;
  return rc;
}

/* STOP_CPU: V8's text is written first, then parsed (after a failed write
 * the parse still runs: err.result keeps the summary). */
static int load_stop_cpu(job_t *job) {
  cprof_job_src_t *src = &job->in.src;
  int rc;
  if (src->v8_text) repair_v8(job);
  if (job->in.own_url) {
    rc = load_own(job);
  } else {
    write_raw(job, 0);
    rc = load(job, NULL, &src->json, &src->len, job->in.want.need_samples, &job->profile);
  }
  return rc != CPROF_OK && src->v8_text ? v8_fallback(job, rc) : rc;
}

static int load_stop_heap(job_t *job) {
  cprof_job_src_t *src = &job->in.src;
  return load(job, NULL, &src->json, &src->len, job->in.want.need_samples, &job->profile);
}

static int load_file(job_t *job) {
  char *json = NULL;
  size_t len = 0;
  return load(job, job->in.src.path, &json, &len, job->in.want.need_samples, &job->profile);
}

static int load_diff(job_t *job) {
  const cprof_job_src_t *src = &job->in.src;
  char *json = NULL;
  size_t len = 0;
  int rc = load_file(job);
  if (rc != CPROF_OK || (rc = load(job, src->path_b, &json, &len, job->in.want.need_samples,
                                   &job->profile_b)) != CPROF_OK)
    return rc;
  if (job->profile->kind != job->profile_b->kind) {
    snprintf(ERRBUF(job), "cannot diff a %s profile (%s) with a %s profile (%s)",
             job->profile->kind == CPROF_KIND_CPU ? "CPU" : "heap", src->path,
             job->profile_b->kind == CPROF_KIND_CPU ? "CPU" : "heap", src->path_b);
    return CPROF_EINVAL;
  }
  return CPROF_OK;
}

/* A merge's file loader: each file alone may be empty (a quiet window);
 * the merged profile is what must hold samples. */
static int load_one(void *ctx, const char *path, cprof_profile_t **out) {
  char *json = NULL;
  size_t len = 0;
  return load(ctx, path, &json, &len, 0, out);
}

static int load_merge(job_t *job) {
  const cprof_job_src_t *src = &job->in.src;
  return cprof__job_merge_files(src->paths, src->npaths, job->in.want.need_samples, load_one, job,
                                &job->profile, ERRBUF(job));
}

static int load_produce(job_t *job) {
  const cprof_job_src_t *src = &job->in.src;
  return src->produce(src->produce_ctx, &job->profile, ERRBUF(job));
}

static int (*const LOADERS[CPROF_JOB_KINDS])(job_t *job) = {
    [CPROF_JOB_STOP_CPU] = load_stop_cpu, [CPROF_JOB_STOP_HEAP] = load_stop_heap,
    [CPROF_JOB_FILE] = load_file,         [CPROF_JOB_DIFF] = load_diff,
    [CPROF_JOB_MERGE] = load_merge,       [CPROF_JOB_PRODUCE] = load_produce,
};

/* ---- the shared tail: the profile shaped, summarised, rendered, written ---- */

/* Every derived output (summary, pprof, folded, SVG, text) names the
 * original sources; the .cpuprofile/.heapprofile keep V8's frames. */
static int map_frames(job_t *job) {
  cprof_sm_stats_t b;
  int rc = cprof__map_frames(job->profile, job->in.opts.source_owners, &job->sm, &job->sm_stats);
  if (rc == CPROF_OK && job->profile_b &&
      (rc = cprof__map_frames(job->profile_b, job->in.opts.source_owners, &job->sm_b, &b)) ==
          CPROF_OK)
    cprof__add_sm_stats(&job->sm_stats, &b);
  /* The line views show an original file that is not on disk from its map. */
  if (rc == CPROF_OK) job->in.opts.source_texts = cprof_sourcemap_texts(job->sm);
  if (rc != CPROF_OK) snprintf(ERRBUF(job), "out of memory mapping frames through source maps");
  return rc;
}

/* The summary's top functions' self time per line. CPU only: heap
 * profiles have no positionTicks, and their functions get no lines. */
static int top_lines(job_t *job) {
  if (job->profile->kind != CPROF_KIND_CPU) return CPROF_OK;
  unsigned char *want = calloc(job->flat.nfuncs ? job->flat.nfuncs : 1, 1);
  if (!want) return CPROF_ENOMEM;
  for (size_t i = 0; i < job->ntop; i++)
    want[job->flat.func_of[job->top[i].frame]] = 1;
  int rc = cprof_lines_build(job->profile, &job->flat, want, &job->lines);
  free(want);
  return rc;
}

/* Depth limit, source maps, the focus checked. */
static int shape(job_t *job) {
  const cprof_job_in_t *in = &job->in;
  int rc;
  if (in->want.max_depth &&
      (rc = cprof_profile_limit_depth(job->profile, in->want.max_depth)) != CPROF_OK)
    return rc;
  if (in->want.source_maps && (rc = map_frames(job)) != CPROF_OK) return rc;
  /* Not mapped: the line views say which scripts have a map. */
  job->in.opts.source_map_hint = !in->want.source_maps;
  if (in->focus && cprof_report_matches(job->profile, in->focus) == 0) {
    snprintf(ERRBUF(job), "%s: no function named \"%s\" (or with it in its name)",
             in->src.path ? in->src.path : "the profile", in->focus);
    return CPROF_EINVAL;
  }
  return CPROF_OK;
}

/* The flat profile, its top functions (and their lines), the text report. */
static int summarise(job_t *job) {
  const cprof_job_want_t *want = &job->in.want;
  int rc;
  if ((rc = cprof_flat_build(job->profile, &job->flat)) != CPROF_OK) return rc;
  if (!(job->top = calloc(want->top ? want->top : 1, sizeof *job->top))) return CPROF_ENOMEM;
  job->ntop = cprof_flat_top(&job->flat, job->profile, CPROF_TOP_SKIP_ROOT | CPROF_TOP_SKIP_IDLE,
                             job->top, want->top);
  if (want->lines && (rc = top_lines(job)) != CPROF_OK) return rc;
  if (want->text && (rc = render_text(job)) != CPROF_OK) return rc;
  return CPROF_OK;
}

static int run(job_t *job) {
  int rc = LOADERS[job->in.kind](job);
  if (rc != CPROF_OK || (rc = shape(job)) != CPROF_OK || (rc = summarise(job)) != CPROF_OK)
    return rc;
  if (!job->in.out.dir) return CPROF_OK;
  if (job->write_err.code != CPROF_OK) { /* the summary is made: now the write's failure */
    job->err = job->write_err;
    return job->write_err.code;
  }
  if (!job->raw && (rc = write_output(job)) != CPROF_OK) return rc;
  rc =
      cprof_labels_apply(job->in.labels, job->profile, job->in.out.dir, &job->in.opts, ERRBUF(job));
  return rc == CPROF_OK ? write_formats(job) : rc;
}

static void execute_cb(napi_env env, void *data) {
  (void)env;
  job_t *job = data;
  job->err.code = run(job);
}

static void complete_cb(napi_env env, napi_status status, void *data) {
  job_t *job = data;
  napi_value value = NULL, exc;
  if (status == napi_ok && env) {
    int ok = job->err.code == CPROF_OK;
    value = ok ? cprof__job_result(env, job) : cprof__job_failure(env, job);
    if (!value) { /* building the value threw: reject with that */
      if (napi_get_and_clear_last_exception(env, &exc) == napi_ok) value = exc;
      ok = 0;
    }
    if (value) (ok ? napi_resolve_deferred : napi_reject_deferred)(env, job->deferred, value);
  }
  napi_delete_async_work(env, job->work);
  job_free(job);
  /* Freed memory goes back to the OS after the promise is settled, not
   * before: the trim walks every arena (trim.h). */
  if (env) cprof__trim_soon(env);
}

napi_value cprof__job_queue(napi_env env, cprof_job_in_t *in) {
  job_t *job = (unsigned)in->kind < CPROF_JOB_KINDS ? calloc(1, sizeof *job) : NULL;
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

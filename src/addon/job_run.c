/* A job's life (see job.h): queued on the main thread, run on a libuv
 * worker thread (read, parse, aggregate, write), settled on the main
 * thread with the value job_result.c builds. */
#include "job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/cprof.h"
#include "errors.h"
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

/* A merge's loader: each file alone may be empty (a quiet window); the
 * merged profile is what must hold samples. */
static int load_one(void *ctx, const char *path, cprof_profile_t **out) {
  job_t *job = ctx;
  char *json = NULL;
  size_t len = 0;
  int need = job->in.need_samples;
  job->in.need_samples = 0;
  int rc = load(job, path, &json, &len, out);
  job->in.need_samples = need;
  return rc;
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
    if (!(job->out_paths[i] = cprof_path_join(job->in.dir, job->in.outs[i]))) return CPROF_ENOMEM;
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
  uint32_t drop; /* leading samples to leave out (cprof's own start) */
} span_t;

static int write_span(void *ctx, FILE *f) {
  const span_t *s = ctx;
  return cprof_write_text_drop_leading(s->text, s->len, s->drop, f);
}

/* Creates the output directory, or checks the one that is there: see
 * cprof_dir_prepare for the rules. */
static int prepare_dir(job_t *job) {
  return cprof_dir_prepare(job->in.dir, job->in.own_dir ? CPROF_DIR_OWN : 0, job->errbuf,
                           sizeof job->errbuf);
}

/* The CPU reply's profile text, written as V8 made it (positionTicks and
 * all) but for the drop leading samples: the file is on disk as soon as it
 * can be. 0 with *done = 0 when the reply is not of that shape: write_output
 * then exports the parsed model. */
static int write_raw(job_t *job, uint32_t drop, int *done) {
  span_t s = {NULL, 0, drop};
  size_t off;
  *done = 0;
  if (job->in.v8_text) { /* the profile itself, repaired or as V8 made it */
    off = 0;
    s.len = job->in.len;
  } else if (!cprof_reply_profile_span(job->in.json, job->in.len, &off, &s.len)) {
    return CPROF_OK;
  }
  s.text = job->in.json + off;
  int rc = prepare_dir(job);
  if (rc == CPROF_OK)
    rc = cprof_write_atomic_fn(job->in.dir, job->in.name, write_span, &s, &job->size, job->errbuf,
                               sizeof job->errbuf);
  if (rc == CPROF_OK && !(job->file = cprof_path_join(job->in.dir, job->in.name)))
    rc = CPROF_ENOMEM;
  *done = rc == CPROF_OK;
  return rc;
}

/* The profile in its own V8 format, as a cprof_write_fn. */
static int write_model(void *ctx, FILE *f) {
  const cprof_profile_t *p = ctx;
  return p->kind == CPROF_KIND_HEAP ? cprof_export_heapprofile(p, f)
                                    : cprof_export_cpuprofile(p, f);
}

static int write_output(job_t *job) {
  int rc = prepare_dir(job);
  if (rc != CPROF_OK || !job->in.name) return rc;
  if (job->sm) cprof_sourcemap_swap(job->profile, job->sm); /* V8's own positions */
  /* keepExisting (the CLI's overwrite rule, e.g. cprof merge without -o):
   * never replace a file that appeared since the CLI checked. */
  rc = (job->in.opts.keep_existing ? cprof_write_new_fn : cprof_write_atomic_fn)(
      job->in.dir, job->in.name, write_model, job->profile, &job->size, job->errbuf,
      sizeof job->errbuf);
  if (job->sm) cprof_sourcemap_swap(job->profile, job->sm);
  if (rc != CPROF_OK) return rc;
  if (!(job->file = cprof_path_join(job->in.dir, job->in.name))) return CPROF_ENOMEM;
  return CPROF_OK;
}

/* Every derived output (summary, pprof, folded, SVG, text) names the
 * original sources; the .cpuprofile/.heapprofile keep V8's frames. */
static int map_frames(job_t *job) {
  cprof_sm_stats_t b;
  int rc = cprof__map_frames(job->profile, &job->sm, &job->sm_stats);
  if (rc == CPROF_OK && job->profile_b &&
      (rc = cprof__map_frames(job->profile_b, &job->sm_b, &b)) == CPROF_OK)
    cprof__add_sm_stats(&job->sm_stats, &b);
  /* The line views show an original file that is not on disk from its map. */
  if (rc == CPROF_OK) job->in.opts.source_texts = cprof_sourcemap_texts(job->sm);
  if (rc != CPROF_OK)
    snprintf(job->errbuf, sizeof job->errbuf, "out of memory mapping frames through source maps");
  return rc;
}

/* The CPU reply with cprof's own start call dropped: which leading samples
 * are its own is in the tree, so the parse comes first, then V8's text is
 * written without them, then the text goes. A failed write leaves its
 * message in werr and its code in *wrc, as in run. */
static int load_own(job_t *job, int *raw, int *wrc, char *werr) {
  int rc = cprof_profile_parse(job->in.json, job->in.len, &job->profile, job->errbuf,
                               sizeof job->errbuf);
  uint32_t k = rc == CPROF_OK ? cprof_profile_leading_own(job->profile, job->in.own_url) : 0;
  if (k > 0) rc = cprof_profile_drop_leading(job->profile, k);
  if (job->in.raw_reply && job->in.dir && job->in.name) {
    /* Even when the parse failed, V8's text goes to disk, as without the
     * drop: the parse's message stays the job's. */
    char perr[sizeof job->errbuf];
    memcpy(perr, job->errbuf, sizeof perr);
    if ((*wrc = write_raw(job, rc == CPROF_OK ? k : 0, raw)) != CPROF_OK)
      memcpy(werr, job->errbuf, sizeof job->errbuf);
    if (rc != CPROF_OK) memcpy(job->errbuf, perr, sizeof perr);
  }
  free(job->in.json); /* never hold the profile twice */
  job->in.json = NULL;
  return rc;
}

/* v8.startCpuProfile's text with its raw names escaped (v8cpu.h). A text
 * the repair refuses stays as V8 made it: it is written so, and its parse
 * fails (v8_failed tells the message). */
static void repair_v8(job_t *job) {
  char *fixed;
  size_t len;
  if (cprof_cpu_text_repair(job->in.json, job->in.len, &fixed, &len, NULL) != CPROF_OK) {
    job->v8_failed = 1;
    return;
  }
  free(job->in.json);
  job->in.json = fixed;
  job->in.len = len;
}

/* A v8 text that does not parse: the inspector from now on, and the message
 * says where V8's text is. */
static int v8_fallback(job_t *job, int rc) {
  char msg[sizeof job->errbuf];
  cprof__v8cpu_disable();
  snprintf(msg, sizeof msg,
           "%.500s (v8.startCpuProfile's text%s; it is kept as written%s%s); later CPU profiles of "
           "this process go through the inspector",
           job->errbuf[0] ? job->errbuf : cprof_strerror(rc),
           job->v8_failed ? " could not be repaired" : " still did not parse after its repair",
           job->file ? " in " : "", job->file ? job->file : "");
  memcpy(job->errbuf, msg, sizeof msg);
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

static int run(job_t *job) {
  int raw = 0, wrc = CPROF_OK, rc;
  char werr[sizeof job->errbuf] = "";
  if (job->in.v8_text && job->in.json) repair_v8(job);
  if (job->in.own_url && job->in.json) {
    rc = load_own(job, &raw, &wrc, werr);
  } else if (job->in.npaths) {
    rc = cprof__job_merge_files(job->in.paths, job->in.npaths, job->in.need_samples, load_one, job,
                                &job->profile, job->errbuf, sizeof job->errbuf);
  } else {
    if (job->in.raw_reply && job->in.json && job->in.dir && job->in.name)
      wrc = write_raw(job, 0, &raw);
    /* After a failed write the parse still runs: err.result keeps the summary.
     * The parse clears errbuf: keep the write's message (it names the errno). */
    if (wrc != CPROF_OK) memcpy(werr, job->errbuf, sizeof werr);
    rc = job->in.produce
             ? job->in.produce(job->in.produce_ctx, &job->profile, job->errbuf, sizeof job->errbuf)
             : load(job, job->in.path, &job->in.json, &job->in.len, &job->profile);
  }
  if (rc != CPROF_OK) return job->in.v8_text ? v8_fallback(job, rc) : rc;
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
  if (job->in.source_maps && (rc = map_frames(job)) != CPROF_OK) return rc;
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
  if (job->in.want_lines && (rc = top_lines(job)) != CPROF_OK) return rc;
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
}

static void complete_cb(napi_env env, napi_status status, void *data) {
  job_t *job = data;
  napi_value value = NULL, exc;
  if (status == napi_ok && env) {
    value = job->err == CPROF_OK ? cprof__job_result(env, job) : cprof__job_failure(env, job);
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
  /* Freed memory goes back to the OS after the promise is settled, not
   * before: the trim walks every arena (trim.h). */
  if (env) cprof__trim_soon(env);
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

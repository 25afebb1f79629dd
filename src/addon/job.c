#include "job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  int err;
  char errbuf[1024];
  char *file; /* dir/name once written */
  long long size;
} job_t;

void cprof__job_in_free(cprof_job_in_t *in) {
  free(in->json);
  free(in->path);
  free(in->dir);
  free(in->name);
  memset(in, 0, sizeof *in);
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
  cprof_flat_free(&job->flat);
  free(job->top);
  free(job->file);
  free(job);
}

/* Reads a whole file: the CLI and analyze() path. */
static int read_file(job_t *job) {
  FILE *f = fopen(job->in.path, "rb");
  long n;
  if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    snprintf(job->errbuf, sizeof job->errbuf, "cannot read %s: %s", job->in.path, strerror(errno));
    if (f) fclose(f);
    return CPROF_EIO;
  }
  job->in.json = malloc((size_t)n + 1);
  job->in.len = job->in.json ? fread(job->in.json, 1, (size_t)n, f) : 0;
  int bad = !job->in.json || ferror(f);
  fclose(f);
  if (bad) {
    snprintf(job->errbuf, sizeof job->errbuf, "cannot read %s: %s", job->in.path,
             job->in.json ? strerror(errno) : "out of memory");
    return job->in.json ? CPROF_EIO : CPROF_ENOMEM;
  }
  job->in.json[job->in.len] = '\0';
  return CPROF_OK;
}

static int write_output(job_t *job) {
  cprof_exporter_fn fn =
      job->profile->kind == CPROF_KIND_HEAP ? cprof_export_heapprofile : cprof_export_cpuprofile;
  size_t n = strlen(job->in.dir) + strlen(job->in.name) + 2;
  int rc = cprof_mkdirp(job->in.dir, 0700, job->errbuf, sizeof job->errbuf);
  if (rc == CPROF_OK)
    rc = cprof_write_atomic(job->in.dir, job->in.name, fn, job->profile, &job->size, job->errbuf,
                            sizeof job->errbuf);
  if (rc != CPROF_OK) return rc;
  if (!(job->file = malloc(n))) return CPROF_ENOMEM;
  snprintf(job->file, n, "%s/%s", job->in.dir, job->in.name);
  return CPROF_OK;
}

static int run(job_t *job) {
  int rc;
  if (job->in.path && (rc = read_file(job)) != CPROF_OK) return rc;
  rc = cprof_profile_parse(job->in.json, job->in.len, &job->profile, job->errbuf,
                           sizeof job->errbuf);
  free(job->in.json); /* never hold the profile twice */
  job->in.json = NULL;
  if (rc != CPROF_OK) return rc;
  if (job->in.max_depth &&
      (rc = cprof_profile_limit_depth(job->profile, job->in.max_depth)) != CPROF_OK)
    return rc;
  if ((rc = cprof_flat_build(job->profile, &job->flat)) != CPROF_OK) return rc;
  if (!(job->top = calloc(job->in.top ? job->in.top : 1, sizeof *job->top))) return CPROF_ENOMEM;
  job->ntop = cprof_flat_top(&job->flat, job->profile, CPROF_TOP_SKIP_ROOT | CPROF_TOP_SKIP_IDLE,
                             job->top, job->in.top);
  return job->in.dir ? write_output(job) : CPROF_OK;
}

static void execute_cb(napi_env env, void *data) {
  (void)env;
  job_t *job = data;
  job->err = run(job);
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

/* Background work (work.h): the one napi_async_work of the addon. */
#include "work.h"

#include <stdlib.h>

#include "errors.h"

typedef struct {
  cprof_job_t *job;
  const cprof_work_ops_t *ops;
  void *ctx;
  napi_async_work work;
  napi_deferred deferred; /* NULL: no promise */
} work_t;

static void execute_cb(napi_env env, void *data) {
  (void)env;
  work_t *w = data;
  cprof_job_run(&w->job->in, &w->job->out, &w->job->err);
}

/* The ERR_CPROF_* error of a failed job; one whose write failed carries
 * err.result, what the job made before. */
static napi_value failure(napi_env env, const work_t *w) {
  const cprof_job_err_t *e = &w->job->err;
  napi_value err = cprof__make_error(env, cprof__js_code(e->code),
                                     e->msg[0] ? e->msg : cprof_strerror(e->code)),
             partial, exc;
  if (!err || !cprof_job_has_result(w->job)) return err;
  if (!(partial = w->ops->value(env, w->job)))
    napi_get_and_clear_last_exception(env, &exc); /* the error alone, then */
  else if (napi_set_named_property(env, err, "result", partial) != napi_ok)
    napi_get_and_clear_last_exception(env, &exc);
  return err;
}

static void settle(napi_env env, const work_t *w) {
  int ok = w->job->err.code == CPROF_OK;
  napi_value value = ok ? w->ops->value(env, w->job) : failure(env, w), exc;
  if (!value) { /* building the value threw: reject with that */
    if (napi_get_and_clear_last_exception(env, &value) != napi_ok) return;
    ok = 0;
  }
  if ((ok ? napi_resolve_deferred : napi_reject_deferred)(env, w->deferred, value) != napi_ok)
    napi_get_and_clear_last_exception(env, &exc); /* never into the app */
}

static void complete_cb(napi_env env, napi_status status, void *data) {
  work_t *w = data;
  int ran = status == napi_ok && env;
  if (ran && w->deferred) settle(env, w);
  if (w->ops->done) w->ops->done(env, ran, w->job, w->ctx);
  napi_delete_async_work(env, w->work); /* nothing to do if it fails: the env is going */
  cprof_job_free(w->job);
  free(w);
}

int cprof__work_submit(napi_env env, cprof_job_t *job, const cprof_work_ops_t *ops, void *ctx,
                       napi_value *promise) {
  work_t *w = calloc(1, sizeof *w);
  napi_value name;
  if (!w) {
    cprof_job_free(job);
    return -1;
  }
  *w = (work_t){.job = job, .ops = ops, .ctx = ctx};
  if (napi_create_string_utf8(env, ops->name, NAPI_AUTO_LENGTH, &name) != napi_ok ||
      (ops->value && napi_create_promise(env, &w->deferred, promise) != napi_ok) ||
      napi_create_async_work(env, NULL, name, execute_cb, complete_cb, w, &w->work) != napi_ok ||
      napi_queue_async_work(env, w->work) != napi_ok) {
    /* A created deferred that is never settled is collected with the promise. */
    if (w->work) napi_delete_async_work(env, w->work);
    cprof_job_free(job);
    free(w);
    return -1;
  }
  return 0;
}

#include "recorder.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errors.h"
#include "inspector.h"
#include "jsutil.h"
#include "macros.h"
#include "work.h"

/* The heap windows' frames per stack: heap.start()'s default stackDepth
 * (lib/options.js). */
#define HEAP_STACK_DEPTH 128

/* A finished window's text, waiting for its conversion. */
typedef struct pending_s {
  struct pending_s *next;
  cprof_window_text_t t;
} pending_t;

struct cprof_rec_s {
  _Atomic unsigned refs; /* the environment's, and one per conversion in flight */
  napi_env env;
  int gone; /* the environment is torn down: no JS, no new work */
  int running;
  cprof_insp_t *insp;
  napi_ref console;           /* node:inspector's console: V8's own, not the app's */
  napi_ref on_window;         /* given to notify after each window's conversion */
  cprof_rec_notify_fn notify; /* the binding's: builds the window's info */
  unsigned id;                /* titles are cprof-recorder-<id>-<seq> */
  uint64_t seq;               /* the current window */
  int64_t from_ms;            /* and when it started */
  int64_t cpu_mark_us;        /* this thread's CPU time then (thread_cpu_us) */
  int catching;               /* inside our console.profileEnd: keep its notification */
  char *note;
  size_t note_len;
  cprof_ring_t *ring;
  /* heap: true: V8's sampling heap profiler runs from start() to stop();
   * each window is the live heap at its end (HeapProfiler.getSamplingProfile),
   * as Go's agent and @pyroscope/nodejs push it. Live samples only, so V8
   * holds the sampled live objects, not a growing history. */
  int heap;
  int heap_insp; /* HeapProfiler sampling on the session */
  int64_t heap_from_ms;
  cprof_ring_t *heap_ring;
  /* The live heap by site over the last heap windows (src/core/trend.h):
   * added on the conversion thread, read by status() on the main thread. */
  cprof_trend_t *trend;
  pending_t *head, *tail;
  int converting;             /* one conversion at a time, in window order */
  cprof_window_cfg_t cfg;     /* intervals, store and push: what each conversion reads */
  uint64_t lost;              /* windows whose profile never arrived */
  uint64_t failed;            /* windows that could not be converted */
  uint64_t evicted_for_space; /* store files deleted to make room on a full disk */
  cprof_labels_t *labels;     /* the label switches of the window ending next, or NULL */
};

static _Atomic unsigned next_id = 1;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The calling thread's CPU time (µs), 0 when unknown. The recorder's calls
 * run on the thread whose isolate it profiles. */
static int64_t thread_cpu_us(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int cprof__rec_running(const cprof_rec_t *rec) {
  return rec && rec->running;
}

int cprof__rec_heap_running(const cprof_rec_t *rec) {
  return rec && rec->running && rec->heap;
}

static void free_pending(pending_t *p) {
  while (p) {
    pending_t *next = p->next;
    free(p->t.json);
    cprof_labels_free(p->t.labels);
    free(p);
    p = next;
  }
}

/* The last reference frees the C side; napi refs are gone by then. */
static void rec_unref(cprof_rec_t *rec) {
  if (atomic_fetch_sub_explicit(&rec->refs, 1, memory_order_acq_rel) != 1) return;
  cprof_ring_free(rec->ring);
  cprof_ring_free(rec->heap_ring);
  cprof_trend_free(rec->trend);
  free_pending(rec->head);
  free(rec->note);
  cprof_labels_free(rec->labels);
  cprof_window_cfg_free(&rec->cfg);
  free(rec);
}

/* Notifications of our session: only the one our own console.profileEnd
 * produces is kept (another tool's console profiles are dropped). */
static void on_note(void *ctx, char *json, size_t len) {
  static const char FINISHED[] = "{\"method\":\"Profiler.consoleProfileFinished\"";
  cprof_rec_t *rec = ctx;
  if (rec->catching && !rec->note && len >= sizeof FINISHED - 1 &&
      memcmp(json, FINISHED, sizeof FINISHED - 1) == 0) {
    rec->note = json;
    rec->note_len = len;
    return;
  }
  free(json);
}

/* console.profile(title) / console.profileEnd(title) on V8's console. */
static int console_call(napi_env env, cprof_rec_t *rec, const char *method, uint64_t seq) {
  napi_value console, fn, title, ignored;
  char buf[64];
  snprintf(buf, sizeof buf, "cprof-recorder-%u-%llu", rec->id, (unsigned long long)seq);
  NAPI_CALL_INT(env, napi_get_reference_value(env, rec->console, &console));
  NAPI_CALL_INT(env, napi_get_named_property(env, console, method, &fn));
  NAPI_CALL_INT(env, napi_create_string_utf8(env, buf, NAPI_AUTO_LENGTH, &title));
  NAPI_CALL_INT(env, napi_call_function(env, console, fn, 1, &title, &ignored));
  return 0;
}

/* ---- the queue: one window at a time converted on a worker thread
 * (a WINDOW job, src/core/job.h), in window order ---- */

static void kick(napi_env env, cprof_rec_t *rec);

static void notify(napi_env env, cprof_rec_t *rec, const cprof_job_t *job) {
  const cprof_window_text_t *t = &job->in.src.window.text;
  napi_handle_scope scope;
  napi_value ignored;
  bool pending = false;
  cprof_rec_window_t w = {.seq = t->seq,
                          .heap = t->heap,
                          .made = &job->out.made,
                          .err = job->err.code,
                          .errmsg = job->err.msg};
  if (!rec->on_window || napi_open_handle_scope(env, &scope) != napi_ok) return;
  rec->notify(env, rec->on_window, &w);
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending)
    napi_get_and_clear_last_exception(env, &ignored); /* never into the app */
  napi_close_handle_scope(env, scope);
}

static void conv_done(napi_env env, int ran, cprof_job_t *job, void *ctx) {
  cprof_rec_t *rec = ctx;
  rec->converting = 0;
  if (job->err.code != CPROF_OK) rec->failed++;
  rec->evicted_for_space += job->out.made.evicted;
  if (ran && !rec->gone) {
    notify(env, rec, job);
    kick(env, rec);
  }
  rec_unref(rec);
}

static const cprof_work_ops_t CONV_OPS = {"cprof:recorder", NULL, conv_done};

/* The conversion of win (freed here) as a job; NULL when out of memory. */
static cprof_job_t *conv_job(cprof_rec_t *rec, pending_t *win) {
  cprof_job_t *job = calloc(1, sizeof *job);
  if (!job) {
    free_pending(win);
    return NULL;
  }
  job->in.kind = CPROF_JOB_WINDOW;
  job->in.src.window = (cprof_job_window_t){.text = win->t,
                                            .cfg = &rec->cfg,
                                            .ring = win->t.heap ? rec->heap_ring : rec->ring,
                                            .trend = rec->trend};
  free(win); /* its text is the job's now */
  return job;
}

/* Starts the next conversion, if one waits and none runs. A failure to
 * queue loses that window (counted), never throws. */
static void kick(napi_env env, cprof_rec_t *rec) {
  while (!rec->converting && rec->head) {
    pending_t *win = rec->head;
    rec->head = win->next;
    if (!rec->head) rec->tail = NULL;
    win->next = NULL;
    cprof_job_t *job = conv_job(rec, win);
    if (job && cprof__work_submit(env, job, &CONV_OPS, rec, NULL) == 0) {
      atomic_fetch_add(&rec->refs, 1);
      rec->converting = 1;
      return;
    }
    rec->lost++;
  }
}

/* Queues a finished window's text (json is the queue's from here on). 0,
 * or -1 when out of memory: the window is lost (counted). */
static int enqueue(napi_env env, cprof_rec_t *rec, const cprof_window_text_t *t) {
  pending_t *win = calloc(1, sizeof *win);
  if (!win) {
    free(t->json);
    cprof_labels_free(t->labels);
    rec->lost++;
    return -1;
  }
  win->t = *t;
  if (rec->tail)
    rec->tail->next = win;
  else
    rec->head = win;
  rec->tail = win;
  kick(env, rec);
  return 0;
}

/* ---- rotation: each window ended and queued ---- */

/* Starts V8's sampling heap profiler on the recorder's session, for every
 * window until stop (the inspector's: v8.startHeapProfile's handle cannot
 * give a profile without stopping). 0, or -1 after throwing. */
static int heap_start(napi_env env, cprof_rec_t *rec) {
  char params[192];
  cprof__insp_heap_params(params, sizeof params, rec->cfg.heap_interval, HEAP_STACK_DEPTH, 0);
  if (cprof__insp_call_ok(env, rec->insp, "HeapProfiler.enable", NULL) != 0 ||
      cprof__insp_call_ok(env, rec->insp, "HeapProfiler.startSampling", params) != 0)
    return -1;
  rec->heap_insp = 1;
  return 0;
}

/* Ends the heap window at t with the live heap at t and queues it; the
 * sampler goes on unless stopping. V8 runs a full GC before it reports
 * (the inspector starts its sampler with kSamplingForceGC), so the window
 * holds what is still reachable. 0, or -1 after throwing. */
static int heap_rotate(napi_env env, cprof_rec_t *rec, int64_t t, int keep) {
  char *json = NULL;
  size_t len = 0;
  int rc = 0;
  if (rec->heap_insp && keep) {
    rc = cprof__insp_call(env, rec->insp, "HeapProfiler.getSamplingProfile", NULL, &json, &len);
  } else if (rec->heap_insp) {
    rc = cprof__insp_call(env, rec->insp, "HeapProfiler.stopSampling", NULL, &json, &len);
    rec->heap_insp = 0;
  } /* else a failed start left no sampler: start one now */
  if (rc == 0 && json)
    (void)enqueue(env, rec,
                  &(cprof_window_text_t){.json = json,
                                         .len = len,
                                         .from_ms = rec->heap_from_ms,
                                         .to_ms = t,
                                         .seq = rec->seq,
                                         .heap = 1});
  rec->heap_from_ms = t;
  if (rc != 0) return -1;
  return keep && !rec->heap_insp ? heap_start(env, rec) : 0;
}

/* Ends window seq at t: its profile comes back synchronously as our
 * session's notification. 1 when queued for conversion, 0 when it was
 * lost (someone else ended it: console.profileEnd() with no title ends the
 * newest profile), -1 after throwing. */
static int end_window(napi_env env, cprof_rec_t *rec, int64_t t) {
  int64_t cpu = thread_cpu_us(), mark = rec->cpu_mark_us;
  rec->cpu_mark_us = cpu;
  rec->catching = 1;
  int rc = console_call(env, rec, "profileEnd", rec->seq);
  rec->catching = 0;
  if (rc != 0) {
    free(rec->note);
    rec->note = NULL;
    return -1;
  }
  cprof_labels_t *labels = rec->labels;
  rec->labels = NULL;
  if (!rec->note) {
    cprof_labels_free(labels);
    rec->lost++;
    return 0;
  }
  char *note = rec->note;
  rec->note = NULL;
  return enqueue(
             env, rec,
             &(cprof_window_text_t){.json = note,
                                    .len = rec->note_len,
                                    .from_ms = rec->from_ms,
                                    .to_ms = t,
                                    .cpu_us = cpu > 0 && mark > 0 && cpu > mark ? cpu - mark : 0,
                                    .seq = rec->seq,
                                    .labels = labels}) == 0;
}

/* ---- the session: start, rotate, stop ---- */

static int not_running(napi_env env, cprof_rec_t *rec) {
  if (rec && rec->running) return 0;
  cprof__throw(env, "ERR_CPROF_NOT_STARTED",
               "the recorder is not running: call recorder.start() first");
  return 1;
}

static int open_session(napi_env env, cprof_rec_t *rec) {
  char params[64];
  napi_value mod, console;
  if (!(rec->insp = cprof__insp_open(env)) ||
      cprof__insp_on_note(env, rec->insp, on_note, rec) != 0)
    return -1;
  snprintf(params, sizeof params, "{\"interval\":%lld}", (long long)rec->cfg.interval_us);
  if (cprof__insp_call_ok(env, rec->insp, "Profiler.enable", NULL) != 0 ||
      cprof__insp_call_ok(env, rec->insp, "Profiler.setSamplingInterval", params) != 0)
    return -1;
  if (!(mod = cprof__js_builtin(env, "node:inspector"))) {
    cprof__throw(env, "ERR_CPROF_INSPECTOR", "node:inspector is not available");
    return -1;
  }
  NAPI_CALL_INT(env, napi_get_named_property(env, mod, "console", &console));
  NAPI_CALL_INT(env, napi_create_reference(env, console, 1, &rec->console));
  /* The first window starts V8's profiler: line ends first (inspector.h). Later
   * windows start before the last one ends, so the profiler keeps running. */
  if (cprof__insp_line_ends(env, rec->insp) != 0) return -1;
  /* The first window starts here, on V8's clock too, not when start() was
   * called: opening the session and the line ends take ~30 ms, more on a
   * loaded machine, and the dump's span must be the profile's. */
  rec->from_ms = now_ms();
  return console_call(env, rec, "profile", rec->seq);
}

/* Closes the session (ending every profile left) and drops JS refs. */
static void close_session(napi_env env, cprof_rec_t *rec) {
  rec->heap_insp = 0;
  cprof__insp_close(env, rec->insp);
  rec->insp = NULL;
  if (rec->console) napi_delete_reference(env, rec->console);
  rec->console = NULL;
  rec->running = 0;
}

void cprof__rec_release(napi_env env, cprof_rec_t *rec) {
  if (!rec) return;
  if (rec->on_window) napi_delete_reference(env, rec->on_window);
  rec->on_window = NULL;
  rec->gone = 1; /* late conversions still push to its ring, then free it */
  rec_unref(rec);
}

/* The recorder's C side: rings, trend, options; NULL when out of memory
 * (o's strings are freed then). */
static cprof_rec_t *rec_new(cprof_rec_opts_t *o) {
  cprof_rec_t *rec = calloc(1, sizeof *rec);
  double heap_interval = o->cfg.heap_interval;
  if (!rec) {
    cprof_window_cfg_free(&o->cfg);
    return NULL;
  }
  rec->cfg = o->cfg; /* its strings are the recorder's now */
  o->cfg.store.dir = o->cfg.push.cwd = NULL;
  atomic_init(&rec->refs, 1);
  if (!(rec->ring = cprof_ring_new((int64_t)o->keep_ms, (size_t)o->max_bytes)) ||
      !(rec->heap_ring = cprof_ring_new((int64_t)o->keep_ms, (size_t)o->max_bytes)) ||
      (heap_interval > 0 &&
       !(rec->trend = cprof_trend_new(o->trend_windows >= 2 ? (uint32_t)o->trend_windows
                                                            : CPROF_TREND_WINDOWS_DEFAULT,
                                      CPROF_TREND_SITES_DEFAULT)))) {
    rec_unref(rec);
    return NULL;
  }
  rec->id = atomic_fetch_add(&next_id, 1);
  rec->seq = 1;
  rec->from_ms = rec->heap_from_ms = now_ms();
  rec->cpu_mark_us = thread_cpu_us();
  rec->heap = heap_interval > 0;
  return rec;
}

cprof_rec_t *cprof__rec_start(napi_env env, cprof_rec_opts_t *o, cprof_rec_notify_fn notify,
                              napi_ref on_window) {
  cprof_rec_t *rec = rec_new(o);
  if (!rec) {
    napi_delete_reference(env, on_window);
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory starting the recorder");
    return NULL;
  }
  rec->env = env;
  rec->notify = notify;
  rec->on_window = on_window;
  if (open_session(env, rec) != 0 || (rec->heap && heap_start(env, rec) != 0)) {
    close_session(env, rec);
    cprof__rec_release(env, rec);
    return NULL;
  }
  rec->running = 1;
  return rec;
}

const char *cprof__rec_transport(const cprof_rec_t *rec) {
  return rec->insp ? cprof__insp_transport(rec->insp) : "none";
}

int cprof__rec_rotate(napi_env env, cprof_rec_t *rec, bool heap, uint64_t *ended) {
  int64_t t = now_ms();
  if (not_running(env, rec) || console_call(env, rec, "profile", rec->seq + 1) != 0) return -1;
  uint64_t seq = rec->seq;
  int rc = end_window(env, rec, t);
  /* The heap window is queued after the CPU one and converted after it:
   * whoever waits for the CPU window finds the heap window kept too. */
  int hrc = rec->heap && heap ? heap_rotate(env, rec, t, 1) : 0;
  rec->seq++;
  rec->from_ms = t;
  *ended = rc > 0 ? seq : 0;
  return rc < 0 || hrc < 0 ? -1 : 0;
}

int cprof__rec_stop(napi_env env, cprof_rec_t *rec, uint64_t *ended) {
  if (not_running(env, rec)) return -1;
  uint64_t seq = rec->seq;
  int64_t t = now_ms();
  int rc = end_window(env, rec, t);
  if (rc >= 0 && rec->heap && heap_rotate(env, rec, t, 0) != 0) rc = -1;
  napi_value exc = NULL;
  bool pending = false;
  if (rc < 0 && napi_is_exception_pending(env, &pending) == napi_ok && pending)
    napi_get_and_clear_last_exception(env, &exc);
  close_session(env, rec);
  if (exc) {
    napi_throw(env, exc);
    return -1;
  }
  *ended = rc > 0 ? seq : 0;
  return 0;
}

void cprof__rec_set_labels(cprof_rec_t *rec, cprof_labels_t *labels) {
  cprof_labels_free(rec->labels);
  rec->labels = labels;
}

void cprof__rec_status(cprof_rec_t *rec, cprof_rec_status_t *s) {
  if (rec->running) {
    cprof_ring_evict(rec->ring, now_ms());
    cprof_ring_evict(rec->heap_ring, now_ms());
  }
  *s = (cprof_rec_status_t){.running = rec->running,
                            .lost = rec->lost,
                            .failed = rec->failed,
                            .evicted_for_space = rec->evicted_for_space,
                            .pending = (unsigned)rec->converting,
                            .current = rec->running ? rec->seq : 0,
                            .has_heap = rec->heap,
                            .heap_interval = rec->cfg.heap_interval,
                            .trend = rec->trend};
  cprof_ring_stats(rec->ring, &s->cpu);
  cprof_ring_stats(rec->heap_ring, &s->heap);
  for (pending_t *p = rec->head; p; p = p->next)
    s->pending++;
}

/* ---- dump: the selected windows merged on the worker thread ---- */

typedef struct {
  cprof_window_t **w;
  size_t n;
} sel_t;

static int produce_merge(void *ctx, cprof_profile_t **out, cprof_labels_t **labels, char *errbuf,
                         size_t errlen) {
  const sel_t *s = ctx;
  return cprof_window_merge(s->w, s->n, out, labels, errbuf, errlen);
}

static void produce_free(void *ctx) {
  sel_t *s = ctx;
  for (size_t i = 0; i < s->n; i++)
    cprof_window_unref(s->w[i]);
  free(s->w);
  free(s);
}

/* A heap window is the whole live heap at its end: windows do not add up,
 * and a heap dump is the newest one (the live heap at the end of the range). */
static void newest_only(sel_t *s) {
  for (size_t i = 0; i + 1 < s->n; i++)
    cprof_window_unref(s->w[i]);
  s->w[0] = s->w[s->n - 1];
  s->n = 1;
}

/* Why a dump has nothing to merge. */
static void throw_empty(napi_env env, const cprof_rec_t *rec, bool heap) {
  char msg[320];
  /* dump() ends the running window first: an empty ring after that means
   * the windows never came back, and "again in a moment" would not help. */
  if (!heap && rec->lost > 0)
    snprintf(msg, sizeof msg,
             "the recorder holds no finished window: %llu window(s) never came back from V8 "
             "(status().lost; see docs/recorder.md, What to know)",
             (unsigned long long)rec->lost);
  else
    snprintf(msg, sizeof msg,
             "the recorder holds no finished window yet: dump() again in a moment");
  cprof__throw(env, "ERR_CPROF_NOT_STARTED", msg);
}

int cprof__rec_select(napi_env env, cprof_rec_t *rec, double last, bool heap, cprof_job_in_t *in,
                      cprof_rec_span_t *span) {
  sel_t *s;
  if (!rec || (heap && !rec->heap)) {
    cprof__throw(env, "ERR_CPROF_NOT_STARTED",
                 !rec ? "the recorder was never started: call recorder.start() first"
                      : "the recorder records no heap windows: start it with heap: true");
    return -1;
  }
  if (!(s = calloc(1, sizeof *s)) ||
      cprof_ring_select(heap ? rec->heap_ring : rec->ring, (int64_t)last, &s->w, &s->n)) {
    free(s);
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory selecting the recorder's windows");
    return -1;
  }
  if (s->n == 0) {
    produce_free(s);
    throw_empty(env, rec, heap);
    return -1;
  }
  if (heap) newest_only(s);
  *span = (cprof_rec_span_t){s->w[0]->from_ms, s->w[s->n - 1]->to_ms, s->n};
  in->kind = CPROF_JOB_PRODUCE;
  in->src.produce = produce_merge;
  in->src.produce_free = produce_free;
  in->src.produce_ctx = s;
  return 0;
}

void cprof__rec_abandon(napi_env env, cprof_rec_t *rec) {
  if (!rec) return;
  cprof__insp_abandon(env, rec->insp);
  rec->insp = NULL;
  if (rec->console) napi_delete_reference(env, rec->console);
  rec->console = NULL;
  rec->running = 0;
  cprof__rec_release(env, rec);
}

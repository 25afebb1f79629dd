#include "recorder.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/cprof.h"
#include "args.h"
#include "errors.h"
#include "inspector.h"
#include "job.h"
#include "jsutil.h"
#include "macros.h"

/* A finished window's notification text, waiting for its conversion. */
typedef struct pending_s {
  struct pending_s *next;
  char *json;
  size_t len;
  int64_t from_ms, to_ms;
  int64_t cpu_us; /* CPU: the profiled thread's CPU time over the window (0: unknown) */
  uint64_t seq;
  int heap; /* a heap window: json is V8's reply or profile text, not a notification */
} pending_t;

/* Continuous mode: every window also goes to a file (store.h). */
typedef struct {
  char *dir; /* NULL: no store */
  int cpuprofile, pprof;
  int64_t max_age_ms;
  unsigned long long max_bytes;
  int lines; /* pprof: one Location per line (recorder.start({ lines })) */
} store_t;

/* Push (lib/push): every window also as gzip'd pprof in memory, in parts
 * within the server's limits, handed to JS with the window. */
typedef struct {
  int on;
  uint32_t max_samples;
  size_t max_bytes;
  char *cwd; /* frames' files under it are named ./<path> (export.h) */
  int lines; /* one Location per line (recorder.start({ lines })) */
} push_t;

struct cprof_rec_s {
  _Atomic unsigned refs; /* the environment's, and one per conversion in flight */
  napi_env env;
  int gone; /* the environment is torn down: no JS, no new work */
  int running;
  cprof_insp_t *insp;
  napi_ref console;    /* node:inspector's console: V8's own, not the app's */
  napi_ref on_window;  /* fn(info) after each window's conversion */
  unsigned id;         /* titles are cprof-recorder-<id>-<seq> */
  uint64_t seq;        /* the current window */
  int64_t from_ms;     /* and when it started */
  int64_t cpu_mark_us; /* this thread's CPU time then (thread_cpu_us) */
  int catching;        /* inside our console.profileEnd: keep its notification */
  char *note;
  size_t note_len;
  cprof_ring_t *ring;
  /* heap: true: V8's sampling heap profiler runs from start() to stop();
   * each window is the live heap at its end (HeapProfiler.getSamplingProfile),
   * as Go's agent and @pyroscope/nodejs push it. Live samples only, so V8
   * holds the sampled live objects, not a growing history. */
  int heap;
  double heap_interval; /* bytes */
  int heap_insp;        /* HeapProfiler sampling on the session */
  int64_t heap_from_ms;
  cprof_ring_t *heap_ring;
  /* The live heap by site over the last heap windows (src/core/trend.h):
   * added on the conversion thread, read by status() on the main thread. */
  cprof_trend_t *trend;
  pending_t *head, *tail;
  int converting; /* one conversion at a time, in window order */
  store_t store;
  push_t push;
  int64_t interval_us;
  uint64_t lost;              /* windows whose profile never arrived */
  uint64_t failed;            /* windows that could not be converted */
  uint64_t evicted_for_space; /* store files deleted to make room on a full disk */
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
    free(p->json);
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
  free(rec->store.dir);
  free(rec->push.cwd);
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

/* ---- conversion: one window's notification → the ring (and the store) ---- */

typedef struct {
  cprof_rec_t *rec;
  pending_t *win;
  napi_async_work work;
  int err;
  char errbuf[512];
  int64_t from_ms, to_ms; /* after the overlap trim */
  uint32_t samples;
  size_t bytes;
  char *files[2]; /* store: .cpuprofile, .pb.gz paths */
  unsigned pruned;
  unsigned evicted;    /* store files deleted to make room for this window */
  cprof_blob_t *parts; /* push: the window as gzip'd pprof parts */
  size_t nparts;
} conv_t;

static void kick(napi_env env, cprof_rec_t *rec);

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/%s", dir, name);
  return s;
}

static int store_one(conv_t *c, const cprof_profile_t *p, int pprof) {
  const store_t *st = &c->rec->store;
  char name[160];
  long long size = 0;
  int heap = p->kind == CPROF_KIND_HEAP;
  int rc = cprof_store_name(name, sizeof name, heap ? "heap" : "cpu", (long)getpid(), c->from_ms,
                            c->to_ms,
                            pprof  ? "pb.gz"
                            : heap ? "heapprofile"
                                   : "cpuprofile");
  if (rc != CPROF_OK) return rc;
  if (pprof) {
    cprof_export_opts_t o = {.interval =
                                 heap ? (int64_t)c->rec->heap_interval : c->rec->interval_us,
                             .start_time_ms = c->from_ms,
                             .duration_us = heap ? (c->to_ms - c->from_ms) * 1000 : 0,
                             .pprof_lines = st->lines};
    rc = cprof_write_format(st->dir, name, CPROF_FORMAT_PPROF, p, &o, &size, c->errbuf,
                            sizeof c->errbuf);
  } else {
    rc =
        cprof_write_atomic(st->dir, name, heap ? cprof_export_heapprofile : cprof_export_cpuprofile,
                           p, &size, c->errbuf, sizeof c->errbuf);
  }
  if (rc == CPROF_OK && !(c->files[pprof] = join(st->dir, name))) rc = CPROF_ENOMEM;
  return rc;
}

static int no_space(int e) {
#ifdef EDQUOT
  if (e == EDQUOT) return 1;
#endif
  return e == ENOSPC;
}

/* store_one; on a full disk (ENOSPC, or a quota) the store's oldest windows
 * make room, so the newest minutes are the ones kept: retention alone runs
 * only after a window is written, and would keep the old ones for good.
 * Each round frees at least as much as all rounds before it (one file the
 * first time), so a window much larger than the old ones costs a few
 * retries, not one per file. Only store files that ended before this
 * window are deleted, never anything else on the disk. */
static int store_room(conv_t *c, const cprof_profile_t *p, int pprof) {
  const store_t *st = &c->rec->store;
  unsigned long long freed = 0;
  int rc;
  while ((rc = store_one(c, p, pprof)) == CPROF_EIO && no_space(errno)) {
    cprof_store_prune_t ev;
    char ignored[256];
    if (cprof_store_evict(st->dir, c->from_ms, freed, &ev, ignored, sizeof ignored) != CPROF_OK ||
        ev.deleted == 0)
      break; /* nothing of ours left to delete: the ENOSPC error stands */
    c->evicted += ev.deleted;
    freed += ev.bytes;
  }
  return rc;
}

static int store_window(conv_t *c, const cprof_profile_t *p) {
  const store_t *st = &c->rec->store;
  cprof_store_prune_t pr;
  /* The rule for a directory the user named, as at recorder.start() (lib/dirs.js): it
   * may have been replaced since. */
  int rc = cprof_dir_prepare(st->dir, 0, c->errbuf, sizeof c->errbuf);
  if (rc == CPROF_OK && st->cpuprofile) rc = store_room(c, p, 0);
  if (rc == CPROF_OK && st->pprof) rc = store_room(c, p, 1);
  if (rc != CPROF_OK) return rc;
  rc = cprof_store_prune(st->dir, now_ms(), st->max_age_ms, st->max_bytes, c->to_ms, &pr, c->errbuf,
                         sizeof c->errbuf);
  c->pruned = pr.deleted;
  return rc;
}

/* The window as pprof parts for push, as Pyroscope reads them
 * (docs/pyroscope.md): heap counts named inuse_objects, as its memory
 * profile type wants; CPU without (idle); frames named file:name:line, as
 * its tree builder keys frames on the name alone. */
static int push_parts(conv_t *c, const cprof_profile_t *p) {
  const push_t *pu = &c->rec->push;
  int heap = p->kind == CPROF_KIND_HEAP;
  cprof_export_opts_t o = {.interval = heap ? (int64_t)c->rec->heap_interval : c->rec->interval_us,
                           .start_time_ms = c->from_ms,
                           .duration_us = heap ? (c->to_ms - c->from_ms) * 1000 : 0,
                           .pprof_objects = 1,
                           .pprof_skip_idle = 1,
                           .pprof_unique_names = 1,
                           .pprof_cwd = pu->cwd,
                           .pprof_cpu_cap_us = heap ? 0 : c->win->cpu_us,
                           .pprof_lines = pu->lines};
  int rc = cprof_export_pprof_parts(p, &o, pu->max_samples, pu->max_bytes, &c->parts, &c->nparts);
  if (rc != CPROF_OK)
    snprintf(c->errbuf, sizeof c->errbuf, "cannot encode the window as pprof for push: %s",
             cprof_strerror(rc));
  return rc;
}

/* A heap window into the trend. A failure (out of memory; two windows
 * ending in the same ms) leaves the trend as it was: the window is still
 * kept, stored and pushed. */
static void trend_add(cprof_rec_t *rec, const cprof_window_t *w) {
  cprof_trend_opts_t o;
  cprof_trend_opts_default(&o);
  o.min_growth = (int64_t)(4 * rec->heap_interval); /* a few samples: more than noise */
  (void)cprof_trend_add(rec->trend, w->profile, w->to_ms, &o);
}

static int convert(conv_t *c) {
  size_t off, n, tlen;
  const char *title;
  cprof_profile_t *p = NULL;
  int rc = CPROF_OK;
  if (c->win->heap) { /* V8's reply or profile text: the parser takes either */
    off = 0;
    n = c->win->len;
  } else {
    rc = cprof_note_profile_span(c->win->json, c->win->len, &off, &n, &title, &tlen, c->errbuf,
                                 sizeof c->errbuf);
  }
  if (rc == CPROF_OK)
    rc = cprof_profile_parse(c->win->json + off, n, &p, c->errbuf, sizeof c->errbuf);
  free(c->win->json); /* never hold a window twice */
  c->win->json = NULL;
  if (rc != CPROF_OK) return rc;
  c->bytes = cprof_profile_bytes(p);
  cprof_window_t *w = cprof_window_new(p, c->win->from_ms, c->win->to_ms, c->bytes, c->win->seq);
  if (!w) return CPROF_ENOMEM;
  cprof_window_ref(w); /* ours, while the store writes it: eviction may come first */
  if ((rc = cprof_ring_push(c->win->heap ? c->rec->heap_ring : c->rec->ring, w)) == CPROF_OK) {
    c->from_ms = w->from_ms;
    c->to_ms = w->to_ms;
    c->samples = w->profile->nsamples;
    if (c->win->heap) trend_add(c->rec, w);
    /* Each its own outcome: a window that cannot be encoded for push is
     * still stored, and the other way round. */
    int prc = c->rec->push.on ? push_parts(c, w->profile) : CPROF_OK;
    if (c->rec->store.dir) rc = store_window(c, w->profile);
    if (rc == CPROF_OK) rc = prc;
  }
  cprof_window_unref(w);
  return rc;
}

static void conv_execute(napi_env env, void *data) {
  (void)env;
  conv_t *c = data;
  c->err = convert(c);
  if (c->err != CPROF_OK && !c->errbuf[0])
    snprintf(c->errbuf, sizeof c->errbuf, "%s", cprof_strerror(c->err));
}

/* push: [Buffer, ...], one per part (copied: the parts are freed with c). */
static int set_parts(napi_env env, napi_value info, const conv_t *c) {
  napi_value arr, buf;
  void *ignored;
  NAPI_CALL_INT(env, napi_create_array_with_length(env, c->nparts, &arr));
  for (size_t i = 0; i < c->nparts; i++) {
    NAPI_CALL_INT(env,
                  napi_create_buffer_copy(env, c->parts[i].len, c->parts[i].data, &ignored, &buf));
    NAPI_CALL_INT(env, napi_set_element(env, arr, (uint32_t)i, buf));
  }
  NAPI_CALL_INT(env, napi_set_named_property(env, info, "push", arr));
  return 0;
}

/* { seq, from, to, samples, bytes, files: { cpuprofile?, pprof? }, pruned,
 *   evictedForSpace, push?: [Buffer], error?: Error } */
static napi_value window_info(napi_env env, const conv_t *c) {
  napi_value info, files, err;
  NAPI_CALL(env, napi_create_object(env, &info));
  NAPI_CALL(env, napi_create_object(env, &files));
  if (cprof__js_set_str(env, info, "kind", c->win->heap ? "heap" : "cpu") ||
      cprof__js_set_num(env, info, "seq", (double)c->win->seq) ||
      cprof__js_set_num(env, info, "from", c->from_ms) ||
      cprof__js_set_num(env, info, "to", c->to_ms) ||
      cprof__js_set_num(env, info, "samples", c->samples) ||
      cprof__js_set_num(env, info, "bytes", (double)c->bytes) ||
      cprof__js_set_num(env, info, "pruned", c->pruned) ||
      cprof__js_set_num(env, info, "evictedForSpace", c->evicted) ||
      (c->files[0] &&
       cprof__js_set_str(env, files, c->win->heap ? "heapprofile" : "cpuprofile", c->files[0])) ||
      (c->files[1] && cprof__js_set_str(env, files, "pprof", c->files[1])))
    return NULL;
  NAPI_CALL(env, napi_set_named_property(env, info, "files", files));
  if (c->nparts && set_parts(env, info, c) != 0) return NULL;
  if (c->err != CPROF_OK) {
    char msg[640];
    snprintf(msg, sizeof msg, "recorder %s window %llu: %s", c->win->heap ? "heap" : "CPU",
             (unsigned long long)c->win->seq, c->errbuf);
    if (!(err = cprof__make_error(env, cprof__js_code(c->err), msg))) return NULL;
    NAPI_CALL(env, napi_set_named_property(env, info, "error", err));
  }
  return info;
}

static void notify(napi_env env, cprof_rec_t *rec, const conv_t *c) {
  napi_handle_scope scope;
  napi_value fn, info, recv, ignored;
  if (!rec->on_window || napi_open_handle_scope(env, &scope) != napi_ok) return;
  if (!(info = window_info(env, c)) ||
      napi_get_reference_value(env, rec->on_window, &fn) != napi_ok ||
      napi_get_undefined(env, &recv) != napi_ok ||
      napi_call_function(env, recv, fn, 1, &info, &ignored) != napi_ok)
    napi_get_and_clear_last_exception(env, &ignored); /* never into the app */
  napi_close_handle_scope(env, scope);
}

static void conv_complete(napi_env env, napi_status status, void *data) {
  conv_t *c = data;
  cprof_rec_t *rec = c->rec;
  rec->converting = 0;
  if (c->err != CPROF_OK) rec->failed++;
  rec->evicted_for_space += c->evicted;
  if (status == napi_ok && env && !rec->gone) {
    notify(env, rec, c);
    kick(env, rec);
  }
  napi_delete_async_work(env, c->work);
  free_pending(c->win);
  free(c->files[0]);
  free(c->files[1]);
  cprof_blobs_free(c->parts, c->nparts);
  free(c);
  rec_unref(rec);
}

/* Starts the next conversion, if one waits and none runs. A failure to
 * queue loses that window (counted), never throws. */
static void kick(napi_env env, cprof_rec_t *rec) {
  napi_value name;
  while (!rec->converting && rec->head) {
    conv_t *c = calloc(1, sizeof *c);
    pending_t *win = rec->head;
    rec->head = win->next;
    if (!rec->head) rec->tail = NULL;
    win->next = NULL;
    if (c) {
      *c = (conv_t){.rec = rec, .win = win, .from_ms = win->from_ms, .to_ms = win->to_ms};
      if (napi_create_string_utf8(env, "cprof:recorder", NAPI_AUTO_LENGTH, &name) == napi_ok &&
          napi_create_async_work(env, NULL, name, conv_execute, conv_complete, c, &c->work) ==
              napi_ok &&
          napi_queue_async_work(env, c->work) == napi_ok) {
        atomic_fetch_add(&rec->refs, 1);
        rec->converting = 1;
        return;
      }
      if (c->work) napi_delete_async_work(env, c->work);
      free(c);
    }
    rec->lost++;
    free_pending(win);
  }
}

static void enqueue(napi_env env, cprof_rec_t *rec, pending_t *win) {
  if (rec->tail)
    rec->tail->next = win;
  else
    rec->head = win;
  rec->tail = win;
  kick(env, rec);
}

/* Starts V8's sampling heap profiler on the recorder's session, for every
 * window until stop (the inspector's: v8.startHeapProfile's handle cannot
 * give a profile without stopping). 0, or -1 after throwing. */
static int heap_start(napi_env env, cprof_rec_t *rec) {
  char params[192];
  snprintf(params, sizeof params,
           "{\"samplingInterval\":%.0f,\"stackDepth\":128,"
           "\"includeObjectsCollectedByMajorGC\":false,"
           "\"includeObjectsCollectedByMinorGC\":false}",
           rec->heap_interval);
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
  if (rc == 0 && json) {
    pending_t *win = calloc(1, sizeof *win);
    if (!win) {
      free(json);
      rec->lost++;
    } else {
      *win = (pending_t){.json = json,
                         .len = len,
                         .from_ms = rec->heap_from_ms,
                         .to_ms = t,
                         .seq = rec->seq,
                         .heap = 1};
      enqueue(env, rec, win);
    }
  }
  rec->heap_from_ms = t;
  if (rc != 0) return -1;
  return keep && !rec->heap_insp ? heap_start(env, rec) : 0;
}

/* Ends window seq at t: its profile comes back synchronously as our
 * session's notification. 1 when queued for conversion, 0 when it was
 * lost (someone else ended it: console.profileEnd() with no title ends the
 * newest profile), -1 after throwing. */
static int end_window(napi_env env, cprof_rec_t *rec, int64_t t) {
  pending_t *win;
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
  if (!rec->note) {
    rec->lost++;
    return 0;
  }
  if (!(win = calloc(1, sizeof *win))) {
    free(rec->note);
    rec->note = NULL;
    rec->lost++;
    return 0;
  }
  *win = (pending_t){.json = rec->note,
                     .len = rec->note_len,
                     .from_ms = rec->from_ms,
                     .to_ms = t,
                     .cpu_us = cpu > 0 && mark > 0 && cpu > mark ? cpu - mark : 0,
                     .seq = rec->seq};
  rec->note = NULL;
  enqueue(env, rec, win);
  return 1;
}

/* ---- what recorder_api.c calls ---- */

static napi_value number(napi_env env, double v) {
  napi_value n;
  NAPI_CALL(env, napi_create_double(env, v, &n));
  return n;
}

static int not_running(napi_env env, cprof_rec_t *rec) {
  if (rec && rec->running) return 0;
  cprof__throw(env, "ERR_CPROF_NOT_STARTED",
               "the recorder is not running: call recorder.start() first");
  return 1;
}

/* obj.lines when it is true (absent or anything else: 0). */
static int lines_flag(napi_env env, napi_value obj) {
  napi_value x;
  napi_valuetype t;
  bool b = false;
  if (napi_get_named_property(env, obj, "lines", &x) != napi_ok ||
      napi_typeof(env, x, &t) != napi_ok || t != napi_boolean ||
      napi_get_value_bool(env, x, &b) != napi_ok)
    return 0;
  return b;
}

/* store: undefined or { dir, cpuprofile, pprof, maxAge (ms), maxBytes, lines? } */
static int store_args(napi_env env, napi_value v, store_t *st) {
  napi_valuetype t;
  napi_value x;
  double age = 0, bytes = 0;
  bool cpuprofile = false, pprof = false;
  NAPI_CALL_INT(env, napi_typeof(env, v, &t));
  if (t != napi_object) return 0;
  if (napi_get_named_property(env, v, "dir", &x) != napi_ok ||
      cprof__arg_string(env, x, "store.dir", &st->dir) != 0 ||
      napi_get_named_property(env, v, "cpuprofile", &x) != napi_ok ||
      cprof__arg_bool(env, x, "store.cpuprofile", &cpuprofile) != 0 ||
      napi_get_named_property(env, v, "pprof", &x) != napi_ok ||
      cprof__arg_bool(env, x, "store.pprof", &pprof) != 0 ||
      napi_get_named_property(env, v, "maxAge", &x) != napi_ok ||
      cprof__arg_double(env, x, "store.maxAge", &age) != 0 ||
      napi_get_named_property(env, v, "maxBytes", &x) != napi_ok ||
      cprof__arg_double(env, x, "store.maxBytes", &bytes) != 0)
    return -1;
  st->cpuprofile = cpuprofile;
  st->pprof = pprof;
  st->lines = lines_flag(env, v);
  st->max_age_ms = age > 0 ? (int64_t)age : 0;
  st->max_bytes = bytes > 0 ? (unsigned long long)bytes : 0;
  return 0;
}

/* push: undefined or { maxSamples, maxBytes (0: no limit), cwd?, lines? } */
static int push_args(napi_env env, napi_value v, push_t *pu) {
  napi_valuetype t;
  napi_value x;
  double samples = 0, bytes = 0;
  NAPI_CALL_INT(env, napi_typeof(env, v, &t));
  if (t != napi_object) return 0;
  if (napi_get_named_property(env, v, "maxSamples", &x) != napi_ok ||
      cprof__arg_double(env, x, "push.maxSamples", &samples) != 0 ||
      napi_get_named_property(env, v, "maxBytes", &x) != napi_ok ||
      cprof__arg_double(env, x, "push.maxBytes", &bytes) != 0 ||
      napi_get_named_property(env, v, "cwd", &x) != napi_ok ||
      cprof__arg_string(env, x, "push.cwd", &pu->cwd) != 0)
    return -1;
  pu->on = 1;
  pu->lines = lines_flag(env, v);
  pu->max_samples = samples > 0 && samples < UINT32_MAX ? (uint32_t)samples : 0;
  pu->max_bytes = bytes > 0 ? (size_t)bytes : 0;
  return 0;
}

static int open_session(napi_env env, cprof_rec_t *rec) {
  char params[64];
  napi_value mod, console;
  if (!(rec->insp = cprof__insp_open(env)) ||
      cprof__insp_on_note(env, rec->insp, on_note, rec) != 0)
    return -1;
  snprintf(params, sizeof params, "{\"interval\":%lld}", (long long)rec->interval_us);
  if (cprof__insp_call_ok(env, rec->insp, "Profiler.enable", NULL) != 0 ||
      cprof__insp_call_ok(env, rec->insp, "Profiler.setSamplingInterval", params) != 0)
    return -1;
  if (!(mod = cprof__js_builtin(env, "node:inspector"))) {
    cprof__throw(env, "ERR_CPROF_INSPECTOR", "node:inspector is not available");
    return -1;
  }
  NAPI_CALL_INT(env, napi_get_named_property(env, mod, "console", &console));
  NAPI_CALL_INT(env, napi_create_reference(env, console, 1, &rec->console));
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

cprof_rec_t *cprof__rec_start(napi_env env, const cprof_rec_opts_t *o, napi_value store,
                              napi_value push, napi_value on_window) {
  cprof_rec_t *rec;
  double keep = o->keep_ms, max_bytes = o->max_bytes, heap_interval = o->heap_interval;
  if (!(rec = calloc(1, sizeof *rec)) ||
      !(rec->ring = cprof_ring_new((int64_t)keep, (size_t)max_bytes)) ||
      !(rec->heap_ring = cprof_ring_new((int64_t)keep, (size_t)max_bytes)) ||
      (heap_interval > 0 &&
       !(rec->trend = cprof_trend_new(o->trend_windows >= 2 ? (uint32_t)o->trend_windows
                                                            : CPROF_TREND_WINDOWS_DEFAULT,
                                      CPROF_TREND_SITES_DEFAULT)))) {
    if (rec) {
      cprof_ring_free(rec->ring);
      cprof_ring_free(rec->heap_ring);
    }
    free(rec);
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory starting the recorder");
    return NULL;
  }
  atomic_init(&rec->refs, 1);
  rec->env = env;
  rec->id = atomic_fetch_add(&next_id, 1);
  rec->interval_us = (int64_t)o->interval_us;
  rec->seq = 1;
  rec->from_ms = rec->heap_from_ms = now_ms();
  rec->cpu_mark_us = thread_cpu_us();
  rec->heap = heap_interval > 0;
  rec->heap_interval = heap_interval;
  if (store_args(env, store, &rec->store) != 0 || push_args(env, push, &rec->push) != 0 ||
      open_session(env, rec) != 0 || (rec->heap && heap_start(env, rec) != 0) ||
      napi_create_reference(env, on_window, 1, &rec->on_window) != napi_ok) {
    close_session(env, rec);
    if (rec->on_window) napi_delete_reference(env, rec->on_window);
    rec_unref(rec);
    return NULL;
  }
  rec->running = 1;
  return rec;
}

const char *cprof__rec_transport(const cprof_rec_t *rec) {
  return rec->insp ? cprof__insp_transport(rec->insp) : "none";
}

napi_value cprof__rec_rotate(napi_env env, cprof_rec_t *rec) {
  int64_t t = now_ms();
  if (not_running(env, rec) || console_call(env, rec, "profile", rec->seq + 1) != 0) return NULL;
  uint64_t ended = rec->seq;
  int rc = end_window(env, rec, t);
  /* The heap window is queued after the CPU one and converted after it:
   * whoever waits for the CPU window finds the heap window kept too. */
  int hrc = rec->heap ? heap_rotate(env, rec, t, 1) : 0;
  rec->seq++;
  rec->from_ms = t;
  if (rc < 0 || hrc < 0) return NULL;
  return number(env, rc ? (double)ended : 0);
}

napi_value cprof__rec_stop(napi_env env, cprof_rec_t *rec) {
  if (not_running(env, rec)) return NULL;
  uint64_t ended = rec->seq;
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
    return NULL;
  }
  return number(env, rc > 0 ? (double)ended : 0);
}

/* A number, or null for NaN (a share when the heap does not grow). */
static int set_num_or_null(napi_env env, napi_value o, const char *key, double v) {
  napi_value x;
  if (!isnan(v)) return cprof__js_set_num(env, o, key, v);
  return napi_get_null(env, &x) != napi_ok || napi_set_named_property(env, o, key, x) != napi_ok;
}

/* o[key] = [v...] (bytes or ms: exact as doubles below 2^53). */
static int set_series(napi_env env, napi_value o, const char *key, const int64_t *v, uint32_t n) {
  napi_value arr, x;
  if (napi_create_array_with_length(env, n, &arr) != napi_ok) return 1;
  for (uint32_t i = 0; i < n; i++)
    if (napi_create_double(env, (double)v[i], &x) != napi_ok ||
        napi_set_element(env, arr, i, x) != napi_ok)
      return 1;
  return napi_set_named_property(env, o, key, arr) != napi_ok;
}

/* status().heap.trend: { windows, from, to, live, perMinute, z, growing,
 * since, sites, growingSites, times, heapSeries, top: [{ functionName, url,
 * line (1-based, 0 unknown), live, perMinute, z, since, share, series }] }
 * (docs/recorder.md): times, heapSeries and series per window, oldest first. */
static int trend_status(napi_env env, napi_value h, cprof_trend_t *trend) {
  cprof_trend_result_t r;
  napi_value o, top, b;
  if (cprof_trend_latest(trend, &r) != CPROF_OK) return 0; /* no trend this time */
  int bad = napi_create_object(env, &o) != napi_ok || napi_create_array(env, &top) != napi_ok ||
            napi_get_boolean(env, r.heap.growing, &b) != napi_ok ||
            napi_set_named_property(env, o, "growing", b) != napi_ok ||
            cprof__js_set_num(env, o, "windows", r.windows) ||
            set_num_or_null(env, o, "from", r.windows ? (double)r.from_ms : NAN) ||
            set_num_or_null(env, o, "to", r.windows ? (double)r.to_ms : NAN) ||
            cprof__js_set_num(env, o, "live", (double)r.live) ||
            cprof__js_set_num(env, o, "perMinute", round(r.heap.per_min)) ||
            cprof__js_set_num(env, o, "z", r.heap.z) ||
            set_num_or_null(env, o, "since", r.windows ? (double)r.heap.since_ms : NAN) ||
            cprof__js_set_num(env, o, "sites", r.sites) ||
            cprof__js_set_num(env, o, "growingSites", r.growing) ||
            set_series(env, o, "times", r.times, r.times ? r.windows : 0) ||
            set_series(env, o, "heapSeries", r.heap_series, r.heap_series ? r.windows : 0);
  for (uint32_t i = 0; i < r.ntop && !bad; i++) {
    const cprof_trend_site_t *s = &r.top[i];
    napi_value e;
    bad = napi_create_object(env, &e) != napi_ok ||
          cprof__js_set_str(env, e, "functionName", s->name) ||
          cprof__js_set_str(env, e, "url", s->url) ||
          cprof__js_set_num(env, e, "line", s->line >= 0 ? s->line + 1 : 0) ||
          cprof__js_set_num(env, e, "live", (double)s->live) ||
          cprof__js_set_num(env, e, "perMinute", round(s->per_min)) ||
          cprof__js_set_num(env, e, "z", s->z) ||
          cprof__js_set_num(env, e, "since", (double)s->since_ms) ||
          set_num_or_null(env, e, "share", s->share) ||
          set_series(env, e, "series", s->series, r.windows) ||
          napi_set_element(env, top, i, e) != napi_ok;
  }
  cprof_trend_result_free(&r);
  return bad || napi_set_named_property(env, o, "top", top) != napi_ok ||
         napi_set_named_property(env, h, "trend", o) != napi_ok;
}

napi_value cprof__rec_status(napi_env env, cprof_rec_t *rec) {
  cprof_ring_stats_t s;
  napi_value o, b;
  if (!rec) {
    NAPI_CALL(env, napi_get_null(env, &o));
    return o;
  }
  cprof_ring_stats_t hs;
  if (rec->running) {
    cprof_ring_evict(rec->ring, now_ms());
    cprof_ring_evict(rec->heap_ring, now_ms());
  }
  cprof_ring_stats(rec->ring, &s);
  cprof_ring_stats(rec->heap_ring, &hs);
  unsigned pending = rec->converting;
  for (pending_t *p = rec->head; p; p = p->next)
    pending++;
  NAPI_CALL(env, napi_create_object(env, &o));
  NAPI_CALL(env, napi_get_boolean(env, rec->running, &b));
  NAPI_CALL(env, napi_set_named_property(env, o, "running", b));
  if (cprof__js_set_num(env, o, "windows", s.windows) ||
      cprof__js_set_num(env, o, "bytes", (double)s.bytes) ||
      cprof__js_set_num(env, o, "from", (double)s.from_ms) ||
      cprof__js_set_num(env, o, "to", (double)s.to_ms) ||
      cprof__js_set_num(env, o, "evicted", (double)s.evicted) ||
      cprof__js_set_num(env, o, "lost", (double)rec->lost) ||
      cprof__js_set_num(env, o, "failed", (double)rec->failed) ||
      cprof__js_set_num(env, o, "evictedForSpace", (double)rec->evicted_for_space) ||
      cprof__js_set_num(env, o, "trimmed", (double)s.trimmed) ||
      cprof__js_set_num(env, o, "pending", pending) ||
      cprof__js_set_num(env, o, "current", rec->running ? (double)rec->seq : 0))
    return NULL;
  if (rec->heap) {
    napi_value h;
    NAPI_CALL(env, napi_create_object(env, &h));
    if (cprof__js_set_num(env, h, "windows", hs.windows) ||
        cprof__js_set_num(env, h, "bytes", (double)hs.bytes) ||
        cprof__js_set_num(env, h, "from", (double)hs.from_ms) ||
        cprof__js_set_num(env, h, "to", (double)hs.to_ms) ||
        cprof__js_set_num(env, h, "evicted", (double)hs.evicted) ||
        cprof__js_set_num(env, h, "intervalBytes", rec->heap_interval) ||
        trend_status(env, h, rec->trend))
      return NULL;
    NAPI_CALL(env, napi_set_named_property(env, o, "heap", h));
  }
  return o;
}

/* ---- dump: the selected windows merged on the worker thread ---- */

typedef struct {
  cprof_window_t **w;
  size_t n;
} sel_t;

static int produce_merge(void *ctx, cprof_profile_t **out, char *errbuf, size_t errlen) {
  sel_t *s = ctx;
  cprof_profile_t **in = malloc(s->n * sizeof *in);
  if (!in) return CPROF_ENOMEM;
  for (size_t i = 0; i < s->n; i++)
    in[i] = s->w[i]->profile;
  int rc = cprof_profile_merge(in, s->n, out);
  free(in);
  if (rc != CPROF_OK)
    snprintf(errbuf, errlen, "cannot merge the recorder's windows: %s", cprof_strerror(rc));
  return rc;
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

napi_value cprof__rec_dump(napi_env env, cprof_rec_t *rec, napi_value *argv, double last,
                           bool heap) {
  cprof_job_in_t in = {0};
  napi_value r, promise;
  sel_t *s;
  if (!rec) {
    cprof__throw(env, "ERR_CPROF_NOT_STARTED",
                 "the recorder was never started: call recorder.start() first");
    return NULL;
  }
  if (heap && !rec->heap) {
    cprof__throw(env, "ERR_CPROF_NOT_STARTED",
                 "the recorder records no heap windows: start it with heap: true");
    return NULL;
  }
  if (!(s = calloc(1, sizeof *s)) ||
      cprof_ring_select(heap ? rec->heap_ring : rec->ring, (int64_t)last, &s->w, &s->n)) {
    free(s);
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory selecting the recorder's windows");
    return NULL;
  }
  if (s->n == 0) {
    char msg[320];
    produce_free(s);
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
    return NULL;
  }
  if (heap) newest_only(s);
  int64_t from = s->w[0]->from_ms, to = s->w[s->n - 1]->to_ms;
  size_t n = s->n;
  in.produce = produce_merge;
  in.produce_free = produce_free;
  in.produce_ctx = s;
  if (cprof__job_args(env, argv, &in) != 0 || cprof__job_export_args(env, argv[3], &in) != 0)
    return NULL;
  if (!in.opts.start_time_ms) in.opts.start_time_ms = from; /* pprof's time_nanos */
  if (heap && !in.opts.duration_us) in.opts.duration_us = (to - from) * 1000;
  if (!(promise = cprof__job_queue(env, &in))) return NULL;
  NAPI_CALL(env, napi_create_object(env, &r));
  NAPI_CALL(env, napi_set_named_property(env, r, "promise", promise));
  if (cprof__js_set_num(env, r, "from", (double)from) ||
      cprof__js_set_num(env, r, "to", (double)to) ||
      cprof__js_set_num(env, r, "windows", (double)n))
    return NULL;
  return r;
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

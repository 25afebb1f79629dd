/* The flight recorder's binding: its JS entry points, and every JS value
 * the recorder reads (arguments, store and push options) or makes (window
 * infos, status, dump results), as libuv keeps its uv_* wrappers apart
 * from the uv__* engines. recorder.c is the engine (the session, the
 * rotation, the queue), src/core/window.c the conversion; this file holds
 * the environment's recorder and what excludes it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "addon.h"
#include "args.h"
#include "entry.h"
#include "errors.h"
#include "job_args.h"
#include "job_run.h"
#include "jsutil.h"
#include "labels.h"
#include "macros.h"
#include "recorder.h"

/* ---- what the recorder reads ---- */

static int busy(napi_env env, const cprof_addon_t *addon, double heap_interval) {
  const char *why = NULL;
  if (cprof__rec_running(addon->recorder))
    why = "the recorder is already running: call recorder.stop() first to start it with other "
          "options";
  else if (heap_interval > 0 && cprof__ctl_running(&addon->heap))
    why = "a heap profile started with heap.start() is running: stop it first, or start the "
          "recorder without heap";
  if (why) cprof__throw(env, "ERR_CPROF_BUSY", why);
  return why != NULL;
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
static int store_args(napi_env env, napi_value v, cprof_window_store_t *st) {
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
static int push_args(napi_env env, napi_value v, cprof_window_push_t *pu) {
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

/* A number argument that may be undefined (then *out stays). */
static int opt_double(napi_env env, napi_value v, const char *what, double *out) {
  napi_valuetype t;
  NAPI_CALL_INT(env, napi_typeof(env, v, &t));
  return t == napi_undefined ? 0 : cprof__arg_double(env, v, what, out);
}

/* A boolean argument that may be undefined (then *out stays). */
static int opt_bool(napi_env env, napi_value v, const char *what, bool *out) {
  napi_valuetype t;
  NAPI_CALL_INT(env, napi_typeof(env, v, &t));
  return t == napi_undefined ? 0 : cprof__arg_bool(env, v, what, out);
}

/* ---- what the recorder makes ---- */

static napi_value number(napi_env env, double v) {
  napi_value n;
  NAPI_CALL(env, napi_create_double(env, v, &n));
  return n;
}

/* push: [Buffer, ...], one per part (copied: the parts are freed with the window). */
static int set_parts(napi_env env, napi_value info, const cprof_window_made_t *m) {
  napi_value arr, buf;
  void *ignored;
  NAPI_CALL_INT(env, napi_create_array_with_length(env, m->nparts, &arr));
  for (size_t i = 0; i < m->nparts; i++) {
    NAPI_CALL_INT(env,
                  napi_create_buffer_copy(env, m->parts[i].len, m->parts[i].data, &ignored, &buf));
    NAPI_CALL_INT(env, napi_set_element(env, arr, (uint32_t)i, buf));
  }
  NAPI_CALL_INT(env, napi_set_named_property(env, info, "push", arr));
  return 0;
}

/* { kind, seq, from, to, samples, bytes, files: { cpuprofile?|heapprofile?, pprof? },
 *   pruned, evictedForSpace, push?: [Buffer], error?: Error } */
static napi_value window_info(napi_env env, const cprof_rec_window_t *w) {
  const cprof_window_made_t *m = w->made;
  napi_value info, files, err;
  NAPI_CALL(env, napi_create_object(env, &info));
  NAPI_CALL(env, napi_create_object(env, &files));
  if (cprof__js_set_str(env, info, "kind", w->heap ? "heap" : "cpu") ||
      cprof__js_set_num(env, info, "seq", (double)w->seq) ||
      cprof__js_set_num(env, info, "from", m->from_ms) ||
      cprof__js_set_num(env, info, "to", m->to_ms) ||
      cprof__js_set_num(env, info, "samples", m->samples) ||
      cprof__js_set_num(env, info, "bytes", (double)m->bytes) ||
      cprof__js_set_num(env, info, "pruned", m->pruned) ||
      cprof__js_set_num(env, info, "evictedForSpace", m->evicted) ||
      (m->files[0] &&
       cprof__js_set_str(env, files, w->heap ? "heapprofile" : "cpuprofile", m->files[0])) ||
      (m->files[1] && cprof__js_set_str(env, files, "pprof", m->files[1])))
    return NULL;
  NAPI_CALL(env, napi_set_named_property(env, info, "files", files));
  if (m->nparts && set_parts(env, info, m) != 0) return NULL;
  if (w->err != CPROF_OK) {
    char msg[640];
    snprintf(msg, sizeof msg, "recorder %s window %llu: %s", w->heap ? "heap" : "CPU",
             (unsigned long long)w->seq, w->errmsg);
    if (!(err = cprof__make_error(env, cprof__js_code(w->err), msg))) return NULL;
    NAPI_CALL(env, napi_set_named_property(env, info, "error", err));
  }
  return info;
}

/* The recorder's notify: fn(info). An exception is the engine's to clear. */
static void on_window(napi_env env, napi_ref fn_ref, const cprof_rec_window_t *w) {
  napi_value fn, info, recv, ignored;
  if (!(info = window_info(env, w)) || napi_get_reference_value(env, fn_ref, &fn) != napi_ok ||
      napi_get_undefined(env, &recv) != napi_ok)
    return;
  napi_call_function(env, recv, fn, 1, &info, &ignored);
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

/* One of trend.top: { functionName, url, line (1-based, 0 unknown), live,
 * perMinute, z, since, share, series }. */
static napi_value trend_site(napi_env env, const cprof_trend_site_t *s, uint32_t windows) {
  napi_value e;
  if (napi_create_object(env, &e) != napi_ok ||
      cprof__js_set_str(env, e, "functionName", s->name) ||
      cprof__js_set_str(env, e, "url", s->url) ||
      cprof__js_set_num(env, e, "line", s->line >= 0 ? s->line + 1 : 0) ||
      cprof__js_set_num(env, e, "live", (double)s->live) ||
      cprof__js_set_num(env, e, "perMinute", round(s->per_min)) ||
      cprof__js_set_num(env, e, "z", s->z) ||
      cprof__js_set_num(env, e, "since", (double)s->since_ms) ||
      set_num_or_null(env, e, "share", s->share) ||
      set_series(env, e, "series", s->series, windows))
    return NULL;
  return e;
}

/* status().heap.trend: { windows, from, to, live, perMinute, z, growing,
 * since, sites, growingSites, times, heapSeries, top: [trend_site] }
 * (docs/recorder.md): times, heapSeries and series per window, oldest first. */
static int trend_status(napi_env env, napi_value h, cprof_trend_t *trend) {
  cprof_trend_result_t r;
  napi_value o, top, b, e;
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
  for (uint32_t i = 0; i < r.ntop && !bad; i++)
    bad =
        !(e = trend_site(env, &r.top[i], r.windows)) || napi_set_element(env, top, i, e) != napi_ok;
  cprof_trend_result_free(&r);
  return bad || napi_set_named_property(env, o, "top", top) != napi_ok ||
         napi_set_named_property(env, h, "trend", o) != napi_ok;
}

/* status().heap: { windows, bytes, from, to, evicted, intervalBytes, trend? } */
static int heap_status(napi_env env, napi_value o, const cprof_rec_status_t *s) {
  napi_value h;
  NAPI_CALL_INT(env, napi_create_object(env, &h));
  if (cprof__js_set_num(env, h, "windows", s->heap.windows) ||
      cprof__js_set_num(env, h, "bytes", (double)s->heap.bytes) ||
      cprof__js_set_num(env, h, "from", (double)s->heap.from_ms) ||
      cprof__js_set_num(env, h, "to", (double)s->heap.to_ms) ||
      cprof__js_set_num(env, h, "evicted", (double)s->heap.evicted) ||
      cprof__js_set_num(env, h, "intervalBytes", s->heap_interval) ||
      trend_status(env, h, s->trend))
    return -1;
  NAPI_CALL_INT(env, napi_set_named_property(env, o, "heap", h));
  return 0;
}

/* { running, windows, bytes, from, to, evicted, lost, failed,
 * evictedForSpace, trimmed, pending, current, heap? } (recorder.h) */
static napi_value status_value(napi_env env, const cprof_rec_status_t *s) {
  napi_value o, b;
  NAPI_CALL(env, napi_create_object(env, &o));
  NAPI_CALL(env, napi_get_boolean(env, s->running, &b));
  NAPI_CALL(env, napi_set_named_property(env, o, "running", b));
  if (cprof__js_set_num(env, o, "windows", s->cpu.windows) ||
      cprof__js_set_num(env, o, "bytes", (double)s->cpu.bytes) ||
      cprof__js_set_num(env, o, "from", (double)s->cpu.from_ms) ||
      cprof__js_set_num(env, o, "to", (double)s->cpu.to_ms) ||
      cprof__js_set_num(env, o, "evicted", (double)s->cpu.evicted) ||
      cprof__js_set_num(env, o, "lost", (double)s->lost) ||
      cprof__js_set_num(env, o, "failed", (double)s->failed) ||
      cprof__js_set_num(env, o, "evictedForSpace", (double)s->evicted_for_space) ||
      cprof__js_set_num(env, o, "trimmed", (double)s->cpu.trimmed) ||
      cprof__js_set_num(env, o, "pending", s->pending) ||
      cprof__js_set_num(env, o, "current", (double)s->current) ||
      (s->has_heap && heap_status(env, o, s) != 0))
    return NULL;
  return o;
}

/* ---- the entry points ---- */

/* recStart(intervalUs, keepMs, maxBytes, store, onWindow, heapIntervalBytes,
 * push, trendWindows) → transport. heapIntervalBytes 0 or undefined: no heap
 * windows. store: undefined or { dir, cpuprofile, pprof, maxAge, maxBytes,
 * lines? }; push: undefined or { maxSamples, maxBytes, cwd?, lines? } (each
 * window's info then carries push: the window as gzip'd pprof parts within
 * those limits). trendWindows: undefined (60) or the heap trend's length in
 * windows. onWindow(info) runs after each window is kept. */
napi_value cprof__recorder_start(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  cprof_rec_opts_t o = {0};
  napi_value argv[8], transport;
  napi_ref fn = NULL;
  double interval_us;
  cprof_rec_t *rec;
  if (!addon || cprof__args(env, info, 8, argv) != 0 ||
      cprof__arg_double(env, argv[0], "interval", &interval_us) != 0 ||
      cprof__arg_double(env, argv[1], "keep", &o.keep_ms) != 0 ||
      cprof__arg_double(env, argv[2], "maxBytes", &o.max_bytes) != 0 ||
      opt_double(env, argv[5], "heapInterval", &o.cfg.heap_interval) != 0 ||
      opt_double(env, argv[7], "trendWindows", &o.trend_windows) != 0 ||
      busy(env, addon, o.cfg.heap_interval))
    return NULL;
  o.cfg.interval_us = (int64_t)interval_us;
  if (store_args(env, argv[3], &o.cfg.store) != 0 || push_args(env, argv[6], &o.cfg.push) != 0 ||
      napi_create_reference(env, argv[4], 1, &fn) != napi_ok) {
    cprof_window_cfg_free(&o.cfg);
    return NULL;
  }
  if (!(rec = cprof__rec_start(env, &o, on_window, fn))) return NULL;
  cprof__rec_release(env, addon->recorder); /* the previous recording's rings */
  addon->recorder = rec;
  NAPI_CALL(env,
            napi_create_string_utf8(env, cprof__rec_transport(rec), NAPI_AUTO_LENGTH, &transport));
  return transport;
}

/* recRotate(heap, labels?) → the number of the window it ended (0 if that one was
 * lost); heap: the heap window ends with it (lib/recorder: every heapWindow). */
napi_value cprof__recorder_rotate(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  size_t argc = 2;
  napi_value argv[2];
  bool heap = false;
  cprof_labels_t *labels = NULL;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc >= 1) NAPI_CALL(env, napi_get_value_bool(env, argv[0], &heap));
  if (argc >= 2 && cprof__labels_read(env, argv[1], &labels) != 0) return NULL;
  if (addon && addon->recorder)
    cprof__rec_set_labels(addon->recorder, labels);
  else
    cprof_labels_free(labels);
  uint64_t ended;
  if (!addon || cprof__rec_rotate(env, addon->recorder, heap, &ended) != 0) return NULL;
  return number(env, (double)ended);
}

/* recStop(labels?) → the number of the last window (0 if lost). The rings stay
 * for a last dump until the next start. */
napi_value cprof__recorder_stop(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  size_t argc = 1;
  napi_value argv[1];
  cprof_labels_t *labels = NULL;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc >= 1 && cprof__labels_read(env, argv[0], &labels) != 0) return NULL;
  if (addon && addon->recorder)
    cprof__rec_set_labels(addon->recorder, labels);
  else
    cprof_labels_free(labels);
  uint64_t ended;
  if (!addon || cprof__rec_stop(env, addon->recorder, &ended) != 0) return NULL;
  return number(env, (double)ended);
}

/* recStatus() → the status object, or null when never started. */
napi_value cprof__recorder_status(napi_env env, napi_callback_info info) {
  (void)info;
  cprof_addon_t *addon = cprof__addon(env);
  cprof_rec_status_t s;
  napi_value null;
  if (!addon) return NULL;
  if (!addon->recorder) {
    NAPI_CALL(env, napi_get_null(env, &null));
    return null;
  }
  cprof__rec_status(addon->recorder, &s);
  return status_value(env, &s);
}

/* recDump(lastMs, dir, name, top, exportOpts, heap) → { promise, from, to,
 * windows }; heap true: the heap windows (the newest one). The windows are
 * merged on the worker thread; argv 1..4 as the job reads them (job.h). */
napi_value cprof__recorder_dump(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  cprof_job_in_t in = {0};
  cprof_rec_span_t span;
  napi_value argv[6], r, promise;
  double last;
  bool heap = false;
  if (!addon || cprof__args(env, info, 6, argv) != 0 ||
      cprof__arg_double(env, argv[0], "last", &last) != 0 ||
      opt_bool(env, argv[5], "heap", &heap) != 0 ||
      cprof__rec_select(env, addon->recorder, last, heap, &in, &span) != 0)
    return NULL;
  if (cprof__job_args(env, argv + 1, &in) != 0 || cprof__job_export_args(env, argv[4], &in) != 0)
    return NULL;
  if (!in.opts.start_time_ms) in.opts.start_time_ms = span.from_ms; /* pprof's time_nanos */
  if (heap && !in.opts.duration_us) in.opts.duration_us = (span.to_ms - span.from_ms) * 1000;
  if (!(promise = cprof__job_queue(env, &in))) return NULL;
  NAPI_CALL(env, napi_create_object(env, &r));
  NAPI_CALL(env, napi_set_named_property(env, r, "promise", promise));
  if (cprof__js_set_num(env, r, "from", (double)span.from_ms) ||
      cprof__js_set_num(env, r, "to", (double)span.to_ms) ||
      cprof__js_set_num(env, r, "windows", (double)span.windows))
    return NULL;
  return r;
}

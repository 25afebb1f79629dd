/* The flight recorder's parts of one fuzz iteration, included by
 * harness.c (so the libFuzzer target and the cmocka replay run them):
 *
 *   - cprof_note_profile_span (note.h) on the input: the spans it gives lie
 *     inside the input, the profile span is brace-delimited, and its parse
 *     runs;
 *   - cprof_store_parse_name on the input as a file name;
 *   - cprof_profile_trim_before (ring.h) on every CPU profile that parses,
 *     at a point from the input: it drops exactly the samples it says, the
 *     total stays the sum of self, and the profile still exports;
 *   - the heap trend (trend.h): every heap profile that parses is added to
 *     a trend of 4 windows, at most 1 + knob % 8 sites, six times: the same
 *     live heap each time, so nothing grows, the result's counts stay in
 *     their bounds and its live heap is the profile's total; and the input's
 *     bytes, read as a series of values, go through the series test;
 *   - cprof_window_convert (window.h) on the input as a CPU window (a
 *     notification) and as a heap window (a reply or profile text), into a
 *     ring and a trend, encoded for push when the knob is odd: a window it
 *     keeps is in the ring with its samples, a failure says why. */
#include <math.h>

#include "note.h"
#include "ring.h"
#include "store.h"
#include "trend.h"
#include "window.h"

static void fuzz_recorder_note(const char *json, size_t size) {
  size_t off = 0, n = 0, tlen = 0;
  const char *title = NULL;
  char err[256];
  if (cprof_note_profile_span(json, size, &off, &n, &title, &tlen, err, sizeof err) != CPROF_OK)
    return;
  FUZZ_CHECK(off < size && n >= 2 && n <= size - off && json[off] == '{' &&
                 json[off + n - 1] == '}',
             "note profile span %zu+%zu of %zu", off, n, size);
  FUZZ_CHECK(title != NULL && title >= json && tlen <= size - (size_t)(title - json),
             "note title outside the input");
  cprof_profile_t *q = NULL;
  if (cprof_profile_parse(json + off, n, &q, NULL, 0) == CPROF_OK) cprof_profile_free(q);
}

static void fuzz_recorder_window(const char *json, size_t size, uint8_t knob_value) {
  cprof_window_cfg_t cfg = {.interval_us = 1000,
                            .heap_interval = 1024,
                            .push = {.on = knob_value & 1, .max_samples = 1u + knob_value / 2}};
  cprof_trend_t *trend = cprof_trend_new(4, 4);
  for (int heap = 0; trend && heap < 2; heap++) {
    cprof_ring_t *ring = cprof_ring_new(0, 1); /* one window: the newest is always kept */
    cprof_window_text_t t = {.len = size, .from_ms = 1000, .to_ms = 2000, .seq = 1, .heap = heap};
    cprof_window_made_t m;
    cprof_ring_stats_t s;
    char err[256];
    if (!ring || !(t.json = malloc(size + 1))) {
      cprof_ring_free(ring);
      break;
    }
    memcpy(t.json, json, size);
    t.json[size] = '\0';
    int rc = cprof_window_convert(&cfg, &t, ring, trend, &m, err, sizeof err);
    FUZZ_CHECK(t.json == NULL, "the window's text was kept");
    FUZZ_CHECK(rc == CPROF_OK || err[0], "window error %d without a message", rc);
    cprof_ring_stats(ring, &s);
    if (rc == CPROF_OK)
      FUZZ_CHECK(s.windows == 1 && s.to_ms == m.to_ms && m.bytes > 0,
                 "kept window not in the ring");
    FUZZ_CHECK(!m.nparts || cfg.push.on, "push parts without push");
    cprof_window_made_free(&m);
    cprof_ring_free(ring);
  }
  cprof_trend_free(trend);
}

static void fuzz_recorder_name(const uint8_t *data, size_t size) {
  char name[256];
  int64_t to = -1;
  if (size >= sizeof name) return;
  memcpy(name, data, size);
  name[size] = '\0';
  if (cprof_store_parse_name(name, &to)) FUZZ_CHECK(to >= 0, "store name with a negative end");
}

static void fuzz_recorder_trim(cprof_profile_t *p, uint8_t knob_value) {
  if (p->kind != CPROF_KIND_CPU) return;
  uint32_t before = p->nsamples;
  int64_t span = p->end_time - p->start_time;
  int64_t at = p->start_time + (span > 0 ? span / 256 * knob_value : knob_value);
  uint32_t gone = cprof_profile_trim_before(p, at);
  FUZZ_CHECK(gone <= before && p->nsamples == before - gone, "trim: %u of %u gone, %u left", gone,
             before, p->nsamples);
  FUZZ_CHECK(p->start_time >= at || gone == 0, "trim: start %lld before %lld",
             (long long)p->start_time, (long long)at);
  int64_t self = cprof_profile_total(p); /* the saturating sum of self */
  FUZZ_CHECK(self == p->nodes[0].total, "trim: total %lld is not the sum of self %lld",
             (long long)p->nodes[0].total, (long long)self);
  FILE *f = tmpfile();
  if (f) {
    FUZZ_CHECK(cprof_export_cpuprofile(p, f) == CPROF_OK, "trimmed profile does not export");
    fclose(f);
  }
}

static void fuzz_recorder_trend(const cprof_profile_t *p, uint8_t knob_value) {
  if (p->kind != CPROF_KIND_HEAP) return;
  uint32_t max_sites = 1u + knob_value % 8;
  cprof_trend_t *t = cprof_trend_new(4, max_sites);
  if (!t) return;
  cprof_trend_opts_t o;
  cprof_trend_opts_default(&o);
  o.min_windows = 3;
  for (int i = 0; i < 6; i++) {
    int rc = cprof_trend_add(t, p, 1000 * (i + 1), &o);
    FUZZ_CHECK(rc == CPROF_OK || rc == CPROF_ENOMEM, "trend add: %d", rc);
  }
  cprof_trend_result_t r;
  if (cprof_trend_latest(t, &r) == CPROF_OK && r.windows) {
    FUZZ_CHECK(r.windows <= 4, "trend kept %u windows of 4", r.windows);
    FUZZ_CHECK(r.sites <= 2 * max_sites, "trend kept %u sites of %u", r.sites, max_sites);
    FUZZ_CHECK(r.growing == 0 && r.ntop == 0, "a constant heap grows: %u sites", r.growing);
    FUZZ_CHECK(r.live == cprof_profile_total(p), "trend live %lld", (long long)r.live);
  }
  cprof_trend_result_free(&r);
  cprof_trend_free(t);
}

static void fuzz_recorder_series(const uint8_t *data, size_t size) {
  int64_t v[32], t[32];
  uint32_t n = (uint32_t)(size / 4 < 32 ? size / 4 : 32);
  for (uint32_t i = 0; i < n; i++) {
    v[i] =
        (int64_t)data[4 * i] << 24 | data[4 * i + 1] << 16 | data[4 * i + 2] << 8 | data[4 * i + 3];
    t[i] = 1000 * (int64_t)(i + 1);
  }
  cprof_trend_opts_t o;
  cprof_trend_opts_default(&o);
  cprof_trend_verdict_t vd;
  if (cprof_trend_series(v, t, n, &o, NULL, &vd) != CPROF_OK) return;
  FUZZ_CHECK(isfinite(vd.per_min) && isfinite(vd.z), "series gave a non-finite verdict");
  FUZZ_CHECK(n == 0 || (vd.since_ms >= t[0] && vd.since_ms <= t[n - 1]), "since outside");
  FUZZ_CHECK(!vd.growing || (vd.per_min > 0 && vd.z >= o.z_min), "growing without growth");
}

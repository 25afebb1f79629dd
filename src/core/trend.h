/* The live heap's trend by allocation site: which sites keep growing.
 *
 * The flight recorder's heap windows are each the whole live heap at the
 * window's end (docs/recorder.md, Heap windows). A trend keeps, for the last
 * max_windows windows, the live bytes of every allocation site (a site is a
 * function as the flat profile keys it, minus the column: functionName + url
 * + line; bytes a builtin such as String.prototype.repeat allocates count for
 * the innermost caller with a script, the app's code) and of the whole heap,
 * and tells which sites grow steadily:
 *
 *   - growth per minute: the Theil–Sen slope (the median of the slopes
 *     between every pair of windows), so one outlier window moves it little;
 *   - a trend, not noise: Mann–Kendall's S over the series (ties
 *     corrected), as Z; growing needs Z >= z_min;
 *   - still growing: the Theil–Sen slope over the recent windows (the last
 *     recent_fraction of them, at least 4) is positive and at least
 *     recent_ratio of the whole slope, so a burst that stopped (a cache
 *     filled once) is not reported once it is flat again;
 *   - more than sampling noise: growth over the series (slope x span) of at
 *     least min_growth bytes (the recorder passes 4 x heapInterval: a
 *     sampled live heap moves by about one interval per sample);
 *   - since: the end of the last window where the site's live bytes were at
 *     their lowest in the series (the oldest window kept when the growth
 *     began before it);
 *   - share: the site's slope over the whole heap's slope (a NaN when the
 *     heap does not grow; above 1 when other sites shrink meanwhile).
 *
 * Exact rule and thresholds: docs/recorder.md, Heap trend. Pure C11 plus
 * POSIX threads (a mutex: the recorder adds on a worker thread while the
 * main thread reads the latest result). */
#ifndef CPROF_TREND_H
#define CPROF_TREND_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define CPROF_TREND_WINDOWS_DEFAULT 60
#define CPROF_TREND_SITES_DEFAULT 1024
#define CPROF_TREND_MIN_WINDOWS 8
#define CPROF_TREND_Z_MIN 3.0
#define CPROF_TREND_RECENT_FRACTION 0.25
#define CPROF_TREND_RECENT_RATIO 0.25
#define CPROF_TREND_TOP 10
/* The recorder's noise rule: growth over the series of at least this many
 * sampling intervals. Objects that live minutes (timers, sockets, requests
 * in flight at a GC) put a few samples on a site that come and go; with 60 s
 * heap windows, 4 (the rule before) let a 5-sample plateau through in 2 of
 * 60 clean minutes (bench/leaks.js, docs/benchmarks.md). */
#define CPROF_TREND_MIN_GROWTH_SAMPLES 10

typedef struct {
  uint32_t min_windows;   /* fewer windows: no verdict (CPROF_TREND_MIN_WINDOWS) */
  double z_min;           /* Mann–Kendall Z at least this (CPROF_TREND_Z_MIN) */
  double recent_fraction; /* the recent part, at least 4 windows */
  double recent_ratio;    /* recent slope >= this x the whole slope */
  int64_t min_growth;     /* bytes grown over the series, at least */
  uint32_t top;           /* growing sites in a result, at most */
} cprof_trend_opts_t;

/* The defaults above, min_growth 0. */
void cprof_trend_opts_default(cprof_trend_opts_t *o);

/* One series' verdict. */
typedef struct {
  double per_min;   /* Theil–Sen slope, bytes per minute (0 with < 2 windows) */
  double recent;    /* the same over the recent windows */
  double z;         /* Mann–Kendall Z (0 with < 3 windows) */
  int64_t since_ms; /* the end of the last window at the series' minimum */
  int growing;      /* every condition above holds */
} cprof_trend_verdict_t;

/* The test on one series: v[i] bytes at t_ms[i] (increasing), n values.
 * scratch: room for n * (n - 1) / 2 doubles (NULL: allocated here; then
 * CPROF_ENOMEM is possible). */
int cprof_trend_series(const int64_t *v, const int64_t *t_ms, uint32_t n,
                       const cprof_trend_opts_t *o, double *scratch, cprof_trend_verdict_t *out);

typedef struct {
  char *name; /* owned by the result */
  char *url;
  int32_t line;   /* 0-based, as in the profile; -1 unknown */
  int64_t live;   /* bytes now (the newest window) */
  double per_min; /* bytes per minute */
  double z;       /* Mann–Kendall Z */
  int64_t since_ms;
  double share;    /* of the heap's growth per minute; NaN when the heap does not grow */
  int64_t *series; /* live bytes per window, oldest first (windows values, owned) */
} cprof_trend_site_t;

typedef struct {
  uint32_t windows; /* in the series */
  int64_t from_ms;  /* the oldest window's end */
  int64_t to_ms;    /* the newest window's end */
  cprof_trend_verdict_t heap;
  int64_t live;            /* the whole live heap now, bytes */
  uint32_t sites;          /* tracked */
  uint32_t growing;        /* growing sites, all of them */
  cprof_trend_site_t *top; /* the growing sites, largest per_min first, at most opts.top */
  uint32_t ntop;
  int64_t *times;       /* the windows' ends, oldest first (windows values, owned) */
  int64_t *heap_series; /* the whole live heap per window (windows values, owned) */
} cprof_trend_result_t;

void cprof_trend_result_free(cprof_trend_result_t *r);

typedef struct cprof_trend_s cprof_trend_t;

/* max_windows >= 2 (the series' length), max_sites >= 1 (sites kept per
 * window, the largest; the tracker keeps at most twice that). NULL when out
 * of memory or an argument is out of range. */
cprof_trend_t *cprof_trend_new(uint32_t max_windows, uint32_t max_sites);
void cprof_trend_free(cprof_trend_t *t);

/* Adds a heap profile (the live heap at end_ms) as the newest window,
 * dropping the oldest beyond max_windows, then computes the result with o
 * and keeps it as the latest. end_ms must be after the previous window's
 * (CPROF_EINVAL otherwise, and for a CPU profile). CPROF_OK or
 * CPROF_ENOMEM (the trend is then left as it was). */
int cprof_trend_add(cprof_trend_t *t, const cprof_profile_t *heap, int64_t end_ms,
                    const cprof_trend_opts_t *o);

/* A deep copy of the latest result (windows 0 before the first add). */
int cprof_trend_latest(cprof_trend_t *t, cprof_trend_result_t *out);

#endif

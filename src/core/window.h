/* One finished flight-recorder window, from V8's text to what is kept: the
 * profile parsed into the ring (ring.h), a heap window added to the trend
 * (trend.h), and, as the recorder was started, written to its store
 * (store.h) and encoded as gzip'd pprof parts for push. Pure C, run on a
 * worker thread per window; the addon's recorder.c takes the text from the
 * inspector session and queues the work, one window at a time in order. */
#ifndef CPROF_WINDOW_H
#define CPROF_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "labelset.h"
#include "profile.h"
#include "ring.h"
#include "trend.h"

/* Continuous mode: every window also goes to a file in dir (store.h). */
typedef struct {
  char *dir; /* owned; NULL: no store */
  int cpuprofile, pprof;
  int64_t max_age_ms;           /* retention by age (0: none) */
  unsigned long long max_bytes; /* and by bytes (0: none) */
  int lines;                    /* pprof: one Location per line */
} cprof_window_store_t;

/* Push (lib/push): every window also as gzip'd pprof in memory, in parts
 * within the server's limits. */
typedef struct {
  int on;
  uint32_t max_samples; /* per part (0: no limit) */
  size_t max_bytes;     /* per part before gzip (0: no limit) */
  char *cwd;            /* owned; frames' files under it are named ./<path> (export.h) */
  int lines;            /* one Location per line */
} cprof_window_push_t;

/* What the recorder was started with, read by every window's conversion. */
typedef struct {
  int64_t interval_us;  /* CPU sampling interval */
  double heap_interval; /* heap sampling interval, bytes */
  cprof_window_store_t store;
  cprof_window_push_t push;
} cprof_window_cfg_t;

/* Frees the owned strings of cfg. */
void cprof_window_cfg_free(cprof_window_cfg_t *cfg);

/* A finished window as V8 gave it. */
typedef struct {
  char *json;             /* owned: a CPU window's Profiler.consoleProfileFinished
                             notification, a heap window's reply or profile text */
  size_t len;             /* its length */
  int64_t from_ms, to_ms; /* wall clock */
  int64_t cpu_us;         /* CPU: the profiled thread's CPU time over it (0: unknown) */
  uint64_t seq;           /* the recorder's window number */
  int heap;               /* a heap window */
  cprof_labels_t *labels; /* CPU: the label switches over it (labelset.h), owned; NULL: none */
} cprof_window_text_t;

/* What its conversion made (cprof_window_made_free). */
typedef struct {
  int64_t from_ms, to_ms; /* after the overlap trim (ring.h) */
  uint32_t samples;
  size_t bytes;        /* the model's size */
  char *files[2];      /* store: the .cpuprofile (.heapprofile) and .pb.gz paths, or NULL */
  unsigned pruned;     /* store files deleted by retention */
  unsigned evicted;    /* store files deleted to make room for this window */
  cprof_blob_t *parts; /* push: the window as gzip'd pprof parts */
  size_t nparts;
} cprof_window_made_t;

/* Converts t (its text is freed here, before the window is kept: never held
 * twice): parsed, pushed to ring (heap windows: also added to trend, which
 * may be NULL), its labels joined to its samples and kept with it (the
 * pushed and stored pprof carry them, and so does a dump), then pushed
 * and stored as cfg says, each its own outcome: a
 * window that cannot be encoded for push is still stored, and the other
 * way round. out starts with t's times. CPROF_OK, or the first error with
 * errbuf saying it (never empty); out holds what was made either way. */
int cprof_window_convert(const cprof_window_cfg_t *cfg, cprof_window_text_t *t, cprof_ring_t *ring,
                         cprof_trend_t *trend, cprof_window_made_t *out, char *errbuf,
                         size_t errlen);

void cprof_window_made_free(cprof_window_made_t *m);

/* The windows' profiles merged into one (a dump); labels not NULL: their
 * labels merged as their samples are (labelset.h; a window without labels
 * gives its samples none; NULL for heap windows). CPROF_OK or the merge's
 * error with errbuf. */
int cprof_window_merge(cprof_window_t *const *w, size_t n, cprof_profile_t **out,
                       cprof_labels_t **labels, char *errbuf, size_t errlen);

#endif

/* Labels per CPU sample (docs/labels.md). The app records each switch of
 * its current label set (withLabels) as (time, set id) into a ring of
 * doubles that JavaScript writes and C reads; at stop the switches are
 * joined to the profile's sample times: a JavaScript thread runs one piece
 * of code at a time, so the sample taken at t belongs to the set current
 * at t. The join feeds pprof's sample labels and the .labels.json sidecar
 * written beside the .cpuprofile. Pure C11. */
#ifndef CPROF_LABELSET_H
#define CPROF_LABELSET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "model.h"

/* The ring's layout (lib/labels/ring.js writes it): slot 0 counts the
 * switches ever written; then cap pairs (time in µs on CLOCK_MONOTONIC,
 * V8's sample clock; set id), switch k at pair k % cap. */
#define CPROF_LABEL_RING_SLOTS(cap) (1 + 2 * (size_t)(cap))

/* Caps (lib/labels/sets.js checks them first; the core refuses more). */
#define CPROF_LABEL_SETS_MAX 100000u
#define CPROF_LABEL_PAIRS_MAX 64u
/* A merge's union keeps at most this many sets besides none and the
 * overflow set, as one withLabels() table does (lib/labels/sets.js). */
#define CPROF_LABEL_SETS_CAP 1000u

/* A ring id of at least CPROF_LABEL_SPAN_STRIDE is a span set
 * (lib/labels/otel.js): set + STRIDE * (seq + 1), seq its number. */
#define CPROF_LABEL_SPAN_STRIDE 131072.0

typedef struct {
  double t_us;
  uint32_t set;
} cprof_label_switch_t;

/* One label set: n key/value pairs, strings owned, kv[2k] key, kv[2k+1] value. */
typedef struct {
  uint32_t n;
  char **kv;
} cprof_label_set_t;

typedef struct cprof_labels_s {
  cprof_label_set_t *sets;  /* sets[0] is the empty set: no labels */
  uint32_t nsets, sets_cap; /* sets_cap: allocated, grown by doubling */
  cprof_label_switch_t *sw; /* oldest first */
  size_t nsw;
  int lost;             /* the ring had wrapped: the switches before sw[0] are gone */
  double from_us;       /* the profile's start on the switches' clock (0: unknown) */
  uint32_t span_at;     /* sets[span_at..] are the span sets numbered span_first.. */
  double span_first;    /* (0 with span_at 0: none); an id of another is its set's */
  char *file;           /* the sidecar's name in the output directory; NULL: none */
  uint32_t *sample_set; /* after the join: each sample's set */
  uint32_t nsamples;
  uint32_t unknown; /* samples before the oldest switch kept, when lost (no labels) */
  int joined;       /* sample_set is each sample's set already (a join, a merge, a sidecar read) */
} cprof_labels_t;

/* An empty table holding only set 0; NULL when out of memory. */
cprof_labels_t *cprof_labels_new(void);
void cprof_labels_free(cprof_labels_t *l);

/* Appends a set of n pairs (kv: 2n strings, copied). CPROF_OK, CPROF_ENOMEM,
 * or CPROF_EINVAL past the caps. */
int cprof_labels_add_set(cprof_labels_t *l, const char *const *kv, uint32_t n);

/* Copies the ring's switches from the last one at or before from_us (the
 * profile's start: the set current then) on, oldest first. Pairs whose time
 * is not finite are skipped; a count that is not a whole number ≥ 0 reads
 * as 0. A span set's id becomes its index in l->sets (span_at, span_first),
 * or its label set's when not there. l->lost: the ring had wrapped past
 * from_us. */
int cprof_labels_take_ring(cprof_labels_t *l, const double *ring, uint32_t cap, double from_us);

/* Each sample's set given whole (a .labels.json read back for the viewer,
 * lib/viewer/labels-file.js): n ids, each below l->nsets, copied; apply()
 * then checks the count against the profile instead of joining.
 * CPROF_OK, CPROF_ENOMEM, CPROF_EINVAL (an id past the table). */
int cprof_labels_give(cprof_labels_t *l, const uint32_t *ids, uint32_t n);

/* Each sample of CPU profile p gets the set of the last switch at or
 * before its time (V8's startTime plus its timeDeltas); a set id the table
 * does not have reads as 0, and so does an (idle) sample: the loop waits,
 * no set's code runs. A startTime that is the clock modulo 2^32 µs (as
 * v8.startCpuProfile's JSON writes it, Node 24.12 to 26 at least) is put
 * back on the switches' clock: the multiple of 2^32 µs that brings it
 * nearest from_us is added. CPROF_OK, CPROF_ENOMEM, CPROF_EINVAL. */
int cprof_labels_join(cprof_labels_t *l, const cprof_profile_t *p);

/* The sidecar: {"version":1,"sets":[{},{"k":"v"}],"samples":[set per
 * sample],"unknownSamples":n}, one line (docs/formats.md). */
int cprof_labels_write(const cprof_labels_t *l, FILE *f);

/* For pprof: the joined samples grouped by (tree node, set). node_of maps
 * the profile's nodes to tree nodes. Rows sorted by tree node, then set. */
typedef struct {
  uint32_t tnode, set;
  uint64_t count;
  int64_t self; /* µs: the samples' weights (cprof_sample_weight) */
} cprof_label_row_t;

/* The job's step (job_tail.c): the join (unless l->joined), and o->labels
 * pointed at l for the pprof and HTML writers. Joined labels of another
 * count than the profile's samples are CPROF_EINVAL ("not this profile's
 * labels"). l NULL or p not CPU: nothing to do. */
int cprof_labels_apply(cprof_labels_t *l, const cprof_profile_t *p, cprof_export_opts_t *o,
                       char *errbuf, size_t errlen);

int cprof_labels_rows(const cprof_labels_t *l, const cprof_profile_t *p, const uint32_t *node_of,
                      cprof_label_row_t **rows, uint32_t *nrows);

/* ---- across profiles (labelset_merge.c) ---- */

/* The labels of n profiles merged as cprof_profile_merge concatenates
 * their samples: nsamples[k] is profile k's count, in[k] its joined labels
 * (of that many samples) or NULL (its samples carry none: set 0). Sets are
 * re-interned by content (keys and values; order does not count), in the
 * order the samples first use them; sets no sample uses are left out. Past
 * CPROF_LABEL_SETS_CAP sets, a new set's samples carry {cprof_overflow:
 * "true"} instead. unknown sums. Linear in the samples and sets. *out is
 * joined; CPROF_OK, CPROF_EINVAL (a count that differs), CPROF_ENOMEM. */
int cprof_labels_merge(const cprof_labels_t *const *in, const uint32_t *nsamples, size_t n,
                       cprof_labels_t **out);

/* A sidecar read back (cprof_labels_write's JSON): joined, each sample's
 * set checked against the table. CPROF_OK, or CPROF_EPARSE/ESCHEMA/ENOMEM
 * with errbuf saying why. */
int cprof_labels_read(const char *json, size_t len, cprof_labels_t **out, char *errbuf,
                      size_t errlen);

/* Drops the first k samples' sets (the ring's trim of a window's lead). */
void cprof_labels_drop_leading(cprof_labels_t *l, uint32_t k);

/* The bytes l holds (a ring's accounting). */
size_t cprof_labels_bytes(const cprof_labels_t *l);

/* X.cpuprofile's sidecar name, X.labels.json (malloc'd); NULL when the name
 * does not end in .cpuprofile (any case) or out of memory. */
char *cprof_labels_sidecar_name(const char *profile);

#endif

/* Labels per CPU sample, the addon's side (docs/labels.md): the ring the
 * app writes its label-set switches into, made here and read here at stop;
 * the set table and the sidecar's name from the stop's export options. */
#ifndef CPROF_ADDON_LABELS_H
#define CPROF_ADDON_LABELS_H

#include <node_api.h>

#include "job.h"

/* The environment's ring (addon.h): C owns it; JS writes through a view. */
typedef struct cprof_label_ring_s {
  napi_ref ref; /* the ArrayBuffer, kept until teardown */
  double *slots;
  uint32_t cap; /* pairs */
} cprof_label_ring_t;

/* labelsRing(cap) → ArrayBuffer of CPROF_LABEL_RING_SLOTS(cap) doubles (labelset.h):
 * made on the first call, the same one after (cap then ignored). */
napi_value cprof__labels_ring(napi_env env, napi_callback_info info);

/* Reads opts.labels, { sets: [[k, v, ...], ...] (index = set id, [0] is
 * []), file: the sidecar's name, fromUs: the profile's start on the ring's
 * clock }, into in->labels with the ring's switches since fromUs. Absent:
 * nothing. 0, or -1 with a throw (in is then freed). */
int cprof__labels_args(napi_env env, napi_value opts, cprof_job_in_t *in);

/* The same object alone (undefined or null: *out NULL), for the recorder's
 * windows. 0, or -1 with a throw. */
int cprof__labels_read(napi_env env, napi_value obj, cprof_labels_t **out);

/* Teardown (addon.c's cleanup hook). */
void cprof__labels_ring_free(napi_env env, cprof_label_ring_t *ring);

#endif

/* Labels per CPU sample, the addon's side (docs/labels.md): the ring's
 * entry point (label_ring.h), and the label sets and switches a CPU stop
 * or a recorder window takes (the join itself is core: labelset.h). */
#ifndef CPROF_ADDON_LABELS_H
#define CPROF_ADDON_LABELS_H

#include <node_api.h>

#include "../core/cprof.h"
#include "label_ring.h"

/* labelsRing(cap) → ArrayBuffer of CPROF_LABEL_RING_SLOTS(cap) doubles (labelset.h):
 * made on the first call, the same one after (cap then ignored). */
napi_value cprof__labels_ring(napi_env env, napi_callback_info info);

/* Reads opts.labels, { sets: [[k, v, ...], ...] (index = set id, [0] is
 * []), file: the sidecar's name, fromUs: the profile's start on the ring's
 * clock }, into in->labels with the ring's switches since fromUs; or, with
 * samples (a Uint32Array: each sample's set, a sidecar read back), those
 * instead of the ring's. Absent: nothing. 0, or -1 with a throw (in is then
 * freed). */
int cprof__labels_args(napi_env env, napi_value opts, cprof_job_in_t *in);

/* The same object alone (undefined or null: *out NULL), for the recorder's
 * windows. 0, or -1 with a throw. */
int cprof__labels_read(napi_env env, napi_value obj, cprof_labels_t **out);

#endif

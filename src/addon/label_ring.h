/* The ring of label-set switches of one environment (docs/labels.md): C
 * allocates it once, JavaScript writes it through a Float64Array view
 * (lib/labels/ring.js), the CPU stop and the recorder's windows read it
 * (labels.c). Its layout is the core's (src/core/labelset.h). */
#ifndef CPROF_ADDON_LABEL_RING_H
#define CPROF_ADDON_LABEL_RING_H

#include <node_api.h>
#include <stdint.h>

typedef struct cprof_label_ring_s {
  napi_ref ref; /* the ArrayBuffer, kept until teardown */
  double *slots;
  uint32_t cap; /* pairs */
} cprof_label_ring_t;

/* A ring of cap pairs, zeroed, and its ArrayBuffer in *buf. NULL after
 * throwing. */
cprof_label_ring_t *cprof__label_ring_new(napi_env env, uint32_t cap, napi_value *buf);

/* Teardown (addon.c's cleanup hook); ring may be NULL. */
void cprof__label_ring_free(napi_env env, cprof_label_ring_t *ring);

#endif

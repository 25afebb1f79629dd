/* The ring of label-set switches (label_ring.h). */
#include "label_ring.h"

#include <stdlib.h>

#include "../core/cprof.h"
#include "errors.h"

cprof_label_ring_t *cprof__label_ring_new(napi_env env, uint32_t cap, napi_value *buf) {
  cprof_label_ring_t *r = calloc(1, sizeof *r);
  size_t bytes = CPROF_LABEL_RING_SLOTS(cap) * sizeof(double);
  void *data = NULL;
  if (!r) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory making the labels ring");
    return NULL;
  }
  if (napi_create_arraybuffer(env, bytes, &data, buf) != napi_ok ||
      napi_create_reference(env, *buf, 1, &r->ref) != napi_ok) {
    free(r);
    cprof__throw_last_error(env, "napi_create_arraybuffer");
    return NULL;
  }
  r->slots = data; /* zeroed by V8, page by page as touched: RSS grows as the ring fills */
  r->cap = cap;
  return r;
}

void cprof__label_ring_free(napi_env env, cprof_label_ring_t *ring) {
  if (!ring) return;
  napi_delete_reference(env, ring->ref); /* teardown: nothing to tell if it fails */
  free(ring);
}

/* The parser's tables (see idmap.h): the id map and growable arrays. */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "profile.h"

int cprof__grow(void **arr, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return 0;
  uint64_t n = *cap < 64 ? 64 : (uint64_t)*cap * 2;
  while (n < need)
    n *= 2;
  if (n > UINT32_MAX) n = UINT32_MAX;
  void *a = realloc(*arr, (size_t)n * elem);
  if (a == NULL) return CPROF_ENOMEM;
  *arr = a;
  *cap = (uint32_t)n;
  return 0;
}

int cprof__idmap_init(cprof__idmap_t *m, uint32_t n) {
  uint32_t cap = 16;
  while (cap < (uint64_t)n * 2)
    cap *= 2;
  m->keys = malloc((size_t)cap * sizeof(*m->keys));
  m->vals = malloc((size_t)cap * sizeof(*m->vals));
  if (m->keys == NULL || m->vals == NULL) return CPROF_ENOMEM;
  memset(m->vals, 0xff, (size_t)cap * sizeof(*m->vals));
  m->mask = cap - 1;
  return 0;
}

void cprof__idmap_free(cprof__idmap_t *m) {
  free(m->keys);
  free(m->vals);
}

static uint32_t idmap_slot(const cprof__idmap_t *m, uint32_t id) {
  uint32_t j = (uint32_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & m->mask;
  while (m->vals[j] != CPROF_NONE && m->keys[j] != id)
    j = (j + 1) & m->mask;
  return j;
}

uint32_t cprof__idmap_put(cprof__idmap_t *m, uint32_t id, uint32_t index) {
  uint32_t j = idmap_slot(m, id);
  if (m->vals[j] != CPROF_NONE) return m->vals[j];
  m->keys[j] = id;
  m->vals[j] = index;
  return CPROF_NONE;
}

uint32_t cprof__idmap_get(const cprof__idmap_t *m, uint32_t id) {
  return m->vals[idmap_slot(m, id)];
}

/* Tables the profile parsers build as they read: node id -> index, and
 * arrays that grow. Internal to the parser. */
#ifndef CPROF_IDMAP_H
#define CPROF_IDMAP_H

#include <stddef.h>
#include <stdint.h>

/* id -> index; ids are arbitrary uint32, so not an array. */
typedef struct {
  uint32_t *keys;
  uint32_t *vals; /* CPROF_NONE = empty slot */
  uint32_t mask;
} cprof__idmap_t;

int cprof__idmap_init(cprof__idmap_t *m, uint32_t n);
void cprof__idmap_free(cprof__idmap_t *m);
/* Returns the index already stored under id, or CPROF_NONE after storing. */
uint32_t cprof__idmap_put(cprof__idmap_t *m, uint32_t id, uint32_t index);
uint32_t cprof__idmap_get(const cprof__idmap_t *m, uint32_t id);

/* Grows *arr (of elem-byte items) to hold at least need; 0 or ENOMEM. */
int cprof__grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);

#endif

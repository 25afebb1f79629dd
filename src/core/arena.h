/* Memory the models hold: a bump arena for strings (one malloc and one
 * free per block instead of per string; a profile's strings, a source
 * map's mapped names and urls) and a heap block's real size, for
 * cprof_profile_bytes. Internal to the core (cprof__ names). */
#ifndef CPROF_ARENA_H
#define CPROF_ARENA_H

#include <stddef.h>

typedef struct cprof__arena_block_s cprof__arena_block_t;

typedef struct {
  cprof__arena_block_t *blocks;
  size_t block_size; /* bytes of a block; a longer string gets its own */
} cprof__arena_t;

#define CPROF__ARENA_INIT(block_size)                                                              \
  { NULL, (block_size) }

/* A copy of s[0..len) with a NUL after it, living until the arena is freed
 * (s holds no NUL within len); NULL when out of memory. */
char *cprof__arena_strdup(cprof__arena_t *a, const char *s, size_t len);

/* Frees every block; the arena is empty and usable again. */
void cprof__arena_free(cprof__arena_t *a);

/* The bytes the arena's blocks hold, each at cprof__block_bytes. */
size_t cprof__arena_bytes(const cprof__arena_t *a);

/* A heap block's real size where the C library says (what the allocator
 * holds for it: malloc_usable_size, malloc_size), else asked; 0 for NULL. */
size_t cprof__block_bytes(const void *ptr, size_t asked);

#endif

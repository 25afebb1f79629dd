/* The string arena and heap block sizes (see arena.h). */
#include "arena.h"

#include <stdlib.h>
#include <string.h>

#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#elif defined(__APPLE__)
#include <malloc/malloc.h>
#endif

struct cprof__arena_block_s {
  struct cprof__arena_block_s *next;
  size_t used;
  size_t cap;
  char data[];
};

char *cprof__arena_strdup(cprof__arena_t *a, const char *s, size_t len) {
  cprof__arena_block_t *b = a->blocks;
  if (b == NULL || b->cap - b->used < len + 1) {
    size_t cap = len + 1 > a->block_size ? len + 1 : a->block_size;
    b = malloc(sizeof(*b) + cap);
    if (b == NULL) return NULL;
    b->used = 0;
    b->cap = cap;
    /* A big string gets its own block behind the current one so the
     * current block's free space is not wasted. */
    if (cap > a->block_size && a->blocks != NULL) {
      b->next = a->blocks->next;
      a->blocks->next = b;
    } else {
      b->next = a->blocks;
      a->blocks = b;
    }
  }
  char *out = b->data + b->used;
  memcpy(out, s, len);
  out[len] = '\0';
  b->used += len + 1;
  return out;
}

void cprof__arena_free(cprof__arena_t *a) {
  cprof__arena_block_t *b = a->blocks;
  while (b != NULL) {
    cprof__arena_block_t *next = b->next;
    free(b);
    b = next;
  }
  a->blocks = NULL;
}

size_t cprof__arena_bytes(const cprof__arena_t *a) {
  size_t n = 0;
  for (const cprof__arena_block_t *b = a->blocks; b != NULL; b = b->next)
    n += cprof__block_bytes(b, sizeof(*b) + b->cap);
  return n;
}

size_t cprof__block_bytes(const void *ptr, size_t asked) {
  if (ptr == NULL) return 0;
#if defined(__GLIBC__) || defined(__linux__)
  (void)asked;
  return malloc_usable_size((void *)ptr);
#elif defined(__APPLE__)
  (void)asked;
  return malloc_size(ptr);
#else
  return asked;
#endif
}

/* The .heapprofile reader (parse_heap.c), driven by the parser's front
 * (parse.c), as parse_cpu.h is. Internal. */
#ifndef CPROF_PARSE_HEAP_H
#define CPROF_PARSE_HEAP_H

#include <stdint.h>

#include "profile.h"
#include "reader.h"

/* ---- .heapprofile (parse_heap.c) ---- */

typedef struct cprof__heap_open_s cprof__heap_open_t;

typedef struct {
  uint32_t nodes_cap;
  uint32_t *last_child;     /* per node, to append siblings in file order */
  uint8_t *has_id;          /* per node */
  cprof__heap_open_t *open; /* nodes whose object is being read */
  uint32_t depth, open_cap;
  uint32_t *ids; /* samples: node ids, sizes, ordinals */
  int64_t *sizes;
  uint64_t *ordinals;
  uint32_t nsamples, ids_cap, sizes_cap, ordinals_cap;
} cprof__heap_t;

/* Reads the nested tree under "head" into p->nodes in preorder. */
int cprof__heap_tree(cprof__rd_t *r, cprof_profile_t *p, cprof__heap_t *h);
int cprof__heap_samples(cprof__rd_t *r, cprof__heap_t *h);
int cprof__heap_finish(cprof__rd_t *r, cprof_profile_t *p, cprof__heap_t *h);
void cprof__heap_free(cprof__heap_t *h);

#endif

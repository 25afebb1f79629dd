/* Shared by the profile parser's files: parse.c (the document: a profile,
 * or an inspector reply around one), parse_cpu.c (.cpuprofile) and
 * parse_heap.c (.heapprofile). Each reads its members from the pull reader
 * as they come, in any order, then links and checks in a finish step. */
#ifndef CPROF_PARSE_H
#define CPROF_PARSE_H

#include <stdint.h>

#include "profile.h"
#include "reader.h"

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

/* Typed reads of the next value: 1 when it is a number of the kind (then
 * consumed), 0 when not (the caller fails with a schema message; a parse
 * error already recorded wins, see cprof__rd_fail). */
int cprof__rd_u32(cprof__rd_t *r, uint32_t *out);
int cprof__rd_i32(cprof__rd_t *r, int32_t *out);
int cprof__rd_i64(cprof__rd_t *r, int64_t *out);  /* |x| <= 2^53, rounded */
int cprof__rd_size(cprof__rd_t *r, int64_t *out); /* 0..2^53 */

/* Names a node in messages: printf(label, n), e.g. "node %u". */
typedef struct {
  const char *label;
  uint32_t n;
} cprof__who_t;

/* Reads a Runtime.CallFrame object and interns it into p. */
int cprof__parse_call_frame(cprof__rd_t *r, cprof_profile_t *p, cprof__who_t who, uint32_t *frame);

/* Grows *arr (of elem-byte items) to hold at least need; 0 or ENOMEM. */
int cprof__grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);

/* ---- .cpuprofile (parse_cpu.c) ---- */

typedef struct cprof__cpu_raw_s cprof__cpu_raw_t;

typedef struct {
  cprof__cpu_raw_t *raw; /* the nodes, file order */
  uint32_t n, cap;
  uint32_t *kids; /* every node's children ids, back to back */
  uint32_t nkids, kids_cap;
  uint32_t *samples; /* node ids, then node indexes */
  uint32_t nsamples, samples_cap;
  int64_t *deltas;
  uint32_t ndeltas, deltas_cap;
  int64_t start, end;
  int has_start, has_end; /* and in range */
} cprof__cpu_t;

int cprof__cpu_nodes(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c);
int cprof__cpu_samples(cprof__rd_t *r, cprof__cpu_t *c);
int cprof__cpu_deltas(cprof__rd_t *r, cprof__cpu_t *c);
/* Links the tree, orders it parent-first, and moves samples into p. */
int cprof__cpu_finish(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c);
void cprof__cpu_free(cprof__cpu_t *c);

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

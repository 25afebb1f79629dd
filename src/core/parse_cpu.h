/* The .cpuprofile reader (parse_cpu.c), driven by the parser's front
 * (parse.c): it reads its members from the pull reader as they come, in
 * any order, then links and checks in a finish step. Internal. */
#ifndef CPROF_PARSE_CPU_H
#define CPROF_PARSE_CPU_H

#include <stdint.h>

#include "profile.h"
#include "reader.h"

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
  int has_start, has_end;   /* and in range */
  cprof_line_tick_t *ticks; /* positionTicks; .node a file index until linked */
  uint32_t nticks, ticks_cap;
} cprof__cpu_t;

int cprof__cpu_nodes(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c);
int cprof__cpu_samples(cprof__rd_t *r, cprof__cpu_t *c);
int cprof__cpu_deltas(cprof__rd_t *r, cprof__cpu_t *c);
/* Links the tree, orders it parent-first, and moves samples into p. */
int cprof__cpu_finish(cprof__rd_t *r, cprof_profile_t *p, cprof__cpu_t *c);
void cprof__cpu_free(cprof__cpu_t *c);

#endif

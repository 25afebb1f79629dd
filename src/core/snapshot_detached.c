/* DevTools' detachedness (HeapSnapshot.ts: propagateDOMState): embedder
 * (native) nodes carry a state in the "detachedness" field, 1 attached or
 * 2 detached; it spreads to the native nodes they reach (not through
 * hidden or weak edges, never into JavaScript objects), attached first, so
 * a node both reach is attached. Detached ones are named "Detached <name>"
 * and so form their own class: in a browser a DOM tree no document holds;
 * in Node, binding data of a realm that is gone. */
#include <stdlib.h>

#include "error.h"
#include "snapshot.h"

enum { UNKNOWN = 0, ATTACHED = 1, DETACHED = 2 };

typedef struct {
  uint8_t *state, *visited;
  uint32_t *att, *det;
  uint32_t natt, ndet;
} prop_t;

static void process(const cprof__snap_t *s, prop_t *p, uint32_t n, uint32_t state) {
  if (p->visited[n]) return;
  p->visited[n] = 1;
  if (cprof__snap_ntype(s, n) != s->t_native) return;
  p->state[n] = (uint8_t)(state <= DETACHED ? state : UNKNOWN);
  if (state == ATTACHED) p->att[p->natt++] = n;
  if (state == DETACHED) p->det[p->ndet++] = n;
}

static void spread(const cprof__snap_t *s, prop_t *p, uint32_t n, uint32_t state) {
  for (uint32_t e = s->first_edge[n]; e < s->first_edge[n + 1]; e++) {
    uint32_t t = cprof__snap_etype(s, e);
    if (t != s->et_hidden && t != s->et_weak) process(s, p, cprof__snap_to(s, e), state);
  }
}

int cprof__snap_detached(cprof__snap_t *s) {
  if (s->detached == NULL) return CPROF_OK; /* no detachedness field */
  uint32_t n = s->node_count;
  prop_t p = {calloc(n, 1),
              calloc(n, 1),
              malloc((size_t)n * sizeof(uint32_t)),
              malloc((size_t)n * sizeof(uint32_t)),
              0,
              0};
  if (!p.state || !p.visited || !p.att || !p.det) {
    free(p.state), free(p.visited), free(p.att), free(p.det);
    return CPROF_ENOMEM;
  }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t st = s->detached[i]; /* the field, as the parse kept it */
    if (st != UNKNOWN) process(s, &p, i, st);
  }
  while (p.natt > 0)
    spread(s, &p, p.att[--p.natt], ATTACHED);
  while (p.ndet > 0) {
    uint32_t d = p.det[--p.ndet];
    if (p.state[d] != ATTACHED) spread(s, &p, d, DETACHED);
  }
  for (uint32_t i = 0; i < n; i++)
    p.state[i] = p.state[i] == DETACHED;
  free(s->detached);
  s->detached = p.state;
  free(p.visited), free(p.att), free(p.det);
  return CPROF_OK;
}

/* DevTools' shallow sizes (HeapSnapshot.ts: JSHeapSnapshot
 * calculateShallowSizes): an array or hidden node (a Map's hash table, an
 * object's property backing store) that exactly one object owns is counted
 * in that object's shallow size, and its own becomes 0. The owner of a node
 * is found by flooding ownership from every other node along non-weak
 * edges; a node reached from two owners has none. So "Map" reads as what a
 * Map costs, and "(array)" only as the arrays nobody owns alone. Snapshots
 * taken with V8's internals exposed (no user roots) are left as they are. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "snapshot.h"

#define UNVISITED UINT32_MAX
#define SHARED (UINT32_MAX - 1)

static int owned_kind(const cprof__snap_t *s, uint32_t n) {
  uint32_t t = cprof__snap_ntype(s, n);
  if (t == s->t_hidden || t == s->t_array) return 1;
  return t == s->t_native &&
         strcmp(cprof__snap_str(s, cprof__snap_nname(s, n)), "system / ExternalStringData") == 0;
}

static int has_user_roots(const cprof__snap_t *s) {
  for (uint32_t e = s->first_edge[s->root]; e < s->first_edge[s->root + 1]; e++)
    if (cprof__snap_ntype(s, cprof__snap_to(s, e)) != s->t_synthetic) return 1;
  return 0;
}

/* Each node enters the work list at most twice: when it gets an owner and
 * when it gets a second one. */
static void flood(const cprof__snap_t *s, uint32_t *owner, uint32_t *work, uint64_t top) {
  while (top > 0) {
    uint32_t n = work[--top], own = owner[n];
    for (uint32_t e = s->first_edge[n]; e < s->first_edge[n + 1]; e++) {
      if (cprof__snap_etype(s, e) == s->et_weak) continue;
      uint32_t to = cprof__snap_to(s, e);
      if (owner[to] == UNVISITED) {
        owner[to] = own;
        work[top++] = to;
      } else if (owner[to] != to && owner[to] != own && owner[to] != SHARED) {
        owner[to] = SHARED;
        work[top++] = to;
      }
    }
  }
}

int cprof__snap_shallow(cprof__snap_t *s) {
  if (!has_user_roots(s)) return CPROF_OK;
  uint32_t n = s->node_count;
  uint32_t *owner = malloc((size_t)n * sizeof *owner);
  uint32_t *work = malloc((size_t)n * 2 * sizeof *work);
  if (owner == NULL || work == NULL) {
    free(owner), free(work);
    return CPROF_ENOMEM;
  }
  uint64_t top = 0;
  for (uint32_t i = 0; i < n; i++) {
    owner[i] = owned_kind(s, i) ? UNVISITED : i;
    if (owner[i] == i) work[top++] = i;
  }
  flood(s, owner, work, top);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t o = owner[i];
    if (o == UNVISITED || o == SHARED || o == i || o == s->root ||
        cprof__snap_ntype(s, o) == s->t_synthetic)
      continue;
    /* self_size is a compact record's last word (snapshot.h) */
    uint32_t *from = &s->nodes[(uint64_t)i * s->nf + s->nf - 1];
    uint32_t *to = &s->nodes[(uint64_t)o * s->nf + s->nf - 1];
    /* DevTools' sizes are doubles; saturate rather than wrap uint32 */
    *to = UINT32_MAX - *to < *from ? UINT32_MAX : *to + *from;
    *from = 0;
  }
  free(owner);
  free(work);
  return CPROF_OK;
}

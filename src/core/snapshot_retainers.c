/* The retainers of a set of nodes, for the viewer's retainer tree
 * (snapshot_view.c). The retainer indexes the dominator tree used are
 * freed once it is built (snapshot_dom.c), so this finds them again with
 * one pass over every edge, keeping for each node of the set only its
 * `fanout` retainers nearest the roots: the cost is one pass per level of
 * the tree and a few words per node of the set, whatever the snapshot. */
#include <string.h>

#include "snapshot.h"

/* A retainer's order as DevTools lists them: by distance, nodes no root
 * reaches last. */
static uint32_t rank(const cprof__snap_t *s, uint32_t node) {
  int32_t d = s->dist[node];
  return d < 0 ? UINT32_MAX : (uint32_t)d;
}

/* Inserts (e, from) into the sorted row[0..*got) of at most cap entries;
 * a retainer as far as the last one kept stays out (the first met wins). */
static void keep(const cprof__snap_t *s, cprof__snap_ret_t *row, uint32_t *got, uint32_t cap,
                 uint32_t e, uint32_t from) {
  uint32_t r = rank(s, from);
  if (*got == cap && (cap == 0 || rank(s, row[cap - 1].from) <= r)) return;
  uint32_t j = *got < cap ? (*got)++ : cap - 1;
  while (j > 0 && rank(s, row[j - 1].from) > r) {
    row[j] = row[j - 1];
    j--;
  }
  row[j] = (cprof__snap_ret_t){e, from};
}

static uint32_t invisible_type(const cprof__snap_t *s) {
  for (uint32_t t = 0; t < s->etypes.count; t++)
    if (strcmp(s->etypes.names[t], "invisible") == 0) return t;
  return CPROF__SNAP_NONE;
}

void cprof__snap_retainers(const cprof__snap_t *s, const uint32_t *slot, uint32_t lo, uint32_t hi,
                           uint32_t fanout, cprof__snap_ret_t *out, uint32_t *got, uint32_t *all,
                           uint32_t *weak) {
  uint32_t invisible = invisible_type(s);
  for (uint32_t from = 0; from < s->node_count; from++) {
    if (from == s->root) continue; /* DevTools: the root retains nothing shown */
    for (uint32_t e = s->first_edge[from]; e < s->first_edge[from + 1]; e++) {
      uint32_t i = slot[cprof__snap_to(s, e)], t = cprof__snap_etype(s, e);
      if (i < lo || i >= hi || t == invisible) continue;
      i -= lo;
      if (t == s->et_weak) {
        weak[i]++;
        continue;
      }
      all[i]++;
      keep(s, out + (size_t)i * fanout, &got[i], fanout, e, from);
    }
  }
}

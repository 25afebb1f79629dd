/* The function tree: the call tree with sibling nodes of the same function
 * merged, which the pprof, folded, SVG and text writers and the diff draw
 * from. Internal; the C tests include it. */
#ifndef CPROF_TREE_H
#define CPROF_TREE_H

#include <stdint.h>

#include "label.h"
#include "profile.h"

/* ---- function tree ---- */

/* The call tree with sibling nodes of the same function merged (a function
 * is functionName + url + line + column, as in the flat profile). Values
 * come in two slots so a diff can merge two profiles into one tree: slot 0
 * is the only one used otherwise ("before" in a diff), slot 1 is "after". */
typedef struct {
  const cprof_frame_t *frame; /* representative frame (owned by a profile) */
  char *label;                /* cprof__frame_label */
  cprof__kind_t kind;
} cprof__fn_t;

typedef struct {
  uint32_t fn;                        /* index into fns */
  uint32_t parent;                    /* CPROF_NONE for the root */
  uint32_t first_child, next_sibling; /* children sorted by label once sorted */
  uint32_t depth;                     /* root 0 */
  int64_t self[2], total[2];          /* profile unit: µs or bytes */
  uint64_t count[2];                  /* samples taken in this node */
} cprof__tnode_t;

typedef struct cprof__tree_s {
  cprof__fn_t *fns;
  uint32_t nfns, fns_cap;
  cprof__tnode_t *nodes; /* nodes[0] is the root; parents precede children */
  uint32_t nnodes, nodes_cap;
  uint32_t max_depth;
  int64_t total[2];    /* sum of self per slot */
  uint64_t samples[2]; /* sum of count per slot */
  cprof_kind_t kind;
  struct cprof__tindex_s *index; /* lookup tables while adding */
  uint32_t *node_of;             /* the last added profile's node i -> tree node (pprof's lines) */
  uint32_t nnode_of;
} cprof__tree_t;

/* Adds p's call tree into slot (0 or 1). The root of p merges with the
 * tree's root whatever its name. p must outlive t (frames are borrowed).
 * CPROF_OK, CPROF_ENOMEM, or CPROF_EINVAL (bad model, or a profile of
 * another kind than one already added). */
int cprof__tree_add(cprof__tree_t *t, const cprof_profile_t *p, int slot);

/* cprof__tree_add that also fills map[i] (p->nnodes entries, the caller's)
 * with the tree node p's node i was added to: finishing the tree relinks
 * children but keeps node indexes, so the map stays valid. */
int cprof__tree_add_mapped(cprof__tree_t *t, const cprof_profile_t *p, int slot, uint32_t *map);

/* Sorts every node's children by label (then function), fixes totals and
 * drops the lookup tables. Call once, after the last add. */
int cprof__tree_finish(cprof__tree_t *t);

void cprof__tree_free(cprof__tree_t *t);

/* Builds a finished one-slot tree of p. */
int cprof__tree_build(cprof__tree_t *t, const cprof_profile_t *p);

/* The indexes of fns whose display name (functionName, or "(anonymous)")
 * equals name; if none, those whose label contains name. Returns the count
 * (up to max). */
uint32_t cprof__tree_find_fns(const cprof__tree_t *t, const char *name, uint32_t *out,
                              uint32_t max);

#endif

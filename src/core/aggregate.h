/* Aggregation over a parsed profile: the flat profile (one row per function,
 * merged across the call tree) and top-N. Self and total per call-tree node
 * (top-down) are filled by the parser; see profile.h. */
#ifndef CPROF_AGGREGATE_H
#define CPROF_AGGREGATE_H

#include "profile.h"

/* A function: the same functionName + url + line + column anywhere in the
 * tree. total counts each sample once even when the function recurses. */
typedef struct {
  uint32_t frame; /* a representative frame index */
  int64_t self;
  int64_t total;
} cprof_func_t;

typedef struct {
  cprof_func_t *funcs; /* unsorted */
  uint32_t nfuncs;
  int64_t total;     /* the profile's total (sum of all self) */
  uint32_t *func_of; /* frame index -> index in funcs (CPROF_NONE: no node names it) */
  uint32_t nframes;  /* entries in func_of */
} cprof_flat_t;

int cprof_flat_build(const cprof_profile_t *p, cprof_flat_t *out);
void cprof_flat_free(cprof_flat_t *flat);

/* Frames that are not a function's work: skipped by top-N when asked. */
#define CPROF_TOP_SKIP_ROOT 1u /* (root) */
#define CPROF_TOP_SKIP_IDLE 2u /* (idle) */

/* Copies the n functions with the largest self value (ties: larger total,
 * then name) into out, sorted; returns how many were written. */
size_t cprof_flat_top(const cprof_flat_t *flat, const cprof_profile_t *p, unsigned skip,
                      cprof_func_t *out, size_t n);

/* Self value of the functions named exactly `name` with an empty url (the
 * V8 pseudo frames "(garbage collector)", "(idle)", "(program)"). */
int64_t cprof_flat_special(const cprof_flat_t *flat, const cprof_profile_t *p, const char *name);

#endif

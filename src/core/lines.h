/* Self time per source line of each function, from V8's positionTicks
 * (profile.h: cprof_line_tick_t). V8 counts, for each call-tree node, how
 * many of its samples fell on each line; cprof's node self is a time (the
 * samples' weights), so each node's self is split across its lines in
 * proportion to their ticks:
 *
 *   share(line) = floor(self * ticks(line) / ticks(node))
 *
 * and what the floors leave over (less than one µs per line) goes to the
 * node's line with the most ticks (the first such in V8's order). So a
 * node's lines add up to its self exactly, and a function's lines (summed
 * over its nodes) to the function's self exactly. A node with self time but
 * no positionTicks (an older file, a merged profile, V8's pseudo frames)
 * counts on line 0: "no line". Heap profiles have no positionTicks. */
#ifndef CPROF_LINES_H
#define CPROF_LINES_H

#include <stdint.h>

#include "aggregate.h"
#include "profile.h"

typedef struct {
  const char *url; /* the line's file: the function's own, or (source maps) the original's */
  int32_t line;    /* 1-based; 0: samples without a line */
  int64_t self;    /* the profile's unit (µs) */
} cprof_line_t;

typedef struct {
  cprof_line_t *lines; /* each function's together, by url then line */
  uint32_t *first;     /* function f's: lines[first[f] .. first[f + 1]) */
  uint32_t nfuncs;
  uint32_t nlines;
} cprof_lines_t;

/* The lines of flat's functions (of those with want[f] != 0 when want is
 * not NULL: the report needs only a few). CPROF_OK, CPROF_ENOMEM or
 * CPROF_EINVAL (a model that does not check). */
int cprof_lines_build(const cprof_profile_t *p, const cprof_flat_t *flat, const unsigned char *want,
                      cprof_lines_t *out);
void cprof_lines_free(cprof_lines_t *l);

/* Splits self across n tick counts as above: shares[i] (n > 0). */
void cprof_lines_split(int64_t self, const uint32_t *ticks, uint32_t n, int64_t *shares);

/* One node's run of n entries: self's shares per entry. A merged profile's
 * entries carry their lines' time (cprof_line_tick_t.self, the inputs'
 * shares summed): used as they are when they add up to the node's self,
 * else self is split by ticks. scratch holds n ticks. */
void cprof_lines_node(int64_t self, const cprof_line_tick_t *t, uint32_t n, uint32_t *scratch,
                      int64_t *shares);

#endif

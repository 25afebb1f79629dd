/* Values both profile formats read from the pull reader (parse_value.c):
 * numbers of a kind and range, and call frames. Internal to the parser. */
#ifndef CPROF_PARSE_VALUE_H
#define CPROF_PARSE_VALUE_H

#include <stdint.h>

#include "profile.h"
#include "reader.h"

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

#endif

/* A growable byte buffer and the protobuf wire format on it (varints and
 * length-delimited fields): what the pprof writer encodes with. Internal;
 * the C tests include it to check the encoder. */
#ifndef CPROF_PB_H
#define CPROF_PB_H

#include <stddef.h>
#include <stdint.h>

/* ---- growable buffer ---- */

typedef struct {
  unsigned char *data;
  size_t len, cap;
  int oom; /* set once a grow failed; later puts are no-ops */
} cprof__buf_t;

int cprof__buf_put(cprof__buf_t *b, const void *data, size_t n); /* 0 or CPROF_ENOMEM */
void cprof__buf_free(cprof__buf_t *b);

/* ---- protobuf wire format (varint and length-delimited only) ---- */

/* Writes v as a base-128 varint into out (at least 10 bytes); returns the
 * byte count (1..10). Negative int64 values are passed as their uint64 two's
 * complement, as protobuf's int64 does (10 bytes). */
size_t cprof__pb_varint(unsigned char *out, uint64_t v);

int cprof__pb_put_varint(cprof__buf_t *b, uint64_t v);
/* A field tag: (field << 3) | wire type (0 varint, 2 length-delimited). */
int cprof__pb_put_tag(cprof__buf_t *b, uint32_t field, unsigned wire);
/* field = v, omitted when v is 0 (the proto3 default). */
int cprof__pb_put_int(cprof__buf_t *b, uint32_t field, uint64_t v);
/* field = bytes (a string, a nested message, or a packed list). */
int cprof__pb_put_bytes(cprof__buf_t *b, uint32_t field, const void *data, size_t n);

#endif

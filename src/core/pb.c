/* The growable buffer and protobuf encoders (see pb.h). */
#include "pb.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

/* ---- growable buffer ---- */

int cprof__buf_put(cprof__buf_t *b, const void *data, size_t n) {
  if (b->oom) return CPROF_ENOMEM;
  if (n > SIZE_MAX - b->len) {
    b->oom = 1;
    return CPROF_ENOMEM;
  }
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
      cap = cap > SIZE_MAX / 2 ? b->len + n : cap * 2;
    unsigned char *d = realloc(b->data, cap);
    if (d == NULL) {
      b->oom = 1;
      return CPROF_ENOMEM;
    }
    b->data = d;
    b->cap = cap;
  }
  if (n > 0) memcpy(b->data + b->len, data, n);
  b->len += n;
  return CPROF_OK;
}

void cprof__buf_free(cprof__buf_t *b) {
  free(b->data);
  *b = (cprof__buf_t){0};
}

/* ---- protobuf ---- */

size_t cprof__pb_varint(unsigned char *out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (unsigned char)v;
  return n;
}

int cprof__pb_put_varint(cprof__buf_t *b, uint64_t v) {
  unsigned char tmp[10];
  return cprof__buf_put(b, tmp, cprof__pb_varint(tmp, v));
}

int cprof__pb_put_tag(cprof__buf_t *b, uint32_t field, unsigned wire) {
  return cprof__pb_put_varint(b, ((uint64_t)field << 3) | (wire & 7u));
}

int cprof__pb_put_int(cprof__buf_t *b, uint32_t field, uint64_t v) {
  if (v == 0) return CPROF_OK;
  int rc = cprof__pb_put_tag(b, field, 0);
  return rc ? rc : cprof__pb_put_varint(b, v);
}

int cprof__pb_put_bytes(cprof__buf_t *b, uint32_t field, const void *data, size_t n) {
  int rc = cprof__pb_put_tag(b, field, 2);
  if (rc == 0) rc = cprof__pb_put_varint(b, n);
  return rc ? rc : cprof__buf_put(b, data, n);
}

/* A pull reader for JSON text: the profile parser asks for the value it
 * expects next (an object's members, an array's elements, a string, a
 * number) and skips what it does not know. No tree is built, so a profile
 * costs its model and nothing more. Input is untrusted: the grammar is RFC
 * 8259's, checked in full, including in skipped values; nesting is bounded;
 * every read stops at the end of the buffer. String escapes are decoded by
 * cJSON (rare in profiles); plain strings are returned in place.
 *
 * The input may also arrive as it is read (a heap snapshot file): with a
 * refill callback, the reader asks for more wherever it would stop at `end`
 * while input remains (cprof__rd_more); pointers into the buffer stay
 * valid, only `end` moves. Without one (every profile parser), the whole
 * input is there from the start.
 *
 * Every function returns CPROF_OK or a negative CPROF_E* code with a
 * message in the reader's errbuf; the first error sticks, so later calls
 * fail too. */
#ifndef CPROF_READER_H
#define CPROF_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Nesting deeper than this is refused (the heap tree walk has its own
 * limit, on its own stack). */
#define CPROF__RD_MAX_DEPTH 1000

/* Reads more input into the buffer: 1 with *avail (bytes there from the
 * start) grown, 0 when all of the input is there, or a negative CPROF_E*
 * code with its message written to errbuf. */
typedef int (*cprof__rd_refill_t)(void *ctx, size_t *avail, char *errbuf, size_t errlen);

typedef struct {
  const char *base, *p, *end; /* end: the input there so far */
  size_t size;                /* the whole input's size */
  cprof__rd_refill_t refill;  /* NULL: all of the input is there */
  void *refill_ctx;
  int err;
  char *errbuf;
  size_t errlen;
  int depth;     /* containers open */
  char *scratch; /* decoded escaped strings */
  size_t scratch_cap;
} cprof__rd_t;

/* A reader over json[0..len); errors go to errbuf. Free with
 * cprof__rd_free. */
void cprof__rd_init(cprof__rd_t *r, const char *json, size_t len, char *errbuf, size_t errlen);
void cprof__rd_free(cprof__rd_t *r);
/* The same over input of `size` bytes of which the first `avail` are in json
 * so far, refill(ctx, ...) reading the rest into json as it is needed. */
void cprof__rd_init_stream(cprof__rd_t *r, const char *json, size_t avail, size_t size,
                           cprof__rd_refill_t refill, void *ctx, char *errbuf, size_t errlen);

/* At `end`: reads more, 1 when `end` moved; 0 at the end of the input or
 * after an error (the refill's, which sticks). */
int cprof__rd_refill(cprof__rd_t *r);
static inline int cprof__rd_more(cprof__rd_t *r) {
  return r->refill != NULL && cprof__rd_refill(r);
}
/* Reads all of the input (before keeping pointers past the reader):
 * CPROF_OK or the error. */
int cprof__rd_read_all(cprof__rd_t *r);

/* What the next value is: '{', '[', '"', '0' (a number), 'n' (null),
 * 't'/'f' (true/false), or 0 at the end of input or on a bad byte. */
char cprof__rd_peek(cprof__rd_t *r);

/* Object members: call with *first = 1 after cprof__rd_open(r, '{'), then
 * until it returns 0: 1 with the member's key (decoded, not NUL-terminated)
 * and the reader at its value, 0 after the closing '}', <0 on error. */
int cprof__rd_open(cprof__rd_t *r, char open);
int cprof__rd_member(cprof__rd_t *r, int *first, const char **key, size_t *klen);
/* Array elements: 1 with the reader at the next element, 0 after ']'. */
int cprof__rd_elem(cprof__rd_t *r, int *first);

int cprof__rd_string(cprof__rd_t *r, const char **s, size_t *len);
/* A number, as a double exactly as strtod rounds it. */
int cprof__rd_number(cprof__rd_t *r, double *out);
/* 1 and consumed when the next value is null, 0 otherwise. */
int cprof__rd_null(cprof__rd_t *r);
int cprof__rd_skip(cprof__rd_t *r);

/* Fails with a schema (or parse) message; returns the code. */
int cprof__rd_fail(cprof__rd_t *r, int code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Byte offset of the reader in its input. */
static inline size_t cprof__rd_offset(const cprof__rd_t *r) {
  return (size_t)(r->p - r->base);
}

static inline int cprof__rd_key_is(const char *key, size_t klen, const char *lit, size_t n) {
  return klen == n && memcmp(key, lit, n) == 0;
}

/* The bit (1u << i) of the names[i] equal to key (names ends with NULL; at
 * most 32), or 0 when none is: members map to "seen" bits this way. */
unsigned cprof__rd_key_bit(const char *key, size_t klen, const char *const *names);

/* key == "literal" */
#define CPROF__KEY(key, klen, lit) cprof__rd_key_is((key), (klen), "" lit, sizeof(lit) - 1)

#endif

/* The fuzz harnesses' oracle check, shared by every target. */
#ifndef CPROF_FUZZ_CHECK_H
#define CPROF_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

/* Stops the run: libFuzzer and cmocka both report an abort with the input.
 * what: the failed condition as text; then a printf format and its
 * arguments, said after the place. */
#define FUZZ_FAIL(what, ...)                                                                       \
  do {                                                                                             \
    fprintf(stderr, "fuzz oracle failed: %s (%s:%d): ", what, __FILE__, __LINE__);                 \
    fprintf(stderr, __VA_ARGS__);                                                                  \
    fputc('\n', stderr);                                                                           \
    abort();                                                                                       \
  } while (0)

/* An oracle: FUZZ_FAIL unless cond holds. */
#define FUZZ_CHECK(cond, ...)                                                                      \
  do {                                                                                             \
    if (!(cond)) FUZZ_FAIL(#cond, __VA_ARGS__);                                                    \
  } while (0)

#endif

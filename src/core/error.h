/* Core error codes: negative ints, libuv style. A function that returns one
 * of these has written nothing it owns to its out-parameters. The addon maps
 * each to a JS err.code (ERR_CPROF_*) in one place. */
#ifndef CPROF_ERROR_H
#define CPROF_ERROR_H

#include <stddef.h>

#define CPROF_OK 0
#define CPROF_ENOMEM (-1)  /* out of memory */
#define CPROF_EPARSE (-2)  /* not JSON, or truncated JSON */
#define CPROF_ESCHEMA (-3) /* JSON, but not a V8 profile (missing field, bad link) */
#define CPROF_EIO (-4)     /* file system error; errno-based message in errbuf */
#define CPROF_EPROTO (-5)  /* the inspector replied with an error object */
#define CPROF_EINVAL (-6)  /* bad argument from the caller */
#define CPROF_EEXIST (-7)  /* a write that may not replace a file found one there */

/* A short constant description of a code, e.g. "not a V8 profile". */
const char *cprof_strerror(int err);

#endif

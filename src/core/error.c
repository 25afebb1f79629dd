/* Error codes to text. */
#include "error.h"

const char *cprof_strerror(int err) {
  switch (err) {
  case CPROF_OK:
    return "success";
  case CPROF_ENOMEM:
    return "out of memory";
  case CPROF_EPARSE:
    return "not valid JSON";
  case CPROF_ESCHEMA:
    return "not a V8 profile";
  case CPROF_EIO:
    return "file system error";
  case CPROF_EPROTO:
    return "the inspector replied with an error";
  case CPROF_EINVAL:
    return "invalid argument";
  case CPROF_EEXIST:
    return "the file exists";
  default:
    return "unknown error";
  }
}

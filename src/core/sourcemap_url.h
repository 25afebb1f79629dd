/* File URLs and paths for the source-map units: what a frame's url or a
 * sourceMappingURL names on this machine. */
#ifndef CPROF_SOURCEMAP_URL_H
#define CPROF_SOURCEMAP_URL_H

#include <stddef.h>

/* The file path a frame's url names: "/abs/x.js" as is, "file:///abs/x.js"
 * percent-decoded. NULL (and nothing allocated) for anything else (node:
 * internals, "", http:). The result is malloc'd. */
char *cprof__sm_url_to_path(const char *url);

/* s[0..n) with %XX decoded (malloc'd); NULL when out of memory or when the
 * result would hold a NUL. */
char *cprof__sm_percent_decode(const char *s, size_t n);

#endif

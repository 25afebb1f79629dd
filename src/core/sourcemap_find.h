/* Finding a script's source map on disk (ECMA-426 "Linking generated code
 * to source maps"): the sourceMappingURL comment, inline data: URLs,
 * <script>.map; every read bounded. */
#ifndef CPROF_SOURCEMAP_FIND_H
#define CPROF_SOURCEMAP_FIND_H

#include <stddef.h>

#include "sourcemap.h"

/* Bounds on what is read: a script larger than max_script_bytes is not read
 * (its frames stay unmapped), nor a map larger than max_map_bytes (file or
 * decoded data: URL). 0 picks the default (CPROF_SM_MAX_BYTES). */
#define CPROF_SM_MAX_BYTES (64u * 1024 * 1024)

struct cprof_source_owners_s; /* export.h */
typedef struct {
  size_t max_script_bytes;
  size_t max_map_bytes;
  /* cprof_sourcemap_apply: the profile's owners (NULL: the reader's own
   * profile): a script or map file one of them could not read is not used
   * (its frames stay V8's, its sourcesContent unshown; issue 36) */
  const struct cprof_source_owners_s *owners;
} cprof_sm_limits_t;

/* Identity of what a map was loaded from, so a cache can tell a stale one:
 * the script's and the map file's size and modification time (map fields
 * 0 for an inline map or none). */
typedef struct {
  long long script_size, script_mtime_ns, script_ino;
  long long map_size, map_mtime_ns, map_ino;
  char map_path[4096]; /* the external map file read, "" if none */
} cprof_sm_origin_t;

/* Finds and decodes the map of the script at path (an absolute file path):
 * the last `//# sourceMappingURL=` line comment at the end of the script (a
 * relative or absolute path, a file: URL, or an inline
 * data:application/json;base64 URL), else `<path>.map` if it exists. Only
 * regular files are read, each within its bound; a map path may point
 * anywhere (../../etc/passwd): the file is only ever parsed as a map.
 * CPROF_OK with *out NULL when the script has no map; CPROF_OK with a map;
 * or an error (CPROF_EIO, CPROF_EPARSE, CPROF_ESCHEMA, CPROF_ENOMEM) with a
 * message naming the script and the map but never quoting them. */
int cprof_sourcemap_find(const char *path, const cprof_sm_limits_t *lim, cprof_sourcemap_t **out,
                         cprof_sm_origin_t *origin, char *errbuf, size_t errlen);

/* Whether origin still describes the files on disk (stat only). */
int cprof_sourcemap_origin_fresh(const char *path, const cprof_sm_origin_t *origin);

/* The parts of cprof_sourcemap_find that read no file, for the tests and
 * the fuzzer. The sourceMappingURL of script text s[0..len): 1 with *url
 * pointing into s, else 0. */
int cprof__sm_extract_url(const char *s, size_t len, const char **url, size_t *n);

/* Decodes a data:application/json;base64 URL of n bytes into *json
 * (malloc'd, NUL-terminated). CPROF_OK, CPROF_ESCHEMA (another data: URL),
 * CPROF_EPARSE (bad base64), CPROF_EIO (over max bytes), CPROF_ENOMEM. */
int cprof__sm_data_url(const char *url, size_t n, size_t max, char **json, size_t *len);

#endif

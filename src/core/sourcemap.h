/* Source maps (ECMA-426, "Source Map Format"): decoding and lookup. The
 * other source-map units: sourcemap_url.h (file URLs and paths),
 * sourcemap_find.h (finding a script's map on disk) and sourcemap_apply.h
 * (mapping a profile's frames, the cache: the part cprof.h includes).
 *
 * Why C and not node:module's SourceMap or @jridgewell/trace-mapping: every
 * step of a stop runs in one napi_async_work job on a libuv worker thread,
 * and a JS decoder can only run on a thread with an isolate. On the main
 * thread it would add the map's JSON.parse and decode (175-234 ms for the
 * 5.3 MB map of bench/sourcemaps.js) to the pause the app sees; on a worker_threads Worker it
 * would cost a second isolate and a round trip C job → JS → C job in the
 * middle of the export. Decoding here keeps the pause unchanged and the
 * whole stop one job. Agreement with trace-mapping is tested
 * (test/js/api/sourcemaps.test.js).
 *
 * Pure C11 over cJSON and POSIX file reads; no Node-API. */
#ifndef CPROF_SOURCEMAP_H
#define CPROF_SOURCEMAP_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef struct cprof_sourcemap_s cprof_sourcemap_t;

/* Decodes a source map (a regular map, or an index map with "sections")
 * from JSON text. Relative sources resolve against base (a directory path
 * or a URL ending in '/', the map's own location), after sourceRoot; the
 * results are absolute paths for files, or URLs as written for other
 * schemes (webpack://...). CPROF_OK, CPROF_EPARSE (not JSON), CPROF_ESCHEMA
 * (not a version 3 map, bad "mappings", an index out of range) or
 * CPROF_ENOMEM; the message in errbuf never quotes the input. */
int cprof_sourcemap_parse(const char *json, size_t len, const char *base, cprof_sourcemap_t **out,
                          char *errbuf, size_t errlen);

void cprof_sourcemap_free(cprof_sourcemap_t *m);

/* Bytes of memory the decoded map holds (for the cache's bound). */
size_t cprof_sourcemap_bytes(const cprof_sourcemap_t *m);

/* sourcesContent is kept only for sources not on disk when the map is
 * decoded, and up to this many bytes per map (the first sources first). */
#define CPROF_SM_CONTENT_MAX (8u << 20)

/* An original position. line and column are 0-based; source, name and
 * content are owned by the map (name NULL when the map names nothing there;
 * content: the source's sourcesContent when kept, else NULL). */
typedef struct {
  const char *source;
  const char *name;
  const char *content;
  int32_t line;
  int32_t column;
} cprof_sm_pos_t;

/* The original position of a generated one (0-based line and column), as
 * trace-mapping's originalPositionFor does it: the last mapping on that line
 * at or before the column (the first of equal ones); when the column is
 * before every mapping on the line (V8 reports column 0, or none), the
 * nearest one after it. 1 when found with a source, else 0. */
int cprof_sourcemap_lookup(const cprof_sourcemap_t *m, int32_t line, int32_t column,
                           cprof_sm_pos_t *out);

/* The first mapping with a source on generated line `line` (0-based) whose
 * column is in [from, end): the original position of code known to lie in
 * that span, such as one function's part of a minified line. 1 when found,
 * else 0 (also when from >= end). */
int cprof_sourcemap_lookup_in(const cprof_sourcemap_t *m, int32_t line, int32_t from, int32_t end,
                              cprof_sm_pos_t *out);

#endif

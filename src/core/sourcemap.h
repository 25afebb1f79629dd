/* Source maps (ECMA-426, "Source Map Format"): decoding, finding a script's
 * map, and mapping a profile's call frames to the original sources.
 *
 * Why C and not node:module's SourceMap or @jridgewell/trace-mapping: every
 * step of a stop runs in one napi_async_work job on a libuv worker thread,
 * and a JS decoder can only run on a thread with an isolate. On the main
 * thread it would add the map's JSON.parse and decode (tens of ms for a
 * multi-MB map) to the pause the app sees; on a worker_threads Worker it
 * would cost a second isolate and a round trip C job → JS → C job in the
 * middle of the export. Decoding here keeps the pause unchanged and the
 * whole stop one job. Agreement with trace-mapping is tested
 * (test/js/sourcemaps.test.js).
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

/* An original position. line and column are 0-based; source and name are
 * owned by the map (name NULL when the map names nothing there). */
typedef struct {
  const char *source;
  const char *name;
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

/* ---- finding a script's map (sourcemap_find.c) ---- */

/* Bounds on what is read: a script larger than max_script_bytes is not read
 * (its frames stay unmapped), nor a map larger than max_map_bytes (file or
 * decoded data: URL). 0 picks the default (CPROF_SM_MAX_BYTES). */
#define CPROF_SM_MAX_BYTES (64u * 1024 * 1024)

typedef struct {
  size_t max_script_bytes;
  size_t max_map_bytes;
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

/* The file path a frame's url names: "/abs/x.js" as is, "file:///abs/x.js"
 * percent-decoded. NULL (and nothing allocated) for anything else (node:
 * internals, "", http:). The result is malloc'd. */
char *cprof__sm_url_to_path(const char *url);

/* The parts of cprof_sourcemap_find that read no file, for the tests and
 * the fuzzer. The sourceMappingURL of script text s[0..len): 1 with *url
 * pointing into s, else 0. */
int cprof__sm_extract_url(const char *s, size_t len, const char **url, size_t *n);

/* Decodes a data:application/json;base64 URL of n bytes into *json
 * (malloc'd, NUL-terminated). CPROF_OK, CPROF_ESCHEMA (another data: URL),
 * CPROF_EPARSE (bad base64), CPROF_EIO (over max bytes), CPROF_ENOMEM. */
int cprof__sm_data_url(const char *url, size_t n, size_t max, char **json, size_t *len);

/* ---- mapping a profile's frames (sourcemap_apply.c) ---- */

/* A process-wide cache of decoded maps, keyed by script path, bounded in
 * bytes (least recently used maps go first; a map larger than the bound is
 * used once and not kept). Safe across threads when lock/unlock are given:
 * they guard only the table, never a file read or a decode. */
typedef struct cprof_smcache_s cprof_smcache_t;

cprof_smcache_t *cprof_smcache_new(size_t max_bytes, void (*lock)(void *), void (*unlock)(void *),
                                   void *lock_ctx);
void cprof_smcache_free(cprof_smcache_t *c);

/* Maps held and their bytes (for tests and the result). */
void cprof_smcache_usage(cprof_smcache_t *c, size_t *maps, size_t *bytes);

#define CPROF_SM_ERRORS 4

typedef struct {
  uint32_t frames;   /* frames naming a script file (the only ones a map can cover) */
  uint32_t mapped;   /* of those, mapped to an original position */
  uint32_t unmapped; /* frames - mapped */
  uint32_t scripts;  /* distinct script urls among those frames */
  uint32_t scripts_with_map;
  uint32_t map_errors;               /* scripts whose map, or which, could not be read or used */
  char errors[CPROF_SM_ERRORS][320]; /* the first few of those, "" after */
} cprof_sm_stats_t;

/* The mapped frames of a profile, and V8's own while they are swapped out. */
typedef struct cprof_sm_frames_s cprof_sm_frames_t;

/* Maps every frame of p through its script's map (cache may be NULL: then
 * nothing is kept) and installs the mapped frames in p->frames, index for
 * index, so nodes, samples and the exporters see original names, sources
 * and 0-based lines and columns. A frame that cannot be mapped stays as V8
 * gave it, and the name stays V8's where the map names nothing. Frame
 * indexes do not change (two frames may now be equal; the flat profile
 * merges them by value). CPROF_OK or CPROF_ENOMEM (p then unchanged). */
int cprof_sourcemap_apply(cprof_profile_t *p, cprof_smcache_t *cache, const cprof_sm_limits_t *lim,
                          cprof_sm_frames_t **out, cprof_sm_stats_t *stats);

/* Exchanges p->frames with the frames f holds: after apply, one swap puts
 * V8's frames back (to write the .cpuprofile / .heapprofile as V8 made it)
 * and a second one the mapped frames. */
void cprof_sourcemap_swap(cprof_profile_t *p, cprof_sm_frames_t *f);

/* Puts V8's frames back in p if they are swapped out, and frees f. */
void cprof_sourcemap_release(cprof_profile_t *p, cprof_sm_frames_t *f);

#endif

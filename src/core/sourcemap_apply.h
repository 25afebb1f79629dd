/* Mapping a profile's call frames to their original sources through their
 * scripts' source maps, with a process-wide cache of decoded maps. The
 * public part of the source-map units (cprof.h includes it); why the
 * decoder is in C: sourcemap.h. */
#ifndef CPROF_SOURCEMAP_APPLY_H
#define CPROF_SOURCEMAP_APPLY_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "profile.h"
#include "sourcemap_find.h"

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

/* The sourcesContent of the original files the mapped frames and lines
 * name that were not on disk when their map was decoded, for the line
 * views (cprof_export_opts_t.source_texts); NULL when none. Owned by f. */
const cprof_source_texts_t *cprof_sourcemap_texts(const cprof_sm_frames_t *f);

/* Puts V8's frames back in p if they are swapped out, and frees f. */
void cprof_sourcemap_release(cprof_profile_t *p, cprof_sm_frames_t *f);

#endif

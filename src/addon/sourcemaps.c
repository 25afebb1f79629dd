/* Source maps in the addon: the process-wide cache of decoded maps (one for
 * every job and every thread, guarded by a uv_mutex) and the job's step
 * that maps a profile's frames on the worker thread. */
#include "sourcemaps.h"

#include <uv.h>

/* Decoded maps kept for the life of the process: enough for a large bundle
 * and its map several times over; least recently used maps go first. */
#define CACHE_MAX_BYTES (64u * 1024 * 1024)

static uv_once_t once = UV_ONCE_INIT;
static uv_mutex_t mutex;
static cprof_smcache_t *cache;

static void lock(void *ctx) {
  uv_mutex_lock(ctx);
}

static void unlock(void *ctx) {
  uv_mutex_unlock(ctx);
}

static void init_cache(void) {
  if (uv_mutex_init(&mutex) != 0) return; /* no cache: every job loads its maps */
  cache = cprof_smcache_new(CACHE_MAX_BYTES, lock, unlock, &mutex);
}

int cprof__map_frames(cprof_profile_t *p, const cprof_source_owners_t *owners,
                      cprof_sm_frames_t **out, cprof_sm_stats_t *stats) {
  cprof_sm_limits_t lim = {0, 0, owners};
  uv_once(&once, init_cache);
  return cprof_sourcemap_apply(p, cache, &lim, out, stats);
}

void cprof__add_sm_stats(cprof_sm_stats_t *sum, const cprof_sm_stats_t *b) {
  sum->frames += b->frames;
  sum->mapped += b->mapped;
  sum->unmapped += b->unmapped;
  sum->scripts += b->scripts;
  sum->scripts_with_map += b->scripts_with_map;
  int n = 0;
  while (n < CPROF_SM_ERRORS && sum->errors[n][0])
    n++;
  for (int i = 0; i < CPROF_SM_ERRORS && n < CPROF_SM_ERRORS && b->errors[i][0]; i++)
    memcpy(sum->errors[n++], b->errors[i], sizeof sum->errors[0]);
  sum->map_errors += b->map_errors;
}

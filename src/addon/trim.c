/* A deferred malloc_trim (see trim.h). */
#include "trim.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifdef __GLIBC__
/* Process-wide, as the arenas are: set while a trim is queued and not yet
 * started. Cleared when the trim starts, so a job that settles during a
 * trim queues another, which sees that job's frees. */
static atomic_bool queued;

static void trim_execute(napi_env env, void *data) {
  (void)env;
  (void)data;
  atomic_store(&queued, false);
  malloc_trim(0);
}

/* data is the slot holding the work itself (known only once created). */
static void trim_complete(napi_env env, napi_status status, void *data) {
  (void)status;
  napi_async_work *slot = data;
  napi_delete_async_work(env, *slot);
  free(slot);
}

void cprof__trim_soon(napi_env env) {
  napi_value name;
  bool was = false;
  if (!atomic_compare_exchange_strong(&queued, &was, true)) return;
  napi_async_work *slot = calloc(1, sizeof *slot);
  if (!slot || napi_create_string_utf8(env, "cprof:trim", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, trim_execute, trim_complete, slot, slot) != napi_ok) {
    free(slot);
    atomic_store(&queued, false);
    return;
  }
  if (napi_queue_async_work(env, *slot) != napi_ok) {
    napi_delete_async_work(env, *slot);
    free(slot);
    atomic_store(&queued, false);
  }
}
#else
void cprof__trim_soon(napi_env env) {
  (void)env;
}
#endif

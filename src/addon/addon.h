/* Per-environment state (instance data): the main thread and every worker
 * that loads cprof get their own, torn down by a cleanup hook. */
#ifndef CPROF_ADDON_H
#define CPROF_ADDON_H

#include <node_api.h>
#include <stdint.h>

#include "ctl.h"
#include "signal.h"

#define CPROF_SIGNAL_SLOTS 3

typedef struct {
  napi_env env;
  int exiting; /* set by the cleanup hook: late callbacks return early */
  cprof_ctl_t cpu;
  cprof_ctl_t heap;
  cprof_signal_t *signals[CPROF_SIGNAL_SLOTS]; /* the signal triggers (CPU, heap, dump) */
  struct cprof_rec_s *recorder;                /* the flight recorder (recorder.h), or NULL */
  struct cprof_label_ring_s *label_ring;       /* the label switches (labels.h), or NULL */
} cprof_addon_t;

/* The calling environment's state; throws and returns NULL if missing. */
cprof_addon_t *cprof__addon(napi_env env);

/* Makes the calling environment's state and registers its teardown (a
 * cleanup hook: stop the triggers, drop the sessions). 0, or -1 with a
 * throw. */
int cprof__addon_install(napi_env env);

#endif

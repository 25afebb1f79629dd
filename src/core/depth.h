/* The heap profile's stack depth limit (depth.c). */
#ifndef CPROF_DEPTH_H
#define CPROF_DEPTH_H

#include <stdint.h>

#include "profile.h"

/* Keeps at most max_depth frames per stack below the root, as V8's sampling
 * heap profiler does with stackDepth (some V8 versions ignore it): a deeper
 * node's self moves to the node for its innermost max_depth frames, rooted at
 * the root; samples follow. Node ids stay unique. No-op when every stack
 * fits; when it cuts, the profile's line_ticks go. CPROF_OK or CPROF_ENOMEM. */
int cprof_profile_limit_depth(cprof_profile_t *p, uint32_t max_depth);

#endif

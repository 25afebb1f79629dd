/* Merging profiles of one kind into one (the flight recorder's windows,
 * `cprof merge`). Pure C11 like the rest of the core. */
#ifndef CPROF_MERGE_H
#define CPROF_MERGE_H

#include <stddef.h>

#include "profile.h"

/* Merges n >= 1 profiles of one kind into a new profile (*out, freed with
 * cprof_profile_free). Nodes with the same call path (same call frame —
 * name, url, line, column; script_id may differ across processes — at the
 * same position in the stack) become one node. A frame without a url (eval,
 * new Function, V8's "(program)"…) has only its script id to tell it from
 * another at the same position, so there the script id must match too. Self
 * values and hit counts sum; total is recomputed. CPU: profiles are given in
 * time order; samples are concatenated in that order; start_time is the
 * first's. A profile on the previous one's clock that starts where it ended
 * (a recorder's windows touch) continues the timeline: its samples keep their
 * true timestamps. Any other profile — after a gap (another run, a stopped
 * recorder, a lost window), one that ran at the same time (another process),
 * or on another clock — is placed end to end: its first sample at the
 * previous profile's endTime (or last sample, if later), its other samples
 * and its endTime moved with it. The time no profile covered is cut out, so
 * a viewer that lets each sample last until the next one (DevTools,
 * speedscope) gives each profile's last sample what its own file gave it
 * (up to endTime), never the gap. The merged timeline never goes back; its
 * end_time is the last's, moved. Heap: samples concatenated (ordinals
 * renumbered unique). Returns CPROF_OK or a negative CPROF_E* code
 * (CPROF_EINVAL for mixed kinds / n == 0, CPROF_ENOMEM).
 *
 * Self is the sum of each profile's own self, so totals add up exactly. A
 * reader that recomputes self from the merged samples (DevTools does, from
 * timeDeltas) gets the same per node, except where one profile continues
 * another: there the previous profile's last sample also lasts through the
 * next one's lead-in (its startTime to its first sample, less than one
 * sampling interval), as in one long profile of the process. */
int cprof_profile_merge(cprof_profile_t *const *in, size_t n, cprof_profile_t **out);

/* cprof_profile_bytes(p), the bytes a profile really holds (a ring's
 * honest accounting), is declared in profile.h, the unit that owns the
 * model's allocations; this header includes it. */

#endif

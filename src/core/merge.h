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
 * first's, end_time the last's; time deltas are kept, and the first delta of
 * each later profile is made relative to the previous profile's last sample
 * so timestamps stay true on V8's clock (same process => same clock). A
 * profile that starts before the previous one did cannot share its clock
 * (another host, or a restarted clock), and one whose first sample comes
 * before the previous one's last sample ran at the same time (another
 * process): either is placed back to back, its start at the previous end, so
 * the merged timeline never goes back. Heap: samples concatenated (ordinals
 * renumbered unique). Returns CPROF_OK or a negative CPROF_E* code
 * (CPROF_EINVAL for mixed kinds / n == 0, CPROF_ENOMEM).
 *
 * Self is the sum of each profile's own self, so totals add up exactly. A
 * reader that recomputes self from the merged samples (DevTools does, from
 * timeDeltas) gives the time between one profile's last sample and the next
 * profile's first sample to that last sample, where each profile alone had
 * counted up to its own endTime: at most one sampling interval plus the gap
 * between the two profiles, per boundary. */
int cprof_profile_merge(cprof_profile_t *const *in, size_t n, cprof_profile_t **out);

/* cprof_profile_bytes(p), the bytes a profile really holds (a ring's
 * honest accounting), is declared in profile.h, the unit that owns the
 * model's allocations; this header includes it. */

#endif

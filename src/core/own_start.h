/* cprof's own start call left out of a CPU profile (own_start.c): the
 * leading samples in the profiler's own code, found in the model and
 * dropped from it, or from V8's JSON text as it is written. */
#ifndef CPROF_OWN_START_H
#define CPROF_OWN_START_H

#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* The profiler's own start call in a CPU profile: how many
 * of the first samples have a frame whose url starts with url_prefix in
 * their stack (the profiler's own code). 0 for heap profiles, an empty
 * prefix, or when that is every sample (then there is nothing else). */
uint32_t cprof_profile_leading_own(const cprof_profile_t *p, const char *url_prefix);

/* Drops the first k samples of a CPU profile (k < nsamples): their time
 * deltas fold into the first kept sample's, so kept samples keep their
 * timestamps, and startTime and endTime stay; hitCounts drop with them;
 * self and total are summed again. CPROF_OK, or CPROF_EINVAL. */
int cprof_profile_drop_leading(cprof_profile_t *p, uint32_t k);

/* cprof_profile_drop_leading (above) on a .cpuprofile's JSON text (V8's profile object): the
 * text is written to f byte for byte except the first k elements of
 * samples and the first k + 1 of timeDeltas, which become their sum.
 * CPROF_OK; CPROF_EPARSE or CPROF_ESCHEMA when the text is not JSON or has
 * no such arrays (with more than k elements); CPROF_EIO when f fails. */
int cprof_write_text_drop_leading(const char *text, size_t len, uint32_t k, FILE *f);

#endif

/* The native profile model: one shape for CPU and heap sampling profiles
 * (its types: model.h). Parsing (parse.c), freeing, totals and sizes
 * (profile.c). Pure C11: no Node-API here, so the CLI, tests and fuzzers
 * use it alone. The model's builder, for the parsers, is internal
 * (internal.h). */
#ifndef CPROF_PROFILE_H
#define CPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Parses a .cpuprofile, a .heapprofile, or an inspector reply wrapping one
 * ({"id":N,"result":{"profile":{...}}}), detecting which. Fills self and
 * total. On error returns a negative CPROF_E* code and writes a message that
 * names the problem into errbuf (if errbuf is not NULL). */
int cprof_profile_parse(const char *json, size_t len, cprof_profile_t **out, char *errbuf,
                        size_t errlen);

void cprof_profile_free(cprof_profile_t *p);

/* CPU: the time a sample stands for, in µs: the gap to the next sample (as
 * Chrome DevTools and speedscope read it), the last one up to end_time;
 * negative gaps count 0. Heap: the sample's size in bytes. */
int64_t cprof_sample_weight(const cprof_profile_t *p, uint32_t i);

/* Sum of every node's self value: the profile's total in its unit. */
int64_t cprof_profile_total(const cprof_profile_t *p);

/* Added to the contract: heap samples the parser dropped because they name a
 * node the tree does not have (real V8 output has them; they are not in
 * samples). Always 0 for CPU profiles, where such a sample is an error. */
uint32_t cprof_profile_dropped_samples(const cprof_profile_t *p);

/* The bytes this profile really holds in memory (every allocation the model
 * owns: arrays at their capacity, interned strings, internal tables), for a
 * ring's honest accounting. Where the C library can tell, each block counts
 * at its usable size (malloc_usable_size); elsewhere at its requested size.
 * (Asked for with merge.h, which includes this header.) */
size_t cprof_profile_bytes(const cprof_profile_t *p);

#endif

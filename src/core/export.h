/* Exporters: each writes a profile to an open FILE in one standard format.
 * Return CPROF_OK or a negative CPROF_E* code (CPROF_EIO on write errors). */
#ifndef CPROF_EXPORT_H
#define CPROF_EXPORT_H

#include <stdio.h>

#include "profile.h"

/* V8 Profiler.Profile (.cpuprofile): nodes, startTime, endTime, samples,
 * timeDeltas. Opened by Chrome DevTools, VS Code and speedscope. */
int cprof_export_cpuprofile(const cprof_profile_t *p, FILE *f);

/* V8 HeapProfiler.SamplingHeapProfile (.heapprofile): head, samples. */
int cprof_export_heapprofile(const cprof_profile_t *p, FILE *f);

typedef int (*cprof_exporter_fn)(const cprof_profile_t *p, FILE *f);

#endif

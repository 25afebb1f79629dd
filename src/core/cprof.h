/* cprof's core: the one header its users include (the addon, the C tests,
 * the fuzzer, the benchmarks), as uv.h is libuv's. Pure C11, no Node-API.
 *
 * What it declares, by the header that holds it:
 *   error.h      CPROF_E* codes (negative ints) and cprof_strerror
 *   profile.h    the profile model; cprof_profile_parse (.cpuprofile,
 *                .heapprofile, inspector replies), totals, depth limit
 *   aggregate.h  the flat profile (self/total by function) and top-N
 *   export.h     the writers: .cpuprofile, .heapprofile, pprof, folded
 *                stacks, SVG flame graph, text report, diff; dispatch by
 *                cprof_format_t
 *   fsutil.h     atomic file writes (temp file + rename, mode 0600), mkdir -p
 *
 * Every other header in src/core (internal.h, reader.h, parse_*.h, idmap.h,
 * out.h, pb.h, xml.h, label.h, tree.h, export_*.h) is internal: its names
 * are cprof__ and may change. The C tests include some of them to test the
 * parts directly. */
#ifndef CPROF_H
#define CPROF_H

#include "error.h"
#include "profile.h"
#include "aggregate.h"
#include "export.h"
#include "fsutil.h"

#endif

/* cprof's core: the one header its users include (the addon, the C tests,
 * the fuzzer, the benchmarks), as uv.h is libuv's. Pure C11, no Node-API.
 *
 * What it declares, by the header that holds it:
 *   error.h      CPROF_E* codes (negative ints) and cprof_strerror
 *   model.h      the profile model's types (frames, nodes, samples)
 *   profile.h    cprof_profile_parse (.cpuprofile, .heapprofile, inspector
 *                replies), free, totals, sizes
 *   reply.h      the profile's span in an inspector reply, without a parse
 *   depth.h      the heap profile's stack depth limit
 *   own_start.h  cprof's own start call dropped from a CPU profile (the
 *                model, or V8's text as it is written)
 *   repair.h     v8.startCpuProfile's text made JSON
 *   aggregate.h  the flat profile (self/total by function) and top-N
 *   lines.h      self time per source line of each function (positionTicks)
 *   export.h     the export options and the writers (export_*.c):
 *                .cpuprofile, .heapprofile, pprof (and push parts), folded
 *                stacks, SVG flame graph, HTML viewer
 *   format.h     dispatch by cprof_format_t; a profile written to a file
 *   report_text.h  the text report
 *   diff.h       the diff of two profiles: table, flame graph, files
 *   fsutil.h     atomic file writes (temp file + rename, mode 0600), mkdir -p
 *   merge.h      cprof_profile_merge: profiles of one kind into one, by call
 *                path (cprof merge, the flight recorder's windows)
 *   ring.h       the flight recorder's ring of windows (evicted by age and
 *                bytes, reference counted), overlap trimming
 *   store.h      the recorder store's file names and retention
 *   window.h     one recorder window's conversion: parsed, kept in the
 *                ring, added to the trend, stored and encoded for push
 *   trend.h      the live heap's trend by allocation site (Theil–Sen,
 *                Mann–Kendall): which sites keep growing
 *   labelset.h   labels per CPU sample: the switches the app recorded,
 *                joined to the sample times; the .labels.json sidecar
 *   note.h       the profile inside a Profiler.consoleProfileFinished
 *                notification
 *   heapsnapshot.h  cprof snapshot: a .heapsnapshot's dominator tree, retained
 *                sizes and classes, as a JSON report
 *   analysis.h  one analysis of a profile (function tree, flat profile,
 *                lines) that a job's writers share, each part built once
 *   job.h        cprof_job_run: one request type (job_request.h) for every
 *                background job (a stop's or a file's profile loaded,
 *                summarised and written; a snapshot's analysis; a recorder
 *                window; a trim)
 *   sourcemap_apply.h  mapping a profile's frames through source maps, the
 *                map cache; it includes, and so makes public:
 *     sourcemap_find.h  finding a script's map (sourceMappingURL, data:
 *                URLs, <script>.map), cprof_sm_limits_t
 *     sourcemap.h  decoding a map and looking a position up
 *
 * The addon (src/addon) includes the core only through this header.
 *
 * Every other header in src/core is internal: its names are cprof__ and
 * may change. They are internal.h (the shared internals: the profile
 * builder, cprof__errf), arena.h, reader.h, parse_cpu.h, parse_heap.h,
 * parse_value.h, idmap.h, job_internal.h, out.h, pb.h, xml.h, label.h, tree.h,
 * export_folded.h, export_svg.h, snapshot.h and sourcemap_url.h (file URLs to paths,
 * percent-decoding: only the source-map units need it). Who may
 * include them: the core's own units; the C unit tests (test/c), to test a
 * part directly; and the fuzz harnesses (test/fuzz), to feed a step such as
 * sourcemap_url.h's URL decoding straight from the fuzzer's bytes
 * instead of through a whole profile. Nothing else. */
#ifndef CPROF_H
#define CPROF_H

#include "error.h"
#include "profile.h"
#include "reply.h"
#include "depth.h"
#include "own_start.h"
#include "repair.h"
#include "aggregate.h"
#include "lines.h"
#include "export.h"
#include "format.h"
#include "analysis.h"
#include "report_text.h"
#include "diff.h"
#include "fsutil.h"
#include "merge.h"
#include "labelset.h"
#include "note.h"
#include "ring.h"
#include "store.h"
#include "trend.h"
#include "window.h"
#include "sourcemap_apply.h"
#include "heapsnapshot.h"
#include "job.h"

#endif

/* `cprof snapshot`: a V8 .heapsnapshot read and analysed natively (the
 * dominator tree by DevTools' rules, retained sizes, classes), reported as
 * JSON text. Never run inside a profiled app: it costs a few words per
 * object of the snapshot (the CLI runs it). */
#ifndef CPROF_HEAPSNAPSHOT_H
#define CPROF_HEAPSNAPSHOT_H

#include <stddef.h>

/* How many objects and classes a report lists at most. */
#define CPROF_SNAPSHOT_TOP_MAX 1000

/* The report on the snapshot text json[0..len), as JSON text in *out
 * (malloc'd, NUL-terminated, caller frees):
 *   { nodes, edges, strings, totalSize, unreachable,
 *     objects: [{ id, name, class, type, selfSize, retainedSize, distance,
 *                 path: [{ edge, edgeType, id, name, class, type }] }],
 *     classes: [{ name, count, selfSize, retainedSize, distance, path }] }
 * objects: the `top` largest by retained size (not the root, not synthetic
 * nodes), each with one shortest retainer path from the root (root's edge
 * first); classes: the `top` largest by retained size, with the path of
 * their largest object. Sizes in bytes.
 * CPROF_OK, CPROF_EPARSE, CPROF_ESCHEMA, CPROF_ENOMEM, CPROF_EINVAL (top
 * 0 or over CPROF_SNAPSHOT_TOP_MAX), with a message in errbuf. */
int cprof_snapshot_report(const char *json, size_t len, unsigned top, char **out, char *errbuf,
                          size_t errlen);

/* cprof_snapshot_report on a file, mapped read-only rather than read into
 * memory (the kernel pages it in and drops it as the reader passes).
 * CPROF_EIO when it cannot be opened or mapped. */
int cprof_snapshot_report_file(const char *path, unsigned top, char **out, char *errbuf,
                               size_t errlen);

#endif

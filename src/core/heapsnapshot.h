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
 * their largest object. Sizes in bytes. distance: null where DevTools
 * shows none (no user root reaches the node by strong edges). A node
 * (object or step) also has nameLength, its name's full length, when the
 * name was cut (past 1,024 characters, CPROF__SNAP_NAME_MAX, as class and edge
 * names everywhere), and a closure with a position location: { url,
 * line, column, scriptId } (from 1; url absent when unknown).
 * CPROF_OK, CPROF_EPARSE, CPROF_ESCHEMA, CPROF_ENOMEM, CPROF_EINVAL (top
 * 0 or over CPROF_SNAPSHOT_TOP_MAX), with a message in errbuf. */
int cprof_snapshot_report(const char *json, size_t len, unsigned top, char **out, char *errbuf,
                          size_t errlen);

/* cprof_snapshot_report on a file, mapped read-only rather than read into
 * memory (the kernel pages it in and drops it as the reader passes).
 * CPROF_EIO when it cannot be opened or mapped. */
int cprof_snapshot_report_file(const char *path, unsigned top, char **out, char *errbuf,
                               size_t errlen);

/* `cprof snapshot diff A B [C]`: what grew between snapshots A and B of one
 * process (V8's object ids are stable across them), and with C, memlab's
 * method: the objects new in B (their id is not in A) still alive in C,
 * grouped by retainer path. The snapshots are analysed one after another,
 * keeping between them only A's (then B's) ids and the class tables, so
 * the peak memory is about one analysis's. JSON text in *out:
 *   { snapshots: [{ nodes, edges, totalSize, objects, selfSize }],
 *     classes: [{ name, a: { count, selfSize, retainedSize }, b: {…},
 *                 countDelta, selfSizeDelta, retainedSizeDelta }],
 *     added:  { count, selfSize, groups: [GROUP] },   new in B, B's paths
 *     leaked: { count, selfSize, groups: [GROUP] },   with C: C's paths
 *     warnings: [string] }
 *   GROUP: { path, count, selfSize, retainedSize,
 *            example: { id, selfSize, retainedSize, path: [step] } }
 * classes: those that changed, by shallow size growth (then count growth,
 * then name), at most `top`; groups by retained size, at most `top`.
 * The rules: docs/cli.md, `cprof snapshot diff`. n is 2 or 3; errors as
 * cprof_snapshot_report's, messages naming the file. */
int cprof_snapshot_diff(const char *const *texts, const size_t *lens, unsigned n, unsigned top,
                        char **out, char *errbuf, size_t errlen);
int cprof_snapshot_diff_files(const char *const *paths, unsigned n, unsigned top, char **out,
                              char *errbuf, size_t errlen);

/* The HTML viewer's data for a snapshot (cprof html, cprof ui), as JSON
 * text in *out (malloc'd, caller frees):
 *   { kind: "heapsnapshot", nodes, edges, totalSize, unreachable,
 *     classCount, caps: { classes, instances, objects, depth, fanout, nodes },
 *     classes: [{ name, count, selfSize, retainedSize, distance,
 *                 objects: [T], more }],      the `classes` largest
 *     objects: [T],                           the largest objects
 *     table: [{ id, name, class, type, selfSize, retainedSize, distance,
 *               retainers: [[edge, edgeType, T]], more, weak }],
 *     truncated }
 * T: an index into table. A class lists its CPROF_SNAPSHOT_VIEW_INSTANCES
 * largest objects (more: the rest); objects, the CPROF_SNAPSHOT_VIEW_OBJECTS
 * largest overall. Every listed object's retainers, and theirs, are looked
 * up CPROF_SNAPSHOT_VIEW_DEPTH levels up: an entry without `retainers` was
 * not; at most CPROF_SNAPSHOT_VIEW_FANOUT per entry, nearest the roots first
 * (by distance, as DevTools orders them), more: those left out, weak: weak
 * retainers not shown (DevTools' filter: not the root, not weak, not
 * invisible). The table holds at most CPROF_SNAPSHOT_VIEW_NODES entries
 * (truncated: retainers were left out for it). Sizes in bytes. Errors as
 * cprof_snapshot_report's (CPROF_EINVAL: classes 0 or over
 * CPROF_SNAPSHOT_TOP_MAX). */
#define CPROF_SNAPSHOT_VIEW_INSTANCES 20
#define CPROF_SNAPSHOT_VIEW_OBJECTS 100
#define CPROF_SNAPSHOT_VIEW_DEPTH 6
#define CPROF_SNAPSHOT_VIEW_FANOUT 8
#define CPROF_SNAPSHOT_VIEW_NODES 24000 /* above 1000 classes x 20 + 100 listed */
int cprof_snapshot_view(const char *json, size_t len, unsigned classes, char **out, char *errbuf,
                        size_t errlen);
int cprof_snapshot_view_file(const char *path, unsigned classes, char **out, char *errbuf,
                             size_t errlen);

#endif

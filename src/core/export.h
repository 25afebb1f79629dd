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

/* Source texts a source map carries (sourcesContent) for original files
 * that are not on disk, by the url the mapped frames name (source.h). */
typedef struct cprof_source_texts_s cprof_source_texts_t;

/* ---- derived formats: pprof, folded stacks, SVG flame graph, text ---- */

typedef enum {
  CPROF_FORMAT_PPROF = 0,  /* .pb.gz: gzip'd perftools.profiles.Profile */
  CPROF_FORMAT_FOLDED = 1, /* .folded: "a;b;c count" per stack */
  CPROF_FORMAT_SVG = 2,    /* .svg: interactive flame graph */
  CPROF_FORMAT_TXT = 3,    /* .txt: the text report */
  CPROF_FORMAT_HTML = 4,   /* .html: the self-contained viewer (export_html.c) */
  CPROF_FORMAT_COUNT = 5
} cprof_format_t;

/* What the profile file does not say, and how to draw. Zero means unknown
 * or default everywhere. */
typedef struct {
  int64_t interval;          /* the sampling interval asked for: CPU µs, heap bytes */
  int64_t start_time_ms;     /* wall clock when profiling started, ms since the epoch */
  int64_t duration_us;       /* heap: how long sampling ran (CPU: from the profile) */
  int include_collected;     /* heap: samples include objects GC already collected */
  const char *title;         /* SVG and text headers, e.g. the file name */
  unsigned top;              /* text: rows per table (0: 20) */
  double cut_percent;        /* text: tree nodes below this % of the total are cut (0: 1) */
  const char *focus;         /* text: also the callers (bottom-up) of this function */
  const char *main;          /* pprof: the main script, named by the one Mapping */
  int keep_existing;         /* cprof_write_*: never replace a file (CPROF_EEXIST instead) */
  const char *html_template; /* html: the viewer page, CPROF_HTML_MARKER where the data goes */
  size_t html_template_len;  /* (NULL: a bare page that only carries the data) */
  const char *html_marks;    /* html: JSON text of markers (an incident's reason), carried as a
                                string the page parses; NULL: none */
  int pprof_objects; /* pprof heap: name the count inuse_objects (alloc_objects), as Pyroscope's
                        memory profile type wants, instead of samples */
  /* pprof for Grafana Pyroscope (push), whose tree builder keys a frame on Function.name alone: */
  int pprof_skip_idle;      /* CPU: leave (idle) out: waiting is not CPU time */
  int pprof_unique_names;   /* Function.name "<file>:<name>:<line>" for frames with a script */
  const char *pprof_cwd;    /* with pprof_unique_names: files under it read "./<path>" */
  int64_t pprof_cpu_cap_us; /* CPU: the profiled thread's CPU time over the profile (µs, 0:
                               unknown); sample times above it are scaled down to it */
  /* Line detail from V8's positionTicks (lines.h): */
  int lines;               /* text: a "Self time by line" section; html: sources and lines */
  const char *lines_focus; /* text with lines: the functions this names, not the top ones */
  int pprof_lines;         /* pprof CPU: one Location per line, not per function */
  const cprof_source_texts_t *source_texts; /* the line views' source when the file is not on
                                               disk (a map's sourcesContent); NULL: none */
} cprof_export_opts_t;

/* The writers; each takes opts (NULL = all defaults). */
int cprof_export_pprof(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);
int cprof_export_folded(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);
int cprof_export_svg(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);
int cprof_report_text(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);

/* The self-contained HTML viewer: o->html_template with the profile's
 * function tree, as JSON, in place of its first CPROF_HTML_MARKER. */
int cprof_export_html(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);

#define CPROF_HTML_MARKER "__CPROF_PROFILE_JSON__"

/* A malloc'd byte string. */
typedef struct {
  unsigned char *data;
  size_t len;
} cprof_blob_t;

/* p as gzip'd pprof in one or more parts (*parts malloc'd, each part's
 * data too: cprof_blobs_free) that split its samples so that no part has
 * more than max_samples samples or, unless it holds one sample, more than
 * max_bytes bytes before gzip (0: no limit). Each part is a whole Profile
 * with the header, mapping, functions and strings its samples need; the
 * parts' samples add up to the profile's. A profile without samples is one
 * part. CPROF_OK, CPROF_ENOMEM, CPROF_EINVAL. */
int cprof_export_pprof_parts(const cprof_profile_t *p, const cprof_export_opts_t *o,
                             uint32_t max_samples, size_t max_bytes, cprof_blob_t **parts,
                             size_t *nparts);
void cprof_blobs_free(cprof_blob_t *parts, size_t n);

/* Dispatch by format. */
int cprof_export_format(cprof_format_t fmt, const cprof_profile_t *p, const cprof_export_opts_t *o,
                        FILE *f);

/* The file extension of a format, without the dot: "pb.gz", "folded",
 * "svg", "txt", "html". */
const char *cprof_format_ext(cprof_format_t fmt);

/* Writes p in fmt to dir/name atomically (cprof_write_atomic; with
 * o->keep_existing, cprof_write_new_fn). */
int cprof_write_format(const char *dir, const char *name, cprof_format_t fmt,
                       const cprof_profile_t *p, const cprof_export_opts_t *o, long long *size_out,
                       char *errbuf, size_t errlen);

/* How many functions the text report's focus name matches (0: the report
 * would have no bottom-up section for it). */
unsigned cprof_report_matches(const cprof_profile_t *p, const char *name);

/* ---- diff of two profiles of the same kind ---- */

/* Per-function table: self and total before and after, as shares of each
 * profile's total and in the unit, sorted by the change of self share. */
int cprof_diff_text(const cprof_profile_t *before, const cprof_profile_t *after,
                    const cprof_export_opts_t *o, FILE *f);

/* Differential flame graph: the shape of after, each frame coloured by the
 * change of its self share: red grew, blue shrank. */
int cprof_diff_svg(const cprof_profile_t *before, const cprof_profile_t *after,
                   const cprof_export_opts_t *o, FILE *f);

/* The HTML viewer of a diff: both profiles in one function tree. */
int cprof_diff_html(const cprof_profile_t *before, const cprof_profile_t *after,
                    const cprof_export_opts_t *o, FILE *f);

/* cprof_diff_html to dir/name atomically (keep_existing as above). */
int cprof_write_diff_html(const char *dir, const char *name, const cprof_profile_t *before,
                          const cprof_profile_t *after, const cprof_export_opts_t *o,
                          long long *size_out, char *errbuf, size_t errlen);

/* cprof_diff_svg to dir/name atomically (keep_existing as above). */
int cprof_write_diff_svg(const char *dir, const char *name, const cprof_profile_t *before,
                         const cprof_profile_t *after, const cprof_export_opts_t *o,
                         long long *size_out, char *errbuf, size_t errlen);

/* cprof_profile_drop_leading (profile.h) on a .cpuprofile's JSON text (V8's profile object): the
 * text is written to f byte for byte except the first k elements of
 * samples and the first k + 1 of timeDeltas, which become their sum.
 * CPROF_OK; CPROF_EPARSE or CPROF_ESCHEMA when the text is not JSON or has
 * no such arrays (with more than k elements); CPROF_EIO when f fails. */
int cprof_write_text_drop_leading(const char *text, size_t len, uint32_t k, FILE *f);

/* The CPU profile text of v8.startCpuProfile().stop() on Node 24.x-26.x,
 * whose callFrame functionName and url values V8 writes unescaped, with
 * both escaped (src/core/repair.c). *out is malloc'd and NUL-terminated
 * (*out_len leaves the NUL out); *nframes (may be NULL) counts the frames.
 * CPROF_OK; CPROF_EPARSE when a frame's values cannot be cut (the caller
 * falls back); CPROF_ENOMEM; CPROF_EINVAL. The result can still fail to
 * parse (a name holding a whole fake tail): parse it. */
int cprof_cpu_text_repair(const char *text, size_t len, char **out, size_t *out_len,
                          size_t *nframes);

#endif

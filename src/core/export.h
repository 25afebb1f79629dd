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

/* Whose profile it is: the owners (uid, primary gid) of the profile files
 * read, other than the reader (the process's effective uid) and root. The
 * line views show a source file (and a source map's text) only where each
 * could read it too, by its mode bits and every directory's search bit on
 * its real path (source.h). n == 0: the reader's own profile, nothing
 * checked. */
#define CPROF_SOURCE_OWNERS_MAX 4
typedef struct cprof_source_owners_s {
  unsigned n;
  int too_many; /* more owners than fit: no file is shown */
  uint32_t uid[CPROF_SOURCE_OWNERS_MAX];
  uint32_t gid[CPROF_SOURCE_OWNERS_MAX];
} cprof_source_owners_t;

/* Adds the owner of a profile file (uid, gid from its fstat) unless it is
 * the reader, root, or already there. */
void cprof_source_owners_add(cprof_source_owners_t *o, uint32_t uid, uint32_t gid);

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
  int source_map_hint;     /* text and html with lines: the profile is not mapped through source
                              maps; name the scripts shown that have one (source.h) */
  int pprof_lines;         /* pprof CPU: one Location per line, not per function */
  const cprof_source_texts_t *source_texts;   /* the line views' source when the file is not on
                                                 disk (a map's sourcesContent); NULL: none */
  const cprof_source_owners_t *source_owners; /* whose profile it is (NULL: the reader's) */
  int diff_json; /* cprof_diff_text: every function's figures as JSON, not the table (diff.h) */
  const struct cprof_labels_s *labels; /* pprof CPU: each sample's labels, joined (labelset.h) */
} cprof_export_opts_t;

/* The writers; each takes opts (NULL = all defaults). */
int cprof_export_pprof(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);
int cprof_export_folded(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);
int cprof_export_svg(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);

/* The self-contained HTML viewer: o->html_template with the profile's
 * function tree, as JSON, in place of its first CPROF_HTML_MARKER. */
int cprof_export_html(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f);

/* The same writers (and the text report, report_text.h) over one analysis
 * of the profile (analysis.h): a job writing several formats builds the
 * function tree, the flat profile and the lines once. o is not NULL. */
struct cprof_analysis_s;
int cprof__export_pprof(struct cprof_analysis_s *a, const cprof_export_opts_t *o, FILE *f);
int cprof__export_folded(struct cprof_analysis_s *a, const cprof_export_opts_t *o, FILE *f);
int cprof__export_svg(struct cprof_analysis_s *a, const cprof_export_opts_t *o, FILE *f);
int cprof__export_text(struct cprof_analysis_s *a, const cprof_export_opts_t *o, FILE *f);
int cprof__export_html(struct cprof_analysis_s *a, const cprof_export_opts_t *o, FILE *f);

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

/* The same over an analysis of the profile (a recorder window stored and
 * pushed builds its tree once). */
int cprof__export_pprof_parts(struct cprof_analysis_s *a, const cprof_export_opts_t *o,
                              uint32_t max_samples, size_t max_bytes, cprof_blob_t **parts,
                              size_t *nparts);

/* The HTML viewer of a diff: both profiles in one function tree. */
int cprof_diff_html(const cprof_profile_t *before, const cprof_profile_t *after,
                    const cprof_export_opts_t *o, FILE *f);

#endif

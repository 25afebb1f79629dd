/* The profile kinds' shared tail (job.h): the loaded profile shaped (depth
 * limit, source maps, focus checked), summarised (flat profile, top
 * functions and their lines, text report), and written (its own format,
 * then every derived output), each step its own function in order. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "depth.h"
#include "diff.h"
#include "error.h"
#include "fsutil.h"
#include "job_internal.h"
#include "labelset.h"
#include "report_text.h"

#define ERRBUF(r) CPROF__JOB_ERRBUF(r)

/* ---- shape ---- */

/* Adds b's counts (and errors, while there is room) to sum: a diff maps two
 * profiles and reports once. */
static void add_sm_stats(cprof_sm_stats_t *sum, const cprof_sm_stats_t *b) {
  sum->frames += b->frames;
  sum->mapped += b->mapped;
  sum->unmapped += b->unmapped;
  sum->scripts += b->scripts;
  sum->scripts_with_map += b->scripts_with_map;
  int n = 0;
  while (n < CPROF_SM_ERRORS && sum->errors[n][0])
    n++;
  for (int i = 0; i < CPROF_SM_ERRORS && n < CPROF_SM_ERRORS && b->errors[i][0]; i++)
    memcpy(sum->errors[n++], b->errors[i], sizeof sum->errors[0]);
  sum->map_errors += b->map_errors;
}

/* Every derived output (summary, pprof, folded, SVG, text) names the
 * original sources; the .cpuprofile/.heapprofile keep V8's frames. */
static int map_frames(cprof__run_t *r) {
  cprof_job_out_t *out = r->out;
  cprof_sm_limits_t lim = {0, 0, r->in->opts.source_owners};
  cprof_sm_stats_t b;
  int rc = cprof_sourcemap_apply(out->profile, r->in->sm_cache, &lim, &out->sm, &out->sm_stats);
  if (rc == CPROF_OK && out->profile_b &&
      (rc = cprof_sourcemap_apply(out->profile_b, r->in->sm_cache, &lim, &out->sm_b, &b)) ==
          CPROF_OK)
    add_sm_stats(&out->sm_stats, &b);
  /* The line views show an original file that is not on disk from its map. */
  if (rc == CPROF_OK) r->in->opts.source_texts = cprof_sourcemap_texts(out->sm);
  if (rc != CPROF_OK) snprintf(ERRBUF(r), "out of memory mapping frames through source maps");
  return rc;
}

/* Depth limit, source maps, the focus checked; then the profile holds
 * still for its analysis. */
static int shape(cprof__run_t *r) {
  cprof_job_in_t *in = r->in;
  int rc;
  if (in->want.max_depth &&
      (rc = cprof_profile_limit_depth(r->out->profile, in->want.max_depth)) != CPROF_OK)
    return rc;
  if (in->want.source_maps && (rc = map_frames(r)) != CPROF_OK) return rc;
  /* Not mapped: the line views say which scripts have a map. */
  in->opts.source_map_hint = !in->want.source_maps;
  cprof_analysis_init(&r->out->analysis, r->out->profile);
  if (in->focus && cprof__analysis_matches(&r->out->analysis, in->focus) == 0) {
    snprintf(ERRBUF(r), "%s: no function named \"%s\" (or with it in its name)",
             in->src.path ? in->src.path : "the profile", in->focus);
    return CPROF_EINVAL;
  }
  return CPROF_OK;
}

/* ---- summarise ---- */

/* The summary's top functions' self time per line (every function's, from
 * the analysis the HTML page reuses). CPU only: heap profiles have no
 * positionTicks, and their functions get no lines. */
static int top_lines(cprof_job_out_t *out) {
  const cprof_lines_t *lines;
  if (out->profile->kind != CPROF_KIND_CPU) return CPROF_OK;
  return cprof_analysis_lines(&out->analysis, &lines);
}

/* The text report, or a diff's table, into out->text. */
static int render_text(cprof__run_t *r) {
  cprof_job_out_t *out = r->out;
  FILE *f = open_memstream(&out->text, &out->text_len);
  int rc;
  if (!f) return CPROF_ENOMEM;
  if (out->profile_b)
    rc = cprof_diff_text(out->profile, out->profile_b, &r->in->opts, f);
  else
    rc = cprof__export_text(&out->analysis, &r->in->opts, f);
  if (fclose(f) != 0 && rc == CPROF_OK) rc = CPROF_ENOMEM;
  if (rc != CPROF_OK) {
    snprintf(ERRBUF(r), "cannot render the report: %s", cprof_strerror(rc));
    free(out->text);
    out->text = NULL;
  }
  return rc;
}

/* The flat profile, its top functions (and their lines), the text report. */
static int summarise(cprof__run_t *r) {
  const cprof_job_want_t *want = &r->in->want;
  cprof_job_out_t *out = r->out;
  const cprof_flat_t *flat;
  int rc;
  if ((rc = cprof_analysis_flat(&out->analysis, &flat)) != CPROF_OK) return rc;
  if (!(out->top = calloc(want->top ? want->top : 1, sizeof *out->top))) return CPROF_ENOMEM;
  out->ntop = cprof_flat_top(flat, out->profile, CPROF_TOP_SKIP_ROOT | CPROF_TOP_SKIP_IDLE,
                             out->top, want->top);
  if (want->lines && (rc = top_lines(out)) != CPROF_OK) return rc;
  if (want->text && (rc = render_text(r)) != CPROF_OK) return rc;
  return CPROF_OK;
}

/* ---- write ---- */

/* The profile in its own V8 format, as a cprof_write_fn. */
static int write_model(void *ctx, FILE *f) {
  const cprof_profile_t *p = ctx;
  return p->kind == CPROF_KIND_HEAP ? cprof_export_heapprofile(p, f)
                                    : cprof_export_cpuprofile(p, f);
}

static int write_output(cprof__run_t *r) {
  const cprof_job_dest_t *dest = &r->in->dest;
  cprof_job_out_t *out = r->out;
  int rc = cprof_dir_prepare(dest->dir, dest->own_dir ? CPROF_DIR_OWN : 0, ERRBUF(r));
  if (rc != CPROF_OK || !dest->name) return rc;
  if (out->sm) cprof_sourcemap_swap(out->profile, out->sm); /* V8's own positions */
  /* keepExisting (the CLI's overwrite rule, e.g. cprof merge without -o):
   * never replace a file that appeared since the CLI checked. */
  rc = (r->in->opts.keep_existing ? cprof_write_new_fn : cprof_write_atomic_fn)(
      dest->dir, dest->name, write_model, out->profile, &out->size, ERRBUF(r));
  if (out->sm) cprof_sourcemap_swap(out->profile, out->sm);
  if (rc != CPROF_OK) return rc;
  if (!(out->file = cprof_path_join(dest->dir, dest->name))) return CPROF_ENOMEM;
  return CPROF_OK;
}

/* The HTML viewer's page, read here. */
static int read_html_template(cprof__run_t *r) {
  const cprof_job_dest_t *dest = &r->in->dest;
  size_t len = 0;
  if (!dest->outs[CPROF_FORMAT_HTML] || !dest->html_path) return CPROF_OK;
  int rc = cprof__job_read_file(r, dest->html_path, 0, &r->out->html_template, &len);
  r->in->opts.html_template = r->out->html_template;
  r->in->opts.html_template_len = len;
  return rc;
}

/* One derived output; a diff writes only its graph and its page. */
static int write_format(cprof__run_t *r, int i) {
  const char *dir = r->in->dest.dir, *name = r->in->dest.outs[i];
  cprof_job_out_t *out = r->out;
  long long *size = &r->out->out_sizes[i];
  if (!out->profile_b)
    return cprof_write_analysis(dir, name, (cprof_format_t)i, &out->analysis, &r->in->opts, size,
                                ERRBUF(r));
  if (i == CPROF_FORMAT_SVG)
    return cprof_write_diff_svg(dir, name, out->profile, out->profile_b, &r->in->opts, size,
                                ERRBUF(r));
  if (i == CPROF_FORMAT_HTML)
    return cprof_write_diff_html(dir, name, out->profile, out->profile_b, &r->in->opts, size,
                                 ERRBUF(r));
  return CPROF_OK;
}

static int write_formats(cprof__run_t *r) {
  const cprof_job_dest_t *dest = &r->in->dest;
  int diff = r->out->profile_b != NULL;
  int rc = read_html_template(r);
  if (rc != CPROF_OK) return rc;
  for (int i = 0; i < CPROF_FORMAT_COUNT && rc == CPROF_OK; i++) {
    if (!dest->outs[i] || (diff && i != CPROF_FORMAT_SVG && i != CPROF_FORMAT_HTML)) continue;
    if ((rc = write_format(r, i)) == CPROF_OK &&
        !(r->out->out_paths[i] = cprof_path_join(dest->dir, dest->outs[i])))
      rc = CPROF_ENOMEM;
  }
  cprof_analysis_drop_tree(&r->out->analysis); /* the summary keeps the flat profile */
  return rc;
}

static int write_sidecar(void *ctx, FILE *f) {
  return cprof_labels_write(ctx, f);
}

/* Per-request labels (docs/labels.md): joined to the samples (a stop's; a
 * merge's and a dump's come joined), the sets the pprof writer reads, and
 * the sidecar beside the profile, by the profile's overwrite rule. */
static int write_labels(cprof__run_t *r) {
  cprof_labels_t *l = r->in->labels;
  const char *dir = r->in->dest.dir;
  int rc = cprof_labels_apply(l, r->out->profile, &r->in->opts, ERRBUF(r));
  if (rc != CPROF_OK || !r->in->opts.labels || !l->file) return rc;
  rc = (r->in->opts.keep_existing ? cprof_write_new_fn : cprof_write_atomic_fn)(
      dir, l->file, write_sidecar, l, &r->out->labels_size, ERRBUF(r));
  if (rc == CPROF_OK && !(r->out->labels_path = cprof_path_join(dir, l->file))) rc = CPROF_ENOMEM;
  return rc;
}

/* The files, when the job has a directory: a write that failed before the
 * parse (STOP_CPU's raw text) is reported now that the summary is made. */
static int write_files(cprof__run_t *r) {
  int rc;
  if (!r->in->dest.dir) return CPROF_OK;
  if (r->out->write_err.code != CPROF_OK) {
    *r->err = r->out->write_err;
    return r->err->code;
  }
  if (!r->out->raw && (rc = write_output(r)) != CPROF_OK) return rc;
  if ((rc = write_labels(r)) != CPROF_OK) return rc;
  return write_formats(r);
}

/* The tail's steps in order: a new step is one line here. */
static int (*const STEPS[])(cprof__run_t *r) = {shape, summarise, write_files};

int cprof__job_tail(cprof__run_t *r) {
  for (size_t i = 0; i < sizeof STEPS / sizeof STEPS[0]; i++) {
    int rc = STEPS[i](r);
    if (rc != CPROF_OK) return rc;
  }
  return CPROF_OK;
}

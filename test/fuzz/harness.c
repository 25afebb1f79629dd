/* One fuzz iteration over the pure C core, shared by the libFuzzer target
 * (fuzz_profile.c) and the cmocka replay of the corpus and of every crash
 * found so far (test/c/test_fuzz_replay.c includes this file):
 *
 *   bytes → cprof_reply_profile_span (the raw .cpuprofile write's view)
 *         → cprof_profile_parse → cprof_flat_build / top / special
 *         → every exporter (EXPORTERS below) → cprof_profile_limit_depth
 *         → flat and every exporter again
 *         → (CPU) dropping leading samples: the model and the text edit
 *   bytes → cprof_cpu_text_repair (v8.startCpuProfile's raw names) → parse
 *
 * Oracles besides the sanitizers: what the parser accepts, each writer must
 * accept too (CPROF_OK); the .cpuprofile / .heapprofile writers' output must
 * parse again into a profile of the same shape; limiting the depth keeps
 * the total and the sample count. Merging is checked too (harness_merge.c:
 * an input with a NUL byte is two profiles); the HTML viewer's data is JSON
 * that cJSON reads back and holds no '<' (nothing can end its script element);
 * the text report and the diff table hold no control character but the line
 * ends, and are valid UTF-8 (names reach a terminal escaped). The job
 * engine runs the input as a stop's text (harness_job.c); the writers over
 * one shared analysis write what each writes alone; labels are joined
 * to every CPU profile (harness_labels.c).
 *
 * A new exporter is one line in EXPORTERS. */
#define _GNU_SOURCE /* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cprof.h"
#include "fuzz_check.h"

/* ---- the exporters: one line each ---- */

typedef struct {
  const cprof_profile_t *p;
  const cprof_profile_t *other; /* the second profile for a diff (same kind) */
  const cprof_export_opts_t *o;
} fuzz_in_t;

typedef int (*fuzz_export_fn)(const fuzz_in_t *in, FILE *f);

static int ex_cpuprofile(const fuzz_in_t *in, FILE *f) {
  return cprof_export_cpuprofile(in->p, f);
}
static int ex_heapprofile(const fuzz_in_t *in, FILE *f) {
  return cprof_export_heapprofile(in->p, f);
}
static int ex_pprof(const fuzz_in_t *in, FILE *f) {
  return cprof_export_pprof(in->p, in->o, f);
}
/* The parts for push, as the recorder makes them (no (idle), unique names,
 * CPU time capped), under small limits so that most inputs are split. */
static int ex_pprof_parts(const fuzz_in_t *in, FILE *f) {
  cprof_export_opts_t o = *in->o;
  cprof_blob_t *parts;
  size_t n;
  o.pprof_objects = 1;
  o.pprof_skip_idle = 1;
  o.pprof_unique_names = 1;
  o.pprof_cwd = "/app";
  o.pprof_cpu_cap_us = 1000;
  int rc = cprof_export_pprof_parts(in->p, &o, 3, 512, &parts, &n);
  if (rc != CPROF_OK) return rc;
  for (size_t i = 0; i < n; i++)
    if (fwrite(parts[i].data, 1, parts[i].len, f) != parts[i].len) rc = CPROF_EIO;
  cprof_blobs_free(parts, n);
  return rc;
}
static int ex_folded(const fuzz_in_t *in, FILE *f) {
  return cprof_export_folded(in->p, in->o, f);
}
static int ex_svg(const fuzz_in_t *in, FILE *f) {
  return cprof_export_svg(in->p, in->o, f);
}
static int ex_text(const fuzz_in_t *in, FILE *f) {
  return cprof_report_text(in->p, in->o, f);
}
static int ex_text_defaults(const fuzz_in_t *in, FILE *f) {
  return cprof_report_text(in->p, NULL, f);
}
static int ex_diff_text(const fuzz_in_t *in, FILE *f) {
  return cprof_diff_text(in->other, in->p, in->o, f);
}
static int ex_diff_svg(const fuzz_in_t *in, FILE *f) {
  return cprof_diff_svg(in->other, in->p, in->o, f);
}
static int ex_html(const fuzz_in_t *in, FILE *f) {
  return cprof_export_html(in->p, in->o, f);
}
static int ex_diff_html(const fuzz_in_t *in, FILE *f) {
  return cprof_diff_html(in->other, in->p, in->o, f);
}

enum { FOR_CPU = 1, FOR_HEAP = 2, FOR_ANY = 3, REPARSE = 4, HTML_DATA = 8, TERM_TEXT = 16 };

static const struct {
  const char *name;
  fuzz_export_fn fn;
  unsigned flags; /* which kinds it takes; REPARSE: its output is a profile again */
} EXPORTERS[] = {
    {"cpuprofile", ex_cpuprofile, FOR_CPU | REPARSE},
    {"heapprofile", ex_heapprofile, FOR_HEAP | REPARSE},
    {"pprof", ex_pprof, FOR_ANY},
    {"pprof parts", ex_pprof_parts, FOR_ANY},
    {"folded", ex_folded, FOR_ANY},
    {"svg", ex_svg, FOR_ANY},
    {"text", ex_text, FOR_ANY | TERM_TEXT},
    {"text (defaults)", ex_text_defaults, FOR_ANY | TERM_TEXT},
    {"diff text", ex_diff_text, FOR_ANY | TERM_TEXT},
    {"diff svg", ex_diff_svg, FOR_ANY},
    {"html", ex_html, FOR_ANY | HTML_DATA},
    {"diff html", ex_diff_html, FOR_ANY | HTML_DATA},
};

#define NEXPORTERS (sizeof(EXPORTERS) / sizeof(EXPORTERS[0]))

/* ---- checks ---- */

/* Every function's lines add up to its self value exactly (lines.h). */
static void check_lines(const cprof_profile_t *p, const cprof_flat_t *flat) {
  cprof_lines_t l;
  int rc = cprof_lines_build(p, flat, NULL, &l);
  if (rc == CPROF_ENOMEM) return;
  FUZZ_CHECK(rc == CPROF_OK, "cprof_lines_build: %d", rc);
  for (uint32_t f = 0; f < flat->nfuncs; f++) {
    int64_t sum = 0, self = flat->funcs[f].self;
    for (uint32_t i = l.first[f]; i < l.first[f + 1]; i++)
      sum = (int64_t)((uint64_t)sum + (uint64_t)l.lines[i].self); /* no UB on absurd values */
    /* Saturated sums (absurd self values) are the only way to differ. */
    FUZZ_CHECK(sum == self || self == INT64_MAX || self == INT64_MIN,
               "function %u: lines add up to %lld, self %lld", f, (long long)sum, (long long)self);
  }
  cprof_lines_free(&l);
}

static void check_flat(const cprof_profile_t *p, unsigned top_n) {
  cprof_flat_t flat;
  int rc = cprof_flat_build(p, &flat);
  if (rc == CPROF_ENOMEM) return;
  FUZZ_CHECK(rc == CPROF_OK, "cprof_flat_build: %d", rc);
  FUZZ_CHECK(flat.total == cprof_profile_total(p), "flat total %lld != profile total %lld",
             (long long)flat.total, (long long)cprof_profile_total(p));
  size_t cap = (size_t)flat.nfuncs + 2;
  cprof_func_t *top = calloc(cap, sizeof *top);
  if (top) {
    const size_t ns[] = {0, 1, top_n, cap};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      size_t n = ns[i] < cap ? ns[i] : cap;
      for (unsigned skip = 0; skip < 4; skip++) {
        size_t got = cprof_flat_top(&flat, p, skip, top, n);
        FUZZ_CHECK(got <= n && got <= flat.nfuncs, "top returned %zu of %zu", got, n);
        for (size_t j = 0; j < got; j++)
          FUZZ_CHECK(top[j].frame < p->nframes, "top frame %u out of range", top[j].frame);
      }
    }
    free(top);
  }
  (void)cprof_flat_special(&flat, p, "(garbage collector)");
  (void)cprof_flat_special(&flat, p, "(idle)");
  (void)cprof_flat_special(&flat, p, "(program)");
  check_lines(p, &flat);
  cprof_flat_free(&flat);
}

/* The writer's output read back: same kind, node and sample counts. */
static void check_reparse(const char *what, const cprof_profile_t *p, const char *buf, size_t len) {
  cprof_profile_t *q = NULL;
  char err[256];
  int rc = cprof_profile_parse(buf, len, &q, err, sizeof err);
  if (rc == CPROF_ENOMEM) return;
  FUZZ_CHECK(rc == CPROF_OK, "%s output does not parse again: %s", what, err);
  FUZZ_CHECK(q->kind == p->kind && q->nnodes == p->nnodes && q->nsamples == p->nsamples,
             "%s round trip changed the shape: kind %d/%d nodes %u/%u samples %u/%u", what, p->kind,
             q->kind, p->nnodes, q->nnodes, p->nsamples, q->nsamples);
  cprof_profile_free(q);
}

/* The viewer's data (the fallback page: no template in the fuzz options)
 * lies between the data script's start tag and the page's last </script>. */
static void check_html_data(const char *what, const char *buf, size_t len) {
  static const char open[] = "id=\"cprof-data\">", close[] = "</script>";
  const char *start = memmem(buf, len, open, sizeof(open) - 1);
  FUZZ_CHECK(start != NULL, "%s: no data script", what);
  start += sizeof(open) - 1;
  const char *end = memmem(start, len - (size_t)(start - buf), close, sizeof(close) - 1);
  FUZZ_CHECK(end != NULL, "%s: the data script is not closed", what);
  size_t n = (size_t)(end - start);
  FUZZ_CHECK(memchr(start, '<', n) == NULL, "%s: '<' inside the data", what);
  FUZZ_CHECK(memmem(end + 1, len - (size_t)(end + 1 - buf), "cprof-data", 10) == NULL,
             "%s: data continues after its script closed", what);
  cJSON *d = cJSON_ParseWithLength(start, n);
  if (d == NULL && cJSON_GetErrorPtr() == NULL) return; /* out of memory */
  FUZZ_CHECK(d != NULL, "%s: the data is not JSON", what);
  cJSON_Delete(d);
}

/* Text for a terminal: no C0 control but LF, no DEL, no C1 (U+0080-U+009F,
 * C2 80-9F in UTF-8), and valid UTF-8 (an invalid byte is escaped). */
static void check_term_text(const char *what, const char *buf, size_t len) {
  const unsigned char *u = (const unsigned char *)buf;
  for (size_t i = 0; i < len;) {
    unsigned char c = u[i];
    FUZZ_CHECK((c >= 0x20 || c == '\n') && c != 0x7F, "%s: raw control byte 0x%02x at %zu", what, c,
               i);
    size_t n = c < 0x80             ? 1
               : (c & 0xE0) == 0xC0 ? 2
               : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4
                                    : 0;
    FUZZ_CHECK(n > 0 && i + n <= len, "%s: invalid UTF-8 at %zu", what, i);
    for (size_t k = 1; k < n; k++)
      FUZZ_CHECK((u[i + k] & 0xC0) == 0x80, "%s: invalid UTF-8 at %zu", what, i);
    FUZZ_CHECK(!(c == 0xC2 && u[i + 1] < 0xA0), "%s: raw C1 control at %zu", what, i);
    i += n;
  }
}

static void run_exporters(const fuzz_in_t *in) {
  unsigned kind = in->p->kind == CPROF_KIND_CPU ? FOR_CPU : FOR_HEAP;
  for (size_t i = 0; i < NEXPORTERS; i++) {
    if (!(EXPORTERS[i].flags & kind)) continue;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    int rc = EXPORTERS[i].fn(in, f);
    int closed = fclose(f);
    /* Out of memory is an answer; anything else the parser let in must be
     * writable in every format. */
    if (rc != CPROF_ENOMEM)
      FUZZ_CHECK(rc == CPROF_OK && closed == 0, "exporter %s: %d (%s)", EXPORTERS[i].name, rc,
                 cprof_strerror(rc));
    if (rc == CPROF_OK && (EXPORTERS[i].flags & REPARSE))
      check_reparse(EXPORTERS[i].name, in->p, buf, len);
    if (rc == CPROF_OK && (EXPORTERS[i].flags & HTML_DATA))
      check_html_data(EXPORTERS[i].name, buf, len);
    if (rc == CPROF_OK && (EXPORTERS[i].flags & TERM_TEXT))
      check_term_text(EXPORTERS[i].name, buf, len);
    free(buf);
  }
}

/* One writer's output in a malloc'd buffer (*buf NULL when the stream
 * could not be made). */
static int write_to(char **buf, size_t *len, cprof_format_t fmt, const cprof_profile_t *p,
                    cprof_analysis_t *a, const cprof_export_opts_t *o) {
  FILE *f = open_memstream(buf, len);
  if (!f) return *buf = NULL, CPROF_ENOMEM;
  int rc = a ? cprof_export_analysis(fmt, a, o, f) : cprof_export_format(fmt, p, o, f);
  if (fclose(f) != 0 && rc == CPROF_OK) rc = CPROF_ENOMEM;
  return rc;
}

/* A job's writers share one analysis (analysis.h): each format written in
 * turn over it is byte for byte what it is alone (no writer changes what
 * the next reads), and the tree, flat profile and lines are built once. */
static void check_shared_analysis(const cprof_profile_t *p, const cprof_export_opts_t *o) {
  cprof_analysis_t a;
  cprof_analysis_init(&a, p);
  for (int fmt = 0; fmt < CPROF_FORMAT_COUNT; fmt++) {
    char *alone = NULL, *shared = NULL;
    size_t alone_len = 0, shared_len = 0;
    int rc_alone = write_to(&alone, &alone_len, (cprof_format_t)fmt, p, NULL, o);
    int rc_shared = write_to(&shared, &shared_len, (cprof_format_t)fmt, p, &a, o);
    if (rc_alone == CPROF_OK && rc_shared == CPROF_OK)
      FUZZ_CHECK(alone_len == shared_len && memcmp(alone, shared, alone_len) == 0,
                 "format %d: %zu bytes alone, %zu over the shared analysis", fmt, alone_len,
                 shared_len);
    free(alone);
    free(shared);
  }
  FUZZ_CHECK(a.builds <= 3, "the shared analysis built %u parts (tree, flat, lines: 3)", a.builds);
  cprof_analysis_free(&a);
}

#include "harness_job.c"
#include "harness_merge.c"
#include "harness_recorder.c"
#include "harness_labels.c"

/* Knobs from the input's last bytes, so the fuzzer explores them too. */
static uint8_t knob(const uint8_t *data, size_t size, size_t back) {
  return size > back ? data[size - 1 - back] : 0;
}

/* cprof's own start call taken out (own_start.c): the model's drop and the
 * same edit on the input text must agree when the edit applies (the input
 * is a bare profile, not a reply). */
static void check_drop_leading(const uint8_t *data, size_t size, uint8_t k_knob) {
  cprof_profile_t *p = NULL, *q = NULL;
  if (cprof_profile_parse((const char *)data, size, &p, NULL, 0) != CPROF_OK) return;
  if (p->kind != CPROF_KIND_CPU || p->nsamples < 2) {
    cprof_profile_free(p);
    return;
  }
  uint32_t k = 1 + k_knob % (p->nsamples - 1);
  (void)cprof_profile_leading_own(p, p->frames[p->nodes[p->samples[0]].frame].url);
  int64_t end = p->end_time;
  FUZZ_CHECK(cprof_profile_drop_leading(p, k) == CPROF_OK, "drop_leading(%u)", k);
  FUZZ_CHECK(p->end_time == end && cprof_profile_total(p) == p->nodes[0].total, "drop totals");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f) {
    int rc = cprof_write_text_drop_leading((const char *)data, size, k, f);
    fclose(f);
    if (rc == CPROF_OK && cprof_profile_parse(buf, len, &q, NULL, 0) == CPROF_OK) {
      FUZZ_CHECK(q->nsamples == p->nsamples, "text drop: %u samples, model %u", q->nsamples,
                 p->nsamples);
      for (uint32_t i = 0; i < q->nsamples; i++)
        FUZZ_CHECK(q->time_deltas[i] == p->time_deltas[i], "text drop: delta %u differs", i);
      cprof_profile_free(q);
    } else {
      FUZZ_CHECK(rc <= 0, "text drop: %d", rc);
    }
    free(buf);
  }
  cprof_profile_free(p);
}

int cprof_fuzz_one(const uint8_t *data, size_t size) {
  fuzz_merge_split(data, size);
  /* An exact-size copy without a terminator: reading past the end is a
   * bug ASan reports. */
  char *json = malloc(size ? size : 1);
  if (!json) return 0;
  memcpy(json, data, size);
  cprof_profile_t *p = NULL, *other = NULL;
  char err[512];
  /* The addon writes this span of V8's reply as the .cpuprofile before any
   * parse: it must lie inside the input and be brace-delimited (profile.h:
   * located, not validated). Its parse is exercised too. */
  size_t off = 0, n = 0;
  if (cprof_reply_profile_span(json, size, &off, &n)) {
    FUZZ_CHECK(off < size && n >= 2 && n <= size - off && json[off] == '{' &&
                   json[off + n - 1] == '}',
               "reply span %zu+%zu of %zu", off, n, size);
    cprof_profile_t *q = NULL;
    char *span = malloc(n);
    if (span) {
      memcpy(span, json + off, n);
      if (cprof_profile_parse(span, n, &q, NULL, 0) == CPROF_OK) cprof_profile_free(q);
      free(span);
    }
  }
  fuzz_recorder_note(json, size);
  fuzz_recorder_window(json, size, knob(data, size, 10));
  fuzz_recorder_name(data, size);
  fuzz_recorder_series(data, size);
  fuzz_job(json, size, knob(data, size, 11));
  /* The v8.startCpuProfile text's repair: stays inside the input, gives a
   * NUL-terminated text no shorter than the input, which the parser may
   * reject but must not crash on. */
  char *fixed = NULL;
  size_t flen = 0, nframes = 0;
  int frc = cprof_cpu_text_repair(json, size, &fixed, &flen, &nframes);
  FUZZ_CHECK(frc == CPROF_OK || (frc < 0 && fixed == NULL), "repair %d left a buffer", frc);
  if (frc == CPROF_OK) {
    FUZZ_CHECK(flen >= size && fixed[flen] == '\0', "repair gave %zu of %zu bytes", flen, size);
    cprof_profile_t *q = NULL;
    if (cprof_profile_parse(fixed, flen, &q, NULL, 0) == CPROF_OK) cprof_profile_free(q);
    free(fixed);
  }
  int rc = cprof_profile_parse(json, size, &p, err, sizeof err);
  free(json);
  if (rc != CPROF_OK) {
    FUZZ_CHECK(p == NULL, "parse failed (%d) but returned a profile", rc);
    FUZZ_CHECK(rc < 0 && strlen(err) > 0, "parse failed (%d) without a message", rc);
    return 0;
  }
  FUZZ_CHECK(p != NULL && p->nnodes > 0, "parse succeeded without a root node");
  FUZZ_CHECK(p->kind == CPROF_KIND_CPU || p->kind == CPROF_KIND_HEAP, "kind %d", p->kind);
  if (p->kind == CPROF_KIND_CPU)
    FUZZ_CHECK(cprof_profile_dropped_samples(p) == 0, "a CPU profile dropped samples");
  for (uint32_t i = 0; i < p->nsamples; i++)
    (void)cprof_sample_weight(p, i);

  const char *focus = p->nframes ? p->frames[knob(data, size, 0) % p->nframes].name : "x";
  cprof_export_opts_t o = {
      .interval = knob(data, size, 1) * 100,
      .start_time_ms = 1795336200123,
      .duration_us = knob(data, size, 2) * 1000,
      .include_collected = knob(data, size, 3) & 1,
      .title = "fuzz <&\"'> \xe2\x80\xa6 \xff",
      .top = knob(data, size, 4) % 40,
      .cut_percent = (knob(data, size, 5) % 8) * 0.5,
      .focus = knob(data, size, 6) & 1 ? focus : NULL,
  };

  check_flat(p, o.top);
  (void)cprof_report_matches(p, focus);

  /* Diff against a second parse of the same input: same kind. */
  if (cprof_profile_parse((const char *)data, size, &other, NULL, 0) != CPROF_OK) other = NULL;
  fuzz_in_t in = {p, other ? other : p, &o};
  run_exporters(&in);
  check_shared_analysis(p, &o);
  if (other) fuzz_merge_pair(p, other);
  fuzz_labels(p, data, size, knob(data, size, 11));

  /* Depth limits of 1, 2 and one from the input (V8's 1..480 range). */
  int64_t total = cprof_profile_total(p);
  uint32_t nsamples = p->nsamples;
  const uint32_t depths[] = {1u + knob(data, size, 7) % 64, 2, 1};
  for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
    rc = cprof_profile_limit_depth(p, depths[i]);
    if (rc == CPROF_ENOMEM) break;
    FUZZ_CHECK(rc == CPROF_OK, "limit_depth(%u): %d", depths[i], rc);
    FUZZ_CHECK(p->nsamples == nsamples, "limit_depth changed the sample count");
    FUZZ_CHECK(cprof_profile_total(p) == total, "limit_depth(%u) changed the total %lld → %lld",
               depths[i], (long long)total, (long long)cprof_profile_total(p));
    check_flat(p, o.top);
    run_exporters(&in); /* in.other is now the deeper profile: a real diff */
  }
  fuzz_recorder_trend(p, knob(data, size, 9));
  if (other) fuzz_recorder_trim(other, knob(data, size, 8));
  cprof_profile_free(other);
  cprof_profile_free(p);
  check_drop_leading(data, size, knob(data, size, 8));
  return 0;
}

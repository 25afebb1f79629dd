/* .cpuprofile writer (V8 Profiler.Profile). Streams through the exporter
 * writer (out.h): each call frame's JSON is built once, ids and
 * numbers are formatted straight into the output. */
#include "error.h"
#include "export.h"
#include "internal.h"
#include "out.h"

/* {"id","callFrame","hitCount","children"}; V8 leaves children out of
 * leaves, and so do we. */
static void write_node(cprof__out_t *o, const cprof_profile_t *p, const cprof_node_t *n) {
  CPROF__OUT_LIT(o, "{\"id\":");
  cprof__out_u64(o, n->id);
  CPROF__OUT_LIT(o, ",\"callFrame\":");
  cprof__out_frame(o, n->frame);
  CPROF__OUT_LIT(o, ",\"hitCount\":");
  cprof__out_u64(o, n->hit_count);
  if (n->first_child != CPROF_NONE) {
    char sep = '[';
    CPROF__OUT_LIT(o, ",\"children\":");
    for (uint32_t c = n->first_child; c != CPROF_NONE; c = p->nodes[c].next_sibling) {
      cprof__out_char(o, sep);
      cprof__out_u64(o, p->nodes[c].id);
      sep = ',';
    }
    cprof__out_char(o, ']');
  }
  cprof__out_char(o, '}');
}

static void write_samples(cprof__out_t *o, const cprof_profile_t *p) {
  CPROF__OUT_LIT(o, "],\"startTime\":");
  cprof__out_i64(o, p->start_time);
  CPROF__OUT_LIT(o, ",\"endTime\":");
  cprof__out_i64(o, p->end_time);
  CPROF__OUT_LIT(o, ",\"samples\":[");
  for (uint32_t i = 0; i < p->nsamples && o->err == 0; i++) {
    if (i > 0) cprof__out_char(o, ',');
    cprof__out_u64(o, p->nodes[p->samples[i]].id);
  }
  CPROF__OUT_LIT(o, "],\"timeDeltas\":[");
  for (uint32_t i = 0; i < p->nsamples && o->err == 0; i++) {
    if (i > 0) cprof__out_char(o, ',');
    cprof__out_i64(o, p->time_deltas != NULL ? p->time_deltas[i] : 0);
  }
  CPROF__OUT_LIT(o, "]}");
}

int cprof_export_cpuprofile(const cprof_profile_t *p, FILE *f) {
  cprof__out_t o;
  if (p == NULL || f == NULL || p->kind != CPROF_KIND_CPU) return CPROF_EINVAL;
  if (cprof__check_model(p) != 0) return CPROF_EINVAL;
  if (cprof__out_open(&o, f, p) == 0) {
    CPROF__OUT_LIT(&o, "{\"nodes\":[");
    for (uint32_t i = 0; i < p->nnodes && o.err == 0; i++) {
      if (i > 0) cprof__out_char(&o, ',');
      write_node(&o, p, &p->nodes[i]);
    }
    write_samples(&o, p);
  }
  return cprof__out_close(&o);
}

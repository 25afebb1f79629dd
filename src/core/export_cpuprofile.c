/* .cpuprofile writer (V8 Profiler.Profile). Streams through the exporter
 * writer (out.h): each call frame's JSON is built once, ids and
 * numbers are formatted straight into the output. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export.h"
#include "internal.h"
#include "out.h"

/* "positionTicks" of the node whose entries start at p->line_ticks[i]:
 * its lines in its own script (an entry a source map moved to another
 * file, or line 0, "no line", is not V8's to write). Merged profiles are
 * written from the model, so this is what keeps their lines in the file. */
static void write_ticks(cprof__out_t *o, const cprof_profile_t *p, uint32_t i) {
  char sep = '[';
  const char *own = p->frames[p->nodes[p->line_ticks[i].node].frame].url;
  for (uint32_t k = i; k < p->nline_ticks && p->line_ticks[k].node == p->line_ticks[i].node; k++) {
    const cprof_line_tick_t *t = &p->line_ticks[k];
    if ((t->url != NULL && strcmp(t->url, own) != 0) || t->line <= 0 || t->ticks == 0) continue;
    if (sep == '[') CPROF__OUT_LIT(o, ",\"positionTicks\":");
    cprof__out_char(o, sep);
    CPROF__OUT_LIT(o, "{\"line\":");
    cprof__out_u64(o, (uint64_t)t->line);
    CPROF__OUT_LIT(o, ",\"ticks\":");
    cprof__out_u64(o, t->ticks);
    cprof__out_char(o, '}');
    sep = ',';
  }
  if (sep == ',') cprof__out_char(o, ']');
}

/* {"id","callFrame","hitCount","children","positionTicks"}; V8 leaves
 * children out of leaves, and so do we. first_tick: the node's first
 * positionTicks entry + 1, 0 for none. */
static void write_node(cprof__out_t *o, const cprof_profile_t *p, const cprof_node_t *n,
                       uint32_t first_tick) {
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
  if (first_tick > 0) write_ticks(o, p, first_tick - 1);
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
  /* Each node's positionTicks entries are together, in any node order. */
  uint32_t *first = p->nline_ticks ? calloc((size_t)p->nnodes + 1, sizeof *first) : NULL;
  if (p->nline_ticks && first == NULL) return CPROF_ENOMEM;
  for (uint32_t k = p->nline_ticks; k-- > 0;)
    first[p->line_ticks[k].node] = k + 1;
  if (cprof__out_open(&o, f, p) == 0) {
    CPROF__OUT_LIT(&o, "{\"nodes\":[");
    for (uint32_t i = 0; i < p->nnodes && o.err == 0; i++) {
      if (i > 0) cprof__out_char(&o, ',');
      write_node(&o, p, &p->nodes[i], first ? first[i] : 0);
    }
    write_samples(&o, p);
  }
  free(first);
  return cprof__out_close(&o);
}

/* .heapprofile writer (V8 HeapProfiler.SamplingHeapProfile). The format
 * nests children, and trees can be thousands deep: the walk follows the
 * parent links back up instead of recursing, so depth costs no stack.
 * Output goes through the exporter writer (out.h). */
#include "error.h"
#include "export.h"
#include "internal.h"
#include "out.h"

/* Everything of a node up to its children's opening bracket. */
static void open_node(cprof__out_t *o, const cprof_node_t *n) {
  CPROF__OUT_LIT(o, "{\"callFrame\":");
  cprof__out_frame(o, n->frame);
  CPROF__OUT_LIT(o, ",\"selfSize\":");
  cprof__out_i64(o, n->self);
  CPROF__OUT_LIT(o, ",\"id\":");
  cprof__out_u64(o, n->id);
  CPROF__OUT_LIT(o, ",\"children\":[");
}

/* Preorder: open a node, descend to its first child; at a leaf close it
 * and every ancestor whose last child it was, then go on to the sibling. */
static void write_tree(cprof__out_t *o, const cprof_profile_t *p) {
  uint32_t cur = 0;
  while (o->err == 0) {
    open_node(o, &p->nodes[cur]);
    if (p->nodes[cur].first_child != CPROF_NONE) {
      cur = p->nodes[cur].first_child;
      continue;
    }
    for (;;) {
      CPROF__OUT_LIT(o, "]}");
      if (cur == 0 || p->nodes[cur].next_sibling != CPROF_NONE) break;
      cur = p->nodes[cur].parent;
    }
    if (cur == 0) return;
    cprof__out_char(o, ',');
    cur = p->nodes[cur].next_sibling;
  }
}

static void write_samples(cprof__out_t *o, const cprof_profile_t *p) {
  CPROF__OUT_LIT(o, ",\"samples\":[");
  for (uint32_t i = 0; i < p->nsamples && o->err == 0; i++) {
    if (i > 0) cprof__out_char(o, ',');
    CPROF__OUT_LIT(o, "{\"size\":");
    cprof__out_i64(o, p->sample_sizes != NULL ? p->sample_sizes[i] : 0);
    CPROF__OUT_LIT(o, ",\"nodeId\":");
    cprof__out_u64(o, p->nodes[p->samples[i]].id);
    CPROF__OUT_LIT(o, ",\"ordinal\":");
    cprof__out_u64(o, p->sample_ordinals != NULL ? p->sample_ordinals[i] : 0);
    cprof__out_char(o, '}');
  }
  CPROF__OUT_LIT(o, "]}");
}

int cprof_export_heapprofile(const cprof_profile_t *p, FILE *f) {
  cprof__out_t o;
  if (p == NULL || f == NULL || p->kind != CPROF_KIND_HEAP) return CPROF_EINVAL;
  if (cprof__check_model(p) != 0) return CPROF_EINVAL;
  if (cprof__out_open(&o, f, p) == 0) {
    CPROF__OUT_LIT(&o, "{\"head\":");
    write_tree(&o, p);
    write_samples(&o, p);
  }
  return cprof__out_close(&o);
}

/* .heapprofile writer (V8 HeapProfiler.SamplingHeapProfile). The format
 * nests children, and trees can be thousands deep: the walk follows the
 * parent links back up instead of recursing, so depth costs no stack. */
#include <inttypes.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "export.h"
#include "internal.h"

/* Everything of a node up to its children's opening bracket. */
static int open_node(const cprof_profile_t *p, const cprof_node_t *n, FILE *f) {
  cJSON *cf = cprof__frame_json(&p->frames[n->frame]);
  int rc;
  if (cf == NULL) return CPROF_ENOMEM;
  if ((rc = cprof__put(f, "{\"callFrame\":")) != 0) {
    cJSON_Delete(cf);
    return rc;
  }
  if ((rc = cprof__put_json(f, cf)) != 0) return rc;
  if (fprintf(f, ",\"selfSize\":%" PRId64 ",\"id\":%" PRIu32 ",\"children\":[", n->self, n->id) < 0)
    return CPROF_EIO;
  return 0;
}

/* Preorder: open a node, descend to its first child; at a leaf close it
 * and every ancestor whose last child it was, then go on to the sibling. */
static int write_tree(const cprof_profile_t *p, FILE *f) {
  uint32_t cur = 0;
  int rc;
  for (;;) {
    if ((rc = open_node(p, &p->nodes[cur], f)) != 0) return rc;
    if (p->nodes[cur].first_child != CPROF_NONE) {
      cur = p->nodes[cur].first_child;
      continue;
    }
    for (;;) {
      if ((rc = cprof__put(f, "]}")) != 0) return rc;
      if (cur == 0 || p->nodes[cur].next_sibling != CPROF_NONE) break;
      cur = p->nodes[cur].parent;
    }
    if (cur == 0) return 0;
    if ((rc = cprof__put(f, ",")) != 0) return rc;
    cur = p->nodes[cur].next_sibling;
  }
}

static int write_samples(const cprof_profile_t *p, FILE *f) {
  if (cprof__put(f, ",\"samples\":[") != 0) return CPROF_EIO;
  for (uint32_t i = 0; i < p->nsamples; i++) {
    int64_t size = p->sample_sizes != NULL ? p->sample_sizes[i] : 0;
    uint64_t ordinal = p->sample_ordinals != NULL ? p->sample_ordinals[i] : 0;
    if (fprintf(f, "%s{\"size\":%" PRId64 ",\"nodeId\":%" PRIu32 ",\"ordinal\":%" PRIu64 "}",
                i ? "," : "", size, p->nodes[p->samples[i]].id, ordinal) < 0)
      return CPROF_EIO;
  }
  return cprof__put(f, "]}");
}

int cprof_export_heapprofile(const cprof_profile_t *p, FILE *f) {
  int rc;
  if (p == NULL || f == NULL || p->kind != CPROF_KIND_HEAP) return CPROF_EINVAL;
  if (cprof__check_model(p) != 0) return CPROF_EINVAL;
  if ((rc = cprof__put(f, "{\"head\":")) != 0) return rc;
  if ((rc = write_tree(p, f)) != 0) return rc;
  if ((rc = write_samples(p, f)) != 0) return rc;
  return cprof__put_end(f);
}

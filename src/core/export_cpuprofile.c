/* .cpuprofile writer (V8 Profiler.Profile). Streams: the top level is
 * written by hand, each node is one small cJSON object printed and freed. */
#include <inttypes.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "export.h"
#include "internal.h"

/* {"id","callFrame","hitCount","children"}; V8 leaves children out of
 * leaves, and so do we. */
static cJSON *node_json(const cprof_profile_t *p, const cprof_node_t *n) {
  cJSON *obj = cJSON_CreateObject(), *cf = cprof__frame_json(&p->frames[n->frame]), *kids;
  if (obj == NULL || cf == NULL) goto fail;
  if (!cJSON_AddNumberToObject(obj, "id", n->id)) goto fail;
  cJSON_AddItemToObject(obj, "callFrame", cf);
  cf = NULL;
  if (!cJSON_AddNumberToObject(obj, "hitCount", n->hit_count)) goto fail;
  if (n->first_child == CPROF_NONE) return obj;
  if ((kids = cJSON_AddArrayToObject(obj, "children")) == NULL) goto fail;
  for (uint32_t c = n->first_child; c != CPROF_NONE; c = p->nodes[c].next_sibling) {
    cJSON *id = cJSON_CreateNumber(p->nodes[c].id);
    if (id == NULL) goto fail;
    cJSON_AddItemToArray(kids, id);
  }
  return obj;
fail:
  cJSON_Delete(cf);
  cJSON_Delete(obj);
  return NULL;
}

static int write_nodes(const cprof_profile_t *p, FILE *f) {
  int rc = cprof__put(f, "{\"nodes\":[");
  for (uint32_t i = 0; i < p->nnodes && rc == 0; i++) {
    cJSON *obj = node_json(p, &p->nodes[i]);
    if (obj == NULL) return CPROF_ENOMEM;
    if (i > 0 && (rc = cprof__put(f, ",")) != 0) {
      cJSON_Delete(obj);
      return rc;
    }
    rc = cprof__put_json(f, obj);
  }
  return rc;
}

static int write_samples(const cprof_profile_t *p, FILE *f) {
  if (fprintf(f, "],\"startTime\":%" PRId64 ",\"endTime\":%" PRId64 ",\"samples\":[", p->start_time,
              p->end_time) < 0)
    return CPROF_EIO;
  for (uint32_t i = 0; i < p->nsamples; i++)
    if (fprintf(f, i ? ",%" PRIu32 : "%" PRIu32, p->nodes[p->samples[i]].id) < 0) return CPROF_EIO;
  if (cprof__put(f, "],\"timeDeltas\":[") != 0) return CPROF_EIO;
  for (uint32_t i = 0; i < p->nsamples; i++) {
    int64_t d = p->time_deltas != NULL ? p->time_deltas[i] : 0;
    if (fprintf(f, i ? ",%" PRId64 : "%" PRId64, d) < 0) return CPROF_EIO;
  }
  return cprof__put(f, "]}");
}

int cprof_export_cpuprofile(const cprof_profile_t *p, FILE *f) {
  int rc;
  if (p == NULL || f == NULL || p->kind != CPROF_KIND_CPU) return CPROF_EINVAL;
  if (cprof__check_model(p) != 0) return CPROF_EINVAL;
  if ((rc = write_nodes(p, f)) != 0) return rc;
  if ((rc = write_samples(p, f)) != 0) return rc;
  return cprof__put_end(f);
}

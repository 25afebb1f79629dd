/* Closures' source positions and script URLs. V8 writes a top-level
 * `locations` array, meta.location_fields [object_index, script_id, line,
 * column] per function (and constructed object), the line and column from
 * 0, which DevTools reads (HeapSnapshot.ts, #buildLocationMap). DevTools
 * turns the script id into a URL with the live debugger, which a file on
 * its own lacks; here the URL is the closure's own: its `shared` edge (the
 * SharedFunctionInfo), that one's `script_or_debug_info` (V8 12+:
 * `script`; a DebugInfo's `script` after it) and the script's `name`
 * string. Only closures' locations are kept: 5 words each, sorted by node
 * for a binary search. Entries that name no closure are left out, so a
 * lying array costs the parse's copy of it and nothing after. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "snapshot.h"

/* Edges looked at per node on the way to the URL: V8's closures,
 * SharedFunctionInfos and Scripts have about 10, and the bound keeps the
 * walk linear whatever a file shares between its closures. */
#define EDGES_LOOKED_AT 64

static int by_node(const void *a, const void *b) {
  const cprof__snap_loc_t *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->column != y->column) return x->column < y->column ? -1 : 1;
  return x->script_id < y->script_id ? -1 : x->script_id > y->script_id;
}

/* Whether string i is exactly lit (ASCII without escapes, as V8 writes its
 * edge names), read in the text without decoding it. */
static int str_is(const cprof__snap_t *s, uint32_t i, const char *lit) {
  if (i >= s->str_count) return 0;
  const char *p = s->text + s->str_at[i] + 1;
  size_t n = strlen(lit);
  return strncmp(p, lit, n) == 0 && p[n] == '"';
}

/* The node n's edge named lit leads to, or NONE. */
static uint32_t follow(const cprof__snap_t *s, uint32_t n, const char *lit) {
  if (n == CPROF__SNAP_NONE) return CPROF__SNAP_NONE;
  uint32_t end = s->first_edge[n + 1];
  if (end - s->first_edge[n] > EDGES_LOOKED_AT) end = s->first_edge[n] + EDGES_LOOKED_AT;
  for (uint32_t e = s->first_edge[n]; e < end; e++) {
    uint32_t t = cprof__snap_etype(s, e);
    if (t != s->et_element && t != s->et_hidden && str_is(s, cprof__snap_ename(s, e), lit))
      return cprof__snap_to(s, e);
  }
  return CPROF__SNAP_NONE;
}

/* The string index of closure n's script URL, or NONE. */
static uint32_t script_url(const cprof__snap_t *s, uint32_t n) {
  uint32_t sfi = follow(s, n, "shared");
  uint32_t script = follow(s, sfi, "script_or_debug_info");
  if (script == CPROF__SNAP_NONE) script = follow(s, sfi, "script");
  uint32_t behind = follow(s, script, "script"); /* a DebugInfo stands before it */
  if (behind != CPROF__SNAP_NONE) script = behind;
  uint32_t name = follow(s, script, "name");
  if (name == CPROF__SNAP_NONE) return CPROF__SNAP_NONE;
  const char *type = s->ntypes.names[cprof__snap_ntype(s, name)];
  size_t len = strlen(type);
  /* "string", "concatenated string", "sliced string": the name is its text */
  return len >= 6 && strcmp(type + len - 6, "string") == 0 ? cprof__snap_nname(s, name)
                                                           : CPROF__SNAP_NONE;
}

int cprof__snap_locations(cprof__snap_t *s, uint32_t file_nf) {
  int f[4] = {-1, -1, -1, -1};
  static const char *const want[4] = {"object_index", "script_id", "line", "column"};
  for (uint32_t i = 0; i < s->n_location_fields; i++)
    for (int k = 0; k < 4; k++)
      if (f[k] < 0 && strcmp(s->location_fields[i], want[k]) == 0) f[k] = (int)i;
  uint32_t lf = s->n_location_fields;
  uint64_t rows = lf > 0 ? s->locations_len / lf : 0;
  int rc = CPROF_OK;
  if (f[0] >= 0 && f[1] >= 0 && f[2] >= 0 && f[3] >= 0 && rows > 0 && file_nf > 0 &&
      s->t_closure != CPROF__SNAP_NONE) {
    uint32_t n = 0;
    s->loc = malloc((size_t)rows * sizeof *s->loc);
    for (uint64_t r = 0; s->loc != NULL && r < rows; r++) {
      const uint32_t *v = s->locations + r * lf;
      uint32_t at = v[f[0]], node = at / file_nf;
      if (at % file_nf != 0 || node >= s->node_count || cprof__snap_ntype(s, node) != s->t_closure)
        continue;
      s->loc[n++] = (cprof__snap_loc_t){node, v[f[1]], v[f[2]], v[f[3]], CPROF__SNAP_NONE};
    }
    if (s->loc == NULL) rc = CPROF_ENOMEM;
    if (n > 0) qsort(s->loc, n, sizeof *s->loc, by_node);
    uint32_t k = 0; /* one location a closure */
    for (uint32_t i = 0; i < n; i++)
      if (k == 0 || s->loc[k - 1].node != s->loc[i].node) s->loc[k++] = s->loc[i];
    for (uint32_t i = 0; i < k; i++)
      s->loc[i].url = script_url(s, s->loc[i].node);
    s->loc_count = k;
    cprof__snap_loc_t *small = realloc(s->loc, (k ? k : 1) * sizeof *s->loc);
    if (small != NULL) s->loc = small;
  }
  free(s->locations);
  s->locations = NULL;
  s->locations_len = 0;
  return rc;
}

const cprof__snap_loc_t *cprof__snap_location(const cprof__snap_t *s, uint32_t node) {
  uint32_t lo = 0, hi = s->loc_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->loc[mid].node < node)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->loc_count && s->loc[lo].node == node ? &s->loc[lo] : NULL;
}

int cprof__snap_location_json(cJSON *obj, const cprof__snap_t *s, uint32_t n) {
  const cprof__snap_loc_t *l = cprof__snap_location(s, n);
  if (l == NULL) return 1;
  cJSON *o = cJSON_AddObjectToObject(obj, "location");
  return o != NULL &&
         (l->url == CPROF__SNAP_NONE ||
          cJSON_AddStringToObject(o, "url", cprof__snap_name(s, l->url, NULL, NULL)) != NULL) &&
         cJSON_AddNumberToObject(o, "line", (double)l->line + 1) != NULL &&
         cJSON_AddNumberToObject(o, "column", (double)l->column + 1) != NULL &&
         cJSON_AddNumberToObject(o, "scriptId", l->script_id) != NULL;
}

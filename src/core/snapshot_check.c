/* Every index of a snapshot checked once, before any analysis reads it:
 * the meta's fields and types, each node's type and name, each edge's type,
 * name and target, and the nodes' edge counts adding up to the edges array.
 * After this, the analysis indexes arrays without checks. */
#include <string.h>

#include "error.h"
#include "internal.h"
#include "snapshot.h"

#define FAIL(...)                                                                                  \
  cprof__errf(errbuf, errlen, CPROF_ESCHEMA, "not a valid V8 heap snapshot: " __VA_ARGS__)

static int field(char **names, uint32_t n, const char *want) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(names[i], want) == 0) return (int)i;
  return -1;
}

static uint32_t type_index(const cprof__snap_types_t *t, const char *want) {
  int i = field(t->names, t->count, want);
  return i < 0 ? CPROF__SNAP_NONE : (uint32_t)i;
}

static int check_meta(cprof__snap_t *s, char *errbuf, size_t errlen) {
  s->nf = s->n_node_fields;
  s->ef = s->n_edge_fields;
  int ntype = field(s->node_fields, s->nf, "type");
  int etype = field(s->edge_fields, s->ef, "type");
  s->n_name = field(s->node_fields, s->nf, "name");
  s->n_id = field(s->node_fields, s->nf, "id");
  s->n_self = field(s->node_fields, s->nf, "self_size");
  s->n_edges = field(s->node_fields, s->nf, "edge_count");
  s->n_detach = field(s->node_fields, s->nf, "detachedness");
  s->e_name = field(s->edge_fields, s->ef, "name_or_index");
  s->e_to = field(s->edge_fields, s->ef, "to_node");
  if (ntype < 0 || s->n_name < 0 || s->n_id < 0 || s->n_self < 0 || s->n_edges < 0)
    return FAIL("meta.node_fields lacks one of type, name, id, self_size, edge_count");
  if (etype < 0 || s->e_name < 0 || s->e_to < 0)
    return FAIL("meta.edge_fields lacks one of type, name_or_index, to_node");
  if (s->ntypes.names == NULL || s->n_type != ntype || s->etypes.names == NULL ||
      s->e_type != etype)
    return FAIL("meta.node_types/edge_types has no list of type names at the type field");
  s->t_hidden = type_index(&s->ntypes, "hidden");
  s->t_array = type_index(&s->ntypes, "array");
  s->t_object = type_index(&s->ntypes, "object");
  s->t_native = type_index(&s->ntypes, "native");
  s->t_synthetic = type_index(&s->ntypes, "synthetic");
  s->t_code = type_index(&s->ntypes, "code");
  s->t_closure = type_index(&s->ntypes, "closure");
  s->t_regexp = type_index(&s->ntypes, "regexp");
  s->et_weak = type_index(&s->etypes, "weak");
  s->et_shortcut = type_index(&s->etypes, "shortcut");
  s->et_element = type_index(&s->etypes, "element");
  s->et_hidden = type_index(&s->etypes, "hidden");
  s->et_internal = type_index(&s->etypes, "internal");
  return CPROF_OK;
}

static int check_counts(cprof__snap_t *s, char *errbuf, size_t errlen) {
  if (s->nodes == NULL || s->edges == NULL || s->str_count == 0)
    return FAIL("no nodes, edges or strings array");
  if (s->nodes_len % s->nf != 0 || s->edges_len % s->ef != 0)
    return FAIL("the nodes (%llu values) or edges (%llu values) array is not a whole number of "
                "records (truncated?)",
                (unsigned long long)s->nodes_len, (unsigned long long)s->edges_len);
  uint64_t n = s->nodes_len / s->nf, e = s->edges_len / s->ef;
  if (n == 0) return FAIL("no nodes");
  if (n >= UINT32_MAX || e >= UINT32_MAX) return FAIL("over 4G nodes or edges");
  if ((s->decl_nodes >= 0 && (uint64_t)s->decl_nodes != n) ||
      (s->decl_edges >= 0 && (uint64_t)s->decl_edges != e))
    return FAIL("snapshot.node_count/edge_count say %lld/%lld, the arrays hold %llu/%llu "
                "(truncated?)",
                (long long)s->decl_nodes, (long long)s->decl_edges, (unsigned long long)n,
                (unsigned long long)e);
  s->node_count = (uint32_t)n;
  s->edge_count = (uint32_t)e;
  int64_t root = s->root_index < 0 ? 0 : s->root_index;
  if ((uint64_t)root % s->nf != 0 || (uint64_t)root / s->nf >= n)
    return FAIL("snapshot.root_index %lld is not a node", (long long)root);
  s->root = (uint32_t)((uint64_t)root / s->nf);
  return CPROF_OK;
}

static int check_nodes(cprof__snap_t *s, char *errbuf, size_t errlen) {
  uint64_t edges = 0;
  for (uint32_t i = 0; i < s->node_count; i++) {
    uint32_t type = cprof__snap_rawfield(s->nodes, s->nf, i, s->n_type);
    uint32_t name = cprof__snap_rawfield(s->nodes, s->nf, i, s->n_name);
    if (type >= s->ntypes.count)
      return FAIL("node %u has type %u, the meta names %u types", i, type, s->ntypes.count);
    if (name >= s->str_count)
      return FAIL("node %u's name is string %u of %u", i, name, s->str_count);
    edges += cprof__snap_rawfield(s->nodes, s->nf, i, s->n_edges);
  }
  if (edges != s->edge_count)
    return FAIL("the nodes' edge counts add up to %llu, the edges array holds %u",
                (unsigned long long)edges, s->edge_count);
  return CPROF_OK;
}

/* Element and hidden edges are named by an index, the others by a string. */
static int check_edges(cprof__snap_t *s, char *errbuf, size_t errlen) {
  for (uint32_t i = 0; i < s->edge_count; i++) {
    uint32_t type = cprof__snap_rawfield(s->edges, s->ef, i, s->e_type);
    uint32_t name = cprof__snap_rawfield(s->edges, s->ef, i, s->e_name);
    uint32_t *to = &s->edges[(uint64_t)i * s->ef + (uint32_t)s->e_to];
    if (type >= s->etypes.count)
      return FAIL("edge %u has type %u, the meta names %u types", i, type, s->etypes.count);
    if (type != s->et_element && type != s->et_hidden && name >= s->str_count)
      return FAIL("edge %u's name is string %u of %u", i, name, s->str_count);
    if (*to % s->nf != 0 || *to / s->nf >= s->node_count)
      return FAIL("edge %u points to %u, not a node", i, *to);
    *to /= s->nf;
  }
  return CPROF_OK;
}

int cprof__snap_check(cprof__snap_t *s, char *errbuf, size_t errlen) {
  int rc;
  if ((rc = check_meta(s, errbuf, errlen)) != CPROF_OK ||
      (rc = check_counts(s, errbuf, errlen)) != CPROF_OK ||
      (rc = check_nodes(s, errbuf, errlen)) != CPROF_OK ||
      (rc = check_edges(s, errbuf, errlen)) != CPROF_OK)
    return rc;
  return CPROF_OK;
}

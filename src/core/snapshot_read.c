/* cprof__snap_parse: a .heapsnapshot's JSON text to flat arrays, in one
 * pass of the pull reader (reader.h) with no JSON tree. The nodes and edges
 * arrays, nearly all of the file, are read straight into packed uint32
 * arrays; strings go to one buffer (snapshot_string.c). The members may come
 * in any order (V8 writes snapshot, nodes, edges, ..., strings); everything
 * is checked once all is read (snapshot_check.c). Input is untrusted. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "reader.h"
#include "snapshot.h"

#define FAIL(...) cprof__rd_fail(r, CPROF_ESCHEMA, __VA_ARGS__)
#define NOMEM() cprof__rd_fail(r, CPROF_ENOMEM, "out of memory reading the heap snapshot")

static void free_names(char **v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

void cprof__snap_free(cprof__snap_t *s) {
  if (s == NULL) return;
  free_names(s->ntypes.names, s->ntypes.count);
  free_names(s->etypes.names, s->etypes.count);
  free_names(s->node_fields, s->n_node_fields);
  free_names(s->edge_fields, s->n_edge_fields);
  free_names(s->location_fields, s->n_location_fields);
  void *arrays[] = {s->nodes,     s->edges,    s->first_edge,  s->page, s->essential,
                    s->detached,  s->dist,     s->parent_edge, s->dom,  s->retained,
                    s->dom_child, s->dom_next, s->locations,   s->loc};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
    free(arrays[i]);
  cprof__snap_str_free(s);
  memset(s, 0, sizeof *s);
}

/* ---- integer arrays: nodes, edges ---- */

/* An unsigned integer in place (the hot loop: no strtod). */
static int read_u32(cprof__rd_t *r, uint32_t *out) {
  const char *p = r->p;
  uint64_t v = 0;
  /* p < r->end, or more is read (a file read as the parse goes) */
  if ((p >= r->end && !cprof__rd_more(r)) || *p < '0' || *p > '9')
    return FAIL("a heap snapshot array holds a value that is not an unsigned integer at byte %zu",
                cprof__rd_offset(r));
  do {
    v = v * 10 + (uint64_t)(*p++ - '0');
    if (v > UINT32_MAX)
      return FAIL("a heap snapshot value over 4294967295 at byte %zu", cprof__rd_offset(r));
  } while ((p < r->end || cprof__rd_more(r)) && *p >= '0' && *p <= '9');
  if ((p < r->end || cprof__rd_more(r)) && (*p == '.' || *p == 'e' || *p == 'E'))
    return FAIL("a heap snapshot value that is not an integer at byte %zu", cprof__rd_offset(r));
  r->p = p;
  *out = (uint32_t)v;
  return CPROF_OK;
}

/* Text read between two calls of the release hook (checked every 64K
 * values): small next to the arrays (it is resident with them at the
 * parse's peak), and few calls (the hook gives back everything before the
 * reader). */
#define RELEASE_BYTES (2u << 20)
#define RELEASE_CHECK 0xffffu

static void release(cprof__rd_t *r, cprof__snap_t *s) {
  uint64_t at = cprof__rd_offset(r);
  /* strings read before the arrays (not V8's order) sit behind the reader
   * and are read until the end: nothing goes back then */
  if (at - s->released < RELEASE_BYTES || s->str_count > 0) return;
  s->release(r->base, at);
  s->released = at;
}

/* The array at r into *out: preallocated for the declared count when the
 * meta came first, but never beyond what the rest of the input can hold
 * (each value takes 2 bytes at least; the whole input's size, also when
 * it is read as the parse goes), so a lying count costs nothing. The
 * text read so far goes to release (when not NULL) as the array is read:
 * its pages would otherwise stay resident next to the array
 * until the end of the parse, doubling its peak. */
static int read_u32_array(cprof__rd_t *r, cprof__snap_t *s, uint64_t hint, uint32_t **out,
                          uint64_t *len) {
  uint64_t cap = hint, n = 0, room = (uint64_t)(r->size - cprof__rd_offset(r)) / 2 + 1;
  if (*out != NULL) return FAIL("a heap snapshot with two nodes, edges or locations arrays");
  if (cap > room) cap = room;
  if (cap < 1024) cap = 1024;
  uint32_t *a = malloc((size_t)cap * sizeof *a);
  if (a == NULL) return NOMEM();
  *out = a;
  int rc, first = 1;
  if ((rc = cprof__rd_open(r, '[')) != CPROF_OK) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1) {
    if (n == cap) {
      if (cap > (uint64_t)UINT32_MAX) return FAIL("a heap snapshot array of over 4G values");
      uint32_t *b = realloc(a, (size_t)(cap * 2) * sizeof *a);
      if (b == NULL) return NOMEM();
      *out = a = b;
      cap *= 2;
    }
    if ((rc = read_u32(r, &a[n++])) != CPROF_OK) return rc;
    if (s->release != NULL && (n & RELEASE_CHECK) == 0) release(r, s);
  }
  *len = n;
  return rc;
}

/* ---- strings ---- */

static int read_strings(cprof__rd_t *r, cprof__snap_t *s) {
  int rc, first = 1;
  if (s->str_count > 0) return FAIL("a heap snapshot with two strings arrays");
  /* the strings are kept as pointers into the text: all of it read first */
  if ((rc = cprof__rd_read_all(r)) != CPROF_OK) return rc;
  s->strings_from = cprof__rd_offset(r);
  if ((rc = cprof__rd_open(r, '[')) != CPROF_OK) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1) {
    if (cprof__rd_peek(r) != '"')
      return FAIL("a heap snapshot's strings array holds a non-string at byte %zu",
                  cprof__rd_offset(r));
    if (s->str_count == UINT32_MAX - 2) return FAIL("a heap snapshot with over 4G strings");
    int err = 0;
    const char *next = cprof__snap_str_json(s, r->p, r->end, &err);
    if (next == NULL)
      return err == CPROF_ENOMEM
                 ? NOMEM()
                 : cprof__rd_fail(r, CPROF_EPARSE, "invalid or truncated JSON string at byte %zu",
                                  cprof__rd_offset(r));
    r->p = next;
  }
  return rc;
}

/* ---- snapshot.meta ---- */

/* An array of strings, copied (field names, type names). */
static int read_names(cprof__rd_t *r, char ***out, uint32_t *count) {
  int rc, first = 1;
  if (*out != NULL) return cprof__rd_skip(r); /* the first wins */
  if (cprof__rd_peek(r) != '[') return FAIL("a heap snapshot meta list that is not an array");
  if ((rc = cprof__rd_open(r, '[')) != CPROF_OK) return rc;
  if ((*out = calloc(CPROF__SNAP_MAX_TYPES, sizeof **out)) == NULL) return NOMEM();
  while ((rc = cprof__rd_elem(r, &first)) == 1) {
    const char *v;
    size_t n;
    if (*count == CPROF__SNAP_MAX_TYPES)
      return FAIL("a heap snapshot meta list of over %d names", CPROF__SNAP_MAX_TYPES);
    if (cprof__rd_peek(r) != '"') { /* node_types has "string", "number" and one array */
      if ((rc = cprof__rd_skip(r)) != CPROF_OK) return rc;
      n = 0;
      v = "";
    } else if ((rc = cprof__rd_string(r, &v, &n)) != CPROF_OK) {
      return rc;
    }
    char *copy = malloc(n + 1);
    if (copy == NULL) return NOMEM();
    memcpy(copy, v, n);
    copy[n] = '\0';
    (*out)[(*count)++] = copy;
  }
  return rc;
}

/* node_types / edge_types: an array with one array of names, at the type
 * field's position. Read before the fields may be known: every inner array
 * is read, the one at index `pos` kept later (cprof keeps them all here and
 * picks in the check). Kept simple: the types array is the first inner
 * array, which is where V8 puts the type field (index 0). */
static int read_types(cprof__rd_t *r, cprof__snap_types_t *t, int *pos) {
  int rc, first = 1, i = 0;
  if (t->names != NULL) return cprof__rd_skip(r);
  if (cprof__rd_peek(r) != '[') return FAIL("heap snapshot node_types/edge_types is not an array");
  if ((rc = cprof__rd_open(r, '[')) != CPROF_OK) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1) {
    if (cprof__rd_peek(r) == '[' && t->names == NULL) {
      *pos = i;
      if ((rc = read_names(r, &t->names, &t->count)) != CPROF_OK) return rc;
    } else if ((rc = cprof__rd_skip(r)) != CPROF_OK) {
      return rc;
    }
    i++;
  }
  return rc;
}

typedef struct {
  int ntypes_pos, etypes_pos; /* where the types arrays were in node_types/edge_types */
} meta_pos_t;

static int read_meta(cprof__rd_t *r, cprof__snap_t *s, meta_pos_t *mp) {
  int rc, first = 1;
  const char *key;
  size_t klen;
  if (cprof__rd_peek(r) != '{') return FAIL("heap snapshot meta is not an object");
  if ((rc = cprof__rd_open(r, '{')) != CPROF_OK) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    if (CPROF__KEY(key, klen, "node_fields"))
      rc = read_names(r, &s->node_fields, &s->n_node_fields);
    else if (CPROF__KEY(key, klen, "edge_fields"))
      rc = read_names(r, &s->edge_fields, &s->n_edge_fields);
    else if (CPROF__KEY(key, klen, "node_types"))
      rc = read_types(r, &s->ntypes, &mp->ntypes_pos);
    else if (CPROF__KEY(key, klen, "edge_types"))
      rc = read_types(r, &s->etypes, &mp->etypes_pos);
    else if (CPROF__KEY(key, klen, "location_fields"))
      rc = read_names(r, &s->location_fields, &s->n_location_fields);
    else
      rc = cprof__rd_skip(r);
    if (rc != CPROF_OK) return rc;
  }
  return rc;
}

/* A count in snapshot: an integer in [0, 2^53), else -1 (ignored). */
static int read_count(cprof__rd_t *r, int64_t *out) {
  double d;
  int rc;
  if (cprof__rd_peek(r) != '0') return cprof__rd_skip(r);
  if ((rc = cprof__rd_number(r, &d)) != CPROF_OK) return rc;
  *out = d >= 0 && d < 9007199254740992.0 && d == (double)(int64_t)d ? (int64_t)d : -1;
  return CPROF_OK;
}

static int read_header(cprof__rd_t *r, cprof__snap_t *s, meta_pos_t *mp, int *seen_meta) {
  int rc, first = 1;
  const char *key;
  size_t klen;
  if (cprof__rd_peek(r) != '{') return FAIL("heap snapshot member snapshot is not an object");
  if ((rc = cprof__rd_open(r, '{')) != CPROF_OK) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    if (CPROF__KEY(key, klen, "meta") && !*seen_meta) {
      *seen_meta = 1;
      rc = read_meta(r, s, mp);
    } else if (CPROF__KEY(key, klen, "node_count")) {
      rc = read_count(r, &s->decl_nodes);
    } else if (CPROF__KEY(key, klen, "edge_count")) {
      rc = read_count(r, &s->decl_edges);
    } else if (CPROF__KEY(key, klen, "root_index")) {
      rc = read_count(r, &s->root_index);
    } else {
      rc = cprof__rd_skip(r);
    }
    if (rc != CPROF_OK) return rc;
  }
  return rc;
}

/* The declared count times the field count, when both are known: the
 * arrays' preallocation. */
static uint64_t hint(int64_t count, uint32_t nfields) {
  return count > 0 && nfields > 0 && (uint64_t)count < UINT32_MAX ? (uint64_t)count * nfields : 0;
}

static int read_document(cprof__rd_t *r, cprof__snap_t *s) {
  int rc, first = 1, seen_header = 0, seen_meta = 0;
  meta_pos_t mp = {0, 0};
  const char *key;
  size_t klen;
  if (cprof__rd_peek(r) != '{')
    return cprof__rd_peek(r) == 0 ? cprof__rd_fail(r, CPROF_EPARSE, "not JSON (empty or binary)")
                                  : FAIL("not a V8 heap snapshot: the document is not an object");
  if ((rc = cprof__rd_open(r, '{')) != CPROF_OK) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    if (CPROF__KEY(key, klen, "snapshot") && !seen_header) {
      seen_header = 1;
      rc = read_header(r, s, &mp, &seen_meta);
    } else if (CPROF__KEY(key, klen, "nodes")) {
      rc = read_u32_array(r, s, hint(s->decl_nodes, s->n_node_fields), &s->nodes, &s->nodes_len);
    } else if (CPROF__KEY(key, klen, "edges")) {
      rc = read_u32_array(r, s, hint(s->decl_edges, s->n_edge_fields), &s->edges, &s->edges_len);
    } else if (CPROF__KEY(key, klen, "locations")) {
      rc = read_u32_array(r, s, 0, &s->locations, &s->locations_len);
    } else if (CPROF__KEY(key, klen, "strings")) {
      rc = read_strings(r, s);
    } else {
      rc = cprof__rd_skip(r);
    }
    if (rc != CPROF_OK) return rc;
  }
  if (rc != 0) return rc;
  (void)cprof__rd_peek(r); /* trailing whitespace is fine, nothing else (read to the end) */
  if (r->err != 0) return r->err;
  if (r->p != r->end)
    return cprof__rd_fail(r, CPROF_EPARSE, "text after the heap snapshot at byte %zu",
                          cprof__rd_offset(r));
  if (!seen_meta) return FAIL("not a V8 heap snapshot: no snapshot.meta");
  /* The types arrays must sit at the type field's position; V8 puts the type
   * field first, and cprof reads only that layout's arrays. */
  s->n_type = mp.ntypes_pos;
  s->e_type = mp.etypes_pos;
  return CPROF_OK;
}

/* An array of records shrunk to its first `len` values (realloc gives a
 * large block's tail back to the system); on failure the larger block
 * serves. */
static uint32_t *shrink(uint32_t *a, uint64_t len) {
  uint32_t *b = realloc(a, (size_t)(len ? len : 1) * sizeof *a);
  return b != NULL ? b : a;
}

/* V8 writes 7 fields a node (type, name, id, self_size, edge_count,
 * trace_node_id, detachedness); the analysis reads 4 of them all along,
 * the edge counts only as first_edge and the detachedness once
 * (snapshot_detached.c). So once checked the nodes are rewritten in place
 * to the compact records (snapshot.h: type and name in one word when every
 * type and string index fits, which the meta's counts decide), the edge
 * counts summed into s->first_edge, the detachedness copied to a byte a
 * node in s->detached, and the array shrunk: 16 (or 12) bytes a node less
 * through the analysis. */
static int compact_nodes(cprof__snap_t *s) {
  uint64_t nf = s->nf;
  uint32_t e = 0;
  if ((s->first_edge = malloc(((size_t)s->node_count + 1) * sizeof *s->first_edge)) == NULL ||
      (s->n_detach >= 0 && (s->detached = malloc(s->node_count)) == NULL))
    return CPROF_ENOMEM;
  /* names are checked below str_count, types below the meta's count */
  s->npacked = s->ntypes.count <= (1u << CPROF__SNAP_NTYPE_BITS) &&
               (uint64_t)s->str_count <= (uint64_t)CPROF__SNAP_NNAME_MASK + 1;
  uint32_t w = s->npacked ? 3 : 4;
  for (uint32_t i = 0; i < s->node_count; i++) {
    const uint32_t *from = s->nodes + i * nf; /* at or after where node i goes */
    uint32_t type = from[s->n_type], name = from[s->n_name];
    uint32_t v[4] = {type, name, from[s->n_id], from[s->n_self]};
    if (s->npacked) v[1] = type << (32 - CPROF__SNAP_NTYPE_BITS) | name;
    s->first_edge[i] = e;
    e += from[s->n_edges]; /* sums to edge_count: checked */
    if (s->detached != NULL)
      s->detached[i] = (uint8_t)(from[s->n_detach] < 3 ? from[s->n_detach] : 3);
    memcpy(s->nodes + (uint64_t)i * w, v + (4 - w), w * sizeof *v);
  }
  s->first_edge[s->node_count] = e;
  s->nf = w;
  s->n_type = s->n_name = s->n_id = s->n_self = s->n_edges = s->n_detach = -1;
  s->nodes_len = (uint64_t)s->node_count * w;
  s->nodes = shrink(s->nodes, s->nodes_len);
  return CPROF_OK;
}

/* The edges rewritten in place to the compact records (snapshot.h): 2
 * words an edge when the meta names at most 8 edge types and every name
 * or index fits 29 bits (an element index past 512M keeps 3 words), 4
 * bytes an edge less than the file's 3 fields. */
static void compact_edges(cprof__snap_t *s) {
  uint64_t ef = s->ef;
  int packed = s->etypes.count <= (1u << CPROF__SNAP_ETYPE_BITS);
  for (uint32_t i = 0; i < s->edge_count && packed; i++)
    packed = s->edges[i * ef + (uint32_t)s->e_name] <= CPROF__SNAP_ENAME_MASK;
  uint32_t w = packed ? 2 : 3;
  for (uint32_t i = 0; i < s->edge_count; i++) {
    const uint32_t *from = s->edges + i * ef; /* at or after where edge i goes */
    uint32_t type = from[s->e_type], name = from[s->e_name];
    uint32_t v[3] = {type, name, from[s->e_to]};
    if (packed) v[1] = type << (32 - CPROF__SNAP_ETYPE_BITS) | name;
    memcpy(s->edges + (uint64_t)i * w, v + (3 - w), w * sizeof *v);
  }
  s->epacked = packed;
  s->ef = w;
  s->e_type = s->e_name = s->e_to = -1;
  s->edges_len = (uint64_t)s->edge_count * w;
  s->edges = shrink(s->edges, s->edges_len);
}

int cprof__snap_parse(const char *json, size_t len, cprof__snap_map_t *file, cprof__snap_t *s,
                      char *errbuf, size_t errlen) {
  cprof__rd_t r;
  memset(s, 0, sizeof *s);
  s->release = file != NULL ? cprof__snap_release : NULL;
  s->decl_nodes = s->decl_edges = s->root_index = -1;
  s->text = json;
  if (cprof__snap_str_init(s) != CPROF_OK)
    return cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory reading the heap snapshot");
  if (file == NULL)
    cprof__rd_init(&r, json, len, errbuf, errlen);
  else
    cprof__rd_init_stream(&r, json, file->got, len, cprof__snap_refill, file, errbuf, errlen);
  int rc = read_document(&r, s);
  /* the document ends at the end of the input: a file is read whole (and
   * found unchanged) */
  if (rc == CPROF_OK && file != NULL) rc = cprof__rd_read_all(&r);
  cprof__rd_free(&r);
  /* a parse that stopped early on a file that changed meanwhile: the change
   * is the error, not whatever the parse found in the text read */
  if (rc != CPROF_OK && rc != CPROF_EIO && file != NULL &&
      cprof__snap_unchanged(file, errbuf, errlen) != CPROF_OK)
    rc = CPROF_EIO;
  if (rc == CPROF_OK) rc = cprof__snap_check(s, errbuf, errlen);
  uint32_t file_nf = s->nf; /* the locations' object_index counts in the file's fields */
  if (rc == CPROF_OK) compact_edges(s); /* first: its room goes back before first_edge's */
  if (rc == CPROF_OK &&
      (compact_nodes(s) != CPROF_OK || cprof__snap_locations(s, file_nf) != CPROF_OK))
    rc = cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory reading the heap snapshot");
  return rc;
}

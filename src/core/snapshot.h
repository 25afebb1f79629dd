/* V8 heap snapshots (.heapsnapshot): read into flat arrays, then the
 * graph analysis DevTools' Memory panel does (dominator tree, retained
 * sizes, distances, classes), for `cprof snapshot`. Internal to the core.
 *
 * The file's nodes and edges arrays are kept packed uint32 (as DevTools
 * keeps them: Uint32Array), rewritten once checked to compact records: a
 * node keeps the 4 fields the analysis reads, an edge's to_node becomes a
 * node ordinal, and a type shares its word with the name when they fit (3
 * words a node, 2 an edge; see the accessors). Every other array is one
 * per node or one per edge, never one allocation per node: a snapshot
 * costs its arrays, at the peak (the distance search, once the dominator
 * tree is built) about 45 bytes a node and 8 an edge, about 1.0x a large
 * file (docs/benchmarks.md, Heap snapshots).
 *
 * Units: snapshot_read.c (the document), snapshot_string.c (the strings
 * table), snapshot_check.c (every index checked), snapshot_graph.c
 * (page-owned flags, essential edges, distances), snapshot_shallow.c (owned
 * arrays' sizes), snapshot_dom.c (retainers, dominator tree, retained sizes),
 * snapshot_class.c (classes), snapshot_report.c (the JSON report),
 * snapshot_paths.c (objects grouped by retainer path), snapshot_diff.c
 * (cprof snapshot diff), snapshot_file.c (files read), snapshot_view.c
 * (the viewer's page data), snapshot_retainers.c (retainers of a set),
 * snapshot_location.c (closures' locations). */
#ifndef CPROF_SNAPSHOT_H
#define CPROF_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;

#define CPROF__SNAP_NONE UINT32_MAX
/* DevTools' HeapSnapshotModel.baseSystemDistance: distances of objects
 * reached only through the (GC roots), not from a user root, start here. */
#define CPROF__SNAP_SYSTEM_DISTANCE 100000000
#define CPROF__SNAP_NO_DISTANCE (-5)
/* Whether a distance is one to show: DevTools shows "−" for the others
 * (HeapSnapshotGridNodes.ts), the nodes no user root reaches (only the GC
 * roots, or nothing). The JSON outputs give them as null. */
static inline int cprof__snap_shown_distance(int32_t d) {
  return d >= 0 && d < CPROF__SNAP_SYSTEM_DISTANCE;
}
/* Type name lists longer than this are refused (V8 has 14 node types and 7
 * edge types). */
#define CPROF__SNAP_MAX_TYPES 256

typedef struct {
  char **names;
  uint32_t count;
} cprof__snap_types_t;

/* A closure's location (snapshot_location.c): its node, V8's script id,
 * line and column from 0 as the file has them, and its script's URL (a
 * string index, CPROF__SNAP_NONE when the snapshot does not say). */
typedef struct {
  uint32_t node, script_id, line, column, url;
} cprof__snap_loc_t;

/* Gives back the pages of json before upto, which the parse never reads
 * again (never the strings: they are read by name until the end):
 * snapshot_file.c's cprof__snap_release; NULL for text in memory that
 * must stay. */
typedef void (*cprof__snap_release_t)(const char *json, size_t upto);

typedef struct {
  /* snapshot.meta: field counts and the offsets cprof reads (-1: absent) */
  uint32_t nf, ef;
  int n_type, n_name, n_id, n_self, n_edges, n_detach;
  int e_type, e_name, e_to;
  cprof__snap_types_t ntypes, etypes; /* node_types[type], edge_types[type] */
  char **node_fields, **edge_fields;  /* the field names, for the checks */
  uint32_t n_node_fields, n_edge_fields;
  /* type indexes by name, CPROF__SNAP_NONE when the meta has no such type */
  uint32_t t_hidden, t_array, t_object, t_native, t_synthetic, t_code, t_closure, t_regexp;
  uint32_t et_weak, et_shortcut, et_element, et_hidden, et_internal;

  /* nf values per node, ef per edge: the file's records until the parse
   * ends, then the compact ones (the accessors below; the edge counts went
   * to first_edge, the detachedness to `detached`) */
  uint32_t *nodes;
  uint64_t nodes_len;
  uint32_t *edges;
  uint64_t edges_len;
  int npacked, epacked; /* the compact records' layout (see the accessors) */
  uint32_t node_count, edge_count;
  uint32_t root;                  /* the root node's ordinal */
  int64_t decl_nodes, decl_edges; /* snapshot.node_count/edge_count, -1: absent */
  int64_t root_index;             /* snapshot.root_index, -1: absent */

  /* strings: string i is the JSON string at text + str_at[i], decoded by
   * cprof__snap_str when asked for (snapshot_string.c) */
  const char *text;
  cprof__snap_release_t release; /* during the parse: the text read so far */
  uint64_t strings_from;         /* where the strings array starts in text */
  uint64_t *str_at;
  uint32_t str_count, str_at_cap;
  struct cprof__snap_scratch *scratch;
  uint64_t released; /* text given to release so far */

  /* analysis (snapshot_graph.c, snapshot_dom.c) */
  uint32_t *first_edge; /* node_count + 1: edge ordinals (the parse's) */
  uint8_t *page;        /* node_count: 1 when reached from a user root; freed by the graph */
  uint8_t *essential;   /* edge_count bits: the edge retains (cprof__snap_essential) */
  /* node_count, or NULL without a detachedness field: the field's value
   * (over 2: 3) after the parse, then 1 for a detached native node */
  uint8_t *detached;
  int32_t *dist;         /* node_count: DevTools' distances */
  uint32_t *parent_edge; /* node_count: the edge the distance BFS reached it by */
  uint32_t *dom;         /* node_count: immediate dominator's ordinal, until dominated */
  uint64_t *retained;    /* node_count: retained size in bytes */
  uint32_t *dom_child;   /* node_count: the first node n dominates, or CPROF__SNAP_NONE */
  uint32_t *dom_next;    /* node_count: the next node with n's dominator (dom's room) */
  uint32_t unreachable;  /* nodes not reached from the root by retaining edges */

  /* the top-level `locations` as read (meta.location_fields values a row),
   * then, once the parse ends, the closures' in loc, by node */
  uint32_t *locations;
  uint64_t locations_len;
  char **location_fields;
  uint32_t n_location_fields;
  cprof__snap_loc_t *loc;
  uint32_t loc_count;
} cprof__snap_t;

struct cprof__snap_map;

/* Reads a .heapsnapshot's JSON text into s (zeroed first; free with
 * cprof__snap_free, also after an error). s keeps pointing into json for
 * its strings: json must outlive s. CPROF_OK, or CPROF_EPARSE (not
 * JSON, truncated), CPROF_ESCHEMA (JSON, but a field is missing or an index
 * is out of range), CPROF_ENOMEM, with a message in errbuf. file: NULL for
 * text all in memory; else json is file->map (len its size), read as the
 * parse needs it (cprof__snap_refill) and given back behind the reader as
 * the nodes and edges arrays are read (cprof__snap_release); the whole file
 * is read before the strings and by the end, and CPROF_EIO is returned,
 * whatever else failed, when it changed while it was read. */
int cprof__snap_parse(const char *json, size_t len, struct cprof__snap_map *file, cprof__snap_t *s,
                      char *errbuf, size_t errlen);
void cprof__snap_free(cprof__snap_t *s);

/* The checks once the document is read: the meta's fields and types, every
 * node's type and name, every edge's type, name and target, the edge counts
 * summing to the edges array (snapshot_check.c). Rewrites to_node to an
 * ordinal. */
int cprof__snap_check(cprof__snap_t *s, char *errbuf, size_t errlen);

/* cprof_snapshot_report over a file (NULL: json all in memory) read as the
 * parse needs it (cprof__snap_parse); once the document is read, the bytes
 * before the strings array, which the analysis never reads again, are given
 * back (cprof__snap_release). */
int cprof__snap_report(const char *json, size_t len, unsigned top, struct cprof__snap_map *file,
                       char **out, char *errbuf, size_t errlen);

/* cprof_snapshot_view the same way (snapshot_view.c). */
int cprof__snap_view(const char *json, size_t len, unsigned classes, struct cprof__snap_map *file,
                     char **out, char *errbuf, size_t errlen);

/* The whole analysis cprof__snap_report runs before its report: parse
 * (file: as there), release of a file's text before the strings, graph,
 * detachedness, shallow sizes, dominators, distances, the dominator tree's
 * lists.
 * Free s with cprof__snap_free, also after an error. */
int cprof__snap_analyse(const char *json, size_t len, struct cprof__snap_map *file,
                        cprof__snap_t *s, char *errbuf, size_t errlen);

/* A snapshot file read into an anonymous mapping of its own (snapshot_input.c:
 * never a SIGBUS when the file shrinks) as the parse needs it, and the
 * release hook that gives the text behind the parse back. */
typedef struct cprof__snap_map {
  void *map;  /* the file's size, read into from the start */
  size_t len; /* the file's size when opened */
  size_t got; /* bytes read so far */
  int fd;     /* open until all is read, -1 then */
  int rc;     /* CPROF_OK, or the CPROF_EIO that stopped the reading */
  const char *path;
  long long mtime_sec; /* the file's mtime when opened */
  long mtime_nsec;
  size_t piece;
  void (*hook)(void *ctx, int fd, size_t done);
  void *ctx;
} cprof__snap_map_t;
#define CPROF__SNAP_READ_PIECE (8u << 20) /* bytes a read(2) asks for */
/* Opens path and maps room for it; nothing read yet (cprof__snap_refill,
 * cprof__snap_read_all). cprof__snap_unload it, also after an error in
 * the reading or the parse. */
int cprof__snap_load(const char *path, cprof__snap_map_t *m, char *errbuf, size_t errlen);
/* The same, to be read in pieces of `piece` bytes (0: CPROF__SNAP_READ_PIECE)
 * with hook(ctx, fd, done) called before each is read (the tests' and the
 * fuzzer's seam: a file truncated or grown between two pieces). */
typedef void (*cprof__snap_read_hook_t)(void *ctx, int fd, size_t done);
int cprof__snap_load_hooked(const char *path, cprof__snap_map_t *m, size_t piece,
                            cprof__snap_read_hook_t hook, void *ctx, char *errbuf, size_t errlen);
/* The reader's refill (reader.h) over a cprof__snap_map_t: the next piece,
 * 1 with *avail = got; 0 once all is read and the file's size and mtime
 * are still those it was opened with; CPROF_EIO naming the file when it
 * ended early or changed, or could not be read. */
int cprof__snap_refill(void *m, size_t *avail, char *errbuf, size_t errlen);
/* All of it read: CPROF_OK or cprof__snap_refill's CPROF_EIO. */
int cprof__snap_read_all(cprof__snap_map_t *m, char *errbuf, size_t errlen);
/* After a parse that stopped early: CPROF_EIO (and its message) when the
 * file already changed, CPROF_OK otherwise. */
int cprof__snap_unchanged(cprof__snap_map_t *m, char *errbuf, size_t errlen);
void cprof__snap_unload(cprof__snap_map_t *m);
void cprof__snap_release(const char *text, size_t upto);

/* How cprof_snapshot_diff gets snapshot i (0 A, 1 B, 2 C) analysed into s:
 * load, then done once s is freed (a file's text is freed). label names it in
 * messages ("snapshot B", a path). */
typedef struct {
  int (*load)(void *ctx, unsigned i, cprof__snap_t *s, char *errbuf, size_t errlen);
  void (*done)(void *ctx, unsigned i);
  const char *(*label)(void *ctx, unsigned i);
  void *ctx;
} cprof__snap_source_t;
int cprof__snap_diff(const cprof__snap_source_t *src, unsigned n, unsigned top, char **out,
                     char *errbuf, size_t errlen);

/* The strings table (snapshot_string.c). init/free: its decode buffers
 * and offsets. */
#define CPROF__SNAP_STR_SLOTS 4
int cprof__snap_str_init(cprof__snap_t *s);
void cprof__snap_str_free(cprof__snap_t *s);
/* Adds the JSON string at p (its opening quote, inside s->text) after
 * checking it; returns the byte after its closing quote, or NULL with *err
 * set (CPROF_EPARSE, CPROF_ENOMEM). */
const char *cprof__snap_str_json(cprof__snap_t *s, const char *p, const char *end, int *err);
/* String i decoded (UTF-8, NUL-terminated; "" when out of range), valid
 * until CPROF__SNAP_STR_SLOTS - 1 more calls: copy what must last. */
const char *cprof__snap_str(const cprof__snap_t *s, uint32_t i);
/* String i as every output shows it (names, class names, edge names):
 * cprof__snap_str cut after CPROF__SNAP_NAME_MAX characters (UTF-16 code
 * units, as JavaScript counts a string's length; never inside a surrogate
 * pair), then "…(104,857,600 chars)", its full length. V8 cuts the strings
 * it writes at 1,024 by default (--heap-snapshot-string-limit), so only a
 * snapshot written with a larger limit, or made by hand, is cut. *chars
 * (may be NULL): the full length when cut, else 0. prefix (may be NULL)
 * is put before it. The same slots as cprof__snap_str. */
#define CPROF__SNAP_NAME_MAX 1024
const char *cprof__snap_name(const cprof__snap_t *s, uint32_t i, const char *prefix,
                             uint64_t *chars);

/* The records after the parse (snapshot_read.c: compact_nodes,
 * compact_edges). A node keeps type, name, id, self_size; an edge type,
 * name_or_index, to_node (an ordinal). When the values fit, the type
 * shares a word with the name (its top bits), so a node is 3 words and an
 * edge 2 (npacked, epacked); otherwise a node is 4 words [type, name, id,
 * self] and an edge 3 [type, name, to]. Every reader goes through the
 * accessors below; only the check reads the file's layout
 * (cprof__snap_rawfield). */
#define CPROF__SNAP_NTYPE_BITS 5 /* up to 32 node types: V8 has 15 */
#define CPROF__SNAP_ETYPE_BITS 3 /* up to 8 edge types: V8 has 7 */
#define CPROF__SNAP_NNAME_MASK (UINT32_MAX >> CPROF__SNAP_NTYPE_BITS)
#define CPROF__SNAP_ENAME_MASK (UINT32_MAX >> CPROF__SNAP_ETYPE_BITS)

/* A field of the file's layout (nf or ef values a record, the field at
 * index f), for the check and the compaction only. */
static inline uint32_t cprof__snap_rawfield(const uint32_t *a, uint32_t width, uint32_t rec,
                                            int f) {
  return a[(uint64_t)rec * width + (uint32_t)f];
}

/* A compact record's type and name: the first word's top `bits` and the
 * rest when packed, else the first two words. */
static inline uint32_t cprof__snap_rec_type(const uint32_t *v, int packed, unsigned bits) {
  return packed ? v[0] >> (32 - bits) : v[0];
}
static inline uint32_t cprof__snap_rec_name(const uint32_t *v, int packed, unsigned bits) {
  return packed ? v[0] & (UINT32_MAX >> bits) : v[1];
}

static inline const uint32_t *cprof__snap_node(const cprof__snap_t *s, uint32_t node) {
  return s->nodes + (uint64_t)node * s->nf;
}
static inline uint32_t cprof__snap_ntype(const cprof__snap_t *s, uint32_t node) {
  return cprof__snap_rec_type(cprof__snap_node(s, node), s->npacked, CPROF__SNAP_NTYPE_BITS);
}
static inline uint32_t cprof__snap_nname(const cprof__snap_t *s, uint32_t node) {
  return cprof__snap_rec_name(cprof__snap_node(s, node), s->npacked, CPROF__SNAP_NTYPE_BITS);
}
static inline uint32_t cprof__snap_nid(const cprof__snap_t *s, uint32_t node) {
  return cprof__snap_node(s, node)[s->nf - 2];
}
static inline uint32_t cprof__snap_self(const cprof__snap_t *s, uint32_t node) {
  return cprof__snap_node(s, node)[s->nf - 1];
}

static inline const uint32_t *cprof__snap_edge(const cprof__snap_t *s, uint32_t edge) {
  return s->edges + (uint64_t)edge * s->ef;
}
static inline uint32_t cprof__snap_etype(const cprof__snap_t *s, uint32_t edge) {
  return cprof__snap_rec_type(cprof__snap_edge(s, edge), s->epacked, CPROF__SNAP_ETYPE_BITS);
}
static inline uint32_t cprof__snap_ename(const cprof__snap_t *s, uint32_t edge) {
  return cprof__snap_rec_name(cprof__snap_edge(s, edge), s->epacked, CPROF__SNAP_ETYPE_BITS);
}
static inline uint32_t cprof__snap_to(const cprof__snap_t *s, uint32_t edge) {
  return cprof__snap_edge(s, edge)[s->ef - 1];
}

/* Closures' locations (snapshot_location.c). cprof__snap_locations, at
 * the parse's end (file_nf: the node fields as the file had them, which
 * object_index counts in): s->locations to s->loc, the raw array freed;
 * rows that name no closure are left out. CPROF_OK or CPROF_ENOMEM.
 * cprof__snap_location: node's, or NULL. cprof__snap_location_json adds
 * "location": { url, line, column, scriptId } (from 1, as DevTools shows
 * them; url left out when unknown) to obj when node has one: 1, or 0 out
 * of memory. */
int cprof__snap_locations(cprof__snap_t *s, uint32_t file_nf);
const cprof__snap_loc_t *cprof__snap_location(const cprof__snap_t *s, uint32_t node);
int cprof__snap_location_json(struct cJSON *obj, const cprof__snap_t *s, uint32_t node);

/* DevTools' detached native nodes (snapshot_detached.c): s->detached. */
int cprof__snap_detached(cprof__snap_t *s);

/* The analysis, in order (first_edge comes from the parse): page-owned
 * flags and essential edges (snapshot_graph.c), shallow sizes
 * (snapshot_shallow.c), the retainers, the immediate dominators and
 * retained sizes (snapshot_dom.c), the distances (snapshot_graph.c), then
 * the dominator tree's children lists (snapshot_dom.c), which take dom's
 * room. In that order the distance search's queue has gone before the
 * lists take theirs, and no two steps' arrays meet at the peak. CPROF_OK or
 * CPROF_ENOMEM. */
int cprof__snap_graph(cprof__snap_t *s, char *errbuf, size_t errlen);
int cprof__snap_dominators(cprof__snap_t *s, char *errbuf, size_t errlen);
int cprof__snap_distances(cprof__snap_t *s, char *errbuf, size_t errlen);
int cprof__snap_dominated(cprof__snap_t *s, char *errbuf, size_t errlen);

/* Whether edge e takes part in the dominator tree, by DevTools' rules
 * (snapshot_graph.c: essential_edges). */
static inline int cprof__snap_essential(const cprof__snap_t *s, uint32_t e) {
  return (s->essential[e >> 3] >> (e & 7)) & 1;
}

/* DevTools' shallow sizes (snapshot_shallow.c): an array or hidden node
 * that one object alone owns gives its size to that object, so a Map's
 * shallow size holds its hash table. Rewrites the nodes' self_size. */
int cprof__snap_shallow(cprof__snap_t *s);

/* The node an edge leaves from (binary search over first_edge). */
uint32_t cprof__snap_edge_source(const cprof__snap_t *s, uint32_t edge);

/* Sums of retained sizes by bucket (bucket(ctx, node): an index below
 * buckets, or CPROF__SNAP_NONE for a node in none) that never count a byte
 * twice: a node adds its retained size only when no ancestor of the same
 * bucket in the dominator tree did (DevTools' rule for a class's retained
 * size; snapshot_class.c). sums[0..buckets) must be zeroed. CPROF_OK or
 * CPROF_ENOMEM. */
typedef uint32_t (*cprof__snap_bucket_fn)(const void *ctx, uint32_t node);
int cprof__snap_bucket_retained(const cprof__snap_t *s, cprof__snap_bucket_fn bucket,
                                const void *ctx, uint64_t *sums, uint32_t buckets);

/* Objects as DevTools counts them in its Summary (classes) and as the diff
 * counts them: shallow size above 0 once owned arrays gave theirs to their
 * owner (so the root, synthetic nodes and owned stores are not objects). */
static inline int cprof__snap_counted(const cprof__snap_t *s, uint32_t node) {
  return cprof__snap_self(s, node) != 0;
}

/* One shortest retainer path to n as the report prints it (JSON steps
 * { edge, edgeType, id, name, class, type }, root end first; at most 64,
 * cut from the root end), or NULL out of memory (snapshot_report.c). */
struct cJSON *cprof__snap_path_json(const cprof__snap_t *s, uint32_t n);

/* Shared by the report and the view (snapshot_report.c): an edge's name as
 * DevTools shows it (an element's or hidden edge's index as digits); n's
 * id, name, class and type added to obj (0, or -1 out of memory); the top
 * largest nodes by retained size (not the root, not synthetic), largest
 * first, in best[0..*k). */
const char *cprof__snap_edge_name(const cprof__snap_t *s, uint32_t e, char *buf, size_t len);
int cprof__snap_node_json(struct cJSON *obj, const cprof__snap_t *s, uint32_t n);
/* "distance": d, or null when not cprof__snap_shown_distance (1, or 0 out
 * of memory). */
int cprof__snap_distance_json(struct cJSON *obj, int32_t d);
void cprof__snap_largest(const cprof__snap_t *s, uint32_t top, uint32_t *best, uint32_t *k);

/* The retainers of a set of nodes (snapshot_retainers.c), without the
 * retainer indexes (freed after the dominators): one pass over all edges.
 * The set: the nodes n with lo <= slot[n] < hi (slot: node_count entries).
 * For set member i = slot[n] - lo: its retaining edges by DevTools' filter
 * (HeapSnapshot.ts, retainingEdgesFilter: not from the root, not weak, not
 * invisible), the `fanout` nearest the roots (by the retainer's distance)
 * in out[i * fanout ..], got[i] of them; all[i] counts every one, weak[i]
 * the weak ones left out. got, all and weak must be zeroed. */
typedef struct {
  uint32_t edge, from;
} cprof__snap_ret_t;
void cprof__snap_retainers(const cprof__snap_t *s, const uint32_t *slot, uint32_t lo, uint32_t hi,
                           uint32_t fanout, cprof__snap_ret_t *out, uint32_t *got, uint32_t *all,
                           uint32_t *weak);

/* Retainer paths as keys (snapshot_paths.c): a node's path from the root
 * (parent_edge) with each step an edge label and a node label, indexes
 * (element and hidden edges, names of digits) as "[]", a step equal to
 * the one before it folded into it. Keys are small integers, equal for
 * equal paths, interned in a trie of the paths' prefixes. */
typedef struct cprof__snap_paths cprof__snap_paths_t;
cprof__snap_paths_t *cprof__snap_paths_new(const cprof__snap_t *s);
void cprof__snap_paths_free(cprof__snap_paths_t *p);
/* n's key, or CPROF__SNAP_NONE out of memory. Nodes the distance search
 * did not reach share one key, "(no path from a root)". */
uint32_t cprof__snap_path_key(cprof__snap_paths_t *p, uint32_t n);
uint32_t cprof__snap_path_keys(const cprof__snap_paths_t *p); /* keys made so far */
/* Key k as text, "sessionCache → Map → table → (array) → [] → Session",
 * malloc'd (NULL out of memory). */
char *cprof__snap_path_text(const cprof__snap_paths_t *p, uint32_t k);

/* The nodes with group_of[n] != CPROF__SNAP_NONE (the caller marks them,
 * any other value) grouped by their path key: { count, selfSize, paths,
 * groups: [{ path, count, selfSize, retainedSize, example: { id,
 * selfSize, retainedSize, path } }] }, the `top` groups by retained size
 * (cprof__snap_bucket_retained's sums: no byte counted twice in a group).
 * group_of is overwritten. NULL out of memory. */
struct cJSON *cprof__snap_groups_json(const cprof__snap_t *s, uint32_t *group_of, unsigned top);

/* Classes (snapshot_class.c): DevTools' class of a node, as an id: the
 * name string for object and native nodes (a detached native node's is
 * past the types: "Detached <name>"), else one per type. */
uint32_t cprof__snap_class_key(const cprof__snap_t *s, uint32_t node);
typedef struct {
  uint32_t key;      /* name string index, or str_count + type */
  uint32_t count;    /* objects */
  uint64_t self;     /* shallow size */
  uint64_t retained; /* retained by objects no other object of the class dominates */
  uint32_t largest;  /* the object of the class with the largest retained size */
  int32_t distance;  /* the least distance of its objects */
} cprof__snap_class_t;

/* The classes, sorted by retained size (then shallow, then name), in *out
 * (caller frees). Objects of (shallow) size 0 are left out, as DevTools
 * does. CPROF_OK or CPROF_ENOMEM. */
int cprof__snap_classes(const cprof__snap_t *s, cprof__snap_class_t **out, uint32_t *n);
/* A class's name: "(system)" for hidden, "(compiled code)" for code,
 * "Function" for closures, "RegExp" for regexps, "(<type>)" for other types
 * without a name. */
const char *cprof__snap_class_name(const cprof__snap_t *s, uint32_t key, char *buf, size_t len);

#endif

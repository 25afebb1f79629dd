#define _POSIX_C_SOURCE 200809L /* open_memstream */
/* pprof writer: a gzip'd perftools.profiles.Profile (github.com/google/
 * pprof, proto/profile.proto), encoded by hand. Only two wire types are
 * needed: varints and length-delimited bytes (strings, nested messages,
 * packed repeated integers).
 *
 *   CPU:  sample_type [samples/count, cpu/nanoseconds], period_type
 *         cpu/nanoseconds; one sample per distinct stack: [samples, µs*1000].
 *   Heap: sample_type [samples/count, inuse_space/bytes] (alloc_space when
 *         collected objects are included), period_type space/bytes; one
 *         sample per stack with an allocation: [V8 samples, selfSize].
 *
 * Heap counts are V8 samples, not objects, and are named so: Go's
 * inuse_objects is an estimate of live objects (each sample of size s at
 * interval r scaled by 1/(1-exp(-s/r)), as Go's scaleHeapSample does). V8
 * scales too, but hands out only the product: a sample's size is the
 * object's size times its scaled count, and selfSize sums those, so
 * inuse_space is already the estimate Go's would be. The count cannot be
 * recovered (16 bytes x 2048 and 32 bytes x 1024 are the same sample), and
 * a value named inuse_objects that is not one would be misread.
 *
 * One Mapping (id 1) holds every Location: it names the main script when
 * the caller knows it (o->main) and says functions, file names and lines
 * are already resolved, so pprof does not look for a binary to symbolize
 * ("Main binary filename not available."). V8 gives no addresses: the
 * memory range stays 0.
 *
 * A V8 call frame names a function, not a call site: each function gets
 * one Location whose Line is the function's first line.
 *
 * With pprof_lines (CPU), a sample's leaf is one Location per line of its
 * function instead (as @datadog/pprof's lineNumbers mode): each tree node's
 * self time and sample count are split across its lines as lines.h says
 * (V8's positionTicks; the shares add up exactly), one Sample per line, so
 * `go tool pprof -lines` and Pyroscope show lines. Callers keep their
 * function's Location: V8 records no call-site lines. A line the source
 * map puts in another file than its function's, and time without a line,
 * stay on the function's Location.
 *
 * For Grafana Pyroscope (push, docs/pyroscope.md) two options change what
 * is written. Its tree builder keys a frame on Function.name alone, so
 * pprof_unique_names names a frame with a script "<file>:<name>:<line>",
 * as the official Node.js client (@pyroscope/nodejs) does: fib of a.js and
 * fib of c.js stay two frames. Frames without a script ((program),
 * (garbage collector), V8 builtins) keep their bare name. system_name,
 * filename and start_line keep their own values either way.
 * pprof_skip_idle leaves the (idle) samples out of a CPU profile: V8
 * samples the waiting event loop as (idle), which is wall time, not CPU
 * time, and Pyroscope sums every sample of process_cpu as CPU. With
 * pprof_cpu_cap_us, the samples' time is scaled down (shares kept) when it
 * exceeds the thread's CPU time: V8 samples a thread the OS keeps off the
 * CPU (a loaded machine) as running, so sample time is wall time. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "error.h"
#include "export.h"
#include "internal.h"
#include "label.h"
#include "labelset.h"
#include "lines.h"
#include "pb.h"
#include "analysis.h"
#include "tree.h"

/* profile.proto field numbers */
enum {
  PROFILE_SAMPLE_TYPE = 1,
  PROFILE_SAMPLE = 2,
  PROFILE_MAPPING = 3,
  PROFILE_LOCATION = 4,
  PROFILE_FUNCTION = 5,
  PROFILE_STRING_TABLE = 6,
  PROFILE_TIME_NANOS = 9,
  PROFILE_DURATION_NANOS = 10,
  PROFILE_PERIOD_TYPE = 11,
  PROFILE_PERIOD = 12,
  VALUE_TYPE_TYPE = 1,
  VALUE_TYPE_UNIT = 2,
  SAMPLE_LOCATION_ID = 1,
  SAMPLE_VALUE = 2,
  SAMPLE_LABEL = 3,
  LABEL_KEY = 1,
  LABEL_STR = 2,
  MAPPING_ID = 1,
  MAPPING_FILENAME = 5,
  MAPPING_HAS_FUNCTIONS = 7,
  MAPPING_HAS_FILENAMES = 8,
  MAPPING_HAS_LINE_NUMBERS = 9,
  LOCATION_ID = 1,
  LOCATION_MAPPING_ID = 2,
  LOCATION_LINE = 4,
  LINE_FUNCTION_ID = 1,
  LINE_LINE = 2,
  LINE_COLUMN = 3,
  FUNCTION_ID = 1,
  FUNCTION_NAME = 2,
  FUNCTION_SYSTEM_NAME = 3,
  FUNCTION_FILENAME = 4,
  FUNCTION_START_LINE = 5
};

/* The string table: index 0 is "", every other string once. */
typedef struct {
  const char **strs; /* borrowed */
  uint32_t n, cap;
  uint32_t *slots; /* index + 1 */
  uint32_t mask;
} strtab_t;

static uint32_t str_hash(const char *s) {
  uint64_t h = cprof__hash_str(CPROF__HASH_SEED, s);
  return (uint32_t)(h ^ (h >> 32));
}

static int strtab_grow(strtab_t *t) {
  uint32_t cap = t->cap ? t->cap * 2 : 256;
  const char **strs = realloc(t->strs, (size_t)cap * sizeof(*strs));
  if (strs == NULL) return CPROF_ENOMEM;
  t->strs = strs;
  uint32_t *slots = calloc((size_t)cap * 2, sizeof(*slots));
  if (slots == NULL) return CPROF_ENOMEM;
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
  t->mask = cap * 2 - 1;
  for (uint32_t i = 0; i < t->n; i++) {
    uint32_t j = str_hash(t->strs[i]) & t->mask;
    while (t->slots[j] != 0)
      j = (j + 1) & t->mask;
    t->slots[j] = i + 1;
  }
  return 0;
}

static int strtab_id(strtab_t *t, const char *s, uint64_t *id) {
  if (t->n == t->cap && (t->cap >= UINT32_MAX / 4 || strtab_grow(t) != 0)) return CPROF_ENOMEM;
  uint32_t j = str_hash(s) & t->mask;
  while (t->slots[j] != 0 && strcmp(t->strs[t->slots[j] - 1], s) != 0)
    j = (j + 1) & t->mask;
  if (t->slots[j] == 0) {
    t->strs[t->n] = s;
    t->slots[j] = ++t->n;
  }
  *id = t->slots[j] - 1;
  return 0;
}

static void strtab_free(strtab_t *t) {
  free(t->strs);
  free(t->slots);
}

typedef struct {
  cprof__buf_t out;  /* the Profile message */
  cprof__buf_t msg;  /* a nested message being built */
  cprof__buf_t ids;  /* packed location ids */
  cprof__buf_t vals; /* packed values */
  strtab_t strs;
  const cprof__tree_t *tree;
  const cprof_export_opts_t *o;
  uint64_t *stack;          /* location ids, leaf first */
  unsigned char *used;      /* per fn: a sample names it */
  char **names;             /* per fn: its unique name (pprof_unique_names), made once */
  double scale;             /* CPU: ns per µs of self time (1000, less under pprof_cpu_cap_us) */
  struct plines_s *lines;   /* pprof_lines: each tree node's samples per line, or NULL */
  cprof_label_row_t *lrows; /* o->labels: each tree node's samples per label set, or NULL */
  uint32_t *lfirst;         /* tree node i's rows: lrows[lfirst[i] .. lfirst[i + 1]) */
  cprof__buf_t lab;         /* a Label message being built */
} enc_t;

/* ---- pprof_lines: one Location per line ---- */

typedef struct {
  uint32_t tnode;
  uint32_t loc; /* index into locs; CPROF_NONE: the function's own Location */
  int64_t self;
  uint64_t count;
} pline_t;

typedef struct {
  uint32_t fn;
  int32_t line;
} ploc_t;

typedef struct plines_s {
  pline_t *rows; /* by tree node */
  uint32_t nrows;
  uint32_t *first; /* tree node i's rows: rows[first[i] .. first[i + 1]) */
  ploc_t *locs;    /* distinct (fn, line): Location id nfns + 1 + index */
  uint32_t nlocs;
  uint32_t *slots; /* (fn, line) -> loc index + 1 */
  uint32_t mask;
  unsigned char *used; /* per loc: a written sample names it */
} plines_t;

static void plines_free(plines_t *l) {
  if (!l) return;
  free(l->rows);
  free(l->first);
  free(l->locs);
  free(l->slots);
  free(l->used);
  free(l);
}

static uint32_t ploc_of(plines_t *l, uint32_t fn, int32_t line) {
  uint64_t k = (((uint64_t)fn << 32) | (uint32_t)line) * UINT64_C(0x9E3779B97F4A7C15);
  uint32_t j = (uint32_t)(k >> 32) & l->mask;
  for (; l->slots[j] != 0; j = (j + 1) & l->mask) {
    const ploc_t *c = &l->locs[l->slots[j] - 1];
    if (c->fn == fn && c->line == line) return l->slots[j] - 1;
  }
  l->locs[l->nlocs] = (ploc_t){fn, line};
  l->slots[j] = ++l->nlocs;
  return l->nlocs - 1;
}

static int prow_cmp(const void *va, const void *vb) {
  const pline_t *a = va, *b = vb;
  if (a->tnode != b->tnode) return a->tnode < b->tnode ? -1 : 1;
  return a->loc < b->loc ? -1 : a->loc > b->loc;
}

/* One profile node's rows: its self and sample count split by its ticks. */
static void node_rows(const enc_t *e, const cprof_profile_t *p, const cprof_line_tick_t *t,
                      uint32_t n, uint64_t count, plines_t *l, uint32_t *scratch, int64_t *s1,
                      int64_t *s2) {
  uint32_t node = t[0].node, tnode = e->tree->node_of[node], fn = e->tree->nodes[tnode].fn;
  const char *own = p->frames[p->nodes[node].frame].url;
  cprof_lines_node(p->nodes[node].self, t, n, scratch, s1); /* fills scratch with the ticks */
  cprof_lines_split((int64_t)count, scratch, n, s2);
  for (uint32_t k = 0; k < n; k++) {
    int same = t[k].url == NULL || strcmp(t[k].url, own) == 0;
    uint32_t loc = same && t[k].line > 0 ? ploc_of(l, fn, t[k].line) : CPROF_NONE;
    l->rows[l->nrows++] = (pline_t){tnode, loc, s1[k], (uint64_t)s2[k]};
  }
}

static int plines_fill(const enc_t *e, const cprof_profile_t *p, plines_t *l, uint32_t *counts,
                       unsigned char *covered, uint32_t *scratch, int64_t *s1, int64_t *s2) {
  const cprof_line_tick_t *t = p->line_ticks;
  for (uint32_t i = 0; i < p->nsamples; i++)
    counts[p->samples[i]]++;
  for (uint32_t i = 0, j; i < p->nline_ticks; i = j) {
    for (j = i + 1; j < p->nline_ticks && t[j].node == t[i].node;)
      j++;
    if (covered[t[i].node]) continue;
    covered[t[i].node] = 1;
    node_rows(e, p, &t[i], j - i, counts[t[i].node], l, scratch, s1, s2);
  }
  for (uint32_t i = 0; i < p->nnodes; i++)
    if (!covered[i] && (p->nodes[i].self != 0 || counts[i] != 0))
      l->rows[l->nrows++] = (pline_t){e->tree->node_of[i], CPROF_NONE, p->nodes[i].self, counts[i]};
  qsort(l->rows, l->nrows, sizeof *l->rows, prow_cmp);
  uint32_t n = 0; /* equal (tree node, loc) rows summed */
  for (uint32_t i = 0; i < l->nrows; i++) {
    if (n > 0 && prow_cmp(&l->rows[i], &l->rows[n - 1]) == 0) {
      l->rows[n - 1].self = cprof__sat_add(l->rows[n - 1].self, l->rows[i].self);
      l->rows[n - 1].count += l->rows[i].count;
    } else {
      l->rows[n++] = l->rows[i];
    }
  }
  l->nrows = n;
  for (uint32_t i = 0; i < n; i++)
    l->first[l->rows[i].tnode + 1]++;
  for (uint32_t i = 0; i < e->tree->nnodes; i++)
    l->first[i + 1] += l->first[i];
  return CPROF_OK;
}

/* e->lines for a CPU profile whose tree came from p alone. */
static int plines_build(enc_t *e, const cprof_profile_t *p) {
  uint32_t longest = 1, cap = 16;
  if (!e->tree->node_of || e->tree->nnode_of != p->nnodes) return CPROF_EINVAL;
  for (uint32_t i = 0, j; i < p->nline_ticks; i = j) {
    for (j = i + 1; j < p->nline_ticks && p->line_ticks[j].node == p->line_ticks[i].node;)
      j++;
    if (j - i > longest) longest = j - i;
  }
  while (cap < (uint64_t)p->nline_ticks * 2)
    cap *= 2;
  plines_t *l = calloc(1, sizeof *l);
  uint32_t *counts = calloc((size_t)p->nnodes, sizeof *counts), *scratch = malloc(longest * 4u);
  unsigned char *covered = calloc((size_t)p->nnodes, 1);
  int64_t *s1 = malloc(longest * 8u), *s2 = malloc(longest * 8u);
  int rc = CPROF_ENOMEM;
  if (l && (l->rows = malloc(((size_t)p->nline_ticks + p->nnodes) * sizeof *l->rows)) &&
      (l->first = calloc((size_t)e->tree->nnodes + 1, sizeof *l->first)) &&
      (l->locs = malloc(((size_t)p->nline_ticks + 1) * sizeof *l->locs)) &&
      (l->slots = calloc(cap, sizeof *l->slots)) && counts && scratch && covered && s1 && s2) {
    l->mask = cap - 1;
    rc = plines_fill(e, p, l, counts, covered, scratch, s1, s2);
  }
  if (rc == CPROF_OK && !(l->used = calloc((size_t)l->nlocs + 1, 1))) rc = CPROF_ENOMEM;
  free(counts);
  free(scratch);
  free(covered);
  free(s1);
  free(s2);
  if (rc != CPROF_OK) {
    plines_free(l);
    return rc;
  }
  e->lines = l;
  return CPROF_OK;
}

static int put_str(enc_t *e, cprof__buf_t *b, uint32_t field, const char *s) {
  uint64_t id;
  int rc = strtab_id(&e->strs, s, &id);
  return rc ? rc : cprof__pb_put_int(b, field, id);
}

/* A ValueType message {type, unit} as field of the Profile. */
static int put_value_type(enc_t *e, uint32_t field, const char *type, const char *unit) {
  e->msg.len = 0;
  int rc = put_str(e, &e->msg, VALUE_TYPE_TYPE, type);
  if (rc == 0) rc = put_str(e, &e->msg, VALUE_TYPE_UNIT, unit);
  if (rc == 0) rc = e->msg.oom ? CPROF_ENOMEM : 0;
  return rc ? rc : cprof__pb_put_bytes(&e->out, field, e->msg.data, e->msg.len);
}

/* Label set `set` of o->labels as the Sample's labels (string labels). */
static int put_labels(enc_t *e, uint32_t set) {
  const cprof_label_set_t *s = &e->o->labels->sets[set];
  int rc = 0;
  for (uint32_t k = 0; k < s->n && rc == 0; k++) {
    e->lab.len = 0;
    rc = put_str(e, &e->lab, LABEL_KEY, s->kv[2 * k]);
    if (rc == 0) rc = put_str(e, &e->lab, LABEL_STR, s->kv[2 * k + 1]);
    if (rc == 0) rc = e->lab.oom ? CPROF_ENOMEM : 0;
    if (rc == 0) rc = cprof__pb_put_bytes(&e->msg, SAMPLE_LABEL, e->lab.data, e->lab.len);
  }
  return rc;
}

/* leaf: the Location id of the stack's leaf, 0 for its function's; set:
 * the samples' label set (0: none). */
static int put_sample(enc_t *e, uint32_t node, uint64_t count, uint64_t value, uint64_t leaf,
                      uint32_t set) {
  const cprof__tree_t *t = e->tree;
  uint32_t depth = 0;
  /* The root is every stack's base: left out unless it is the stack. */
  for (uint32_t n = node; n != 0 || depth == 0; n = t->nodes[n].parent) {
    e->stack[depth++] = (uint64_t)t->nodes[n].fn + 1;
    e->used[t->nodes[n].fn] = 1;
    if (n == 0) break;
  }
  if (leaf) e->stack[0] = leaf;
  e->ids.len = e->vals.len = e->msg.len = 0;
  for (uint32_t i = 0; i < depth; i++)
    cprof__pb_put_varint(&e->ids, e->stack[i]);
  cprof__pb_put_varint(&e->vals, count);
  cprof__pb_put_varint(&e->vals, value);
  if (e->ids.oom || e->vals.oom) return CPROF_ENOMEM;
  cprof__pb_put_bytes(&e->msg, SAMPLE_LOCATION_ID, e->ids.data, e->ids.len);
  cprof__pb_put_bytes(&e->msg, SAMPLE_VALUE, e->vals.data, e->vals.len);
  if (set && put_labels(e, set) != 0) return CPROF_ENOMEM;
  if (e->msg.oom) return CPROF_ENOMEM;
  return cprof__pb_put_bytes(&e->out, PROFILE_SAMPLE, e->msg.data, e->msg.len);
}

/* Whether node i becomes a pprof sample. */
static int has_sample(const enc_t *e, uint32_t i) {
  const cprof__tnode_t *n = &e->tree->nodes[i];
  if (e->o->pprof_skip_idle && e->tree->fns[n->fn].kind == CPROF__KIND_IDLE) return 0;
  return n->self[0] > 0 || n->count[0] != 0;
}

static uint64_t ns_value(const enc_t *e, int cpu, int64_t self) {
  uint64_t value = (uint64_t)(self > 0 ? self : 0);
  if (cpu) /* µs → ns */
    value = (double)value * e->scale >= 0x1p64 ? UINT64_MAX
                                               : (uint64_t)((double)value * e->scale + 0.5);
  return value;
}

/* pprof_lines: tree node i as one Sample per line; *n counts them. */
static int put_line_samples(enc_t *e, uint32_t i, uint32_t *n) {
  const plines_t *l = e->lines;
  int rc = 0;
  for (uint32_t k = l->first[i]; k < l->first[i + 1] && rc == 0; k++) {
    const pline_t *r = &l->rows[k];
    if (r->self <= 0 && r->count == 0) continue;
    uint64_t leaf = 0;
    if (r->loc != CPROF_NONE) {
      leaf = (uint64_t)e->tree->nfns + 1 + r->loc;
      l->used[r->loc] = 1;
    }
    rc = put_sample(e, i, r->count, ns_value(e, 1, r->self), leaf, 0);
    (*n)++;
  }
  return rc;
}

/* o->labels: tree node i as one Sample per label set; *n counts them. */
static int put_label_samples(enc_t *e, uint32_t i, uint32_t *n) {
  int rc = 0;
  for (uint32_t k = e->lfirst[i]; k < e->lfirst[i + 1] && rc == 0; k++) {
    const cprof_label_row_t *r = &e->lrows[k];
    rc = put_sample(e, i, r->count, ns_value(e, 1, r->self), 0, r->set);
    (*n)++;
  }
  return rc;
}

/* Samples of the tree's nodes from *next on, at most max_samples of them
 * (0: no limit); *next becomes the first node left out. */
static int put_samples(enc_t *e, int cpu, uint32_t *next, uint32_t max_samples) {
  const cprof__tree_t *t = e->tree;
  uint32_t i = *next, n = 0;
  int rc = 0;
  for (; i < t->nnodes && rc == 0; i++) {
    const cprof__tnode_t *node = &t->nodes[i];
    if (!has_sample(e, i)) continue;
    if (max_samples && n == max_samples) break;
    if (e->lines) {
      rc = put_line_samples(e, i, &n);
      continue;
    }
    if (e->lrows) {
      rc = put_label_samples(e, i, &n);
      continue;
    }
    rc = put_sample(e, i, node->count[0], ns_value(e, cpu, node->self[0]), 0, 0);
    n++;
  }
  *next = i;
  return rc;
}

/* "<file>:<name>:<line>" (the line 1-based, left out when unknown), the
 * file under o->pprof_cwd as "./<path>"; NULL when out of memory. */
static char *unique_name(const cprof_frame_t *f, const char *cwd) {
  const char *name = f->name[0] ? f->name : "(anonymous)";
  const char *path = cprof__short_url(f->url), *dot = "";
  size_t cl = cwd != NULL ? strlen(cwd) : 0;
  if (cl > 1 && strncmp(path, cwd, cl) == 0 && path[cl] == '/') {
    dot = ".";
    path += cl;
  }
  size_t n = strlen(path) + strlen(name) + 16;
  char *s = malloc(n);
  if (s == NULL) return NULL;
  if (f->line >= 0)
    snprintf(s, n, "%s%s:%s:%" PRId32, dot, path, name, f->line + 1);
  else
    snprintf(s, n, "%s%s:%s", dot, path, name);
  return s;
}

/* Function.name of fn i: the unique name for Pyroscope (frames with a
 * script), else functionName or "(anonymous)". NULL when out of memory. */
static const char *function_name(enc_t *e, uint32_t i) {
  const cprof_frame_t *f = e->tree->fns[i].frame;
  if (!e->o->pprof_unique_names || f->url[0] == '\0') return f->name[0] ? f->name : "(anonymous)";
  if (e->names[i] == NULL) e->names[i] = unique_name(f, e->o->pprof_cwd);
  return e->names[i];
}

/* pprof_lines: Location { id, mapping 1, Line { its function, line } } for
 * each line a written sample names. */
static int put_line_locations(enc_t *e) {
  const plines_t *l = e->lines;
  for (uint32_t k = 0; l && k < l->nlocs; k++) {
    if (!l->used[k]) continue;
    e->vals.len = e->msg.len = 0;
    cprof__pb_put_int(&e->vals, LINE_FUNCTION_ID, (uint64_t)l->locs[k].fn + 1);
    cprof__pb_put_int(&e->vals, LINE_LINE, (uint64_t)l->locs[k].line);
    cprof__pb_put_int(&e->msg, LOCATION_ID, (uint64_t)e->tree->nfns + 1 + k);
    cprof__pb_put_int(&e->msg, LOCATION_MAPPING_ID, 1);
    if (e->vals.oom) return CPROF_ENOMEM;
    cprof__pb_put_bytes(&e->msg, LOCATION_LINE, e->vals.data, e->vals.len);
    if (e->msg.oom) return CPROF_ENOMEM;
    int rc = cprof__pb_put_bytes(&e->out, PROFILE_LOCATION, e->msg.data, e->msg.len);
    if (rc != 0) return rc;
  }
  return 0;
}

/* One Function and one Location per function a sample names; both use
 * id fn + 1. */
static int put_functions(enc_t *e) {
  const cprof__tree_t *t = e->tree;
  int rc = 0;
  for (uint32_t i = 0; i < t->nfns && rc == 0; i++) {
    if (!e->used[i]) continue;
    const cprof_frame_t *f = t->fns[i].frame;
    const char *name = function_name(e, i);
    if (name == NULL) return CPROF_ENOMEM;
    uint64_t line = f->line >= 0 ? (uint64_t)f->line + 1 : 0;
    uint64_t column = f->column >= 0 ? (uint64_t)f->column + 1 : 0;
    e->msg.len = 0;
    cprof__pb_put_int(&e->msg, FUNCTION_ID, (uint64_t)i + 1);
    if ((rc = put_str(e, &e->msg, FUNCTION_NAME, name)) != 0 ||
        (rc = put_str(e, &e->msg, FUNCTION_SYSTEM_NAME, f->name)) != 0 ||
        (rc = put_str(e, &e->msg, FUNCTION_FILENAME, cprof__short_url(f->url))) != 0)
      return rc;
    cprof__pb_put_int(&e->msg, FUNCTION_START_LINE, line);
    if (e->msg.oom) return CPROF_ENOMEM;
    if ((rc = cprof__pb_put_bytes(&e->out, PROFILE_FUNCTION, e->msg.data, e->msg.len)) != 0)
      return rc;
    /* Location { id, line: [Line { function_id, line, column }] } */
    e->vals.len = e->msg.len = 0;
    cprof__pb_put_int(&e->vals, LINE_FUNCTION_ID, (uint64_t)i + 1);
    cprof__pb_put_int(&e->vals, LINE_LINE, line);
    cprof__pb_put_int(&e->vals, LINE_COLUMN, column);
    cprof__pb_put_int(&e->msg, LOCATION_ID, (uint64_t)i + 1);
    cprof__pb_put_int(&e->msg, LOCATION_MAPPING_ID, 1);
    if (e->vals.oom) return CPROF_ENOMEM;
    cprof__pb_put_bytes(&e->msg, LOCATION_LINE, e->vals.data, e->vals.len);
    if (e->msg.oom) return CPROF_ENOMEM;
    rc = cprof__pb_put_bytes(&e->out, PROFILE_LOCATION, e->msg.data, e->msg.len);
  }
  return rc == 0 ? put_line_locations(e) : rc;
}

/* The one Mapping: Mapping { id 1, filename, has_functions, has_filenames,
 * has_line_numbers }. */
static int put_mapping(enc_t *e, const char *main) {
  e->msg.len = 0;
  cprof__pb_put_int(&e->msg, MAPPING_ID, 1);
  int rc = put_str(e, &e->msg, MAPPING_FILENAME, main != NULL ? main : "");
  if (rc != 0) return rc;
  cprof__pb_put_int(&e->msg, MAPPING_HAS_FUNCTIONS, 1);
  cprof__pb_put_int(&e->msg, MAPPING_HAS_FILENAMES, 1);
  cprof__pb_put_int(&e->msg, MAPPING_HAS_LINE_NUMBERS, 1);
  if (e->msg.oom) return CPROF_ENOMEM;
  return cprof__pb_put_bytes(&e->out, PROFILE_MAPPING, e->msg.data, e->msg.len);
}

static int put_header(enc_t *e, const cprof_profile_t *p, const cprof_export_opts_t *o) {
  int cpu = p->kind == CPROF_KIND_CPU, rc;
  const char *space = o->include_collected ? "alloc_space" : "inuse_space";
  const char *count = !o->pprof_objects      ? "samples"
                      : o->include_collected ? "alloc_objects"
                                             : "inuse_objects";
  uint64_t id;
  if ((rc = strtab_id(&e->strs, "", &id)) != 0) return rc; /* string_table[0] */
  if (cpu) {
    if ((rc = put_value_type(e, PROFILE_SAMPLE_TYPE, "samples", "count")) != 0 ||
        (rc = put_value_type(e, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds")) != 0 ||
        (rc = put_value_type(e, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds")) != 0)
      return rc;
  } else if ((rc = put_value_type(e, PROFILE_SAMPLE_TYPE, count, "count")) != 0 ||
             (rc = put_value_type(e, PROFILE_SAMPLE_TYPE, space, "bytes")) != 0 ||
             (rc = put_value_type(e, PROFILE_PERIOD_TYPE, "space", "bytes")) != 0) {
    return rc;
  }
  int64_t period = o->interval, duration = o->duration_us;
  if (cpu) {
    duration = p->end_time > p->start_time ? p->end_time - p->start_time : 0;
    /* A file does not say the interval asked for: use the mean gap. */
    if (period <= 0 && p->nsamples > 0) period = duration / p->nsamples;
  }
  if (period > 0) cprof__pb_put_int(&e->out, PROFILE_PERIOD, (uint64_t)period * (cpu ? 1000 : 1));
  if (duration > 0) cprof__pb_put_int(&e->out, PROFILE_DURATION_NANOS, (uint64_t)duration * 1000);
  if (o->start_time_ms > 0)
    cprof__pb_put_int(&e->out, PROFILE_TIME_NANOS, (uint64_t)o->start_time_ms * 1000000);
  return e->out.oom ? CPROF_ENOMEM : 0;
}

static int put_string_table(enc_t *e) {
  for (uint32_t i = 0; i < e->strs.n; i++)
    cprof__pb_put_bytes(&e->out, PROFILE_STRING_TABLE, e->strs.strs[i], strlen(e->strs.strs[i]));
  return e->out.oom ? CPROF_ENOMEM : 0;
}

/* gzip (deflate with the gzip wrapper: windowBits 15 + 16) to f. */
static int gzip_to(FILE *f, const unsigned char *data, size_t len) {
  z_stream zs;
  unsigned char chunk[64 * 1024];
  memset(&zs, 0, sizeof(zs));
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return CPROF_ENOMEM;
  int rc = 0, zr = Z_OK;
  zs.next_in = (Bytef *)(uintptr_t)data;
  while (zr != Z_STREAM_END && rc == 0) {
    /* avail_in is 32-bit: feed huge inputs in pieces. */
    if (zs.avail_in == 0 && len > 0) {
      uInt piece = len > (1u << 30) ? (1u << 30) : (uInt)len;
      zs.avail_in = piece;
      len -= piece;
    }
    zs.next_out = chunk;
    zs.avail_out = sizeof(chunk);
    zr = deflate(&zs, len == 0 ? Z_FINISH : Z_NO_FLUSH);
    if (zr == Z_STREAM_ERROR) {
      rc = CPROF_ENOMEM;
      break;
    }
    size_t have = sizeof(chunk) - zs.avail_out;
    if (have > 0 && fwrite(chunk, 1, have, f) != have) rc = CPROF_EIO;
  }
  deflateEnd(&zs);
  return rc;
}

static int encode(enc_t *e, const cprof_profile_t *p, const cprof_export_opts_t *o, uint32_t *next,
                  uint32_t max_samples) {
  int rc;
  if ((rc = put_header(e, p, o)) != 0) return rc;
  if ((rc = put_mapping(e, o->main)) != 0) return rc;
  if ((rc = put_samples(e, p->kind == CPROF_KIND_CPU, next, max_samples)) != 0) return rc;
  if ((rc = put_functions(e)) != 0) return rc;
  return put_string_table(e);
}

/* The ns per µs of self time: 1000, or less when the written samples'
 * time exceeds o->pprof_cpu_cap_us. */
static double cpu_scale(const enc_t *e) {
  int64_t sum = 0;
  for (uint32_t i = 0; i < e->tree->nnodes; i++)
    if (has_sample(e, i) && e->tree->nodes[i].self[0] > 0) sum += e->tree->nodes[i].self[0];
  int64_t cap = e->o->pprof_cpu_cap_us;
  return cap > 0 && sum > cap ? 1000.0 * (double)cap / (double)sum : 1000.0;
}

/* e->lrows: the joined samples by (tree node, label set). */
static int lrows_build(enc_t *e, const cprof_profile_t *p) {
  uint32_t n = 0;
  if (!e->tree->node_of || e->tree->nnode_of != p->nnodes) return CPROF_EINVAL;
  int rc = cprof_labels_rows(e->o->labels, p, e->tree->node_of, &e->lrows, &n);
  if (rc != CPROF_OK) return rc;
  if (!(e->lfirst = calloc((size_t)e->tree->nnodes + 1, sizeof *e->lfirst))) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < n; i++)
    e->lfirst[e->lrows[i].tnode + 1]++;
  for (uint32_t i = 0; i < e->tree->nnodes; i++)
    e->lfirst[i + 1] += e->lfirst[i];
  return CPROF_OK;
}

static int enc_open(enc_t *e, cprof_analysis_t *a, const cprof_export_opts_t *o) {
  const cprof_profile_t *p = a->p;
  const cprof__tree_t *tree;
  int rc = cprof_analysis_tree(a, &tree);
  if (rc != 0) return rc;
  e->tree = tree;
  e->o = o;
  e->scale = cpu_scale(e);
  e->stack = malloc(((size_t)tree->max_depth + 1) * sizeof(*e->stack));
  e->used = calloc((size_t)tree->nfns + 1, 1);
  e->names = calloc((size_t)tree->nfns + 1, sizeof(*e->names));
  if (!e->stack || !e->used || !e->names) return CPROF_ENOMEM;
  /* Labels win over lines: a Sample has one leaf Location (docs/labels.md). */
  if (o->labels && p->kind == CPROF_KIND_CPU) return lrows_build(e, p);
  if (o->pprof_lines && p->kind == CPROF_KIND_CPU && p->nline_ticks > 0) return plines_build(e, p);
  return 0;
}

/* Empties the encoder for the next part: the Profile, the string table and
 * which functions are used start afresh. */
static void enc_reset(enc_t *e) {
  e->out.len = 0;
  strtab_free(&e->strs);
  memset(&e->strs, 0, sizeof(e->strs));
  memset(e->used, 0, (size_t)e->tree->nfns + 1);
  if (e->lines) memset(e->lines->used, 0, (size_t)e->lines->nlocs + 1);
}

static void enc_close(enc_t *e) {
  for (uint32_t i = 0; e->names && i < e->tree->nfns; i++)
    free(e->names[i]);
  free(e->names);
  plines_free(e->lines);
  free(e->lrows);
  free(e->lfirst);
  cprof__buf_free(&e->lab);
  free(e->stack);
  free(e->used);
  strtab_free(&e->strs);
  cprof__buf_free(&e->out);
  cprof__buf_free(&e->msg);
  cprof__buf_free(&e->ids);
  cprof__buf_free(&e->vals);
}

int cprof__export_pprof(cprof_analysis_t *a, const cprof_export_opts_t *o, FILE *f) {
  enc_t e = {0};
  uint32_t next = 0;
  int rc = enc_open(&e, a, o);
  if (rc == 0) rc = encode(&e, a->p, o, &next, 0);
  if (rc == 0) rc = gzip_to(f, e.out.data, e.out.len);
  if (rc == 0 && (fflush(f) != 0 || ferror(f))) rc = CPROF_EIO;
  enc_close(&e);
  return rc;
}

int cprof_export_pprof(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f) {
  return cprof_analysis_write_once(p, o, f, cprof__export_pprof);
}

/* ---- parts within a server's limits ---- */

static int add_part(cprof_blob_t **parts, size_t *n, const unsigned char *data, size_t len) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  if (f == NULL) return CPROF_ENOMEM;
  int rc = gzip_to(f, data, len);
  if (fclose(f) != 0 && rc == 0) rc = CPROF_ENOMEM;
  cprof_blob_t *grown = rc == 0 ? realloc(*parts, (*n + 1) * sizeof(**parts)) : NULL;
  if (grown == NULL) {
    free(buf);
    return rc ? rc : CPROF_ENOMEM;
  }
  *parts = grown;
  grown[(*n)++] = (cprof_blob_t){.data = (unsigned char *)buf, .len = size};
  return 0;
}

/* The first node from i on that put_samples would write, or nnodes. */
static uint32_t next_sample(const enc_t *e, uint32_t i) {
  while (i < e->tree->nnodes && !has_sample(e, i))
    i++;
  return i;
}

/* Each part is a whole Profile (header, mapping, its samples' functions and
 * strings); a part too large for max_bytes is encoded again with half the
 * samples, down to one. */
static int split(enc_t *e, const cprof_profile_t *p, const cprof_export_opts_t *o,
                 uint32_t max_samples, size_t max_bytes, cprof_blob_t **parts, size_t *n) {
  uint32_t start = 0, limit = max_samples;
  int rc = 0;
  do {
    uint32_t next = start;
    enc_reset(e);
    if ((rc = encode(e, p, o, &next, limit)) != 0) return rc;
    uint32_t taken = 0;
    if (max_bytes && e->out.len > max_bytes)
      for (uint32_t i = start; i < next; i++)
        taken += has_sample(e, i);
    if (taken > 1) {
      limit = taken / 2;
      continue; /* the same start again, with fewer samples */
    }
    if ((rc = add_part(parts, n, e->out.data, e->out.len)) != 0) return rc;
    start = next_sample(e, next); /* no part without samples after the first */
    limit = max_samples;
  } while (start < e->tree->nnodes);
  return 0;
}

int cprof__export_pprof_parts(cprof_analysis_t *a, const cprof_export_opts_t *o,
                              uint32_t max_samples, size_t max_bytes, cprof_blob_t **parts,
                              size_t *nparts) {
  static const cprof_export_opts_t defaults = {0};
  enc_t e = {0};
  if (a == NULL || a->p == NULL || parts == NULL || nparts == NULL) return CPROF_EINVAL;
  if (o == NULL) o = &defaults;
  *parts = NULL;
  *nparts = 0;
  int rc = enc_open(&e, a, o);
  if (rc == 0) rc = split(&e, a->p, o, max_samples, max_bytes, parts, nparts);
  enc_close(&e);
  if (rc != 0) {
    cprof_blobs_free(*parts, *nparts);
    *parts = NULL;
    *nparts = 0;
  }
  return rc;
}

int cprof_export_pprof_parts(const cprof_profile_t *p, const cprof_export_opts_t *o,
                             uint32_t max_samples, size_t max_bytes, cprof_blob_t **parts,
                             size_t *nparts) {
  cprof_analysis_t a;
  cprof_analysis_init(&a, p);
  int rc =
      p ? cprof__export_pprof_parts(&a, o, max_samples, max_bytes, parts, nparts) : CPROF_EINVAL;
  cprof_analysis_free(&a);
  return rc;
}

void cprof_blobs_free(cprof_blob_t *parts, size_t n) {
  for (size_t i = 0; parts && i < n; i++)
    free(parts[i].data);
  free(parts);
}

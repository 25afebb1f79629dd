/* cprof snapshot diff A B [C] (heapsnapshot.h): the snapshots analysed one
 * after another, each freed before the next is read. Between them only
 * what the diff needs is kept: the previous snapshot's object ids (sorted,
 * with a tag of each object's type and name, to see whether the ids line
 * up), the class tables of A and B, the ids of B's new objects when C
 * follows, and the JSON rows already made.
 *
 * V8 keeps an object's id across the snapshots of one process (it tracks
 * moves once a snapshot was taken), so "new in B" is "id not in A", and
 * memlab's method (objects allocated between A and B and still alive in C
 * are the leak) is "id in B's new set and in C". Ids come from the file:
 * nothing assumes them unique or sorted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "heapsnapshot.h"
#include "internal.h"
#include "snapshot.h"

#define NOMEM() cprof__errf(errbuf, errlen, CPROF_ENOMEM, "out of memory diffing heap snapshots")
#define LETTER(i) ("ABC"[i])

/* ---- ids ---- */

typedef struct {
  uint32_t id, tag; /* tag: a hash of the object's type and name */
} idtag_t;

typedef struct {
  idtag_t *v;
  uint32_t n;
  uint32_t top; /* the largest id of an object or closure (ids_in_order) */
} ids_t;

static int by_id(const void *a, const void *b) {
  const idtag_t *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* The first entry with this id, or NULL. */
static const idtag_t *ids_find(const ids_t *ids, uint32_t id) {
  uint32_t lo = 0, hi = ids->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (ids->v[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ids->n && ids->v[lo].id == id ? &ids->v[lo] : NULL;
}

/* Tags hash the type's and the name's text (string indexes differ between
 * snapshots); each name string is hashed once. */
typedef struct {
  const cprof__snap_t *s;
  uint32_t *str_hash; /* str_count: 0 not yet */
} tagger_t;

static uint32_t tag(tagger_t *t, uint32_t n) {
  const cprof__snap_t *s = t->s;
  uint32_t name = cprof__snap_nname(s, n), type = cprof__snap_ntype(s, n);
  if (t->str_hash[name] == 0)
    t->str_hash[name] = (uint32_t)cprof__hash_str(CPROF__HASH_SEED, cprof__snap_str(s, name)) | 1;
  return t->str_hash[name] ^ (uint32_t)cprof__hash_str(CPROF__HASH_SEED, s->ntypes.names[type]);
}

/* Objects and closures: the nodes whose ids the checks below trust (a
 * string's or an array's type and name can change in place, a cons string
 * flattened, a backing store retagged; native nodes take their ids from
 * another, higher range). */
static int js_object(const cprof__snap_t *s, uint32_t n) {
  uint32_t type = cprof__snap_ntype(s, n);
  return type == s->t_object || type == s->t_closure;
}

static int ids_take(const cprof__snap_t *s, ids_t *out) {
  tagger_t t = {s, calloc(s->str_count ? s->str_count : 1, sizeof(uint32_t))};
  out->v = malloc((s->node_count ? s->node_count : 1) * sizeof *out->v);
  out->n = s->node_count;
  if (t.str_hash == NULL || out->v == NULL) {
    free(t.str_hash), free(out->v);
    out->v = NULL;
    return CPROF_ENOMEM;
  }
  out->top = 0;
  for (uint32_t i = 0; i < s->node_count; i++) {
    out->v[i] = (idtag_t){cprof__snap_nid(s, i), tag(&t, i)};
    if (js_object(s, i) && out->v[i].id > out->top) out->top = out->v[i].id;
  }
  free(t.str_hash);
  qsort(out->v, out->n, sizeof *out->v, by_id);
  return CPROF_OK;
}

/* Whether s's ids are the previous snapshot's: in one process an id found
 * in both is one object (or closure), of one type and name. Snapshots of two processes
 * (even of one app, whose start-up objects get the same ids) disagree on
 * a few percent of them. A warning in warnings when not. */
static int ids_line_up(const cprof__snap_t *s, const ids_t *prev, unsigned i, cJSON *warnings) {
  tagger_t t = {s, calloc(s->str_count ? s->str_count : 1, sizeof(uint32_t))};
  if (t.str_hash == NULL) return CPROF_ENOMEM;
  uint64_t common = 0, differ = 0;
  for (uint32_t n = 0; n < s->node_count; n++) {
    if (!js_object(s, n)) continue;
    const idtag_t *p = ids_find(prev, cprof__snap_nid(s, n));
    if (p == NULL) continue;
    common++;
    uint32_t mine = tag(&t, n), id = p->id;
    for (differ++; p < prev->v + prev->n && p->id == id; p++)
      if (p->tag == mine) {
        differ--;
        break;
      }
  }
  free(t.str_hash);
  char msg[400] = "";
  if (common == 0)
    snprintf(msg, sizeof msg,
             "no object id of %c is in %c: these are not snapshots of one process, and every "
             "object of %c counts as new",
             LETTER(i - 1), LETTER(i), LETTER(i));
  else if (differ * 100 > common)
    snprintf(msg, sizeof msg,
             "the object ids of %c and %c do not line up: %llu of the %llu ids found in both name "
             "objects of another type or name (in one process an id stays with its object): "
             "snapshots of different processes?",
             LETTER(i - 1), LETTER(i), (unsigned long long)differ, (unsigned long long)common);
  if (msg[0] && !cJSON_AddItemToArray(warnings, cJSON_CreateString(msg))) return CPROF_ENOMEM;
  return CPROF_OK;
}

/* Whether s (snapshot i) was taken after the previous one, once their
 * ids line up: V8 hands out ids in increasing order over a process's life,
 * so the objects of a later snapshot that the earlier one lacks have ids
 * above all of the earlier one's objects', while in the wrong order those
 * objects (dead by the later one) have ids below its largest. Objects and
 * closures only (js_object). A warning in warnings when most are below. */
static int ids_in_order(const cprof__snap_t *s, const ids_t *prev, unsigned i, cJSON *warnings) {
  uint64_t fresh = 0, below = 0;
  for (uint32_t n = 0; n < s->node_count; n++) {
    uint32_t id = cprof__snap_nid(s, n);
    if (!js_object(s, n) || ids_find(prev, id) != NULL) continue;
    fresh++;
    below += id < prev->top;
  }
  if (below * 2 <= fresh) return CPROF_OK;
  char msg[400];
  snprintf(msg, sizeof msg,
           "%c looks older than %c: %llu of the %llu objects of %c that %c lacks have ids below "
           "%c's largest, and V8's ids only grow over a process's life: give the snapshots "
           "oldest first",
           LETTER(i), LETTER(i - 1), (unsigned long long)below, (unsigned long long)fresh,
           LETTER(i), LETTER(i - 1), LETTER(i - 1));
  return cJSON_AddItemToArray(warnings, cJSON_CreateString(msg)) ? CPROF_OK : CPROF_ENOMEM;
}

/* ---- classes: A's and B's, joined by name ---- */

typedef struct {
  char *name;
  uint32_t count;
  uint64_t self, retained;
} dclass_t;

typedef struct {
  dclass_t *v;
  uint32_t n;
} classes_t;

static void classes_free(classes_t *c) {
  for (uint32_t i = 0; c->v != NULL && i < c->n; i++)
    free(c->v[i].name);
  free(c->v);
  c->v = NULL;
  c->n = 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const dclass_t *)a)->name, ((const dclass_t *)b)->name);
}

/* The classes by name, their names copied: they outlive the snapshot. Two
 * classes of one name (a name string written twice) are one. */
static int classes_take(const cprof__snap_t *s, classes_t *out) {
  cprof__snap_class_t *cls = NULL;
  uint32_t n = 0, m = 0;
  char buf[300];
  if (cprof__snap_classes(s, &cls, &n) != CPROF_OK) return CPROF_ENOMEM;
  out->v = calloc(n ? n : 1, sizeof *out->v);
  for (uint32_t i = 0; out->v != NULL && i < n; i++, out->n++) {
    const char *name = cprof__snap_class_name(s, cls[i].key, buf, sizeof buf);
    size_t len = strlen(name) + 1;
    if ((out->v[i].name = malloc(len)) == NULL) break;
    memcpy(out->v[i].name, name, len);
    out->v[i].count = cls[i].count, out->v[i].self = cls[i].self;
    out->v[i].retained = cls[i].retained;
  }
  free(cls);
  if (out->v == NULL || out->n < n) return CPROF_ENOMEM;
  qsort(out->v, n, sizeof *out->v, by_name);
  for (uint32_t i = 0; i < n; i++) {
    dclass_t *last = m ? &out->v[m - 1] : NULL;
    if (last && strcmp(last->name, out->v[i].name) == 0) {
      last->count += out->v[i].count, last->self += out->v[i].self;
      last->retained += out->v[i].retained;
      free(out->v[i].name);
    } else {
      out->v[m++] = out->v[i];
    }
  }
  out->n = m;
  return CPROF_OK;
}

typedef struct {
  const dclass_t *a, *b; /* NULL: not in that snapshot */
  int64_t count, self, retained;
} row_t;

static int by_growth(const void *x, const void *y) {
  const row_t *a = x, *b = y;
  if (a->self != b->self) return a->self < b->self ? 1 : -1;
  if (a->count != b->count) return a->count < b->count ? 1 : -1;
  return strcmp((a->a ? a->a : a->b)->name, (b->a ? b->a : b->b)->name);
}

static int side(cJSON *o, const char *key, const dclass_t *c) {
  cJSON *x = cJSON_AddObjectToObject(o, key);
  return x && cJSON_AddNumberToObject(x, "count", c ? c->count : 0) &&
         cJSON_AddNumberToObject(x, "selfSize", c ? (double)c->self : 0) &&
         cJSON_AddNumberToObject(x, "retainedSize", c ? (double)c->retained : 0);
}

static int row_json(cJSON *arr, const row_t *r) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL || !cJSON_AddItemToArray(arr, o)) {
    cJSON_Delete(o);
    return 0;
  }
  return cJSON_AddStringToObject(o, "name", (r->a ? r->a : r->b)->name) && side(o, "a", r->a) &&
         side(o, "b", r->b) && cJSON_AddNumberToObject(o, "countDelta", (double)r->count) &&
         cJSON_AddNumberToObject(o, "selfSizeDelta", (double)r->self) &&
         cJSON_AddNumberToObject(o, "retainedSizeDelta", (double)r->retained);
}

static row_t join(const dclass_t *a, const dclass_t *b) {
  row_t r = {a, b, 0, 0, 0};
  if (b) r.count += b->count, r.self += (int64_t)b->self, r.retained += (int64_t)b->retained;
  if (a) r.count -= a->count, r.self -= (int64_t)a->self, r.retained -= (int64_t)a->retained;
  return r;
}

/* The classes that changed, by growth, at most top. NULL out of memory. */
static cJSON *classes_json(const classes_t *a, const classes_t *b, unsigned top) {
  row_t *rows = malloc(((size_t)a->n + b->n + 1) * sizeof *rows);
  cJSON *arr = rows ? cJSON_CreateArray() : NULL;
  uint32_t i = 0, j = 0, n = 0;
  while (arr != NULL && (i < a->n || j < b->n)) {
    int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->v[i].name, b->v[j].name);
    row_t r = join(c <= 0 ? &a->v[i] : NULL, c >= 0 ? &b->v[j] : NULL);
    i += c <= 0, j += c >= 0;
    if (r.count || r.self || r.retained) rows[n++] = r;
  }
  if (arr != NULL) qsort(rows, n, sizeof *rows, by_growth);
  for (uint32_t k = 0; arr != NULL && k < n && k < top; k++)
    if (!row_json(arr, &rows[k])) {
      cJSON_Delete(arr);
      arr = NULL;
    }
  free(rows);
  return arr;
}

/* ---- the run ---- */

typedef struct {
  unsigned n, top;
  ids_t prev;  /* the previous snapshot's ids */
  ids_t fresh; /* with C: the ids of B's new objects */
  classes_t cls[2];
  cJSON *snaps, *added, *leaked, *warnings;
} diff_t;

static int summary(cJSON *snaps, const cprof__snap_t *s) {
  uint64_t objects = 0, self = 0;
  for (uint32_t i = 0; i < s->node_count; i++)
    if (cprof__snap_counted(s, i)) objects++, self += cprof__snap_self(s, i);
  cJSON *o = cJSON_CreateObject();
  if (o == NULL || !cJSON_AddItemToArray(snaps, o)) {
    cJSON_Delete(o);
    return CPROF_ENOMEM;
  }
  return cJSON_AddNumberToObject(o, "nodes", s->node_count) &&
                 cJSON_AddNumberToObject(o, "edges", s->edge_count) &&
                 cJSON_AddNumberToObject(o, "totalSize", (double)s->retained[s->root]) &&
                 cJSON_AddNumberToObject(o, "objects", (double)objects) &&
                 cJSON_AddNumberToObject(o, "selfSize", (double)self)
             ? CPROF_OK
             : CPROF_ENOMEM;
}

/* B's objects whose id is not A's; with C to come, their ids kept. */
static int mark_added(diff_t *d, const cprof__snap_t *s, uint32_t *group_of) {
  uint32_t m = 0;
  for (uint32_t i = 0; i < s->node_count; i++) {
    uint32_t id = cprof__snap_nid(s, i);
    int added = cprof__snap_counted(s, i) && ids_find(&d->prev, id) == NULL;
    group_of[i] = added ? 0 : CPROF__SNAP_NONE;
    m += added;
  }
  if (d->n < 3) return CPROF_OK;
  if ((d->fresh.v = malloc((m ? m : 1) * sizeof *d->fresh.v)) == NULL) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < s->node_count; i++)
    if (group_of[i] != CPROF__SNAP_NONE)
      d->fresh.v[d->fresh.n++] = (idtag_t){cprof__snap_nid(s, i), 0};
  qsort(d->fresh.v, d->fresh.n, sizeof *d->fresh.v, by_id);
  return CPROF_OK;
}

/* C's objects whose id is one of B's new objects'. */
static void mark_leaked(const diff_t *d, const cprof__snap_t *s, uint32_t *group_of) {
  for (uint32_t i = 0; i < s->node_count; i++)
    group_of[i] = cprof__snap_counted(s, i) && ids_find(&d->fresh, cprof__snap_nid(s, i)) != NULL
                      ? 0
                      : CPROF__SNAP_NONE;
}

/* What snapshot i gives the diff, before it is freed. */
static int take(diff_t *d, unsigned i, const cprof__snap_t *s) {
  int rc = summary(d->snaps, s);
  int warned = cJSON_GetArraySize(d->warnings);
  if (rc == CPROF_OK && i > 0) rc = ids_line_up(s, &d->prev, i, d->warnings);
  /* the order says something only of snapshots of one process */
  if (rc == CPROF_OK && i > 0 && cJSON_GetArraySize(d->warnings) == warned)
    rc = ids_in_order(s, &d->prev, i, d->warnings);
  if (rc == CPROF_OK && i < 2) rc = classes_take(s, &d->cls[i]);
  if (rc == CPROF_OK && i > 0) {
    uint32_t *group_of = malloc((s->node_count ? s->node_count : 1) * sizeof *group_of);
    if (group_of == NULL) return CPROF_ENOMEM;
    if (i == 1)
      rc = mark_added(d, s, group_of);
    else
      mark_leaked(d, s, group_of);
    cJSON **to = i == 1 ? &d->added : &d->leaked;
    if (rc == CPROF_OK && (*to = cprof__snap_groups_json(s, group_of, d->top)) == NULL)
      rc = CPROF_ENOMEM;
    free(group_of);
  }
  if (rc == CPROF_OK && i + 1 < d->n) {
    free(d->prev.v);
    d->prev.v = NULL;
    rc = ids_take(s, &d->prev);
  }
  return rc;
}

static char *render(diff_t *d) {
  cJSON *doc = cJSON_CreateObject(), *cls = classes_json(&d->cls[0], &d->cls[1], d->top);
  char *text = NULL;
  if (doc != NULL && cls != NULL) {
    cJSON_AddItemToObject(doc, "snapshots", d->snaps);
    cJSON_AddItemToObject(doc, "classes", cls);
    cJSON_AddItemToObject(doc, "added", d->added);
    if (d->leaked) cJSON_AddItemToObject(doc, "leaked", d->leaked);
    cJSON_AddItemToObject(doc, "warnings", d->warnings);
    d->snaps = d->added = d->leaked = d->warnings = cls = NULL;
    text = cJSON_PrintUnformatted(doc);
  }
  cJSON_Delete(cls);
  cJSON_Delete(doc);
  return text;
}

/* A snapshot's read error says which file. */
static int named(const cprof__snap_source_t *src, unsigned i, int rc, char *errbuf, size_t errlen) {
  if (rc != CPROF_EPARSE && rc != CPROF_ESCHEMA) return rc;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", errbuf);
  return cprof__errf(errbuf, errlen, rc, "%s is not a readable V8 heap snapshot: %s",
                     src->label(src->ctx, i), msg);
}

static int run(diff_t *d, const cprof__snap_source_t *src, char **out, char *errbuf,
               size_t errlen) {
  int rc = CPROF_OK;
  for (unsigned i = 0; rc == CPROF_OK && i < d->n; i++) {
    cprof__snap_t s;
    rc = src->load(src->ctx, i, &s, errbuf, errlen);
    if (rc != CPROF_OK)
      rc = named(src, i, rc, errbuf, errlen);
    else if ((rc = take(d, i, &s)) != CPROF_OK)
      rc = NOMEM();
    cprof__snap_free(&s);
    src->done(src->ctx, i);
  }
  if (rc == CPROF_OK && (*out = render(d)) == NULL) rc = NOMEM();
  return rc;
}

int cprof__snap_diff(const cprof__snap_source_t *src, unsigned n, unsigned top, char **out,
                     char *errbuf, size_t errlen) {
  *out = NULL;
  if (n < 2 || n > 3)
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "a diff takes 2 or 3 snapshots, not %u", n);
  if (top == 0 || top > CPROF_SNAPSHOT_TOP_MAX)
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "top must be 1 to %d", CPROF_SNAPSHOT_TOP_MAX);
  diff_t d = {.n = n, .top = top, .snaps = cJSON_CreateArray(), .warnings = cJSON_CreateArray()};
  int rc = d.snaps && d.warnings ? run(&d, src, out, errbuf, errlen) : NOMEM();
  free(d.prev.v), free(d.fresh.v);
  classes_free(&d.cls[0]), classes_free(&d.cls[1]);
  cJSON_Delete(d.snaps), cJSON_Delete(d.added), cJSON_Delete(d.leaked);
  cJSON_Delete(d.warnings);
  return rc;
}

/* ---- snapshots in memory ---- */

typedef struct {
  const char *const *texts;
  const size_t *lens;
} texts_t;

static int text_load(void *ctx, unsigned i, cprof__snap_t *s, char *errbuf, size_t errlen) {
  const texts_t *t = ctx;
  return cprof__snap_analyse(t->texts[i], t->lens[i], NULL, s, errbuf, errlen);
}

static void text_done(void *ctx, unsigned i) {
  (void)ctx, (void)i;
}

static const char *text_label(void *ctx, unsigned i) {
  (void)ctx;
  static const char *const labels[] = {"snapshot A", "snapshot B", "snapshot C"};
  return labels[i];
}

int cprof_snapshot_diff(const char *const *texts, const size_t *lens, unsigned n, unsigned top,
                        char **out, char *errbuf, size_t errlen) {
  texts_t t = {texts, lens};
  cprof__snap_source_t src = {text_load, text_done, text_label, &t};
  return cprof__snap_diff(&src, n, top, out, errbuf, errlen);
}

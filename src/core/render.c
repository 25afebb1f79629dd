/* Shared by the derived-format writers: buffer, protobuf and XML encoders,
 * frame labels and kinds, and the function tree (see render.h). */
#include "render.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fsutil.h"
#include "internal.h"

/* ---- growable buffer ---- */

int cprof__buf_put(cprof__buf_t *b, const void *data, size_t n) {
  if (b->oom) return CPROF_ENOMEM;
  if (n > SIZE_MAX - b->len) {
    b->oom = 1;
    return CPROF_ENOMEM;
  }
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
      cap = cap > SIZE_MAX / 2 ? b->len + n : cap * 2;
    unsigned char *d = realloc(b->data, cap);
    if (d == NULL) {
      b->oom = 1;
      return CPROF_ENOMEM;
    }
    b->data = d;
    b->cap = cap;
  }
  if (n > 0) memcpy(b->data + b->len, data, n);
  b->len += n;
  return CPROF_OK;
}

void cprof__buf_free(cprof__buf_t *b) {
  free(b->data);
  *b = (cprof__buf_t){0};
}

/* ---- protobuf ---- */

size_t cprof__pb_varint(unsigned char *out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (unsigned char)v;
  return n;
}

int cprof__pb_put_varint(cprof__buf_t *b, uint64_t v) {
  unsigned char tmp[10];
  return cprof__buf_put(b, tmp, cprof__pb_varint(tmp, v));
}

int cprof__pb_put_tag(cprof__buf_t *b, uint32_t field, unsigned wire) {
  return cprof__pb_put_varint(b, ((uint64_t)field << 3) | (wire & 7u));
}

int cprof__pb_put_int(cprof__buf_t *b, uint32_t field, uint64_t v) {
  if (v == 0) return CPROF_OK;
  int rc = cprof__pb_put_tag(b, field, 0);
  return rc ? rc : cprof__pb_put_varint(b, v);
}

int cprof__pb_put_bytes(cprof__buf_t *b, uint32_t field, const void *data, size_t n) {
  int rc = cprof__pb_put_tag(b, field, 2);
  if (rc == 0) rc = cprof__pb_put_varint(b, n);
  return rc ? rc : cprof__buf_put(b, data, n);
}

/* ---- UTF-8 and XML ---- */

/* Decodes one code point at s; returns its byte length, or 0 when the
 * sequence is not valid UTF-8 (overlong, surrogate, out of range, cut). */
static size_t utf8_next(const unsigned char *s, uint32_t *cp) {
  unsigned char c = s[0];
  size_t n;
  uint32_t v, min;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if ((c & 0xE0) == 0xC0) {
    n = 2, v = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, v = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0; /* also stops at the terminator */
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

size_t cprof__utf8_len(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t count = 0;
  uint32_t cp;
  while (*u) {
    size_t n = utf8_next(u, &cp);
    u += n ? n : 1;
    count++;
  }
  return count;
}

const char *cprof__utf8_skip(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  uint32_t cp;
  for (; *u && n > 0; n--) {
    size_t k = utf8_next(u, &cp);
    u += k ? k : 1;
  }
  return (const char *)u;
}

int cprof__xml_put(FILE *f, const char *s, size_t max_chars) {
  const unsigned char *u = (const unsigned char *)s;
  size_t written = 0;
  uint32_t cp;
  while (*u && written < max_chars) {
    size_t n = utf8_next(u, &cp);
    const char *rep = NULL;
    if (n == 0 || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE ||
        cp == 0xFFFF)
      rep = "\xEF\xBF\xBD"; /* U+FFFD */
    else if (cp == '&')
      rep = "&amp;";
    else if (cp == '<')
      rep = "&lt;";
    else if (cp == '>')
      rep = "&gt;";
    else if (cp == '"')
      rep = "&quot;";
    else if (cp == '\'')
      rep = "&#39;";
    else if (cp == '\n')
      rep = "&#10;"; /* kept in attributes too */
    if (rep != NULL) {
      if (fputs(rep, f) == EOF) return CPROF_EIO;
    } else if (fwrite(u, 1, n, f) != n) {
      return CPROF_EIO;
    }
    u += n ? n : 1;
    written++;
  }
  return CPROF_OK;
}

/* ---- frames ---- */

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

cprof__kind_t cprof__frame_kind(const cprof_frame_t *f) {
  if (f->url[0] == '\0')
    return strcmp(f->name, "(idle)") == 0 ? CPROF__KIND_IDLE : CPROF__KIND_NATIVE;
  if (starts_with(f->url, "node:") || starts_with(f->url, "internal/")) return CPROF__KIND_NODE;
  if (strstr(f->url, "/node_modules/") != NULL || strstr(f->url, "\\node_modules\\") != NULL)
    return CPROF__KIND_DEPS;
  return CPROF__KIND_APP;
}

const char *cprof__short_url(const char *url) {
  if (starts_with(url, "file://")) return url + 7;
  return url;
}

char *cprof__frame_label(const cprof_frame_t *f) {
  const char *name = f->name[0] ? f->name : "(anonymous)";
  const char *path = cprof__short_url(f->url);
  size_t n = strlen(name) + strlen(path) + 32;
  char *s = malloc(n);
  if (s == NULL) return NULL;
  if (f->url[0] == '\0')
    snprintf(s, n, "%s", name);
  else if (f->line >= 0)
    snprintf(s, n, "%s (%s:%" PRId32 ")", name, path, f->line + 1);
  else
    snprintf(s, n, "%s (%s)", name, path);
  return s;
}

/* ---- function tree ---- */

/* Open-addressing tables: fns by identity, children by (parent, fn). */
struct cprof__tindex_s {
  uint32_t *fn_slots; /* fn index + 1, 0 = empty */
  uint32_t fn_mask;
  uint32_t *kid_slots; /* node index + 1, 0 = empty; key read from the node */
  uint32_t kid_mask;
};

static uint32_t fn_hash(const cprof_frame_t *f) {
  uint64_t h = cprof__hash_str(CPROF__HASH_SEED, f->name);
  h = cprof__hash_str(h, f->url);
  h = cprof__hash_bytes(h, &f->line, sizeof(f->line));
  h = cprof__hash_bytes(h, &f->column, sizeof(f->column));
  return (uint32_t)(h ^ (h >> 32));
}

static int fn_eq(const cprof_frame_t *a, const cprof_frame_t *b) {
  return a->line == b->line && a->column == b->column && strcmp(a->name, b->name) == 0 &&
         strcmp(a->url, b->url) == 0;
}

static uint32_t kid_hash(uint32_t parent, uint32_t fn) {
  uint64_t k = ((uint64_t)parent << 32) | fn;
  k *= UINT64_C(0x9E3779B97F4A7C15);
  return (uint32_t)(k >> 32);
}

/* Grows a table to hold want entries at load <= 1/2. */
static int table_fit(uint32_t **slots, uint32_t *mask, uint32_t want) {
  uint64_t cap = 16;
  while (cap < (uint64_t)want * 2)
    cap *= 2;
  if (*slots != NULL && cap <= (uint64_t)*mask + 1) return 0;
  if (cap > UINT32_MAX) return CPROF_ENOMEM;
  uint32_t *s = calloc((size_t)cap, sizeof(*s));
  if (s == NULL) return CPROF_ENOMEM;
  free(*slots);
  *slots = s;
  *mask = (uint32_t)(cap - 1);
  return 1; /* rehash needed */
}

static void rehash(cprof__tree_t *t, int fns, int kids) {
  struct cprof__tindex_s *ix = t->index;
  if (fns)
    for (uint32_t i = 0; i < t->nfns; i++) {
      uint32_t j = fn_hash(t->fns[i].frame) & ix->fn_mask;
      while (ix->fn_slots[j] != 0)
        j = (j + 1) & ix->fn_mask;
      ix->fn_slots[j] = i + 1;
    }
  if (kids)
    for (uint32_t i = 1; i < t->nnodes; i++) {
      uint32_t j = kid_hash(t->nodes[i].parent, t->nodes[i].fn) & ix->kid_mask;
      while (ix->kid_slots[j] != 0)
        j = (j + 1) & ix->kid_mask;
      ix->kid_slots[j] = i + 1;
    }
}

/* Makes room for more functions and nodes before an add. */
static int tree_reserve(cprof__tree_t *t, uint32_t more_fns, uint32_t more_nodes) {
  struct cprof__tindex_s *ix = t->index;
  uint64_t want_fns = (uint64_t)t->nfns + more_fns, want_nodes = (uint64_t)t->nnodes + more_nodes;
  if (want_fns >= UINT32_MAX / 4 || want_nodes >= UINT32_MAX / 4) return CPROF_ENOMEM;
  if (want_fns > t->fns_cap) {
    cprof__fn_t *f = realloc(t->fns, (size_t)want_fns * sizeof(*f));
    if (f == NULL) return CPROF_ENOMEM;
    t->fns = f;
    t->fns_cap = (uint32_t)want_fns;
  }
  if (want_nodes > t->nodes_cap) {
    cprof__tnode_t *n = realloc(t->nodes, (size_t)want_nodes * sizeof(*n));
    if (n == NULL) return CPROF_ENOMEM;
    t->nodes = n;
    t->nodes_cap = (uint32_t)want_nodes;
  }
  int r1 = table_fit(&ix->fn_slots, &ix->fn_mask, (uint32_t)want_fns);
  if (r1 < 0) return r1;
  int r2 = table_fit(&ix->kid_slots, &ix->kid_mask, (uint32_t)want_nodes);
  if (r2 < 0) return r2;
  rehash(t, r1, r2);
  return 0;
}

static int fn_of(cprof__tree_t *t, const cprof_frame_t *fr, uint32_t *out) {
  struct cprof__tindex_s *ix = t->index;
  uint32_t j = fn_hash(fr) & ix->fn_mask;
  while (ix->fn_slots[j] != 0 && !fn_eq(t->fns[ix->fn_slots[j] - 1].frame, fr))
    j = (j + 1) & ix->fn_mask;
  if (ix->fn_slots[j] == 0) {
    cprof__fn_t *fn = &t->fns[t->nfns];
    fn->frame = fr;
    fn->kind = cprof__frame_kind(fr);
    if ((fn->label = cprof__frame_label(fr)) == NULL) return CPROF_ENOMEM;
    ix->fn_slots[j] = ++t->nfns;
  }
  *out = ix->fn_slots[j] - 1;
  return 0;
}

static uint32_t new_node(cprof__tree_t *t, uint32_t parent, uint32_t fn) {
  uint32_t i = t->nnodes++;
  cprof__tnode_t *n = &t->nodes[i];
  *n = (cprof__tnode_t){.fn = fn,
                        .parent = parent,
                        .first_child = CPROF_NONE,
                        .next_sibling = CPROF_NONE,
                        .depth = parent == CPROF_NONE ? 0 : t->nodes[parent].depth + 1};
  if (parent != CPROF_NONE) { /* unsorted until finish: prepend */
    n->next_sibling = t->nodes[parent].first_child;
    t->nodes[parent].first_child = i;
    if (n->depth > t->max_depth) t->max_depth = n->depth;
  }
  return i;
}

static uint32_t child_of(cprof__tree_t *t, uint32_t parent, uint32_t fn) {
  struct cprof__tindex_s *ix = t->index;
  uint32_t j = kid_hash(parent, fn) & ix->kid_mask;
  for (; ix->kid_slots[j] != 0; j = (j + 1) & ix->kid_mask) {
    const cprof__tnode_t *n = &t->nodes[ix->kid_slots[j] - 1];
    if (n->parent == parent && n->fn == fn) return ix->kid_slots[j] - 1;
  }
  uint32_t i = new_node(t, parent, fn);
  ix->kid_slots[j] = i + 1;
  return i;
}

static int tree_fill(cprof__tree_t *t, const cprof_profile_t *p, int slot, uint32_t *frame_fn,
                     uint32_t *node_map) {
  int rc;
  for (uint32_t i = 0; i < p->nframes; i++)
    if ((rc = fn_of(t, &p->frames[i], &frame_fn[i])) != 0) return rc;
  if (t->nnodes == 0) new_node(t, CPROF_NONE, frame_fn[p->nodes[0].frame]);
  node_map[0] = 0;
  for (uint32_t i = 1; i < p->nnodes; i++)
    node_map[i] = child_of(t, node_map[p->nodes[i].parent], frame_fn[p->nodes[i].frame]);
  for (uint32_t i = 0; i < p->nnodes; i++) {
    cprof__tnode_t *n = &t->nodes[node_map[i]];
    n->self[slot] = cprof__sat_add(n->self[slot], p->nodes[i].self);
  }
  for (uint32_t i = 0; i < p->nsamples; i++)
    t->nodes[node_map[p->samples[i]]].count[slot]++;
  t->samples[slot] += p->nsamples;
  return 0;
}

int cprof__tree_add(cprof__tree_t *t, const cprof_profile_t *p, int slot) {
  if (t == NULL || p == NULL || slot < 0 || slot > 1 || cprof__check_model(p) != 0)
    return CPROF_EINVAL;
  if (t->nnodes > 0 && t->kind != p->kind) return CPROF_EINVAL;
  t->kind = p->kind;
  if (t->index == NULL && (t->index = calloc(1, sizeof(*t->index))) == NULL) return CPROF_ENOMEM;
  int rc = tree_reserve(t, p->nframes, p->nnodes);
  if (rc != 0) return rc;
  uint32_t *frame_fn = malloc(((size_t)p->nframes + 1) * sizeof(*frame_fn));
  uint32_t *node_map = malloc((size_t)p->nnodes * sizeof(*node_map));
  rc = frame_fn && node_map ? tree_fill(t, p, slot, frame_fn, node_map) : CPROF_ENOMEM;
  free(frame_fn);
  free(node_map);
  return rc;
}

typedef struct {
  const char *label;
  uint32_t fn;
  uint32_t node;
} kid_t;

static int kid_cmp(const void *va, const void *vb) {
  const kid_t *a = va, *b = vb;
  int c = strcmp(a->label, b->label);
  if (c != 0) return c;
  return a->fn < b->fn ? -1 : a->fn > b->fn;
}

int cprof__tree_finish(cprof__tree_t *t) {
  if (t->index != NULL) {
    free(t->index->fn_slots);
    free(t->index->kid_slots);
    free(t->index);
    t->index = NULL;
  }
  if (t->nnodes == 0) return CPROF_EINVAL;
  kid_t *kids = malloc((size_t)t->nnodes * sizeof(*kids));
  if (kids == NULL) return CPROF_ENOMEM;
  for (uint32_t i = 0; i < t->nnodes; i++) {
    uint32_t n = 0;
    for (uint32_t c = t->nodes[i].first_child; c != CPROF_NONE; c = t->nodes[c].next_sibling)
      kids[n++] = (kid_t){t->fns[t->nodes[c].fn].label, t->nodes[c].fn, c};
    if (n < 2) continue;
    qsort(kids, n, sizeof(*kids), kid_cmp);
    t->nodes[i].first_child = kids[0].node;
    for (uint32_t k = 0; k < n; k++)
      t->nodes[kids[k].node].next_sibling = k + 1 < n ? kids[k + 1].node : CPROF_NONE;
  }
  free(kids);
  t->total[0] = t->total[1] = 0;
  for (uint32_t i = 0; i < t->nnodes; i++)
    for (int s = 0; s < 2; s++) {
      t->nodes[i].total[s] = t->nodes[i].self[s];
      t->total[s] = cprof__sat_add(t->total[s], t->nodes[i].self[s]);
    }
  for (uint32_t i = t->nnodes; i-- > 1;)
    for (int s = 0; s < 2; s++) {
      cprof__tnode_t *parent = &t->nodes[t->nodes[i].parent];
      parent->total[s] = cprof__sat_add(parent->total[s], t->nodes[i].total[s]);
    }
  return 0;
}

void cprof__tree_free(cprof__tree_t *t) {
  if (t == NULL) return;
  for (uint32_t i = 0; i < t->nfns; i++)
    free(t->fns[i].label);
  free(t->fns);
  free(t->nodes);
  if (t->index != NULL) {
    free(t->index->fn_slots);
    free(t->index->kid_slots);
    free(t->index);
  }
  *t = (cprof__tree_t){0};
}

int cprof__tree_build(cprof__tree_t *t, const cprof_profile_t *p) {
  *t = (cprof__tree_t){0};
  int rc = cprof__tree_add(t, p, 0);
  if (rc == 0) rc = cprof__tree_finish(t);
  if (rc != 0) cprof__tree_free(t);
  return rc;
}

uint32_t cprof__tree_find_fns(const cprof__tree_t *t, const char *name, uint32_t *out,
                              uint32_t max) {
  uint32_t n = 0;
  for (int pass = 0; pass < 2 && n == 0; pass++)
    for (uint32_t i = 0; i < t->nfns && n < max; i++) {
      const cprof_frame_t *f = t->fns[i].frame;
      const char *display = f->name[0] ? f->name : "(anonymous)";
      if (pass == 0 ? strcmp(display, name) == 0 : strstr(t->fns[i].label, name) != NULL)
        out[n++] = i;
    }
  return n;
}

/* ---- numbers ---- */

void cprof__fmt_value(char *buf, size_t len, cprof_kind_t kind, int64_t v) {
  if (kind == CPROF_KIND_CPU) {
    snprintf(buf, len, "%.2f ms", (double)v / 1000.0);
    return;
  }
  double a = (double)(v < 0 ? -v : v);
  if (a >= 1024.0 * 1024.0 * 1024.0)
    snprintf(buf, len, "%.2f GiB", (double)v / (1024.0 * 1024.0 * 1024.0));
  else if (a >= 1024.0 * 1024.0)
    snprintf(buf, len, "%.2f MiB", (double)v / (1024.0 * 1024.0));
  else if (a >= 1024.0)
    snprintf(buf, len, "%.1f KiB", (double)v / 1024.0);
  else
    snprintf(buf, len, "%" PRId64 " B", v);
}

double cprof__pct(int64_t part, int64_t whole) {
  return whole != 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- formats ---- */

int cprof_export_format(cprof_format_t fmt, const cprof_profile_t *p, const cprof_export_opts_t *o,
                        FILE *f) {
  switch (fmt) {
  case CPROF_FORMAT_PPROF:
    return cprof_export_pprof(p, o, f);
  case CPROF_FORMAT_FOLDED:
    return cprof_export_folded(p, o, f);
  case CPROF_FORMAT_SVG:
    return cprof_export_svg(p, o, f);
  case CPROF_FORMAT_TXT:
    return cprof_report_text(p, o, f);
  case CPROF_FORMAT_HTML:
    return cprof_export_html(p, o, f);
  default:
    return CPROF_EINVAL;
  }
}

const char *cprof_format_ext(cprof_format_t fmt) {
  static const char *ext[CPROF_FORMAT_COUNT] = {"pb.gz", "folded", "svg", "txt", "html"};
  return (unsigned)fmt < CPROF_FORMAT_COUNT ? ext[fmt] : NULL;
}

typedef struct {
  cprof_format_t fmt;
  const cprof_profile_t *p;
  const cprof_export_opts_t *o;
} format_ctx_t;

static int write_format(void *ctx, FILE *f) {
  const format_ctx_t *c = ctx;
  return cprof_export_format(c->fmt, c->p, c->o, f);
}

int cprof_write_format(const char *dir, const char *name, cprof_format_t fmt,
                       const cprof_profile_t *p, const cprof_export_opts_t *o, long long *size_out,
                       char *errbuf, size_t errlen) {
  format_ctx_t c = {fmt, p, o};
  if ((unsigned)fmt >= CPROF_FORMAT_COUNT)
    return cprof__errf(errbuf, errlen, CPROF_EINVAL, "unknown output format %d", (int)fmt);
  return cprof_write_atomic_fn(dir, name, write_format, &c, size_out, errbuf, errlen);
}

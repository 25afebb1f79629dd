/* The self-contained HTML viewer (cprof html, formats: ['html']): the page
 * template (the viewer's JS and CSS, read from the package by the caller)
 * with the profile's function tree as JSON in place of CPROF_HTML_MARKER,
 * inside a <script type="application/json">. The aggregation is the one
 * the SVG and the diff use (tree.h's function tree); the page only draws.
 *
 * The JSON (version 1) is column-wise so 50,000 nodes stay small and parse
 * fast:
 *   { "format": "cprof-viewer", "version": 1, "kind": "cpu"|"heap",
 *     "diff": bool, "title", "unit": "us"|"bytes", "interval", "durationUs",
 *     "startTime" (ms since the epoch, 0 unknown), "includeCollected",
 *     "samples": [before, after], "total": [before, after],
 *     "fns": { "name": [], "url": [], "line": [] (1-based, 0 unknown),
 *              "col": [] (1-based, 0 unknown: where the function starts, which
 *              the source pane reads its whole body from), "kind": [] (cprof__kind_t) },
 *     "nodes": { "fn": [], "depth": [], "self": [], "self1": [] (diff) },
 *     "timeline": (CPU, not a diff, with samples) { "first": µs from startTime
 *       to the first sample, "nodeBits": 16|32, "node": base64,
 *       "weightBits": 16|32, "weight": base64 },
 *     "labels": (with the timeline, when o->labels holds each sample's set)
 *       { "sets": [[key, value, ...], ...] (set 0: none), "setBits": 8|16|32,
 *         "set": base64, each sample's set in sample order },
 *     "marks": (when given) a string holding JSON: an incident's facts }
 * timeline.node is each sample's node (its index in "nodes"), in sample
 * order; timeline.weight the time each stands for (µs, cprof_sample_weight),
 * both as little-endian uint16 when every value fits, else uint32 (a
 * weight over 71 minutes is cut to 2^32 - 1): the page draws time order from them and sums any
 * range. Nodes are in depth-first order, children sorted by label; a node's parent is the closest
 * earlier node one level up. Without a diff only slot 0 is written (self1 is absent, the second
 * samples/total are 0).
 *
 * A CPU profile with V8's positionTicks (not a diff) also carries each
 * function's self time per line (lines.h) and the text of the files those
 * lines are in, read now so the page stays self-contained:
 *     "lines": { "fn": [], "file": [], "line": [], "self": [] } (rows by
 *              function, file, line; file indexes "sources"; line 0: no line),
 *     "sources": { "url": [], "text": [] (null: not read), "why": [] (the reason
 *                 a file is not shown by rule, else null) }
 * Only the files the lines name are read (the frames' scripts, or the
 * originals their source maps name), regular files only, each up to
 * CPROF__SOURCE_MAX and all together up to SOURCES_BUDGET bytes, the
 * files with the most self time first; the rest show as a line table.
 *
 * Every string is escaped so that no profile text can end the script
 * element or start markup: < > & and U+2028/U+2029 become \u escapes and
 * invalid UTF-8 becomes U+FFFD. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "error.h"
#include "export.h"
#include "internal.h"
#include "aggregate.h"
#include "label.h"
#include "labelset.h"
#include "lines.h"
#include "source.h"
#include "tree.h"
#include "xml.h"

/* Used when the caller has no viewer to give: the data still travels. */
static const char FALLBACK_TEMPLATE[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>cprof profile data</title>"
    "</head><body><p>This file holds cprof profile data; open the profile with "
    "<code>cprof html</code> for the viewer.</p>\n"
    "<script type=\"application/json\" id=\"cprof-data\">" CPROF_HTML_MARKER
    "</script></body></html>\n";

/* ---- a buffered writer: one fwrite per 64 KiB ---- */

typedef struct {
  FILE *f;
  int err;
  size_t len;
  char buf[1 << 16];
} hw_t;

static void hw_flush(hw_t *w) {
  if (w->err == 0 && w->len > 0 && fwrite(w->buf, 1, w->len, w->f) != w->len) w->err = CPROF_EIO;
  w->len = 0;
}

static void hw_put(hw_t *w, const char *s, size_t n) {
  if (n > sizeof(w->buf) - w->len) {
    hw_flush(w);
    if (n > sizeof(w->buf)) {
      if (w->err == 0 && fwrite(s, 1, n, w->f) != n) w->err = CPROF_EIO;
      return;
    }
  }
  memcpy(w->buf + w->len, s, n);
  w->len += n;
}

static void hw_str(hw_t *w, const char *s) {
  hw_put(w, s, strlen(s));
}

static void hw_i64(hw_t *w, int64_t v) {
  char tmp[24];
  int n = snprintf(tmp, sizeof(tmp), "%" PRId64, v);
  hw_put(w, tmp, (size_t)n);
}

/* ---- JSON strings safe inside <script> ---- */

static void hw_json_str(hw_t *w, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  char esc[8];
  uint32_t cp;
  hw_put(w, "\"", 1);
  while (*u) {
    size_t n = cprof__utf8_next(u, &cp);
    if (n == 0) {
      hw_put(w, "\\ufffd", 6);
      u++;
      continue;
    }
    if (cp == '"' || cp == '\\') {
      esc[0] = '\\', esc[1] = (char)cp;
      hw_put(w, esc, 2);
    } else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029) {
      snprintf(esc, sizeof(esc), "\\u%04" PRIx32, cp);
      hw_put(w, esc, 6);
    } else {
      hw_put(w, (const char *)u, n);
    }
    u += n;
  }
  hw_put(w, "\"", 1);
}

/* ---- the data ---- */

/* Calls visit(node) in depth-first order, children in their sorted order. */
#define FOR_EACH_PREORDER(t, cur, body)                                                            \
  for (uint32_t cur = 0;;) {                                                                       \
    body;                                                                                          \
    if ((t)->nodes[cur].first_child != CPROF_NONE) {                                               \
      cur = (t)->nodes[cur].first_child;                                                           \
      continue;                                                                                    \
    }                                                                                              \
    while (cur != 0 && (t)->nodes[cur].next_sibling == CPROF_NONE)                                 \
      cur = (t)->nodes[cur].parent;                                                                \
    if (cur == 0) break;                                                                           \
    cur = (t)->nodes[cur].next_sibling;                                                            \
  }

typedef enum { COL_FN, COL_DEPTH, COL_SELF0, COL_SELF1 } col_t;

static void node_column(hw_t *w, const cprof__tree_t *t, col_t col) {
  int first = 1;
  hw_put(w, "[", 1);
  FOR_EACH_PREORDER(t, cur, {
    const cprof__tnode_t *n = &t->nodes[cur];
    if (!first) hw_put(w, ",", 1);
    first = 0;
    hw_i64(w, col == COL_FN      ? n->fn
              : col == COL_DEPTH ? n->depth
              : col == COL_SELF0 ? n->self[0]
                                 : n->self[1]);
  });
  hw_put(w, "]", 1);
}

static void fn_columns(hw_t *w, const cprof__tree_t *t) {
  static const char *const keys[] = {"{\"name\":[", "],\"url\":[", "],\"line\":[", "],\"col\":[",
                                     "],\"kind\":["};
  for (int k = 0; k < 5; k++) {
    hw_str(w, keys[k]);
    for (uint32_t i = 0; i < t->nfns; i++) {
      const cprof_frame_t *fr = t->fns[i].frame;
      if (i > 0) hw_put(w, ",", 1);
      if (k == 0)
        hw_json_str(w, fr->name[0] ? fr->name : "(anonymous)");
      else if (k == 1)
        hw_json_str(w, cprof__short_url(fr->url));
      else if (k == 2)
        hw_i64(w, fr->line >= 0 ? (int64_t)fr->line + 1 : 0);
      else if (k == 3)
        hw_i64(w, fr->line >= 0 && fr->column >= 0 ? (int64_t)fr->column + 1 : 0);
      else
        hw_i64(w, (int64_t)t->fns[i].kind);
    }
  }
  hw_str(w, "]}");
}

static int write_lines(hw_t *w, const cprof__tree_t *t, cprof_analysis_t *a,
                       const cprof_export_opts_t *o);

/* ---- the samples in time order (timeline) ---- */

/* Values as base64 of little-endian uint16 when all fit (the usual case:
 * fewer than 65,536 nodes, gaps under 65 ms), else uint32: "bits" says
 * which. Half the page and the parse of a long profile. */
typedef struct {
  unsigned char in[3];
  int k;
} b64_t;

static void b64_byte(hw_t *w, b64_t *b, unsigned char c) {
  static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char out[4];
  b->in[b->k++] = c;
  if (b->k < 3) return;
  out[0] = A[b->in[0] >> 2], out[1] = A[((b->in[0] & 3) << 4) | (b->in[1] >> 4)];
  out[2] = A[((b->in[1] & 15) << 2) | (b->in[2] >> 6)], out[3] = A[b->in[2] & 63];
  hw_put(w, out, 4);
  b->k = 0;
}

static void b64_end(hw_t *w, b64_t *b) {
  int k = b->k;
  if (k == 0) return;
  while (b->k != 0)
    b64_byte(w, b, 0);
  w->len -= k == 1 ? 2 : 1; /* the padding replaces the zero bytes' characters */
  hw_put(w, k == 1 ? "==" : "=", k == 1 ? 2 : 1);
}

static void hw_b64_uints(hw_t *w, const char *key, const uint32_t *v, uint32_t n, int least) {
  uint32_t max = 0;
  for (uint32_t i = 0; i < n; i++)
    if (v[i] > max) max = v[i];
  int bytes = least == 1 && max <= 0xff ? 1 : max <= 0xffff ? 2 : 4;
  b64_t b = {{0}, 0};
  hw_str(w, ",\"");
  hw_str(w, key);
  hw_str(w, bytes == 1 ? "Bits\":8,\"" : bytes == 2 ? "Bits\":16,\"" : "Bits\":32,\"");
  hw_str(w, key);
  hw_str(w, "\":\"");
  for (uint32_t i = 0; i < n; i++)
    for (int k = 0; k < bytes; k++)
      b64_byte(w, &b, (unsigned char)(v[i] >> (8 * k)));
  b64_end(w, &b);
  hw_put(w, "\"", 1);
}

/* Each sample's node as its depth-first index in the page's "nodes", and
 * each sample's weight. map: profile node -> tree node (tree_add_mapped). */
typedef struct {
  uint32_t *node, *weight;
  uint32_t n;
  int64_t first;
} timeline_t;

static int timeline_build(timeline_t *tl, const cprof__tree_t *t, const cprof_profile_t *p,
                          const uint32_t *map) {
  uint32_t *pre = malloc((size_t)t->nnodes * sizeof(*pre));
  tl->node = malloc((size_t)p->nsamples * sizeof(*tl->node));
  tl->weight = malloc((size_t)p->nsamples * sizeof(*tl->weight));
  if (pre == NULL || tl->node == NULL || tl->weight == NULL) {
    free(pre);
    return CPROF_ENOMEM;
  }
  uint32_t k = 0;
  FOR_EACH_PREORDER(t, cur, { pre[cur] = k++; });
  for (uint32_t i = 0; i < p->nsamples; i++) {
    int64_t wt = cprof_sample_weight(p, i);
    tl->node[i] = pre[map[p->samples[i]]];
    tl->weight[i] = wt > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)wt;
  }
  tl->n = p->nsamples;
  tl->first = p->time_deltas != NULL && p->time_deltas[0] > 0 ? p->time_deltas[0] : 0;
  free(pre);
  return 0;
}

static void timeline_free(timeline_t *tl) {
  free(tl->node);
  free(tl->weight);
}

static void write_timeline(hw_t *w, const timeline_t *tl) {
  hw_str(w, ",\"timeline\":{\"first\":");
  hw_i64(w, tl->first);
  hw_b64_uints(w, "node", tl->node, tl->n, 2);
  hw_b64_uints(w, "weight", tl->weight, tl->n, 2);
  hw_put(w, "}", 1);
}

/* Each sample's label set (o->labels, docs/labels.md), for the page's
 * filter and top values: the sets as [key, value, ...] arrays (set 0: no
 * labels) and the ids as base64 of uint8 (up to 256 sets), uint16 or uint32. */
static void write_labels(hw_t *w, const cprof_labels_t *l) {
  hw_str(w, ",\"labels\":{\"sets\":[");
  for (uint32_t i = 0; i < l->nsets; i++) {
    hw_str(w, i ? ",[" : "[");
    for (uint32_t k = 0; k < 2 * l->sets[i].n; k++) {
      if (k) hw_put(w, ",", 1);
      hw_json_str(w, l->sets[i].kv[k]);
    }
    hw_put(w, "]", 1);
  }
  hw_put(w, "]", 1);
  hw_b64_uints(w, "set", l->sample_set, l->nsamples, 1);
  hw_put(w, "}", 1);
}

static int write_data(hw_t *w, const cprof__tree_t *t, cprof_analysis_t *a, int diff,
                      int64_t duration_us, const cprof_export_opts_t *o, const timeline_t *tl) {
  int cpu = t->kind == CPROF_KIND_CPU;
  hw_str(w, "{\"format\":\"cprof-viewer\",\"version\":1,\"kind\":");
  hw_str(w, cpu ? "\"cpu\"" : "\"heap\"");
  hw_str(w, diff ? ",\"diff\":true,\"title\":" : ",\"diff\":false,\"title\":");
  hw_json_str(w, o->title ? o->title : "");
  hw_str(w, cpu ? ",\"unit\":\"us\",\"interval\":" : ",\"unit\":\"bytes\",\"interval\":");
  hw_i64(w, o->interval);
  hw_str(w, ",\"durationUs\":");
  hw_i64(w, duration_us);
  hw_str(w, ",\"startTime\":");
  hw_i64(w, o->start_time_ms);
  hw_str(w, o->include_collected ? ",\"includeCollected\":true" : ",\"includeCollected\":false");
  hw_str(w, ",\"samples\":[");
  hw_i64(w, (int64_t)t->samples[0]);
  hw_put(w, ",", 1);
  hw_i64(w, (int64_t)t->samples[1]);
  hw_str(w, "],\"total\":[");
  hw_i64(w, t->total[0]);
  hw_put(w, ",", 1);
  hw_i64(w, t->total[1]);
  hw_str(w, "],\"fns\":");
  fn_columns(w, t);
  hw_str(w, ",\"nodes\":{\"fn\":");
  node_column(w, t, COL_FN);
  hw_str(w, ",\"depth\":");
  node_column(w, t, COL_DEPTH);
  hw_str(w, ",\"self\":");
  node_column(w, t, COL_SELF0);
  if (diff) {
    hw_str(w, ",\"self1\":");
    node_column(w, t, COL_SELF1);
  }
  hw_str(w, "}");
  int rc = diff ? CPROF_OK : write_lines(w, t, a, o);
  if (tl != NULL && tl->n > 0) write_timeline(w, tl);
  if (tl != NULL && tl->n > 0 && o->labels != NULL && o->labels->sample_set != NULL &&
      o->labels->nsamples == tl->n)
    write_labels(w, o->labels);
  if (o->html_marks != NULL) {
    hw_str(w, ",\"marks\":");
    hw_json_str(w, o->html_marks);
  }
  hw_str(w, "}");
  return rc;
}

/* ---- lines and sources ---- */

#define SOURCES_BUDGET (4u << 20) /* bytes of source text one page carries */

typedef struct {
  const char **url; /* distinct files, by first sight */
  int64_t *self;    /* each file's self time, for the budget's order */
  uint32_t n;
  uint32_t *slots; /* url index + 1 */
  uint32_t mask;
} files_t;

static uint32_t file_of(files_t *fs, const char *url) {
  uint32_t j = (uint32_t)cprof__hash_str(CPROF__HASH_SEED, url) & fs->mask;
  for (; fs->slots[j] != 0; j = (j + 1) & fs->mask)
    if (strcmp(fs->url[fs->slots[j] - 1], url) == 0) return fs->slots[j] - 1;
  fs->url[fs->n] = url;
  fs->self[fs->n] = 0;
  fs->slots[j] = ++fs->n;
  return fs->n - 1;
}

static const int64_t *g_file_self; /* for by_self: qsort has no context in C11 */
static int by_self(const void *a, const void *b) {
  int64_t x = g_file_self[*(const uint32_t *)a], y = g_file_self[*(const uint32_t *)b];
  return x > y ? -1 : x < y;
}

#define WHY_MAX 160 /* bytes of a reason a source is not shown */

/* "text": each file's source, most self time first while the budget lasts;
 * "why": for a file not shown by rule (source.h: a link to a file that is
 * no source, not readable by the profile's owner), the reason, else null;
 * "map" (a profile not mapped through source maps): 1 for a script with
 * lines that has a source map of its own, else 0. */
static void write_sources(hw_t *w, const files_t *fs, const cprof_export_opts_t *o) {
  uint32_t *order = malloc(((size_t)fs->n + 1) * sizeof *order);
  cprof__source_t *src = calloc((size_t)fs->n + 1, sizeof *src);
  char(*why)[WHY_MAX] = calloc((size_t)fs->n + 1, sizeof *why);
  unsigned char *map = o->source_map_hint ? calloc((size_t)fs->n + 1, 1) : NULL;
  size_t budget = SOURCES_BUDGET;
  if (order && src && why) {
    for (uint32_t i = 0; i < fs->n; i++)
      order[i] = i;
    g_file_self = fs->self;
    qsort(order, fs->n, sizeof *order, by_self);
    for (uint32_t k = 0; k < fs->n; k++) {
      cprof__source_t *s = &src[order[k]];
      if (fs->self[order[k]] <= 0) continue;
      int read = cprof__source_read(fs->url[order[k]], o->source_texts, o->source_owners, s,
                                    why[order[k]], WHY_MAX) == CPROF_OK;
      if (map && (read || !why[order[k]][0]))
        map[order[k]] = (unsigned char)cprof__source_has_map(fs->url[order[k]], read ? s : NULL,
                                                             o->source_owners);
      if (!read) continue;
      if (s->len > budget)
        cprof__source_free(s);
      else
        budget -= s->len;
    }
  }
  hw_str(w, "],\"text\":[");
  for (uint32_t i = 0; i < fs->n; i++) {
    if (i > 0) hw_put(w, ",", 1);
    if (src && src[i].text)
      hw_json_str(w, src[i].text); /* NUL bytes end it: a binary file shows cut */
    else
      hw_str(w, "null");
  }
  hw_str(w, "],\"why\":[");
  for (uint32_t i = 0; i < fs->n; i++) {
    if (i > 0) hw_put(w, ",", 1);
    if (why && why[i][0] && !(src && src[i].text))
      hw_json_str(w, why[i]);
    else
      hw_str(w, "null");
  }
  if (map) {
    hw_str(w, "],\"map\":[");
    for (uint32_t i = 0; i < fs->n; i++)
      hw_str(w, i > 0 ? (map[i] ? ",1" : ",0") : (map[i] ? "1" : "0"));
  }
  hw_str(w, "]}");
  for (uint32_t i = 0; src && i < fs->n; i++)
    cprof__source_free(&src[i]);
  free(map);
  free(why);
  free(src);
  free(order);
}

typedef enum { LCOL_FN, LCOL_FILE, LCOL_LINE, LCOL_SELF } lcol_t;

static void line_rows(hw_t *w, const cprof_lines_t *l, const uint32_t *tfn, const uint32_t *file,
                      lcol_t col) {
  uint32_t k = 0;
  hw_put(w, "[", 1);
  for (uint32_t f = 0; f < l->nfuncs; f++)
    for (uint32_t i = l->first[f]; i < l->first[f + 1]; i++, k++) {
      if (k > 0) hw_put(w, ",", 1);
      hw_i64(w, col == LCOL_FN     ? (int64_t)tfn[f]
                : col == LCOL_FILE ? (int64_t)file[i]
                : col == LCOL_LINE ? (int64_t)l->lines[i].line
                                   : l->lines[i].self);
    }
  hw_put(w, "]", 1);
}

static int write_lines_data(hw_t *w, const cprof__tree_t *t, const cprof_profile_t *p,
                            const cprof_flat_t *flat, const cprof_lines_t *l,
                            const cprof_export_opts_t *o) {
  uint32_t *tfn = malloc(((size_t)flat->nfuncs + 1) * sizeof *tfn);
  uint32_t *file = malloc(((size_t)l->nlines + 1) * sizeof *file), cap = 16;
  while (cap < (uint64_t)l->nlines * 2)
    cap *= 2;
  files_t fs = {malloc(((size_t)l->nlines + 1) * sizeof(char *)),
                malloc(((size_t)l->nlines + 1) * sizeof(int64_t)), 0, calloc(cap, sizeof(uint32_t)),
                cap - 1};
  int rc = tfn && file && fs.url && fs.self && fs.slots ? CPROF_OK : CPROF_ENOMEM;
  if (rc == CPROF_OK) {
    /* The flat profile's functions and the tree's are the same identities. */
    for (uint32_t i = 0; i < p->nnodes; i++)
      tfn[flat->func_of[p->nodes[i].frame]] = t->nodes[t->node_of[i]].fn;
    for (uint32_t i = 0; i < l->nlines; i++) {
      file[i] = file_of(&fs, l->lines[i].url);
      if (l->lines[i].line > 0)
        fs.self[file[i]] = cprof__sat_add(fs.self[file[i]], l->lines[i].self);
    }
    static const char *const keys[] = {
        ",\"lines\":{\"fn\":", ",\"file\":", ",\"line\":", ",\"self\":"};
    for (int c = 0; c < 4; c++) {
      hw_str(w, keys[c]);
      line_rows(w, l, tfn, file, (lcol_t)c);
    }
    hw_str(w, "},\"sources\":{\"url\":[");
    for (uint32_t i = 0; i < fs.n; i++) {
      if (i > 0) hw_put(w, ",", 1);
      hw_json_str(w, cprof__short_url(fs.url[i]));
    }
    write_sources(w, &fs, o);
  }
  free(tfn);
  free(file);
  free(fs.url);
  free(fs.self);
  free(fs.slots);
  return rc;
}

/* The "lines" and "sources" members, when a's profile has positionTicks. */
static int write_lines(hw_t *w, const cprof__tree_t *t, cprof_analysis_t *a,
                       const cprof_export_opts_t *o) {
  const cprof_profile_t *p = a ? a->p : NULL;
  const cprof_flat_t *flat;
  const cprof_lines_t *l;
  if (!p || p->kind != CPROF_KIND_CPU || p->nline_ticks == 0 || !t->node_of ||
      t->nnode_of != p->nnodes)
    return CPROF_OK;
  int rc = cprof_analysis_flat(a, &flat);
  if (rc == CPROF_OK) rc = cprof_analysis_lines(a, &l);
  return rc == CPROF_OK ? write_lines_data(w, t, p, flat, l, o) : rc;
}

/* How long a profile ran, in µs: CPU from its clock, heap from the caller. */
static int64_t duration_of(const cprof_profile_t *p, const cprof_export_opts_t *o) {
  if (p->kind == CPROF_KIND_CPU && p->end_time > p->start_time)
    return cprof__sat_sub(p->end_time, p->start_time);
  return o->duration_us;
}

static int write_page(FILE *f, const cprof__tree_t *t, cprof_analysis_t *a, int diff,
                      int64_t duration_us, const cprof_export_opts_t *o, const timeline_t *tl) {
  const char *tpl = o->html_template ? o->html_template : FALLBACK_TEMPLATE;
  size_t len = o->html_template ? o->html_template_len : sizeof(FALLBACK_TEMPLATE) - 1;
  size_t mlen = sizeof(CPROF_HTML_MARKER) - 1;
  const char *mark = NULL;
  for (size_t i = 0; i + mlen <= len && mark == NULL; i++)
    if (tpl[i] == CPROF_HTML_MARKER[0] && memcmp(tpl + i, CPROF_HTML_MARKER, mlen) == 0)
      mark = tpl + i;
  if (mark == NULL) return CPROF_EINVAL; /* not a viewer template */
  hw_t *w = malloc(sizeof(*w));
  if (w == NULL) return CPROF_ENOMEM;
  w->f = f, w->err = 0, w->len = 0;
  hw_put(w, tpl, (size_t)(mark - tpl));
  int rc = write_data(w, t, a, diff, duration_us, o, tl);
  hw_put(w, mark + mlen, len - (size_t)(mark - tpl) - mlen);
  hw_flush(w);
  if (rc == CPROF_OK) rc = w->err;
  free(w);
  if (rc == 0 && (fflush(f) != 0 || ferror(f))) rc = CPROF_EIO;
  return rc;
}

int cprof__export_html(cprof_analysis_t *a, const cprof_export_opts_t *o, FILE *f) {
  const cprof_profile_t *p = a->p;
  const cprof__tree_t *t;
  timeline_t tl = {0};
  int timed = p->kind == CPROF_KIND_CPU && p->nsamples > 0;
  int rc = cprof_analysis_tree(a, &t);
  if (rc == 0 && timed) rc = timeline_build(&tl, t, p, t->node_of);
  if (rc == 0) rc = write_page(f, t, a, 0, duration_of(p, o), o, timed ? &tl : NULL);
  timeline_free(&tl);
  return rc;
}

int cprof_export_html(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f) {
  return cprof_analysis_write_once(p, o, f, cprof__export_html);
}

int cprof_diff_html(const cprof_profile_t *before, const cprof_profile_t *after,
                    const cprof_export_opts_t *o, FILE *f) {
  static const cprof_export_opts_t defaults = {0};
  cprof__tree_t t = {0};
  if (before == NULL || after == NULL || f == NULL || before->kind != after->kind)
    return CPROF_EINVAL;
  if (o == NULL) o = &defaults;
  int rc = cprof__tree_add(&t, before, 0);
  if (rc == 0) rc = cprof__tree_add(&t, after, 1);
  if (rc == 0) rc = cprof__tree_finish(&t);
  if (rc == 0) rc = write_page(f, &t, NULL, 1, duration_of(after, o), o, NULL);
  cprof__tree_free(&t);
  return rc;
}

/* SVG flame graph: one self-contained file (inline style and script, no
 * network) laid out from the function tree. The root is at the bottom,
 * each frame's width is its total, children sit left to right in label
 * order over their parent, and the parent's self is the gap to their right.
 *
 * A run of sibling frames that are each narrower than MIN_PX is drawn as
 * one grey frame "(N frames)" when the run is at least MIN_PX wide, and
 * dropped otherwise (with everything above it): on a 50k-node profile the
 * file keeps only what can be seen.
 *
 * The script: hover shows a frame's details in the bottom line (and its
 * <title> as a tooltip), click zooms to a frame (its ancestors stretch to
 * the full width), the search box highlights frames whose label matches a
 * regular expression (case-insensitive) and shows the share they cover,
 * Escape or "Reset zoom" resets. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "error.h"
#include "export.h"
#include "internal.h"
#include "export_svg.h"
#include "label.h"
#include "tree.h"
#include "xml.h"

#define IMG_W 1200
#define PAD 10
#define FRAME_H 16
#define HEAD_H 90  /* title, subtitle, legend, search box */
#define FOOT_H 28  /* the details line */
#define CHAR_W 7.0 /* average glyph width at 12px, for fitting labels */
#define MIN_PX 1.0
#define TITLE_MAX 68 /* code points of the 17px title between the link and the search box */

typedef struct {
  uint32_t node; /* tree node, or CPROF_NONE for a merged run */
  uint32_t depth;
  uint32_t count; /* frames in a merged run */
  int64_t x, w;   /* in value units from the root's left edge */
} item_t;

typedef struct {
  const cprof__tree_t *t;
  int slot; /* the slot that gives widths */
  int diff;
  double scale; /* px per value unit */
  item_t *items;
  uint32_t nitems, cap;
  uint32_t max_depth;
  double max_delta; /* diff: the largest |change of self share| drawn */
  int64_t busy[2];  /* diff: what shares are of, the total without (idle) (diff.c's rule) */
} layout_t;

static int add_item(layout_t *L, item_t it) {
  if (L->nitems == L->cap) {
    uint32_t cap = L->cap ? L->cap * 2 : 1024;
    item_t *items = realloc(L->items, (size_t)cap * sizeof(*items));
    if (items == NULL) return CPROF_ENOMEM;
    L->items = items;
    L->cap = cap;
  }
  L->items[L->nitems++] = it;
  if (it.depth > L->max_depth) L->max_depth = it.depth;
  return 0;
}

/* The change of n's self share of busy time; (idle) has none (grey). */
static double self_delta(const layout_t *L, const cprof__tnode_t *n) {
  const cprof__tree_t *t = L->t;
  if (t->fns[n->fn].kind == CPROF__KIND_IDLE) return 0.0;
  double before = L->busy[0] > 0 ? (double)n->self[0] / (double)L->busy[0] : 0.0;
  double after = L->busy[1] > 0 ? (double)n->self[1] / (double)L->busy[1] : 0.0;
  return after - before;
}

/* Lays out node's children; drawn children go on the work stack. */
static int layout_children(layout_t *L, const item_t *parent, uint32_t *stack, uint32_t *top) {
  const cprof__tree_t *t = L->t;
  int64_t x = parent->x, run_x = 0, run_w = 0;
  uint32_t run_n = 0, depth = parent->depth + 1;
  int rc;
  for (uint32_t c = t->nodes[parent->node].first_child;; c = t->nodes[c].next_sibling) {
    int64_t w = c != CPROF_NONE ? t->nodes[c].total[L->slot] : 0;
    int narrow = c != CPROF_NONE && (double)w * L->scale < MIN_PX;
    if (run_n > 0 && !narrow) { /* flush the run */
      if ((double)run_w * L->scale >= MIN_PX &&
          (rc = add_item(L, (item_t){CPROF_NONE, depth, run_n, run_x, run_w})) != 0)
        return rc;
      run_n = 0;
      run_w = 0;
    }
    if (c == CPROF_NONE) return 0;
    if (w <= 0) continue;
    if (narrow) {
      if (run_n++ == 0) run_x = x;
      run_w += w;
    } else {
      if ((rc = add_item(L, (item_t){c, depth, 1, x, w})) != 0) return rc;
      stack[(*top)++] = L->nitems - 1;
      if (L->diff) {
        double d = fabs(self_delta(L, &t->nodes[c]));
        if (d > L->max_delta) L->max_delta = d;
      }
    }
    x += w;
  }
}

static int layout(layout_t *L) {
  const cprof__tree_t *t = L->t;
  int64_t total = t->nodes[0].total[L->slot];
  L->scale = total > 0 ? (double)(IMG_W - 2 * PAD) / (double)total : 0.0;
  uint32_t *stack = malloc((size_t)t->nnodes * sizeof(*stack)), top = 0;
  if (stack == NULL) return CPROF_ENOMEM;
  int rc = add_item(L, (item_t){0, 0, 1, 0, total});
  if (rc == 0 && total > 0) stack[top++] = 0;
  while (rc == 0 && top > 0) {
    item_t parent = L->items[stack[--top]];
    rc = layout_children(L, &parent, stack, &top);
  }
  free(stack);
  return rc;
}

/* ---- colours ---- */

static uint32_t label_hash(const char *s) {
  uint64_t h = cprof__hash_str(CPROF__HASH_SEED, s);
  return (uint32_t)(h ^ (h >> 32));
}

/* The HTML viewer's palette (lib/viewer/assets/flame.js KIND_HUES), so that
 * a category has one colour in both: per kind, the hue range a function's
 * hash picks from, saturation and lightness (%), all HSL. */
static const double KIND_HSL[CPROF__KIND_COUNT][4] = {
    {8, 36, 72, 60},    /* app: orange */
    {70, 100, 48, 52},  /* node_modules: yellow-green */
    {195, 225, 55, 66}, /* node: internals: blue */
    {0, 0, 0, 74},      /* native, V8, GC: grey */
    {0, 0, 0, 88},      /* (idle): light grey */
};

/* The viewer's legend swatches (lib/viewer/assets/app.js), HSL. */
static const double LEGEND_HSL[CPROF__KIND_COUNT][3] = {
    {22, 72, 58}, {85, 48, 50}, {210, 55, 63}, {0, 0, 72}, {0, 0, 86}};

static void hsl_rgb(double h, double s, double l, int rgb[3]) {
  s /= 100;
  l /= 100;
  double a = s * fmin(l, 1 - l);
  for (int i = 0; i < 3; i++) {
    double k = fmod((i == 0 ? 0 : i == 1 ? 8 : 4) + h / 30, 12);
    double v = l - a * fmax(-1, fmin(fmin(k - 3, 9 - k), 1));
    rgb[i] = (int)lround(v * 255);
  }
}

/* A frame's colour: the viewer's rule, the hash in [0, 1) picks the hue in
 * the kind's range and darkens it a little. */
static void kind_rgb(cprof__kind_t kind, uint32_t h, int rgb[3]) {
  const double *k = KIND_HSL[kind];
  double r = (double)h / 4294967296.0;
  hsl_rgb(k[0] + (k[1] - k[0]) * r, k[2], k[3] - 6 * r, rgb);
}

/* The kind a node counts as: a V8 builtin (no script, not a "(...)" entry:
 * map, repeat, JSON.parse) runs for the code that called it, so it takes
 * its caller's kind; (program), (garbage collector) and builtins at the
 * top stay native. Parents precede children in t->nodes. */
static cprof__kind_t node_kind(const cprof__tree_t *t, uint32_t i) {
  for (uint32_t n = i; n != CPROF_NONE; n = t->nodes[n].parent) {
    const cprof__fn_t *fn = &t->fns[t->nodes[n].fn];
    if (fn->kind != CPROF__KIND_NATIVE || fn->frame->name[0] == '(') return fn->kind;
  }
  return CPROF__KIND_NATIVE;
}

static void diff_rgb(double d, double max, int rgb[3]) {
  if (max <= 0.0 || d == 0.0) {
    rgb[0] = rgb[1] = rgb[2] = 225;
    return;
  }
  double i = fabs(d) / max;
  int fade = (int)lround(225.0 * (1.0 - (i > 1.0 ? 1.0 : i)));
  rgb[0] = d > 0 ? 255 : fade;
  rgb[1] = fade;
  rgb[2] = d > 0 ? fade : 255;
}

/* ---- text ---- */

typedef struct {
  FILE *f;
  int err;
} out_t;

static void put(out_t *o, const char *s) {
  if (!o->err && fputs(s, o->f) == EOF) o->err = CPROF_EIO;
}

static void putf(out_t *o, const char *fmt, ...) CPROF__PRINTF(2, 3);
static void putf(out_t *o, const char *fmt, ...) {
  va_list ap;
  if (o->err) return;
  va_start(ap, fmt);
  if (vfprintf(o->f, fmt, ap) < 0) o->err = CPROF_EIO;
  va_end(ap);
}

static void put_xml(out_t *o, const char *s, size_t max_chars) {
  if (!o->err) o->err = cprof__xml_put(o->f, s, max_chars);
}

/* s in at most max code points: whole, or its start and end around "…"
 * (a long path keeps its file name). */
static void put_middle(out_t *o, const char *s, size_t max) {
  size_t len = cprof__utf8_len(s);
  if (len <= max) {
    put_xml(o, s, SIZE_MAX);
    return;
  }
  size_t head = (max - 1) / 3, tail = max - 1 - head;
  put_xml(o, s, head);
  put(o, "\xE2\x80\xA6"); /* … */
  put_xml(o, cprof__utf8_skip(s, len - tail), SIZE_MAX);
}

/* The label as it fits in w px: whole, cut with "..", or nothing. */
static void put_fitted(out_t *o, const char *label, double w) {
  double fit = floor((w - 6.0) / CHAR_W);
  if (fit < 3.0) return;
  size_t n = (size_t)fit, len = cprof__utf8_len(label);
  if (len <= n) {
    put_xml(o, label, SIZE_MAX);
  } else {
    put_xml(o, label, n - 2);
    put(o, "..");
  }
}

static void put_value(out_t *o, cprof_kind_t kind, int64_t v) {
  char buf[64];
  cprof__fmt_value(buf, sizeof(buf), kind, v);
  put(o, buf);
}

/* The <title> text: label, then the numbers. */
static void put_title(out_t *o, const layout_t *L, const item_t *it) {
  const cprof__tree_t *t = L->t;
  if (it->node == CPROF_NONE) {
    putf(o, "(%" PRIu32 " frames, each narrower than 1 px)&#10;total ", it->count);
    put_value(o, t->kind, it->w);
    putf(o, " (%.2f%%)", cprof__pct(it->w, t->nodes[0].total[L->slot]));
    return;
  }
  const cprof__tnode_t *n = &t->nodes[it->node];
  put_xml(o, t->fns[n->fn].label, SIZE_MAX);
  if (!L->diff) {
    put(o, "&#10;self ");
    put_value(o, t->kind, n->self[0]);
    putf(o, " (%.2f%%), total ", cprof__pct(n->self[0], t->total[0]));
    put_value(o, t->kind, n->total[0]);
    putf(o, " (%.2f%%), %" PRIu64 " sample%s", cprof__pct(n->total[0], t->total[0]), n->count[0],
         n->count[0] == 1 ? "" : "s");
    return;
  }
  static const char *what[2] = {"self", "total"};
  for (int k = 0; k < 2; k++) {
    const int64_t *v = k == 0 ? n->self : n->total;
    double before = cprof__pct(v[0], L->busy[0]), after = cprof__pct(v[1], L->busy[1]);
    putf(o, "&#10;%s ", what[k]);
    put_value(o, t->kind, v[0]);
    put(o, " \xE2\x86\x92 "); /* → */
    put_value(o, t->kind, v[1]);
    putf(o, " (%.2f%% \xE2\x86\x92 %.2f%%, %+.2f pts)", before, after, after - before);
  }
}

static void put_frame(out_t *o, const layout_t *L, const item_t *it, int img_h) {
  const cprof__tree_t *t = L->t;
  double x = PAD + (double)it->x * L->scale, w = (double)it->w * L->scale;
  double y = img_h - FOOT_H - (double)(it->depth + 1) * FRAME_H;
  int rgb[3] = {190, 190, 190};
  const char *label = "";
  if (it->node != CPROF_NONE) {
    const cprof__tnode_t *n = &t->nodes[it->node];
    label = t->fns[n->fn].label;
    if (L->diff)
      diff_rgb(self_delta(L, n), L->max_delta, rgb);
    else
      kind_rgb(node_kind(t, it->node), label_hash(label), rgb);
  }
  if (L->scale == 0.0) w = IMG_W - 2 * PAD; /* an empty profile: the root alone */
  if (it->node == CPROF_NONE)
    putf(o, "<g class=\"f\" data-run=\"(%" PRIu32 " frames)\"><title>", it->count);
  else
    put(o, "<g class=\"f\"><title>");
  put_title(o, L, it);
  putf(o,
       "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"/>",
       x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2]);
  putf(o, "<text x=\"%.2f\" y=\"%.0f\">", x + 3, y + FRAME_H - 4.5);
  if (it->node != CPROF_NONE)
    put_fitted(o, label, w);
  else {
    char run[48];
    snprintf(run, sizeof(run), "(%" PRIu32 " frames)", it->count);
    put_fitted(o, run, w);
  }
  put(o, "</text></g>\n");
}

/* ---- the document ---- */

static const char *const STYLE =
    "<style>\n"
    "text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: 12px; fill: #000; }\n"
    "#title { font-size: 17px; text-anchor: middle; }\n"
    "#sub { fill: #444; text-anchor: middle; }\n"
    "#matched { text-anchor: end; fill: #606; }\n"
    "#reset { fill: #06c; cursor: pointer; text-decoration: underline; }\n"
    "g.f { cursor: pointer; }\n"
    "g.f text { pointer-events: none; }\n"
    "g.f:hover rect { stroke: #000; stroke-width: 0.6; }\n"
    "g.parent rect { opacity: 0.55; }\n"
    "</style>\n";

/* Plain ES5, no network, no dependencies. */
static const char *const SCRIPT =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "(function () {\n"
    "  'use strict';\n"
    "  var svg = document.documentElement, PAD = 10, CW = 7;\n"
    "  var W = +svg.getAttribute('width') - 2 * PAD;\n"
    "  var details = document.getElementById('details');\n"
    "  var matched = document.getElementById('matched');\n"
    "  var resetBtn = document.getElementById('reset');\n"
    "  var input = document.getElementById('search');\n"
    "  var rootY = -1, byG = new Map();\n"
    "  var frames = Array.prototype.map.call(document.querySelectorAll('g.f'), function (g) {\n"
    "    var r = g.querySelector('rect'), title = g.querySelector('title').textContent;\n"
    "    var f = { g: g, r: r, t: g.querySelector('text'), x: +r.getAttribute('x'),\n"
    "      w: +r.getAttribute('width'), y: +r.getAttribute('y'), fill: r.getAttribute('fill'),\n"
    "      label: title.split('\\n')[0], info: title.split('\\n').join('  |  ') };\n"
    "    if (f.y > rootY) rootY = f.y;\n"
    "    byG.set(g, f);\n"
    "    return f;\n"
    "  });\n"
    "  function fit (f, x, w) {\n"
    "    var n = Math.floor((w - 6) / CW), s = f.label;\n"
    "    if (f.g.getAttribute('data-run')) s = f.g.getAttribute('data-run');\n"
    "    f.t.textContent = n < 3 ? '' : s.length <= n ? s : s.slice(0, n - 2) + '..';\n"
    "    f.t.setAttribute('x', (x + 3).toFixed(2));\n"
    "  }\n"
    "  function place (f, x, w) {\n"
    "    f.r.setAttribute('x', x.toFixed(2));\n"
    "    f.r.setAttribute('width', w.toFixed(2));\n"
    "    fit(f, x, w);\n"
    "  }\n"
    "  function reset () {\n"
    "    frames.forEach(function (f) {\n"
    "      f.g.style.display = '';\n"
    "      f.g.classList.remove('parent');\n"
    "      place(f, f.x, f.w);\n"
    "    });\n"
    "    resetBtn.style.display = 'none';\n"
    "  }\n"
    "  function zoom (z) {\n"
    "    var eps = 0.02, k = W / z.w;\n"
    "    frames.forEach(function (f) {\n"
    "      var inside = f.y <= z.y && f.x >= z.x - eps && f.x + f.w <= z.x + z.w + eps;\n"
    "      var below = f.y > z.y && f.x <= z.x + eps && f.x + f.w >= z.x + z.w - eps;\n"
    "      f.g.style.display = inside || below ? '' : 'none';\n"
    "      f.g.classList.toggle('parent', below);\n"
    "      if (below) place(f, PAD, W);\n"
    "      else if (inside) place(f, PAD + (f.x - z.x) * k, f.w * k);\n"
    "    });\n"
    "    resetBtn.style.display = '';\n"
    "  }\n"
    "  function search (term) {\n"
    "    var test = null, hits = [], covered = 0, end = -Infinity;\n"
    "    if (term) {\n"
    "      try {\n"
    "        var re = new RegExp(term, 'i');\n"
    "        test = function (s) { return re.test(s); };\n"
    "      } catch (e) {\n"
    "        var lower = term.toLowerCase();\n"
    "        test = function (s) { return s.toLowerCase().indexOf(lower) >= 0; };\n"
    "      }\n"
    "    }\n"
    "    frames.forEach(function (f) {\n"
    "      var hit = test !== null && !f.g.getAttribute('data-run') && test(f.label);\n"
    "      f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
    "      if (hit) hits.push(f);\n"
    "    });\n"
    "    hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n"
    "    hits.forEach(function (f) {\n"
    "      var s = Math.max(f.x, end), e = f.x + f.w;\n"
    "      if (e > s) { covered += e - s; end = e; }\n"
    "    });\n"
    "    matched.textContent = test === null ? '' : 'matched ' + hits.length + ' frame' +\n"
    "      (hits.length === 1 ? '' : 's') + ', ' + (100 * covered / W).toFixed(1) + '% of the "
    "total';\n"
    "  }\n"
    "  function frameOf (e) {\n"
    "    var g = e.target && e.target.closest ? e.target.closest('g.f') : null;\n"
    "    return g ? byG.get(g) : null;\n"
    "  }\n"
    "  svg.addEventListener('click', function (e) {\n"
    "    var f = frameOf(e);\n"
    "    if (!f) return;\n"
    "    if (f.y === rootY) reset(); else zoom(f);\n"
    "  });\n"
    "  svg.addEventListener('mouseover', function (e) {\n"
    "    var f = frameOf(e);\n"
    "    details.textContent = f ? f.info : '';\n"
    "  });\n"
    "  resetBtn.addEventListener('click', reset);\n"
    "  if (input) input.addEventListener('input', function () { search(input.value); });\n"
    "  document.addEventListener('keydown', function (e) {\n"
    "    if (e.key === 'Escape') {\n"
    "      if (input) input.value = '';\n"
    "      search('');\n"
    "      reset();\n"
    "    } else if (input && document.activeElement !== input &&\n"
    "               (e.key === '/' || ((e.ctrlKey || e.metaKey) && e.key === 'f'))) {\n"
    "      e.preventDefault();\n"
    "      input.focus();\n"
    "    }\n"
    "  });\n"
    "  reset();\n"
    "})();\n"
    "]]></script>\n";

static void put_legend_item(out_t *o, double *x, int rgb[3], const char *text) {
  putf(o, "<rect x=\"%.0f\" y=\"60\" width=\"12\" height=\"12\" fill=\"rgb(%d,%d,%d)\"/>", *x,
       rgb[0], rgb[1], rgb[2]);
  putf(o, "<text x=\"%.0f\" y=\"70\">", *x + 17);
  put_xml(o, text, SIZE_MAX);
  put(o, "</text>\n");
  *x += 17 + (double)cprof__utf8_len(text) * CHAR_W + 20;
}

static void put_legend(out_t *o, const layout_t *L) {
  const cprof__tree_t *t = L->t;
  double x = PAD;
  char text[96];
  if (L->diff) {
    int red[3] = {255, 60, 60}, blue[3] = {60, 60, 255}, grey[3] = {225, 225, 225};
    put_legend_item(o, &x, red, "larger self share after");
    put_legend_item(o, &x, blue, "smaller self share after");
    put_legend_item(o, &x, grey, "unchanged");
    return;
  }
  static const char *names[CPROF__KIND_COUNT] = {"app code", "node_modules", "node: internals",
                                                 "native, V8, GC", "(idle)"};
  int64_t self[CPROF__KIND_COUNT] = {0};
  for (uint32_t i = 0; i < t->nnodes; i++)
    self[node_kind(t, i)] += t->nodes[i].self[0];
  for (int k = 0; k < CPROF__KIND_COUNT; k++) {
    int rgb[3];
    if (k == CPROF__KIND_IDLE && self[k] == 0) continue;
    hsl_rgb(LEGEND_HSL[k][0], LEGEND_HSL[k][1], LEGEND_HSL[k][2], rgb);
    snprintf(text, sizeof(text), "%s %.1f%%", names[k], cprof__pct(self[k], t->total[0]));
    put_legend_item(o, &x, rgb, text);
  }
}

static void put_subtitle(out_t *o, const layout_t *L, const cprof_export_opts_t *opts) {
  const cprof__tree_t *t = L->t;
  int cpu = t->kind == CPROF_KIND_CPU;
  put(o, "<text id=\"sub\" x=\"600\" y=\"44\">");
  if (L->diff) {
    put(o, "before ");
    put_value(o, t->kind, t->total[0]);
    put(o, ", after ");
    put_value(o, t->kind, t->total[1]);
    put(o, t->kind == CPROF_KIND_CPU
               ? " \xC2\xB7 width: after \xC2\xB7 colour: change of self share of busy time, "
                 "without (idle) (red grew, blue shrank)"
               : " \xC2\xB7 width: after \xC2\xB7 colour: change of self share (red grew, blue "
                 "shrank)");
  } else {
    putf(o, "%" PRIu64 " samples, ", t->samples[0]);
    put_value(o, t->kind, t->total[0]);
    if (cpu)
      put(o, " sampled \xC2\xB7 width: total time");
    else
      put(o, opts->include_collected
                 ? " allocated (collected objects included) \xC2\xB7 width: bytes"
                 : " live at stop \xC2\xB7 width: bytes");
  }
  put(o, " \xC2\xB7 click: zoom \xC2\xB7 Esc: reset</text>\n");
}

int cprof__svg_write(FILE *f, const cprof__tree_t *t, int diff, const cprof_export_opts_t *opts) {
  static const cprof_export_opts_t defaults = {0};
  layout_t L = {.t = t, .slot = diff ? 1 : 0, .diff = diff, .busy = {t->total[0], t->total[1]}};
  out_t o = {f, 0};
  if (opts == NULL) opts = &defaults;
  for (uint32_t i = 0; diff && i < t->nnodes; i++)
    if (t->fns[t->nodes[i].fn].kind == CPROF__KIND_IDLE)
      for (int s = 0; s < 2; s++)
        L.busy[s] -= t->nodes[i].self[s];
  int rc = layout(&L);
  if (rc != 0) {
    free(L.items);
    return rc;
  }
  int h = HEAD_H + (int)(L.max_depth + 1) * FRAME_H + FOOT_H;
  putf(&o,
       "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
       "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
       "viewBox=\"0 0 %d %d\">\n",
       IMG_W, h, IMG_W, h);
  put(&o, STYLE);
  putf(&o, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fafafa\"/>\n", IMG_W, h);
  const char *what = diff                        ? "Differential flame graph"
                     : t->kind == CPROF_KIND_CPU ? "CPU flame graph"
                                                 : "Heap allocation flame graph";
  put(&o, "<text id=\"title\" x=\"600\" y=\"24\">");
  put(&o, what);
  if (opts->title != NULL && opts->title[0] != '\0') {
    put(&o, ": "); /* the whole line within TITLE_MAX, whatever the kind's words */
    put_middle(&o, opts->title, TITLE_MAX - (strlen(what) + 2));
  }
  put(&o, "</text>\n");
  put_subtitle(&o, &L, opts);
  put_legend(&o, &L);
  putf(&o, "<text id=\"reset\" x=\"%d\" y=\"24\">Reset zoom</text>\n", PAD);
  putf(&o,
       "<foreignObject x=\"%d\" y=\"8\" width=\"240\" height=\"26\"><input "
       "xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" type=\"search\" "
       "placeholder=\"search (regex)\" style=\"width:228px;font:12px Verdana,sans-serif\"/>"
       "</foreignObject>\n",
       IMG_W - PAD - 240);
  putf(&o, "<text id=\"matched\" x=\"%d\" y=\"70\"></text>\n", IMG_W - PAD);
  for (uint32_t i = 0; i < L.nitems && !o.err; i++)
    put_frame(&o, &L, &L.items[i], h);
  putf(&o, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD, h - 10);
  put(&o, SCRIPT);
  put(&o, "</svg>\n");
  free(L.items);
  if (o.err) return o.err;
  return fflush(f) != 0 || ferror(f) ? CPROF_EIO : 0;
}

int cprof__export_svg(cprof_analysis_t *a, const cprof_export_opts_t *o, FILE *f) {
  const cprof__tree_t *tree;
  int rc = cprof_analysis_tree(a, &tree);
  return rc == CPROF_OK ? cprof__svg_write(f, tree, 0, o) : rc;
}

int cprof_export_svg(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f) {
  return cprof_analysis_write_once(p, o, f, cprof__export_svg);
}

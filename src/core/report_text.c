/* The text report: a header, top-N functions by self and by total, the
 * top-down call tree cut at a share of the total, and optionally the
 * callers (bottom-up) of one function. Plain UTF-8 text, 100 columns wide
 * before the function names.
 *
 * Names come from the profile file, so they go out through
 * cprof__term_put: no control character reaches the terminal raw. The
 * trees stop at TREE_LEVELS levels (one "… N more levels" line stands for
 * what lies deeper) and draw at most INDENT_LEVELS levels of guides, so a
 * line is never longer than its name plus a constant and the report is
 * linear in the profile, however deep its call chains. */
#include "report_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "analysis.h"
#include "error.h"
#include "export.h"
#include "internal.h"
#include "label.h"
#include "report_lines.h"
#include "tree.h"
#include "xml.h"

#define TOP_DEFAULT 20
#define CUT_DEFAULT 1.0
#define FOCUS_MAX 8 /* functions a focus name may match */
/* V8 keeps at most 255 frames of a sample, so a profile V8 took is never
 * cut by the level limit; only hand-made or merged chains are. */
#define TREE_LEVELS 256
#define INDENT_LEVELS 64

typedef struct {
  FILE *f;
  int err;
  const cprof_profile_t *p;
  const cprof_export_opts_t *o;
  const cprof__tree_t *tree; /* from the analysis */
  const cprof_flat_t *flat;
  cprof_analysis_t *a;
  double cut;
} rep_t;

static void put(rep_t *r, const char *s) {
  if (!r->err && fputs(s, r->f) == EOF) r->err = CPROF_EIO;
}

/* Text from the profile or the command line: escaped for the terminal. */
static void put_name(rep_t *r, const char *s) {
  if (!r->err && cprof__term_put(r->f, s) != 0) r->err = CPROF_EIO;
}

static void putf(rep_t *r, const char *fmt, ...) CPROF__PRINTF(2, 3);
static void putf(rep_t *r, const char *fmt, ...) {
  va_list ap;
  if (r->err) return;
  va_start(ap, fmt);
  if (vfprintf(r->f, fmt, ap) < 0) r->err = CPROF_EIO;
  va_end(ap);
}

static const char *value(const rep_t *r, int64_t v, char *buf, size_t len) {
  cprof__fmt_value(buf, len, r->p->kind, v);
  return buf;
}

static void header(rep_t *r) {
  const cprof_profile_t *p = r->p;
  char a[64], b[64];
  if (r->o->title != NULL && r->o->title[0] != '\0') {
    put_name(r, r->o->title);
    put(r, "\n");
  }
  if (p->kind == CPROF_KIND_CPU) {
    putf(r, "CPU profile: %" PRIu32 " samples, %s sampled over %s\n", p->nsamples,
         value(r, r->flat->total, a, sizeof(a)),
         value(r, p->end_time - p->start_time, b, sizeof(b)));
    static const char *special[] = {"(idle)", "(program)", "(garbage collector)"};
    for (int i = 0; i < 3; i++) {
      int64_t self = cprof_flat_special(r->flat, p, special[i]);
      putf(r, "%s%s %.1f%%", i ? ", " : "", special[i], cprof__pct(self, r->flat->total));
    }
    put(r, "\n");
  } else {
    putf(r, "Heap profile: %" PRIu32 " samples, %s %s\n", p->nsamples,
         value(r, r->flat->total, a, sizeof(a)),
         r->o->include_collected ? "allocated (collected objects included)" : "sampled");
    uint32_t dropped = cprof_profile_dropped_samples(p);
    if (dropped > 0)
      putf(r, "(%" PRIu32 " samples named nodes missing from the tree and were left out)\n",
           dropped);
  }
}

/* ---- top-N ---- */

typedef struct {
  int64_t key, other;
  const cprof_frame_t *frame;
  uint32_t func;
} row_t;

static int row_cmp(const void *va, const void *vb) {
  const row_t *a = va, *b = vb;
  int c;
  if (a->key != b->key) return a->key > b->key ? -1 : 1;
  if (a->other != b->other) return a->other > b->other ? -1 : 1;
  if ((c = strcmp(a->frame->name, b->frame->name)) != 0) return c;
  if ((c = strcmp(a->frame->url, b->frame->url)) != 0) return c;
  return a->func < b->func ? -1 : a->func > b->func;
}

static int skipped(const cprof_frame_t *f) {
  return f->url[0] == '\0' && (strcmp(f->name, "(root)") == 0 || strcmp(f->name, "(idle)") == 0);
}

static void top_table(rep_t *r, int by_total, unsigned n) {
  const cprof_flat_t *flat = r->flat;
  row_t *rows = malloc(((size_t)flat->nfuncs + 1) * sizeof(*rows));
  char a[64], b[64];
  uint32_t len = 0;
  if (rows == NULL) {
    r->err = CPROF_ENOMEM;
    return;
  }
  for (uint32_t i = 0; i < flat->nfuncs; i++) {
    const cprof_func_t *fn = &flat->funcs[i];
    const cprof_frame_t *fr = &r->p->frames[fn->frame];
    if (skipped(fr)) continue;
    rows[len++] = (row_t){by_total ? fn->total : fn->self, by_total ? fn->self : fn->total, fr, i};
  }
  qsort(rows, len, sizeof(*rows), row_cmp);
  if (len > n) len = n;
  putf(r, "\nTop %" PRIu32 " functions by %s %s\n", len, by_total ? "total" : "self",
       r->p->kind == CPROF_KIND_CPU ? "time" : "size");
  putf(r, "%14s %7s %14s %7s  %s\n", "self", "self%", "total", "total%", "function");
  for (uint32_t i = 0; i < len && !r->err; i++) {
    const cprof_func_t *fn = &flat->funcs[rows[i].func];
    char *label = cprof__frame_label(rows[i].frame);
    if (label == NULL) {
      r->err = CPROF_ENOMEM;
      break;
    }
    putf(r, "%14s %6.1f%% %14s %6.1f%%  ", value(r, fn->self, a, sizeof(a)),
         cprof__pct(fn->self, flat->total), value(r, fn->total, b, sizeof(b)),
         cprof__pct(fn->total, flat->total));
    put_name(r, label);
    put(r, "\n");
    free(label);
  }
  free(rows);
}

/* ---- trees (top-down, and callers) ---- */

/* A tree to print: nodes with a function, a value and children. The
 * top-down tree prints the function tree itself; the callers tree is built
 * from it. */
typedef struct {
  uint32_t fn;
  uint32_t first_child, next_sibling;
  int64_t total, self;
  uint32_t more; /* levels below that pass the cut (read at TREE_LEVELS) */
} pnode_t;

typedef struct {
  pnode_t *nodes;
  uint32_t n, cap;
} ptree_t;

static int pnode_cmp(const void *va, const void *vb) {
  const pnode_t *const *a = va, *const *b = vb;
  if ((*a)->total != (*b)->total) return (*a)->total > (*b)->total ? -1 : 1;
  return (*a)->fn < (*b)->fn ? -1 : (*a)->fn > (*b)->fn;
}

/* The tree drawing before a name at depth (the top is 0): a guide per
 * level above, at most INDENT_LEVELS of them, then "[+N] " for the levels
 * left undrawn, then the branch. */
static void indent(rep_t *r, const unsigned char *last, uint32_t depth, int is_last) {
  if (depth == 0) return;
  for (uint32_t d = 1; d < depth && d <= INDENT_LEVELS; d++)
    put(r, last[d] ? "   " : "\xE2\x94\x82  "); /* │ */
  if (depth - 1 > INDENT_LEVELS) putf(r, "[+%" PRIu32 "] ", depth - 1 - INDENT_LEVELS);
  put(r, is_last ? "\xE2\x94\x94\xE2\x94\x80 " : "\xE2\x94\x9C\xE2\x94\x80 "); /* └─ ├─ */
}

/* Prints a tree depth-first, heaviest child first, cutting nodes below
 * cut_value. Lines: total% total self% self, then the tree drawing. A node
 * at TREE_LEVELS with more below gets one "… N more levels" line instead
 * of its subtree. */
static void print_tree(rep_t *r, const ptree_t *t, int64_t cut_value) {
  typedef struct {
    uint32_t node, depth;
    int last;
  } item_t;
  item_t *stack = malloc(((size_t)t->n + 1) * sizeof(*stack));
  const pnode_t **kids = malloc(((size_t)t->n + 1) * sizeof(*kids));
  unsigned char last[TREE_LEVELS + 2]; /* last[d]: depth d's node was the last child */
  uint32_t top = 0;
  char a[64], b[64];
  if (stack == NULL || kids == NULL) {
    r->err = CPROF_ENOMEM;
    goto out;
  }
  stack[top++] = (item_t){0, 0, 1};
  while (top > 0 && !r->err) {
    item_t it = stack[--top];
    const pnode_t *n = &t->nodes[it.node];
    last[it.depth] = (unsigned char)it.last;
    putf(r, "%6.1f%% %14s %6.1f%% %14s  ", cprof__pct(n->total, r->flat->total),
         value(r, n->total, a, sizeof(a)), cprof__pct(n->self, r->flat->total),
         value(r, n->self, b, sizeof(b)));
    indent(r, last, it.depth, it.last);
    put_name(r, r->tree->fns[n->fn].label);
    put(r, "\n");
    if (it.depth == TREE_LEVELS) {
      if (n->more > 0) {
        putf(r, "%7s %14s %7s %14s  ", "", "", "", "");
        indent(r, last, it.depth + 1, 1);
        putf(r, "\xE2\x80\xA6 %" PRIu32 " more level%s\n", n->more, n->more == 1 ? "" : "s");
      }
      continue;
    }
    uint32_t nk = 0;
    for (uint32_t c = n->first_child; c != CPROF_NONE; c = t->nodes[c].next_sibling)
      if (t->nodes[c].total >= cut_value && t->nodes[c].total > 0) kids[nk++] = &t->nodes[c];
    qsort(kids, nk, sizeof(*kids), pnode_cmp);
    for (uint32_t k = nk; k-- > 0;) /* pushed in reverse: the heaviest pops first */
      stack[top++] = (item_t){(uint32_t)(kids[k] - t->nodes), it.depth + 1, k == nk - 1};
  }
out:
  free(stack);
  free(kids);
}

static int64_t cut_value(const rep_t *r) {
  return (int64_t)((double)r->flat->total * r->cut / 100.0);
}

/* The function tree as a printable tree; more: the levels below each node
 * that pass the cut, in one pass from the leaves up (children follow their
 * parents in the function tree). */
static void top_down(rep_t *r) {
  const cprof__tree_t *t = r->tree;
  int64_t cut = cut_value(r);
  ptree_t pt = {malloc((size_t)t->nnodes * sizeof(pnode_t)), t->nnodes, t->nnodes};
  if (pt.nodes == NULL) {
    r->err = CPROF_ENOMEM;
    return;
  }
  for (uint32_t i = 0; i < t->nnodes; i++)
    pt.nodes[i] = (pnode_t){t->nodes[i].fn,       t->nodes[i].first_child, t->nodes[i].next_sibling,
                            t->nodes[i].total[0], t->nodes[i].self[0],     0};
  for (uint32_t i = t->nnodes; i-- > 1;) {
    pnode_t *parent = &pt.nodes[t->nodes[i].parent];
    if (pt.nodes[i].total >= cut && pt.nodes[i].total > 0 && pt.nodes[i].more + 1 > parent->more)
      parent->more = pt.nodes[i].more + 1;
  }
  putf(r, "\nCall tree (top-down), nodes with at least %.2g%% of the total\n", r->cut);
  putf(r, "%7s %14s %7s %14s  %s\n", "total%", "total", "self%", "self", "function");
  print_tree(r, &pt, cut);
  free(pt.nodes);
}

static uint32_t ptree_child(ptree_t *t, uint32_t parent, uint32_t fn) {
  for (uint32_t c = t->nodes[parent].first_child; c != CPROF_NONE; c = t->nodes[c].next_sibling)
    if (t->nodes[c].fn == fn) return c;
  if (t->n == t->cap) {
    uint32_t cap = t->cap * 2;
    pnode_t *nodes = realloc(t->nodes, (size_t)cap * sizeof(*nodes));
    if (nodes == NULL) return CPROF_NONE;
    t->nodes = nodes;
    t->cap = cap;
  }
  t->nodes[t->n] = (pnode_t){fn, CPROF_NONE, t->nodes[parent].first_child, 0, 0, 0};
  t->nodes[parent].first_child = t->n;
  return t->n++;
}

/* Callers of fn: for each outermost node of fn (no ancestor is fn, so a
 * recursive function's time counts once), its total goes to every caller
 * on its path up to (not including) the root, TREE_LEVELS callers at most:
 * the deepest node built records how many more there are. Linear: one
 * pass marks the nodes below an fn, and each path walk is bounded. */
static void callers(rep_t *r, uint32_t fn) {
  const cprof__tree_t *t = r->tree;
  ptree_t pt = {malloc(64 * sizeof(pnode_t)), 1, 64};
  unsigned char *inner = malloc(t->nnodes); /* inner[i]: an ancestor of i is fn */
  if (pt.nodes == NULL || inner == NULL) {
    r->err = CPROF_ENOMEM;
    goto out;
  }
  inner[0] = 0;
  for (uint32_t i = 1; i < t->nnodes; i++) {
    uint32_t p = t->nodes[i].parent;
    inner[i] = inner[p] || t->nodes[p].fn == fn;
  }
  pt.nodes[0] = (pnode_t){fn, CPROF_NONE, CPROF_NONE, 0, 0, 0};
  for (uint32_t i = 0; i < t->nnodes && !r->err; i++) {
    if (t->nodes[i].fn != fn || inner[i]) continue;
    int64_t v = t->nodes[i].total[0], s = t->nodes[i].self[0];
    uint32_t at = 0, level = 0, a;
    pt.nodes[0].total += v;
    pt.nodes[0].self += s;
    for (a = t->nodes[i].parent; a != CPROF_NONE && a != 0 && level < TREE_LEVELS;
         a = t->nodes[a].parent, level++) {
      if ((at = ptree_child(&pt, at, t->nodes[a].fn)) == CPROF_NONE) {
        r->err = CPROF_ENOMEM;
        break;
      }
      pt.nodes[at].total += v;
      pt.nodes[at].self += s;
    }
    /* callers left: the node's depth less the root and the levels built */
    uint32_t left = t->nodes[i].depth > level + 1 ? t->nodes[i].depth - 1 - level : 0;
    if (at != CPROF_NONE && left > pt.nodes[at].more) pt.nodes[at].more = left;
  }
  char a[64];
  put(r, "\nCallers of ");
  put_name(r, t->fns[fn].label);
  putf(r, " (bottom-up): %s, %.1f%% of the total\n", value(r, pt.nodes[0].total, a, sizeof(a)),
       cprof__pct(pt.nodes[0].total, r->flat->total));
  put(r, r->p->kind == CPROF_KIND_CPU
             ? "(each caller chain with the time the function took below it: total, and self)\n"
             : "(each caller chain with the bytes the function allocated below it: total, and "
               "self)\n");
  putf(r, "%7s %14s %7s %14s  %s\n", "total%", "total", "self%", "self", "function");
  if (!r->err) print_tree(r, &pt, cut_value(r));
out:
  free(pt.nodes);
  free(inner);
}

static int report(rep_t *r) {
  int rc = cprof_analysis_tree(r->a, &r->tree);
  if (rc != 0) return rc;
  if ((rc = cprof_analysis_flat(r->a, &r->flat)) != 0) return rc;
  unsigned top = r->o->top ? r->o->top : TOP_DEFAULT;
  header(r);
  top_table(r, 0, top);
  top_table(r, 1, top);
  top_down(r);
  if (r->o->focus != NULL && r->o->focus[0] != '\0') {
    uint32_t fns[FOCUS_MAX];
    uint32_t n = cprof__tree_find_fns(r->tree, r->o->focus, fns, FOCUS_MAX);
    if (n == 0) {
      put(r, "\nNo function matches \"");
      put_name(r, r->o->focus);
      put(r, "\"\n");
    }
    for (uint32_t i = 0; i < n && !r->err; i++)
      callers(r, fns[i]);
  }
  if (r->o->lines && !r->err) r->err = cprof__report_lines(r->f, r->a, r->o);
  if (r->err) return r->err;
  return fflush(r->f) != 0 || ferror(r->f) ? CPROF_EIO : 0;
}

int cprof__export_text(cprof_analysis_t *a, const cprof_export_opts_t *o, FILE *f) {
  rep_t r = {.f = f, .p = a->p, .o = o, .a = a};
  r.cut = o->cut_percent > 0 ? o->cut_percent : CUT_DEFAULT;
  return report(&r);
}

int cprof_report_text(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f) {
  return cprof_analysis_write_once(p, o, f, cprof__export_text);
}

unsigned cprof__analysis_matches(cprof_analysis_t *a, const char *name) {
  const cprof__tree_t *tree;
  uint32_t fns[FOCUS_MAX];
  if (name == NULL || cprof_analysis_tree(a, &tree) != 0) return 0;
  return cprof__tree_find_fns(tree, name, fns, FOCUS_MAX);
}

unsigned cprof_report_matches(const cprof_profile_t *p, const char *name) {
  cprof_analysis_t a;
  if (p == NULL) return 0;
  cprof_analysis_init(&a, p);
  unsigned n = cprof__analysis_matches(&a, name);
  cprof_analysis_free(&a);
  return n;
}

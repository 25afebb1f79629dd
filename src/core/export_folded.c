/* Folded stacks (Brendan Gregg's stackcollapse output, read by
 * flamegraph.pl, speedscope, inferno): one line per distinct stack,
 *
 *   caller;callee;leaf <count>
 *
 * outermost frame first, (root) left out, each frame as "name (path:line)".
 * count is the stack's self value: µs for CPU (flamegraph.pl
 * --countname=us), bytes for heap (--countname=bytes), so the counts sum to
 * the profile's total. Stacks with a zero count are left out. Lines come in
 * tree order (a preorder walk, siblings sorted by label). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "error.h"
#include "export.h"
#include "internal.h"
#include "out.h"
#include "export_folded.h"
#include "tree.h"

void cprof__folded_clean(char *label) {
  for (char *s = label; *s; s++) {
    if (*s == ';')
      *s = ','; /* the frame separator */
    else if (*s == '\n' || *s == '\r' || *s == '\t')
      *s = ' '; /* one line per stack */
  }
}

typedef struct {
  const cprof__tree_t *t;
  const char **label; /* per fn: its label, cleaned (a copy where it had to change) */
  size_t *len;        /* per fn: that label's length */
  uint32_t *path;
  cprof__out_t out;
} folded_t;

static void put_line(folded_t *w, uint32_t depth, int64_t count) {
  const cprof__tree_t *t = w->t;
  for (uint32_t d = depth == 0 ? 0 : 1; d <= depth; d++) {
    uint32_t fn = t->nodes[w->path[d]].fn;
    if (d > 1) cprof__out_char(&w->out, ';');
    cprof__out_bytes(&w->out, w->label[fn], w->len[fn]);
  }
  cprof__out_char(&w->out, ' ');
  cprof__out_i64(&w->out, count);
  cprof__out_char(&w->out, '\n');
}

/* Preorder over the sorted tree; path[d] is the node at depth d. */
static void write_lines(folded_t *w) {
  const cprof__tree_t *t = w->t;
  uint32_t cur = 0;
  for (;;) {
    const cprof__tnode_t *n = &t->nodes[cur];
    w->path[n->depth] = cur;
    if (n->self[0] > 0) put_line(w, n->depth, n->self[0]);
    if (w->out.err) return;
    if (n->first_child != CPROF_NONE) {
      cur = n->first_child;
      continue;
    }
    while (cur != 0 && t->nodes[cur].next_sibling == CPROF_NONE)
      cur = t->nodes[cur].parent;
    if (cur == 0) return;
    cur = t->nodes[cur].next_sibling;
  }
}

/* The tree's labels as a folded line takes them; the tree is shared with
 * the other writers, so a label that must change is copied. */
static int clean_labels(folded_t *w) {
  const cprof__tree_t *t = w->t;
  for (uint32_t i = 0; i < t->nfns; i++) {
    const char *l = t->fns[i].label;
    if (strpbrk(l, ";\n\r\t")) {
      char *c = strdup(l);
      if (!c) return CPROF_ENOMEM;
      cprof__folded_clean(c);
      l = c;
    }
    w->label[i] = l;
    w->len[i] = strlen(l);
  }
  return CPROF_OK;
}

static void free_labels(folded_t *w) {
  for (uint32_t i = 0; w->label && i < w->t->nfns; i++)
    if (w->label[i] && w->label[i] != w->t->fns[i].label) free((char *)w->label[i]);
  free(w->label);
}

int cprof__export_folded(cprof_analysis_t *a, const cprof_export_opts_t *o, FILE *f) {
  const cprof__tree_t *tree;
  (void)o;
  int rc = cprof_analysis_tree(a, &tree);
  if (rc != CPROF_OK) return rc;
  folded_t w = {.t = tree};
  w.label = calloc((size_t)tree->nfns + 1, sizeof(*w.label));
  w.len = malloc(((size_t)tree->nfns + 1) * sizeof(*w.len));
  w.path = malloc(((size_t)tree->max_depth + 1) * sizeof(*w.path));
  rc = cprof__out_open(&w.out, f, a->p);
  if (rc == 0 && (w.label == NULL || w.len == NULL || w.path == NULL)) rc = CPROF_ENOMEM;
  if (rc == 0) rc = clean_labels(&w);
  if (rc == 0) write_lines(&w);
  int closed = cprof__out_close(&w.out);
  if (rc == 0) rc = closed;
  free_labels(&w);
  free(w.len);
  free(w.path);
  return rc;
}

int cprof_export_folded(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f) {
  return cprof_analysis_write_once(p, o, f, cprof__export_folded);
}

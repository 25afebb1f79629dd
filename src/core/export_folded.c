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
#include <stdlib.h>
#include <string.h>

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
  size_t *len; /* per fn: its label's length */
  uint32_t *path;
  cprof__out_t out;
} folded_t;

static void put_line(folded_t *w, uint32_t depth, int64_t count) {
  const cprof__tree_t *t = w->t;
  for (uint32_t d = depth == 0 ? 0 : 1; d <= depth; d++) {
    uint32_t fn = t->nodes[w->path[d]].fn;
    if (d > 1) cprof__out_char(&w->out, ';');
    cprof__out_bytes(&w->out, t->fns[fn].label, w->len[fn]);
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

int cprof_export_folded(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f) {
  cprof__tree_t tree;
  folded_t w = {.t = &tree};
  (void)o;
  if (p == NULL || f == NULL) return CPROF_EINVAL;
  int rc = cprof__tree_build(&tree, p);
  if (rc != 0) return rc;
  w.len = malloc(((size_t)tree.nfns + 1) * sizeof(*w.len));
  w.path = malloc(((size_t)tree.max_depth + 1) * sizeof(*w.path));
  rc = cprof__out_open(&w.out, f, p);
  if (rc == 0 && (w.len == NULL || w.path == NULL)) rc = CPROF_ENOMEM;
  if (rc == 0) {
    for (uint32_t i = 0; i < tree.nfns; i++) {
      cprof__folded_clean(tree.fns[i].label);
      w.len[i] = strlen(tree.fns[i].label);
    }
    write_lines(&w);
  }
  int closed = cprof__out_close(&w.out);
  if (rc == 0) rc = closed;
  free(w.len);
  free(w.path);
  cprof__tree_free(&tree);
  return rc;
}

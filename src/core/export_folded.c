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
#include <inttypes.h>
#include <stdlib.h>

#include "error.h"
#include "export.h"
#include "internal.h"
#include "render.h"

int cprof__folded_frame(FILE *f, const char *label) {
  for (const char *s = label; *s; s++) {
    char c = *s;
    if (c == ';')
      c = ','; /* the frame separator */
    else if (c == '\n' || c == '\r' || c == '\t')
      c = ' '; /* one line per stack */
    if (putc(c, f) == EOF) return CPROF_EIO;
  }
  return 0;
}

static int put_line(FILE *f, const cprof__tree_t *t, const uint32_t *path, uint32_t depth,
                    int64_t count) {
  for (uint32_t d = 1; d <= depth; d++) {
    if (d > 1 && putc(';', f) == EOF) return CPROF_EIO;
    if (cprof__folded_frame(f, t->fns[t->nodes[path[d]].fn].label) != 0) return CPROF_EIO;
  }
  if (depth == 0 && cprof__folded_frame(f, t->fns[t->nodes[0].fn].label) != 0) return CPROF_EIO;
  return fprintf(f, " %" PRId64 "\n", count) < 0 ? CPROF_EIO : 0;
}

static int write_lines(FILE *f, const cprof__tree_t *t, uint32_t *path) {
  uint32_t cur = 0;
  for (;;) {
    const cprof__tnode_t *n = &t->nodes[cur];
    path[n->depth] = cur;
    if (n->self[0] > 0 && put_line(f, t, path, n->depth, n->self[0]) != 0) return CPROF_EIO;
    if (n->first_child != CPROF_NONE) {
      cur = n->first_child;
      continue;
    }
    while (cur != 0 && t->nodes[cur].next_sibling == CPROF_NONE)
      cur = t->nodes[cur].parent;
    if (cur == 0) return 0;
    cur = t->nodes[cur].next_sibling;
  }
}

int cprof_export_folded(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f) {
  cprof__tree_t tree;
  (void)o;
  if (p == NULL || f == NULL) return CPROF_EINVAL;
  int rc = cprof__tree_build(&tree, p);
  if (rc != 0) return rc;
  uint32_t *path = malloc(((size_t)tree.max_depth + 1) * sizeof(*path));
  rc = path ? write_lines(f, &tree, path) : CPROF_ENOMEM;
  free(path);
  cprof__tree_free(&tree);
  if (rc == 0 && (fflush(f) != 0 || ferror(f))) rc = CPROF_EIO;
  return rc;
}

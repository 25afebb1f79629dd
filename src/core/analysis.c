/* One analysis of a profile per job (analysis.h). */
#include "analysis.h"

#include <stdlib.h>

#include "error.h"
#include "tree.h"

void cprof_analysis_init(cprof_analysis_t *a, const cprof_profile_t *p) {
  *a = (cprof_analysis_t){.p = p};
}

int cprof_analysis_tree(cprof_analysis_t *a, const cprof__tree_t **out) {
  if (!a->tree) {
    cprof__tree_t *t = malloc(sizeof *t);
    int rc = t ? cprof__tree_build(t, a->p) : CPROF_ENOMEM;
    if (rc != CPROF_OK) {
      free(t);
      return rc;
    }
    a->tree = t;
    a->builds++;
  }
  *out = a->tree;
  return CPROF_OK;
}

int cprof_analysis_flat(cprof_analysis_t *a, const cprof_flat_t **out) {
  if (!(a->built & CPROF__ANALYSIS_FLAT)) {
    int rc = cprof_flat_build(a->p, &a->flat); /* frees what it made on failure */
    if (rc != CPROF_OK) return rc;
    a->built |= CPROF__ANALYSIS_FLAT;
    a->builds++;
  }
  *out = &a->flat;
  return CPROF_OK;
}

int cprof_analysis_lines(cprof_analysis_t *a, const cprof_lines_t **out) {
  const cprof_flat_t *flat;
  if (!(a->built & CPROF__ANALYSIS_LINES)) {
    int rc = cprof_analysis_flat(a, &flat);
    if (rc == CPROF_OK) rc = cprof_lines_build(a->p, flat, NULL, &a->lines);
    if (rc != CPROF_OK) return rc;
    a->built |= CPROF__ANALYSIS_LINES;
    a->builds++;
  }
  *out = &a->lines;
  return CPROF_OK;
}

void cprof_analysis_drop_tree(cprof_analysis_t *a) {
  cprof__tree_free(a->tree);
  free(a->tree);
  a->tree = NULL;
}

void cprof_analysis_free(cprof_analysis_t *a) {
  if (!a) return;
  cprof_analysis_drop_tree(a);
  cprof_flat_free(&a->flat);
  cprof_lines_free(&a->lines);
  *a = (cprof_analysis_t){0};
}

int cprof_analysis_write_once(const cprof_profile_t *p, const cprof_export_opts_t *o, FILE *f,
                              cprof_analysis_writer_fn fn) {
  static const cprof_export_opts_t defaults = {0};
  if (p == NULL || f == NULL) return CPROF_EINVAL;
  cprof_analysis_t a;
  cprof_analysis_init(&a, p);
  int rc = fn(&a, o ? o : &defaults, f);
  cprof_analysis_free(&a);
  return rc;
}

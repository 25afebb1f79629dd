/* The SVG flame graph writer's entry for diff.c, which draws a
 * differential graph from a two-slot tree. Internal. */
#ifndef CPROF_EXPORT_SVG_H
#define CPROF_EXPORT_SVG_H

#include <stdio.h>

#include "export.h"
#include "tree.h"

/* The SVG flame graph of a finished tree. diff = 0: widths and colours from
 * slot 0; diff = 1: widths from slot 1 (after), colours from the change of
 * each frame's self share from slot 0 to slot 1. */
int cprof__svg_write(FILE *f, const cprof__tree_t *t, int diff, const cprof_export_opts_t *o);

#endif

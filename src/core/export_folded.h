/* The folded stacks writer's label rule, for the C tests. Internal. */
#ifndef CPROF_EXPORT_FOLDED_H
#define CPROF_EXPORT_FOLDED_H

/* Makes a label fit a folded line, in place: ';' becomes ',', line breaks
 * and tabs become spaces. */
void cprof__folded_clean(char *label);

#endif

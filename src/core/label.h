/* How frames and values read to people: a frame's kind (for colours and
 * legends), its short url and label, and a value in its unit. Internal to
 * the derived-format writers (pprof, folded, SVG, text report, diff). */
#ifndef CPROF_LABEL_H
#define CPROF_LABEL_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* ---- frames ---- */

/* What kind of code a frame is, for colours and legends. */
typedef enum {
  CPROF__KIND_APP = 0,    /* the application's own files */
  CPROF__KIND_DEPS = 1,   /* .../node_modules/... */
  CPROF__KIND_NODE = 2,   /* node:..., internal/... (Node.js itself) */
  CPROF__KIND_NATIVE = 3, /* no script: V8 builtins, (program), (garbage collector), (root) */
  CPROF__KIND_IDLE = 4,   /* (idle) */
  CPROF__KIND_COUNT = 5
} cprof__kind_t;

cprof__kind_t cprof__frame_kind(const cprof_frame_t *f);

/* A url as a reader wants it: file:///a/b.js → /a/b.js; others unchanged. */
const char *cprof__short_url(const char *url);

/* "name (path:line)", "name (path)" or "name"; anonymous functions are
 * "(anonymous)"; line is 1-based. A malloc'd string, NULL if out of memory. */
char *cprof__frame_label(const cprof_frame_t *f);

/* ---- numbers for people ---- */

/* A value in the profile's unit for reading: "12.35 ms" (CPU, µs inside)
 * or "1.50 MiB" (heap, bytes). */
void cprof__fmt_value(char *buf, size_t len, cprof_kind_t kind, int64_t v);

double cprof__pct(int64_t part, int64_t whole);

#endif

/* Internal to the derived-format writers (pprof, folded, SVG, text report,
 * diff): a growable byte buffer, the protobuf and XML encoders, frame labels
 * and kinds, and the function tree they all draw from. Not public API; the
 * C tests include it to check the encoders. */
#ifndef CPROF_RENDER_H
#define CPROF_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "profile.h"

/* ---- growable buffer ---- */

typedef struct {
  unsigned char *data;
  size_t len, cap;
  int oom; /* set once a grow failed; later puts are no-ops */
} cprof__buf_t;

int cprof__buf_put(cprof__buf_t *b, const void *data, size_t n); /* 0 or CPROF_ENOMEM */
void cprof__buf_free(cprof__buf_t *b);

/* ---- protobuf wire format (varint and length-delimited only) ---- */

/* Writes v as a base-128 varint into out (at least 10 bytes); returns the
 * byte count (1..10). Negative int64 values are passed as their uint64 two's
 * complement, as protobuf's int64 does (10 bytes). */
size_t cprof__pb_varint(unsigned char *out, uint64_t v);

int cprof__pb_put_varint(cprof__buf_t *b, uint64_t v);
/* A field tag: (field << 3) | wire type (0 varint, 2 length-delimited). */
int cprof__pb_put_tag(cprof__buf_t *b, uint32_t field, unsigned wire);
/* field = v, omitted when v is 0 (the proto3 default). */
int cprof__pb_put_int(cprof__buf_t *b, uint32_t field, uint64_t v);
/* field = bytes (a string, a nested message, or a packed list). */
int cprof__pb_put_bytes(cprof__buf_t *b, uint32_t field, const void *data, size_t n);

/* ---- XML text ---- */

/* Writes s escaped for XML character data and attribute values: & < > " '
 * become entities, control characters XML 1.0 forbids and invalid UTF-8
 * become U+FFFD. At most max_chars code points are written (SIZE_MAX for
 * all). CPROF_OK or CPROF_EIO. */
int cprof__xml_put(FILE *f, const char *s, size_t max_chars);

/* Number of UTF-8 code points in s (invalid bytes count one each). */
size_t cprof__utf8_len(const char *s);

/* s advanced by n code points (or to its end), counted as cprof__utf8_len. */
const char *cprof__utf8_skip(const char *s, size_t n);

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

/* ---- function tree ---- */

/* The call tree with sibling nodes of the same function merged (a function
 * is functionName + url + line + column, as in the flat profile). Values
 * come in two slots so a diff can merge two profiles into one tree: slot 0
 * is the only one used otherwise ("before" in a diff), slot 1 is "after". */
typedef struct {
  const cprof_frame_t *frame; /* representative frame (owned by a profile) */
  char *label;                /* cprof__frame_label */
  cprof__kind_t kind;
} cprof__fn_t;

typedef struct {
  uint32_t fn;                        /* index into fns */
  uint32_t parent;                    /* CPROF_NONE for the root */
  uint32_t first_child, next_sibling; /* children sorted by label once sorted */
  uint32_t depth;                     /* root 0 */
  int64_t self[2], total[2];          /* profile unit: µs or bytes */
  uint64_t count[2];                  /* samples taken in this node */
} cprof__tnode_t;

typedef struct {
  cprof__fn_t *fns;
  uint32_t nfns, fns_cap;
  cprof__tnode_t *nodes; /* nodes[0] is the root; parents precede children */
  uint32_t nnodes, nodes_cap;
  uint32_t max_depth;
  int64_t total[2];    /* sum of self per slot */
  uint64_t samples[2]; /* sum of count per slot */
  cprof_kind_t kind;
  struct cprof__tindex_s *index; /* lookup tables while adding */
} cprof__tree_t;

/* Adds p's call tree into slot (0 or 1). The root of p merges with the
 * tree's root whatever its name. p must outlive t (frames are borrowed).
 * CPROF_OK, CPROF_ENOMEM, or CPROF_EINVAL (bad model, or a profile of
 * another kind than one already added). */
int cprof__tree_add(cprof__tree_t *t, const cprof_profile_t *p, int slot);

/* Sorts every node's children by label (then function), fixes totals and
 * drops the lookup tables. Call once, after the last add. */
int cprof__tree_finish(cprof__tree_t *t);

void cprof__tree_free(cprof__tree_t *t);

/* Builds a finished one-slot tree of p. */
int cprof__tree_build(cprof__tree_t *t, const cprof_profile_t *p);

/* The indexes of fns whose display name (functionName, or "(anonymous)")
 * equals name; if none, those whose label contains name. Returns the count
 * (up to max). */
uint32_t cprof__tree_find_fns(const cprof__tree_t *t, const char *name, uint32_t *out,
                              uint32_t max);

/* ---- writers shared with diff.c ---- */

/* Makes a label fit a folded line, in place: ';' becomes ',', line breaks
 * and tabs become spaces. */
void cprof__folded_clean(char *label);

/* The SVG flame graph of a finished tree. diff = 0: widths and colours from
 * slot 0; diff = 1: widths from slot 1 (after), colours from the change of
 * each frame's self share from slot 0 to slot 1. */
int cprof__svg_write(FILE *f, const cprof__tree_t *t, int diff, const cprof_export_opts_t *o);

/* ---- numbers for people ---- */

/* A value in the profile's unit for reading: "12.35 ms" (CPU, µs inside)
 * or "1.50 MiB" (heap, bytes). */
void cprof__fmt_value(char *buf, size_t len, cprof_kind_t kind, int64_t v);

double cprof__pct(int64_t part, int64_t whole);

#endif

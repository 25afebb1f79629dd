/* The native profile model's types: one shape for CPU and heap sampling
 * profiles (profile.h has the functions on them). A profile is a call tree
 * of nodes; each node names an interned call frame and carries a self and
 * total value in the profile's unit (µs for CPU, bytes for heap). Its own
 * header so that internal.h can declare the model's builder without
 * including profile.h (which would make a circle with profile.c). */
#ifndef CPROF_MODEL_H
#define CPROF_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define CPROF_NONE UINT32_MAX

typedef enum { CPROF_KIND_CPU = 1, CPROF_KIND_HEAP = 2 } cprof_kind_t;

/* A call frame as V8 reports it (Runtime.CallFrame). Strings are owned by the
 * profile and never NULL ("" when absent). line and column are 0-based, -1
 * when unknown, exactly as in the file. */
typedef struct {
  const char *name; /* functionName; "" for anonymous */
  const char *url;
  const char *script_id;
  int32_t line;
  int32_t column;
} cprof_frame_t;

typedef struct {
  uint32_t id;           /* the node id in the source file */
  uint32_t parent;       /* node index, CPROF_NONE for the root */
  uint32_t frame;        /* index into frames */
  uint32_t first_child;  /* node index or CPROF_NONE */
  uint32_t next_sibling; /* node index or CPROF_NONE; children keep file order */
  uint32_t hit_count;    /* CPU: V8's hitCount, kept for the writer */
  int64_t self;          /* CPU: µs from samples; heap: selfSize bytes */
  int64_t total;         /* self plus the self of every descendant */
} cprof_node_t;

/* CPU: one entry of V8's positionTicks, where in its function a node's
 * samples fell (lines.h turns them into self time per line). */
typedef struct {
  uint32_t node;   /* node index */
  int32_t line;    /* 1-based, as V8 gives it (0: unknown) */
  uint32_t ticks;  /* samples of the node on that line */
  const char *url; /* NULL: the node's frame's url; else the line's own file (source maps) */
  int64_t self;    /* merged profiles: the line's self time summed over the inputs (each
                      input's split, lines.h), so a merge keeps it exact; 0: not known */
} cprof_line_tick_t;

typedef struct cprof_profile_s {
  cprof_kind_t kind;
  cprof_frame_t *frames; /* interned: equal frames share one index */
  uint32_t nframes;
  cprof_node_t *nodes; /* nodes[0] is the root; parents precede children */
  uint32_t nnodes;
  uint32_t *samples; /* node index per sample */
  uint32_t nsamples;
  int64_t *time_deltas;      /* CPU: µs since the previous sample (file order) */
  int64_t *sample_sizes;     /* heap: bytes per sample */
  uint64_t *sample_ordinals; /* heap: V8's ordinal per sample */
  int64_t start_time;        /* CPU: µs on V8's clock; heap: 0 */
  int64_t end_time;          /* CPU: µs on V8's clock; heap: 0 */
  struct cprof__internal_s *internal;
  cprof_line_tick_t *line_ticks; /* CPU: positionTicks, each node's entries together */
  uint32_t nline_ticks;          /* 0 when the file had none (heap, merged profiles) */
} cprof_profile_t;

#endif

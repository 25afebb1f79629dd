/* The native profile model: one shape for CPU and heap sampling profiles.
 *
 * A profile is a call tree of nodes; each node names an interned call frame
 * and carries a self and total value in the profile's unit (µs for CPU,
 * bytes for heap). Pure C11: no Node-API here, so the CLI, tests and fuzzers
 * use it alone. */
#ifndef CPROF_PROFILE_H
#define CPROF_PROFILE_H

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

/* Parses a .cpuprofile, a .heapprofile, or an inspector reply wrapping one
 * ({"id":N,"result":{"profile":{...}}}), detecting which. Fills self and
 * total. On error returns a negative CPROF_E* code and writes a message that
 * names the problem into errbuf (if errbuf is not NULL). */
int cprof_profile_parse(const char *json, size_t len, cprof_profile_t **out, char *errbuf,
                        size_t errlen);

void cprof_profile_free(cprof_profile_t *p);

/* CPU: the time a sample stands for, in µs: the gap to the next sample (as
 * Chrome DevTools and speedscope read it), the last one up to end_time;
 * negative gaps count 0. Heap: the sample's size in bytes. */
int64_t cprof_sample_weight(const cprof_profile_t *p, uint32_t i);

/* Sum of every node's self value: the profile's total in its unit. */
int64_t cprof_profile_total(const cprof_profile_t *p);

/* Added to the contract: heap samples the parser dropped because they name a
 * node the tree does not have (real V8 output has them; they are not in
 * samples). Always 0 for CPU profiles, where such a sample is an error. */
uint32_t cprof_profile_dropped_samples(const cprof_profile_t *p);

/* Finds the profile object's text inside an inspector reply
 * ({"id":N,"result":{"profile":{...}}}) without parsing it: 1 with its
 * offset and length, 0 when json is not such a reply (an error reply, or
 * another shape). The span is only located, not validated. */
int cprof_reply_profile_span(const char *json, size_t len, size_t *off, size_t *n);

/* Keeps at most max_depth frames per stack below the root, as V8's sampling
 * heap profiler does with stackDepth (some V8 versions ignore it): a deeper
 * node's self moves to the node for its innermost max_depth frames, rooted at
 * the root; samples follow. Node ids stay unique. No-op when every stack
 * fits; when it cuts, the profile's line_ticks go. CPROF_OK or CPROF_ENOMEM. */
int cprof_profile_limit_depth(cprof_profile_t *p, uint32_t max_depth);

/* The bytes this profile really holds in memory (every allocation the model
 * owns: arrays at their capacity, interned strings, internal tables), for a
 * ring's honest accounting. Where the C library can tell, each block counts
 * at its usable size (malloc_usable_size); elsewhere at its requested size.
 * (Asked for with merge.h, which includes this header.) */
size_t cprof_profile_bytes(const cprof_profile_t *p);

/* The profiler's own start call in a CPU profile (own_start.c): how many
 * of the first samples have a frame whose url starts with url_prefix in
 * their stack (the profiler's own code). 0 for heap profiles, an empty
 * prefix, or when that is every sample (then there is nothing else). */
uint32_t cprof_profile_leading_own(const cprof_profile_t *p, const char *url_prefix);

/* Drops the first k samples of a CPU profile (k < nsamples): their time
 * deltas fold into the first kept sample's, so kept samples keep their
 * timestamps, and startTime and endTime stay; hitCounts drop with them;
 * self and total are summed again. CPROF_OK, or CPROF_EINVAL. */
int cprof_profile_drop_leading(cprof_profile_t *p, uint32_t k);

/* ---- for the core's own files (internal, as every cprof__ name is) ---- */

/* Model construction (profile.c). A profile under construction owns an
 * arena for its strings and a frame table; cprof__profile_finish drops the
 * table so a parsed profile keeps only what it returns. */
cprof_profile_t *cprof__profile_new(cprof_kind_t kind);

/* Interns a frame; NULL strings read as "". Returns 0 or CPROF_ENOMEM. */
int cprof__profile_intern_frame(cprof_profile_t *p, const char *name, const char *url,
                                const char *script_id, int32_t line, int32_t column,
                                uint32_t *index_out);

/* The parts of cprof__profile_intern_frame, for a parser that meets a
 * frame's strings one by one: a string of len bytes (no NUL inside) interned
 * into the profile (NULL when out of memory), and a frame whose strings were
 * all interned so. */
const char *cprof__profile_intern_str(cprof_profile_t *p, const char *s, size_t len);
int cprof__profile_add_frame(cprof_profile_t *p, const cprof_frame_t *f, uint32_t *index_out);

/* Records how many heap samples the parser dropped (their node does not
 * exist); read back by cprof_profile_dropped_samples. */
void cprof__profile_set_dropped(cprof_profile_t *p, uint32_t dropped);

/* Frees parse-time tables, shrinks frames, and fills self (CPU, from the
 * sample weights) and total for every node. Needs nodes in parent-first
 * order; heap selfs must already be set. */
void cprof__profile_finish(cprof_profile_t *p);

/* The value part of finish: self (CPU, from the sample weights) and total
 * summed again, after samples changed. */
void cprof__profile_fill_values(cprof_profile_t *p);

/* CPROF_EINVAL unless the model is what profile.h promises: nodes[0] the
 * root, parents before children, every other node on exactly one sibling
 * chain, frames and sampled nodes in range. Walkers call it first on models
 * they did not build, so a bad model cannot make them loop or read out of
 * bounds. */
int cprof__check_model(const cprof_profile_t *p);

#endif

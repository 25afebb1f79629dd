/* cprof_profile_merge: profiles of one kind into one, by call path.
 *
 * Inputs are walked node by node in their parent-first order, so a node's
 * parent is always merged before it: a node maps to the merged child of its
 * parent's merged node that has the same call frame, created on first
 * sight. Frames match on name, url, line and column: script ids are per
 * process, and a function profiled in two processes is one function (see
 * frame_key_uses_script for frames without a url).
 * The merged tree is built parent-first too, so it is a valid model.
 * CPU positionTicks follow their nodes: each input node's lines, with the
 * time each input gave them (lines.h), go to its merged node, and equal
 * lines of one merged node are summed, so a merged profile's time per line
 * is the inputs' sum and still adds up to each node's self. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "lines.h"
#include "merge.h"

typedef struct {
  cprof_profile_t *p;
  /* (name, url, line, column) of a merged frame -> its index + 1; 0 = empty */
  uint32_t *frame_slots;
  uint32_t frame_mask;
  /* (parent, frame) of a merged node -> its index + 1; 0 = empty */
  uint32_t *node_slots;
  uint32_t node_mask;
  uint32_t *last_child;     /* per merged node, to append children in order */
  int64_t *self;            /* per merged node: the sum of the inputs' self */
  cprof_line_tick_t *ticks; /* the merged positionTicks, before sorting; NULL: no input has any */
  size_t nticks;
} merger_t;

/* A power of two of at least twice n, so tables stay at most half full. */
static int table_alloc(uint64_t n, uint32_t **slots, uint32_t *mask) {
  uint64_t cap = 64;
  while (cap < n * 2)
    cap *= 2;
  if (cap > (UINT64_C(1) << 32)) return CPROF_ENOMEM;
  *slots = calloc((size_t)cap, sizeof(**slots));
  if (*slots == NULL) return CPROF_ENOMEM;
  *mask = (uint32_t)(cap - 1);
  return 0;
}

/* A frame's identity across profiles. The url names the script, so the
 * script id (per process) is left out; a frame without a url (eval, new
 * Function, V8's own like "(program)") has only its script id to tell it
 * from another at the same line, so then it counts. Strings are interned in
 * the merged profile: pointers compare. */
static int frame_key_uses_script(const cprof_frame_t *f) {
  return f->url[0] == '\0';
}

static uint32_t frame_key_hash(const cprof_frame_t *f) {
  uint64_t h = CPROF__HASH_SEED;
  h = cprof__hash_bytes(h, &f->name, sizeof(f->name));
  h = cprof__hash_bytes(h, &f->url, sizeof(f->url));
  h = cprof__hash_bytes(h, &f->line, sizeof(f->line));
  h = cprof__hash_bytes(h, &f->column, sizeof(f->column));
  if (frame_key_uses_script(f)) h = cprof__hash_bytes(h, &f->script_id, sizeof(f->script_id));
  return (uint32_t)(h ^ (h >> 32));
}

static int frame_key_eq(const cprof_frame_t *a, const cprof_frame_t *b) {
  return a->name == b->name && a->url == b->url && a->line == b->line && a->column == b->column &&
         (!frame_key_uses_script(a) || a->script_id == b->script_id);
}

/* The merged frame for an input frame; the first script id seen is kept. */
static int merge_frame(merger_t *m, const cprof_frame_t *f, uint32_t *out) {
  cprof_frame_t key = {cprof__profile_intern_str(m->p, f->name, strlen(f->name)),
                       cprof__profile_intern_str(m->p, f->url, strlen(f->url)),
                       cprof__profile_intern_str(m->p, f->script_id, strlen(f->script_id)), f->line,
                       f->column};
  if (key.name == NULL || key.url == NULL || key.script_id == NULL) return CPROF_ENOMEM;
  uint32_t j = frame_key_hash(&key) & m->frame_mask;
  for (; m->frame_slots[j] != 0; j = (j + 1) & m->frame_mask) {
    if (frame_key_eq(&m->p->frames[m->frame_slots[j] - 1], &key)) {
      *out = m->frame_slots[j] - 1;
      return 0;
    }
  }
  if (cprof__profile_add_frame(m->p, &key, out) != 0) return CPROF_ENOMEM;
  m->frame_slots[j] = *out + 1;
  return 0;
}

static uint32_t node_key_hash(uint32_t parent, uint32_t frame) {
  uint64_t h = ((uint64_t)parent << 32 | frame) * UINT64_C(0x9E3779B97F4A7C15);
  return (uint32_t)(h >> 32);
}

static uint32_t add_node(merger_t *m, uint32_t parent, uint32_t frame) {
  cprof_profile_t *p = m->p;
  uint32_t k = p->nnodes++;
  p->nodes[k] = (cprof_node_t){.id = k + 1,
                               .parent = parent,
                               .frame = frame,
                               .first_child = CPROF_NONE,
                               .next_sibling = CPROF_NONE};
  m->last_child[k] = CPROF_NONE;
  m->self[k] = 0;
  if (parent != CPROF_NONE) {
    if (m->last_child[parent] == CPROF_NONE)
      p->nodes[parent].first_child = k;
    else
      p->nodes[m->last_child[parent]].next_sibling = k;
    m->last_child[parent] = k;
  }
  return k;
}

/* The merged child of parent with this frame, created on first sight.
 * The nodes array holds every input's node count, so there is room. */
static uint32_t merge_node(merger_t *m, uint32_t parent, uint32_t frame) {
  uint32_t j = node_key_hash(parent, frame) & m->node_mask;
  for (; m->node_slots[j] != 0; j = (j + 1) & m->node_mask) {
    const cprof_node_t *n = &m->p->nodes[m->node_slots[j] - 1];
    if (n->parent == parent && n->frame == frame) return m->node_slots[j] - 1;
  }
  uint32_t k = add_node(m, parent, frame);
  m->node_slots[j] = k + 1;
  return k;
}

static uint32_t sat_add_u32(uint32_t a, uint32_t b) {
  return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* Maps every node of q into the merged tree (map[i] = merged index) and
 * adds its self and hit count. The roots all become the merged root. */
static int merge_tree(merger_t *m, const cprof_profile_t *q, uint32_t *map) {
  uint32_t *fmap = malloc(((size_t)q->nframes + 1) * sizeof(*fmap));
  if (fmap == NULL) return CPROF_ENOMEM;
  for (uint32_t f = 0; f < q->nframes; f++) {
    if (merge_frame(m, &q->frames[f], &fmap[f]) != 0) {
      free(fmap);
      return CPROF_ENOMEM;
    }
  }
  for (uint32_t i = 0; i < q->nnodes; i++) {
    const cprof_node_t *n = &q->nodes[i];
    uint32_t k;
    if (i == 0) {
      k = m->p->nnodes > 0 ? 0 : add_node(m, CPROF_NONE, fmap[n->frame]);
    } else {
      k = merge_node(m, map[n->parent], fmap[n->frame]);
    }
    map[i] = k;
    m->self[k] = cprof__sat_add(m->self[k], n->self);
    m->p->nodes[k].hit_count = sat_add_u32(m->p->nodes[k].hit_count, n->hit_count);
  }
  free(fmap);
  return 0;
}

/* q's positionTicks under their merged nodes (map), with their time; a
 * node of q with self time but no positionTicks puts it on line 0 ("no
 * line"), so every merged node's lines still add up to its self. */
static void shrink(void **arr, size_t n, size_t elem);

static int merge_ticks(merger_t *m, const cprof_profile_t *q, const uint32_t *map) {
  const cprof_line_tick_t *t = q->line_ticks;
  unsigned char *covered = calloc((size_t)q->nnodes + 1, 1);
  uint32_t *scratch = malloc(((size_t)q->nline_ticks + 1) * sizeof *scratch);
  int64_t *shares = malloc(((size_t)q->nline_ticks + 1) * sizeof *shares);
  int rc = covered && scratch && shares ? CPROF_OK : CPROF_ENOMEM;
  for (uint32_t i = 0, j; rc == CPROF_OK && i < q->nline_ticks; i = j) {
    for (j = i + 1; j < q->nline_ticks && t[j].node == t[i].node;)
      j++;
    if (covered[t[i].node]) continue; /* a node's entries come together: a second run is bogus */
    covered[t[i].node] = 1;
    cprof_lines_node(q->nodes[t[i].node].self, &t[i], j - i, scratch, shares);
    for (uint32_t k = i; k < j && rc == CPROF_OK; k++) {
      const char *url =
          t[k].url ? cprof__profile_intern_str(m->p, t[k].url, strlen(t[k].url)) : NULL;
      if (t[k].url && !url) rc = CPROF_ENOMEM;
      m->ticks[m->nticks++] =
          (cprof_line_tick_t){map[t[k].node], t[k].line, t[k].ticks, url, shares[k - i]};
    }
  }
  for (uint32_t i = 0; rc == CPROF_OK && i < q->nnodes; i++)
    if (!covered[i] && q->nodes[i].self != 0)
      m->ticks[m->nticks++] =
          (cprof_line_tick_t){map[i], 0, q->nodes[i].hit_count, NULL, q->nodes[i].self};
  free(covered);
  free(scratch);
  free(shares);
  return rc;
}

static int tick_cmp(const void *va, const void *vb) {
  const cprof_line_tick_t *a = va, *b = vb;
  if (a->node != b->node) return a->node < b->node ? -1 : 1;
  if (a->line != b->line) return a->line < b->line ? -1 : 1;
  if (a->url == b->url) return 0; /* interned: equal strings are one pointer */
  if (!a->url || !b->url) return a->url ? 1 : -1;
  return strcmp(a->url, b->url);
}

/* The merged positionTicks: by node, then line; equal lines summed. */
static void finish_ticks(merger_t *m) {
  cprof_profile_t *p = m->p;
  size_t n = 0;
  if (!m->ticks) return;
  qsort(m->ticks, m->nticks, sizeof *m->ticks, tick_cmp);
  for (size_t i = 0; i < m->nticks; i++) {
    cprof_line_tick_t *last = n > 0 ? &m->ticks[n - 1] : NULL;
    if (last && tick_cmp(last, &m->ticks[i]) == 0) {
      last->ticks = sat_add_u32(last->ticks, m->ticks[i].ticks);
      last->self = cprof__sat_add(last->self, m->ticks[i].self);
    } else {
      m->ticks[n++] = m->ticks[i];
    }
  }
  shrink((void **)&m->ticks, n, sizeof *m->ticks);
  p->line_ticks = n > 0 ? m->ticks : NULL;
  p->nline_ticks = (uint32_t)n;
  if (n == 0) free(m->ticks);
  m->ticks = NULL;
}

/* Where the merged CPU timeline stands between two inputs. */
typedef struct {
  int64_t last;       /* merged timestamp of the last sample so far */
  int64_t shift;      /* the previous input's offset onto the merged clock */
  int64_t prev_start; /* the previous input's start_time on its own clock */
} timeline_t;

static int64_t first_sample_time(const cprof_profile_t *q) {
  return q->nsamples > 0 && q->time_deltas != NULL
             ? cprof__sat_add(q->start_time, q->time_deltas[0])
             : q->start_time;
}

/* q's offset onto the merged clock, after the inputs merged so far (p).
 *
 * q continues the timeline when it is on the previous input's clock and
 * starts where that one ended: a recorder's windows touch. Its samples then
 * keep their true timestamps. Anything else would mislead a viewer that
 * lets each sample last until the next one (DevTools, speedscope): after a
 * gap (another run, a stopped recorder, a lost window) the previous input's
 * last sample would last through the gap, and an input that ran at the same
 * time (another process) or on another clock would go back in time. So q is
 * placed end to end: its first sample at the previous input's end, where
 * that input's last sample stopped counting in its own file. The time no
 * input covered, and q's lead-in before its first sample (which its own file
 * counts nowhere either), are left out of the merged timeline. */
static int64_t place(const cprof_profile_t *p, const cprof_profile_t *q, const timeline_t *tl) {
  int64_t first = first_sample_time(q);
  int same_clock = q->start_time >= tl->prev_start; /* in time order: else a clock went back */
  int no_gap = cprof__sat_add(q->start_time, tl->shift) <= p->end_time;
  int not_concurrent = cprof__sat_add(first, tl->shift) > tl->last;
  if (same_clock && no_gap && not_concurrent) return tl->shift;
  int64_t at = p->end_time > tl->last ? p->end_time : tl->last;
  return cprof__sat_sub(at, first);
}

/* Appends q's CPU samples in order, placed by place(); the first delta of a
 * later profile counts from the previous profile's last sample. */
static void append_cpu(cprof_profile_t *p, const cprof_profile_t *q, const uint32_t *map,
                       size_t index, timeline_t *tl) {
  if (index == 0) {
    p->start_time = q->start_time;
    tl->last = q->start_time;
    tl->shift = 0;
  } else {
    tl->shift = place(p, q, tl);
  }
  tl->prev_start = q->start_time;
  int64_t t = cprof__sat_add(q->start_time, tl->shift);
  for (uint32_t i = 0; i < q->nsamples; i++) {
    t = cprof__sat_add(t, q->time_deltas != NULL ? q->time_deltas[i] : 0);
    p->samples[p->nsamples] = map[q->samples[i]];
    p->time_deltas[p->nsamples] = cprof__sat_sub(t, tl->last);
    tl->last = t;
    p->nsamples++;
  }
  p->end_time = cprof__sat_add(q->end_time, tl->shift);
}

/* Heap samples in order; ordinals move past every earlier profile's, and
 * keep their order within a profile. */
static void append_heap(cprof_profile_t *p, const cprof_profile_t *q, const uint32_t *map,
                        uint64_t *next_ordinal) {
  uint64_t min = UINT64_MAX, base = *next_ordinal;
  for (uint32_t i = 0; i < q->nsamples; i++) {
    uint64_t o = q->sample_ordinals != NULL ? q->sample_ordinals[i] : 0;
    if (o < min) min = o;
  }
  for (uint32_t i = 0; i < q->nsamples; i++) {
    uint64_t o = q->sample_ordinals != NULL ? q->sample_ordinals[i] : 0;
    uint64_t merged = o - min > UINT64_MAX - base ? UINT64_MAX : base + (o - min);
    p->samples[p->nsamples] = map[q->samples[i]];
    p->sample_sizes[p->nsamples] = q->sample_sizes != NULL ? q->sample_sizes[i] : 0;
    p->sample_ordinals[p->nsamples] = merged;
    if (merged >= *next_ordinal) *next_ordinal = merged == UINT64_MAX ? merged : merged + 1;
    p->nsamples++;
  }
}

/* Checks the inputs and sizes the merged arrays: every node and sample of
 * every input at most, shrunk at the end. */
static int check_inputs(cprof_profile_t *const *in, size_t n, uint64_t *nodes, uint64_t *frames,
                        uint64_t *samples, uint64_t *ticks) {
  int any_ticks = 0;
  *nodes = *frames = *samples = *ticks = 0;
  if (in == NULL || n == 0) return CPROF_EINVAL;
  for (size_t k = 0; k < n; k++) {
    const cprof_profile_t *q = in[k];
    if (q == NULL || q->kind != in[0]->kind || cprof__check_model(q) != 0) return CPROF_EINVAL;
    if (q->kind != CPROF_KIND_CPU && q->kind != CPROF_KIND_HEAP) return CPROF_EINVAL;
    *nodes += q->nnodes;
    *frames += q->nframes;
    *samples += q->nsamples;
    *ticks += (uint64_t)q->nline_ticks + q->nnodes; /* its lines, and line 0 of the rest */
    any_ticks |= q->nline_ticks > 0;
  }
  if (!any_ticks) *ticks = 0;
  /* Node indices and sample counts are uint32_t; CPROF_NONE is reserved. */
  if (*nodes >= UINT32_MAX || *samples >= UINT32_MAX) return CPROF_ENOMEM;
  return 0;
}

static int merger_init(merger_t *m, cprof_kind_t kind, uint64_t nodes, uint64_t frames,
                       uint64_t samples, uint64_t ticks) {
  cprof_profile_t *p = m->p = cprof__profile_new(kind);
  if (p == NULL) return CPROF_ENOMEM;
  if (ticks > 0 && kind == CPROF_KIND_CPU &&
      (ticks > SIZE_MAX / sizeof(*m->ticks) ||
       !(m->ticks = malloc((size_t)ticks * sizeof(*m->ticks)))))
    return CPROF_ENOMEM;
  p->nodes = malloc((size_t)nodes * sizeof(*p->nodes));
  m->last_child = malloc((size_t)nodes * sizeof(*m->last_child));
  m->self = malloc((size_t)nodes * sizeof(*m->self));
  if (p->nodes == NULL || m->last_child == NULL || m->self == NULL) return CPROF_ENOMEM;
  if (table_alloc(frames, &m->frame_slots, &m->frame_mask) != 0) return CPROF_ENOMEM;
  if (table_alloc(nodes, &m->node_slots, &m->node_mask) != 0) return CPROF_ENOMEM;
  if (samples == 0) return 0;
  p->samples = malloc((size_t)samples * sizeof(*p->samples));
  if (p->samples == NULL) return CPROF_ENOMEM;
  if (kind == CPROF_KIND_CPU) {
    p->time_deltas = malloc((size_t)samples * sizeof(*p->time_deltas));
    return p->time_deltas == NULL ? CPROF_ENOMEM : 0;
  }
  p->sample_sizes = malloc((size_t)samples * sizeof(*p->sample_sizes));
  p->sample_ordinals = malloc((size_t)samples * sizeof(*p->sample_ordinals));
  return p->sample_sizes == NULL || p->sample_ordinals == NULL ? CPROF_ENOMEM : 0;
}

static void merger_free(merger_t *m) {
  free(m->frame_slots);
  free(m->node_slots);
  free(m->last_child);
  free(m->self);
  free(m->ticks);
}

/* Gives back the room merging by call path saved: a ring keeps these. */
static void shrink(void **arr, size_t n, size_t elem) {
  if (*arr == NULL || n == 0) return;
  void *a = realloc(*arr, n * elem);
  if (a != NULL) *arr = a; /* shrinking failed: the larger block is fine */
}

/* cprof__profile_finish drops the parse-time tables and, for CPU, sets
 * self from the samples; the merged self is the inputs' sum instead (see
 * merge.h), so it is put back and the totals computed again from it. */
static void finish(merger_t *m) {
  cprof_profile_t *p = m->p;
  shrink((void **)&p->nodes, p->nnodes, sizeof(*p->nodes));
  cprof__profile_finish(p);
  for (uint32_t i = 0; i < p->nnodes; i++)
    p->nodes[i].self = p->nodes[i].total = m->self[i];
  for (uint32_t i = p->nnodes; i-- > 1;) {
    cprof_node_t *parent = &p->nodes[p->nodes[i].parent];
    parent->total = cprof__sat_add(parent->total, p->nodes[i].total);
  }
}

static int merge_all(merger_t *m, cprof_profile_t *const *in, size_t n, uint32_t *map) {
  timeline_t tl = {0};
  uint64_t next_ordinal = 0, dropped = 0;
  for (size_t k = 0; k < n; k++) {
    const cprof_profile_t *q = in[k];
    if (merge_tree(m, q, map) != 0) return CPROF_ENOMEM;
    if (m->ticks && merge_ticks(m, q, map) != CPROF_OK) return CPROF_ENOMEM;
    if (q->kind == CPROF_KIND_CPU)
      append_cpu(m->p, q, map, k, &tl);
    else
      append_heap(m->p, q, map, &next_ordinal);
    dropped += cprof_profile_dropped_samples(q);
  }
  cprof__profile_set_dropped(m->p, dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)dropped);
  finish(m);
  finish_ticks(m);
  return 0;
}

int cprof_profile_merge(cprof_profile_t *const *in, size_t n, cprof_profile_t **out) {
  uint64_t nodes, frames, samples, ticks;
  merger_t m = {0};
  uint32_t *map = NULL, max_nodes = 0;
  if (out == NULL) return CPROF_EINVAL;
  *out = NULL;
  int rc = check_inputs(in, n, &nodes, &frames, &samples, &ticks);
  if (rc != 0) return rc;
  for (size_t k = 0; k < n; k++)
    if (in[k]->nnodes > max_nodes) max_nodes = in[k]->nnodes;
  rc = merger_init(&m, in[0]->kind, nodes, frames, samples, ticks);
  if (rc == 0) rc = (map = malloc((size_t)max_nodes * sizeof(*map))) == NULL ? CPROF_ENOMEM : 0;
  if (rc == 0) rc = merge_all(&m, in, n, map);
  free(map);
  merger_free(&m);
  if (rc != 0) {
    cprof_profile_free(m.p);
    return rc;
  }
  *out = m.p;
  return CPROF_OK;
}

/* cprof_profile_limit_depth: V8's stackDepth applied to a parsed profile. */
#include "cprof.h"
#include "helpers.h"
#include "internal.h"

/* clang-format off */
#define FRAME(name) "'callFrame':{'functionName':'" name "','scriptId':'7','url':'file:///a.js'," \
                    "'lineNumber':1,'columnNumber':2}"
#define ROOT_FRAME "'callFrame':{'functionName':'(root)','scriptId':'0','url':''," \
                   "'lineNumber':-1,'columnNumber':-1}"
#define FA FRAME("a")
#define FB FRAME("b")
#define FC FRAME("c")
#define FD FRAME("d")
#define FP FRAME("p")
#define FQ FRAME("q")
#define FX FRAME("x")
#define FY FRAME("y")

/* root -> a -> b(10) -> c(50) -> d(100), one sample per allocation. */
static const char chain[] =
    "{'head':{" ROOT_FRAME ",'selfSize':0,'id':1,'children':["
      "{" FA ",'selfSize':0,'id':2,'children':["
        "{" FB ",'selfSize':10,'id':3,'children':["
          "{" FC ",'selfSize':50,'id':4,'children':["
            "{" FD ",'selfSize':100,'id':5,'children':[]}]}]}]}]},"
    "'samples':[{'size':50,'nodeId':4,'ordinal':1},"
               "{'size':100,'nodeId':5,'ordinal':2},"
               "{'size':10,'nodeId':3,'ordinal':3}]}";
/* clang-format on */

/* Asserts node k: its name, id, parent index, self and total. */
static void expect(const cprof_profile_t *p, uint32_t k, const char *name, uint32_t id,
                   uint32_t parent, int64_t self, int64_t total) {
  assert_true(k < p->nnodes);
  assert_string_equal(node_name(p, k), name);
  assert_int_equal(p->nodes[k].id, id);
  assert_int_equal(p->nodes[k].parent, parent);
  assert_int_equal(p->nodes[k].self, self);
  assert_int_equal(p->nodes[k].total, total);
}

static uint32_t depth_of(const cprof_profile_t *p, uint32_t k) {
  uint32_t d = 0;
  for (; p->nodes[k].parent != CPROF_NONE; k = p->nodes[k].parent)
    d++;
  return d;
}

static uint32_t max_depth(const cprof_profile_t *p) {
  uint32_t *d = malloc(p->nnodes * sizeof(*d)), m = 0;
  assert_non_null(d);
  d[0] = 0;
  for (uint32_t i = 1; i < p->nnodes; i++) {
    d[i] = d[p->nodes[i].parent] + 1;
    if (d[i] > m) m = d[i];
  }
  free(d);
  return m;
}

/* The model is valid, ids are unique, self/total add up. */
static void check_all(const cprof_profile_t *p) {
  assert_int_equal(cprof__check_model(p), 0);
  check_invariants(p);
  uint32_t *ids = malloc(p->nnodes * sizeof(*ids));
  assert_non_null(ids);
  for (uint32_t i = 0; i < p->nnodes; i++)
    ids[i] = p->nodes[i].id;
  for (uint32_t i = 1; i < p->nnodes; i++) /* insertion sort: small trees only */
    for (uint32_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
      uint32_t t = ids[j];
      ids[j] = ids[j - 1];
      ids[j - 1] = t;
    }
  for (uint32_t i = 1; i < p->nnodes; i++)
    assert_true(ids[i - 1] < ids[i]);
  free(ids);
}

static void sample_counts(const cprof_profile_t *p, uint32_t *counts) {
  memset(counts, 0, p->nnodes * sizeof(*counts));
  for (uint32_t i = 0; i < p->nsamples; i++)
    counts[p->samples[i]]++;
}

static void chain_limit_2(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(chain);
  assert_int_equal(cprof_profile_limit_depth(p, 2), CPROF_OK);
  check_all(p);
  /* Preorder: root, a, b (stayed); b', c' for [b,c]; c'', d' for [c,d].
   * New ids follow the old maximum (5) in creation order. */
  assert_int_equal(p->nnodes, 7);
  expect(p, 0, "(root)", 1, CPROF_NONE, 0, 160);
  expect(p, 1, "a", 2, 0, 0, 10);
  expect(p, 2, "b", 3, 1, 10, 10);
  expect(p, 3, "b", 6, 0, 0, 50);
  expect(p, 4, "c", 7, 3, 50, 50);
  expect(p, 5, "c", 8, 0, 0, 100);
  expect(p, 6, "d", 9, 5, 100, 100);
  assert_int_equal(p->nodes[0].first_child, 1);
  assert_int_equal(p->nodes[1].next_sibling, 3);
  assert_int_equal(p->nodes[3].next_sibling, 5);
  assert_int_equal(p->nodes[5].next_sibling, CPROF_NONE);
  assert_int_equal(p->nodes[2].first_child, CPROF_NONE);
  assert_int_equal(p->nodes[4].first_child, CPROF_NONE);
  assert_int_equal(p->nodes[6].first_child, CPROF_NONE);
  assert_int_equal(max_depth(p), 2);
  int64_t roots = 0;
  for (uint32_t c = p->nodes[0].first_child; c != CPROF_NONE; c = p->nodes[c].next_sibling)
    roots += p->nodes[c].total;
  assert_int_equal(roots, 160);
  assert_int_equal(cprof_profile_total(p), 160);
  /* Samples follow their nodes; sizes and ordinals stay in place. */
  assert_int_equal(p->nsamples, 3);
  assert_int_equal(p->samples[0], 4);
  assert_int_equal(p->samples[1], 6);
  assert_int_equal(p->samples[2], 2);
  assert_int_equal(p->sample_sizes[1], 100);
  assert_int_equal(p->sample_ordinals[1], 2);
  cprof_profile_free(p);
}

/* Limit 1: every stack is its allocation site alone. */
static void chain_limit_1(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(chain);
  assert_int_equal(cprof_profile_limit_depth(p, 1), CPROF_OK);
  check_all(p);
  /* a had no weight and lost its only child: gone. */
  assert_int_equal(p->nnodes, 4);
  expect(p, 0, "(root)", 1, CPROF_NONE, 0, 160);
  expect(p, 1, "b", 6, 0, 10, 10);
  expect(p, 2, "c", 7, 0, 50, 50);
  expect(p, 3, "d", 8, 0, 100, 100);
  cprof_profile_free(p);
}

/* After the cut "a" is in no node: the flat profile must not list it (it
 * once showed up in summaries with 0 bytes). */
static void flat_skips_frames_no_node_uses(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(chain);
  cprof_flat_t flat;
  assert_int_equal(cprof_profile_limit_depth(p, 1), CPROF_OK);
  assert_int_equal(cprof_flat_build(p, &flat), CPROF_OK);
  assert_int_equal(flat.nfuncs, 4); /* (root), b, c, d */
  for (uint32_t i = 0; i < flat.nfuncs; i++)
    assert_string_not_equal(p->frames[flat.funcs[i].frame].name, "a");
  cprof_flat_free(&flat);
  cprof_profile_free(p);
}

/* clang-format off */
/* Two deep q's under [p,q] and a q that already sits at root -> p -> q. */
static const char merging[] =
    "{'head':{" ROOT_FRAME ",'selfSize':0,'id':1,'children':["
      "{" FX ",'selfSize':3,'id':2,'children':["
        "{" FP ",'selfSize':0,'id':3,'children':["
          "{" FQ ",'selfSize':5,'id':4,'children':[]}]}]},"
      "{" FY ",'selfSize':0,'id':5,'children':["
        "{" FP ",'selfSize':0,'id':6,'children':["
          "{" FQ ",'selfSize':7,'id':7,'children':[]}]}]},"
      "{" FP ",'selfSize':0,'id':8,'children':["
        "{" FQ ",'selfSize':1,'id':9,'children':[]}]}]},"
    "'samples':[{'size':5,'nodeId':4,'ordinal':1},"
               "{'size':7,'nodeId':7,'ordinal':2},"
               "{'size':1,'nodeId':9,'ordinal':3},"
               "{'size':3,'nodeId':2,'ordinal':4},"
               "{'size':7,'nodeId':7,'ordinal':5}]}";
/* clang-format on */

static void merges_into_existing_node(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(merging);
  assert_int_equal(cprof_profile_limit_depth(p, 2), CPROF_OK);
  check_all(p);
  /* Both deep q's land on node 9; x keeps its own 3 but loses p; y and
   * its p are left empty and go. No node is created. */
  assert_int_equal(p->nnodes, 4);
  expect(p, 0, "(root)", 1, CPROF_NONE, 0, 16);
  expect(p, 1, "x", 2, 0, 3, 3);
  expect(p, 2, "p", 8, 0, 0, 13);
  expect(p, 3, "q", 9, 2, 13, 13);
  assert_int_equal(p->nodes[1].first_child, CPROF_NONE);
  uint32_t counts[4];
  sample_counts(p, counts);
  assert_int_equal(counts[0], 0);
  assert_int_equal(counts[1], 1);
  assert_int_equal(counts[2], 0);
  assert_int_equal(counts[3], 4);
  cprof_profile_free(p);
}

/* clang-format off */
/* [b,c] reached from a and from d, and a deeper [c,f] under both. */
static const char two_roads[] =
    "{'head':{" ROOT_FRAME ",'selfSize':0,'id':10,'children':["
      "{" FA ",'selfSize':0,'id':11,'children':["
        "{" FB ",'selfSize':0,'id':12,'children':["
          "{" FC ",'selfSize':2,'id':13,'children':[]}]}]},"
      "{" FD ",'selfSize':0,'id':14,'children':["
        "{" FB ",'selfSize':0,'id':15,'children':["
          "{" FC ",'selfSize':3,'id':16,'children':["
            "{" FRAME("f") ",'selfSize':4,'id':17,'children':[]}]}]}]}]},"
    "'samples':[{'size':2,'nodeId':13,'ordinal':1},"
               "{'size':1,'nodeId':16,'ordinal':2},"
               "{'size':2,'nodeId':16,'ordinal':3},"
               "{'size':4,'nodeId':17,'ordinal':4},"
               "{'size':2,'nodeId':13,'ordinal':5}]}";
/* clang-format on */

static void deep_nodes_merge_and_samples_follow(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(two_roads);
  assert_int_equal(cprof_profile_limit_depth(p, 2), CPROF_OK);
  check_all(p);
  /* Both c's map to one new root -> b -> c; f to root -> c -> f. a and d
   * (and their b's) held nothing of their own and go. */
  assert_int_equal(p->nnodes, 5);
  expect(p, 0, "(root)", 10, CPROF_NONE, 0, 9);
  expect(p, 1, "b", 18, 0, 0, 5);
  expect(p, 2, "c", 19, 1, 5, 5);
  expect(p, 3, "c", 20, 0, 0, 4);
  expect(p, 4, "f", 21, 3, 4, 4);
  uint32_t counts[5];
  sample_counts(p, counts);
  assert_int_equal(counts[0], 0);
  assert_int_equal(counts[1], 0);
  assert_int_equal(counts[2], 4);
  assert_int_equal(counts[3], 0);
  assert_int_equal(counts[4], 1);
  assert_int_equal(p->samples[0], 2);
  assert_int_equal(p->samples[3], 4);
  cprof_profile_free(p);
}

/* Deep copy of what limit_depth may touch, to prove a no-op. */
typedef struct {
  cprof_node_t *nodes;
  uint32_t nnodes;
  uint32_t *samples;
  uint32_t nsamples;
  const cprof_node_t *nodes_ptr;
} snapshot_t;

static snapshot_t snap(const cprof_profile_t *p) {
  snapshot_t s = {malloc(p->nnodes * sizeof(cprof_node_t)), p->nnodes,
                  malloc((p->nsamples + 1) * sizeof(uint32_t)), p->nsamples, p->nodes};
  assert_non_null(s.nodes);
  assert_non_null(s.samples);
  memcpy(s.nodes, p->nodes, p->nnodes * sizeof(cprof_node_t));
  if (p->nsamples) memcpy(s.samples, p->samples, p->nsamples * sizeof(uint32_t));
  return s;
}

static void assert_unchanged(snapshot_t *s, const cprof_profile_t *p) {
  assert_ptr_equal(p->nodes, s->nodes_ptr);
  assert_int_equal(p->nnodes, s->nnodes);
  assert_int_equal(p->nsamples, s->nsamples);
  assert_memory_equal(p->nodes, s->nodes, s->nnodes * sizeof(cprof_node_t));
  if (s->nsamples) assert_memory_equal(p->samples, s->samples, s->nsamples * sizeof(uint32_t));
  free(s->nodes);
  free(s->samples);
}

static void no_op_when_everything_fits(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(chain);
  snapshot_t s = snap(p);
  assert_int_equal(cprof_profile_limit_depth(p, 4), CPROF_OK); /* d is at depth 4 */
  assert_int_equal(cprof_profile_limit_depth(p, 5), CPROF_OK);
  assert_int_equal(cprof_profile_limit_depth(p, UINT32_MAX), CPROF_OK);
  assert_unchanged(&s, p);
  cprof_profile_free(p);
}

static void limit_zero_is_no_op(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(chain);
  snapshot_t s = snap(p);
  assert_int_equal(cprof_profile_limit_depth(p, 0), CPROF_OK);
  assert_unchanged(&s, p);
  cprof_profile_free(p);
}

static void bad_arguments(void **state) {
  (void)state;
  assert_int_equal(cprof_profile_limit_depth(NULL, 3), CPROF_EINVAL);
  cprof_profile_t *p = parse_ok(chain);
  p->nodes[2].parent = 3; /* a child before its parent */
  assert_int_equal(cprof_profile_limit_depth(p, 1), CPROF_EINVAL);
  p->nodes[2].parent = 1;
  cprof_profile_free(p);
}

/* An empty leaf that was already there stays; one the cut emptied goes. */
static void only_emptied_nodes_are_dropped(void **state) {
  (void)state;
  /* clang-format off */
  cprof_profile_t *p = parse_ok(
      "{'head':{" ROOT_FRAME ",'selfSize':0,'id':1,'children':["
        "{" FA ",'selfSize':0,'id':2,'children':[]},"
        "{" FB ",'selfSize':0,'id':3,'children':["
          "{" FC ",'selfSize':0,'id':4,'children':["
            "{" FD ",'selfSize':0,'id':5,'children':[]}]}]}]}}");
  /* clang-format on */
  assert_int_equal(cprof_profile_limit_depth(p, 1), CPROF_OK);
  check_all(p);
  assert_int_equal(p->nnodes, 2);
  expect(p, 0, "(root)", 1, CPROF_NONE, 0, 0);
  expect(p, 1, "a", 2, 0, 0, 0);
  cprof_profile_free(p);
}

/* CPU: hit counts add up, self comes again from the sample weights. */
static void cpu_profile(void **state) {
  (void)state;
  /* clang-format off */
  cprof_profile_t *p = parse_ok(
      "{'nodes':["
      "{'id':1," ROOT_FRAME ",'hitCount':0,'children':[2,5]},"
      "{'id':2," FA ",'hitCount':0,'children':[3]},"
      "{'id':3," FB ",'hitCount':0,'children':[4]},"
      "{'id':4," FC ",'hitCount':2},"
      "{'id':5," FB ",'hitCount':1,'children':[6]},"
      "{'id':6," FC ",'hitCount':1}],"
      "'startTime':0,'endTime':100,"
      "'samples':[4,6,5,4],'timeDeltas':[10,10,20,30]}");
  /* clang-format on */
  /* Timestamps 10, 20, 40, 70; end 100: weights 10, 20, 30, 30. */
  assert_int_equal(cprof_profile_limit_depth(p, 2), CPROF_OK);
  check_all(p);
  /* c (id 4) at depth 3 maps to [b,c] = the existing 5 -> 6. a is emptied. */
  assert_int_equal(p->nnodes, 3);
  expect(p, 0, "(root)", 1, CPROF_NONE, 0, 90);
  expect(p, 1, "b", 5, 0, 30, 90);
  expect(p, 2, "c", 6, 1, 60, 60);
  assert_int_equal(p->nodes[1].hit_count, 1);
  assert_int_equal(p->nodes[2].hit_count, 3);
  assert_int_equal(p->samples[0], 2);
  assert_int_equal(p->samples[1], 2);
  assert_int_equal(p->samples[2], 1);
  assert_int_equal(p->samples[3], 2);
  assert_int_equal(p->time_deltas[3], 30);
  cprof_profile_free(p);
}

/* A deep CPU chain (the format is flat, so JSON can hold it): frames
 * f0..f9 repeat, so the innermost 128 frames of a node depend only on its
 * id mod 10. The nodes with id % 10 == 9 map onto the chain's own node 129
 * (frames f2..f9 from the root's child down); the other nine residues get a
 * chain of 128 new nodes each. */
static void cpu_deep_chain(void **state) {
  (void)state;
  enum { N = 10000, LIMIT = 128 };
  sbuf_t b = {0};
  sb_printf(&b, "{\"nodes\":[");
  for (int i = 1; i <= N; i++) {
    sb_printf(&b, "%s{\"id\":%d,\"callFrame\":{\"functionName\":\"f%d\"}", i > 1 ? "," : "", i,
              i % 10);
    if (i < N) sb_printf(&b, ",\"children\":[%d]", i + 1);
    sb_printf(&b, "}");
  }
  sb_printf(&b, "],\"startTime\":0,\"endTime\":%d,\"samples\":[", N + 1);
  for (int i = 1; i <= N; i++)
    sb_printf(&b, i > 1 ? ",%d" : "%d", i);
  sb_printf(&b, "],\"timeDeltas\":[");
  for (int i = 1; i <= N; i++)
    sb_printf(&b, i > 1 ? ",1" : "1");
  sb_printf(&b, "]}");
  cprof_profile_t *p = parse_raw(b.s, b.len);
  free(b.s);
  assert_int_equal(p->nodes[0].total, N);
  assert_int_equal(cprof_profile_limit_depth(p, LIMIT), CPROF_OK);
  check_all(p);
  assert_int_equal(p->nnodes, 1 + LIMIT + 9 * LIMIT);
  assert_int_equal(max_depth(p), LIMIT);
  assert_int_equal(p->nodes[0].total, N);
  assert_int_equal(cprof_profile_total(p), N);
  /* Its own sample plus ids 139, 149, ..., 9999. */
  assert_int_equal(node_by_id(p, 129)->self, 1 + (9999 - 139) / 10 + 1);
  assert_int_equal(node_by_id(p, 129)->hit_count, 0);
  uint32_t leaf = index_of_id(p, 129);
  assert_int_equal(depth_of(p, leaf), LIMIT);
  cprof_profile_free(p);
}

/* A heap chain built directly: JSON nests too deep for cJSON here. */
static void heap_deep_chain(void **state) {
  (void)state;
  enum { N = 10000, LIMIT = 128 };
  cprof_profile_t *p = heap_chain(N, 0, 3);
  /* One frame everywhere: every deep node lands on the chain's node at
   * depth 128. */
  assert_int_equal(cprof_profile_limit_depth(p, LIMIT), CPROF_OK);
  check_all(p);
  assert_int_equal(p->nnodes, LIMIT + 1);
  assert_int_equal(p->nodes[0].total, 3 * (N - 1));
  assert_int_equal(p->nodes[LIMIT].id, LIMIT + 1);
  assert_int_equal(p->nodes[LIMIT].self, 3 * (N - LIMIT));
  cprof_profile_free(p);
}

/* Writes p as .heapprofile and parses it back: the limited tree is already
 * in preorder, so the copy matches index for index. */
static void heap_round_trip(const cprof_profile_t *p) {
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(cprof_export_heapprofile(p, f), 0);
  size_t len;
  char *text = slurp(f, &len);
  fclose(f);
  cprof_profile_t *q = parse_raw(text, len);
  free(text);
  assert_int_equal(q->nnodes, p->nnodes);
  for (uint32_t i = 0; i < p->nnodes; i++) {
    const cprof_node_t *x = &p->nodes[i], *y = &q->nodes[i];
    assert_int_equal(x->id, y->id);
    assert_int_equal(x->parent, y->parent);
    assert_int_equal(x->first_child, y->first_child);
    assert_int_equal(x->next_sibling, y->next_sibling);
    assert_int_equal(x->self, y->self);
    assert_int_equal(x->total, y->total);
    assert_string_equal(node_name(p, i), node_name(q, i));
    assert_string_equal(p->frames[x->frame].url, q->frames[y->frame].url);
  }
  assert_int_equal(q->nsamples, p->nsamples);
  for (uint32_t i = 0; i < p->nsamples; i++) {
    assert_int_equal(q->samples[i], p->samples[i]);
    assert_int_equal(q->sample_sizes[i], p->sample_sizes[i]);
    assert_int_equal(q->sample_ordinals[i], p->sample_ordinals[i]);
  }
  assert_int_equal(cprof_profile_dropped_samples(q), 0);
  cprof_profile_free(q);
}

static void writer_round_trip(void **state) {
  (void)state;
  const char *docs[] = {chain, merging, two_roads};
  for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
    cprof_profile_t *p = parse_ok(docs[d]);
    assert_int_equal(cprof_profile_limit_depth(p, 2), CPROF_OK);
    heap_round_trip(p);
    cprof_profile_free(p);
  }
}

/* ---- a slow reference on a real profile ---- */

/* A node's stack as a string of frame indexes: the innermost `limit` frames
 * below the root. */
static void stack_key(const cprof_profile_t *p, uint32_t k, uint32_t limit, char *buf, size_t len) {
  uint32_t frames[64], n = 0;
  for (; p->nodes[k].parent != CPROF_NONE && n < limit; k = p->nodes[k].parent) {
    assert_true(n < 64);
    frames[n++] = p->nodes[k].frame;
  }
  buf[0] = '\0';
  for (uint32_t i = n; i-- > 0;)
    snprintf(buf + strlen(buf), len - strlen(buf), "%u,", frames[i]);
}

typedef struct {
  char key[512];
  int64_t self;
} row_t;

static int row_cmp(const void *a, const void *b) {
  return strcmp(((const row_t *)a)->key, ((const row_t *)b)->key);
}

/* (stack, self) for every node with self, same stacks summed, sorted. */
static row_t *rows(const cprof_profile_t *p, uint32_t limit, uint32_t *count) {
  row_t *r = calloc(p->nnodes, sizeof(*r));
  uint32_t n = 0, m = 0;
  assert_non_null(r);
  for (uint32_t k = 0; k < p->nnodes; k++) {
    if (p->nodes[k].self == 0) continue;
    stack_key(p, k, limit, r[n].key, sizeof(r[n].key));
    r[n++].self = p->nodes[k].self;
  }
  qsort(r, n, sizeof(*r), row_cmp);
  for (uint32_t i = 0; i < n; i++) {
    if (m > 0 && strcmp(r[m - 1].key, r[i].key) == 0)
      r[m - 1].self += r[i].self;
    else
      r[m++] = r[i];
  }
  *count = m;
  return r;
}

static void fixture_matches_reference(void **state) {
  (void)state;
  for (uint32_t limit = 1; limit <= 32; limit++) {
    cprof_profile_t *before = parse_file(CPROF_FIXTURES "/small.heapprofile");
    cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.heapprofile");
    uint32_t deepest = max_depth(before);
    assert_int_equal(cprof_profile_limit_depth(p, limit), CPROF_OK);
    check_all(p);
    assert_int_equal(max_depth(p), limit < deepest ? limit : deepest);
    assert_int_equal(cprof_profile_total(p), cprof_profile_total(before));
    /* Self per truncated stack is what the cut should give... */
    uint32_t na, nb;
    row_t *want = rows(before, limit, &na), *got = rows(p, UINT32_MAX, &nb);
    assert_int_equal(na, nb);
    for (uint32_t i = 0; i < na; i++) {
      assert_string_equal(want[i].key, got[i].key);
      assert_int_equal(want[i].self, got[i].self);
    }
    free(want);
    free(got);
    /* ...each sample sits on its truncated stack... */
    assert_int_equal(p->nsamples, before->nsamples);
    for (uint32_t i = 0; i < p->nsamples; i++) {
      char a[512], b[512];
      stack_key(before, before->samples[i], limit, a, sizeof(a));
      stack_key(p, p->samples[i], UINT32_MAX, b, sizeof(b));
      assert_string_equal(a, b);
    }
    /* ...no two siblings share a frame unless they did before... */
    for (uint32_t k = 0; k < p->nnodes; k++)
      for (uint32_t x = p->nodes[k].first_child; x != CPROF_NONE; x = p->nodes[x].next_sibling)
        for (uint32_t y = p->nodes[x].next_sibling; y != CPROF_NONE; y = p->nodes[y].next_sibling)
          assert_int_not_equal(p->nodes[x].frame, p->nodes[y].frame);
    /* ...and the writer takes it. */
    heap_round_trip(p);
    cprof_profile_free(p);
    cprof_profile_free(before);
  }
}

/* All ids taken up to UINT32_MAX: new ones fill the gaps instead. */
static void ids_wrap_into_gaps(void **state) {
  (void)state;
  /* clang-format off */
  cprof_profile_t *p = parse_ok(
      "{'head':{" ROOT_FRAME ",'selfSize':0,'id':4294967295,'children':["
        "{" FA ",'selfSize':1,'id':0,'children':["
          "{" FB ",'selfSize':5,'id':2,'children':["
            "{" FC ",'selfSize':7,'id':3,'children':[]}]}]}]}}");
  /* clang-format on */
  assert_int_equal(cprof_profile_limit_depth(p, 1), CPROF_OK);
  check_all(p);
  assert_int_equal(p->nnodes, 4);
  expect(p, 0, "(root)", 4294967295u, CPROF_NONE, 0, 13);
  expect(p, 1, "a", 0, 0, 1, 1);
  expect(p, 2, "b", 1, 0, 5, 5);
  expect(p, 3, "c", 2, 0, 7, 7);
  cprof_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(chain_limit_2),
      cmocka_unit_test(chain_limit_1),
      cmocka_unit_test(flat_skips_frames_no_node_uses),
      cmocka_unit_test(merges_into_existing_node),
      cmocka_unit_test(deep_nodes_merge_and_samples_follow),
      cmocka_unit_test(no_op_when_everything_fits),
      cmocka_unit_test(limit_zero_is_no_op),
      cmocka_unit_test(bad_arguments),
      cmocka_unit_test(only_emptied_nodes_are_dropped),
      cmocka_unit_test(cpu_profile),
      cmocka_unit_test(cpu_deep_chain),
      cmocka_unit_test(heap_deep_chain),
      cmocka_unit_test(writer_round_trip),
      cmocka_unit_test(fixture_matches_reference),
      cmocka_unit_test(ids_wrap_into_gaps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* cprof_profile_merge and cprof_profile_bytes (merge.h). */
#include "helpers.h"
#include "internal.h"
#include "lines.h"
#include "merge.h"

/* Two windows of one process: (root) > a > b, and (root) > c. Same clock:
 * the second starts where the first ends. Sample weights (DevTools: the gap
 * to the next sample, the last up to endTime):
 *   first:  b 10, a 20, b 30 (end 1060: 1030 + 30)  -> a 20, b 40
 *   second: c 5, b 15 (end 1100: 1085 + 15)         -> c 5, b 15 */
static const char *CPU1 =
    "{'nodes':[{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
    "'lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':[2]},"
    "{'id':2,'callFrame':{'functionName':'a','scriptId':'7','url':'file:///x.js',"
    "'lineNumber':1,'columnNumber':2},'hitCount':1,'children':[3]},"
    "{'id':3,'callFrame':{'functionName':'b','scriptId':'7','url':'file:///x.js',"
    "'lineNumber':5,'columnNumber':2},'hitCount':2}],"
    "'startTime':1000,'endTime':1060,'samples':[3,2,3],'timeDeltas':[0,10,20]}";

/* scriptId 9 for the same functions: another process would say so; node
 * ids differ from the first's on purpose. */
static const char *CPU2 =
    "{'nodes':[{'id':10,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
    "'lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':[20,40]},"
    "{'id':20,'callFrame':{'functionName':'a','scriptId':'9','url':'file:///x.js',"
    "'lineNumber':1,'columnNumber':2},'hitCount':0,'children':[30]},"
    "{'id':30,'callFrame':{'functionName':'b','scriptId':'9','url':'file:///x.js',"
    "'lineNumber':5,'columnNumber':2},'hitCount':1},"
    "{'id':40,'callFrame':{'functionName':'c','scriptId':'9','url':'file:///x.js',"
    "'lineNumber':9,'columnNumber':0},'hitCount':1}],"
    "'startTime':1060,'endTime':1100,'samples':[40,30],'timeDeltas':[20,5]}";

static const char *HEAP1 =
    "{'head':{'callFrame':{'functionName':'(root)','scriptId':'0','url':'','lineNumber':-1,"
    "'columnNumber':-1},'selfSize':0,'id':1,'children':[{'callFrame':{'functionName':'alloc',"
    "'scriptId':'3','url':'file:///h.js','lineNumber':2,'columnNumber':4},'selfSize':300,"
    "'id':2,'children':[]}]},'samples':[{'size':100,'nodeId':2,'ordinal':5},"
    "{'size':200,'nodeId':2,'ordinal':7}]}";

static const char *HEAP2 =
    "{'head':{'callFrame':{'functionName':'(root)','scriptId':'0','url':'','lineNumber':-1,"
    "'columnNumber':-1},'selfSize':0,'id':1,'children':[{'callFrame':{'functionName':'alloc',"
    "'scriptId':'3','url':'file:///h.js','lineNumber':2,'columnNumber':4},'selfSize':64,"
    "'id':2,'children':[]},{'callFrame':{'functionName':'other','scriptId':'3',"
    "'url':'file:///h.js','lineNumber':8,'columnNumber':0},'selfSize':32,'id':3,"
    "'children':[]}]},'samples':[{'size':64,'nodeId':2,'ordinal':1},"
    "{'size':32,'nodeId':3,'ordinal':2}]}";

static uint32_t child_named(const cprof_profile_t *p, uint32_t parent, const char *name) {
  for (uint32_t c = p->nodes[parent].first_child; c != CPROF_NONE; c = p->nodes[c].next_sibling)
    if (strcmp(node_name(p, c), name) == 0) return c;
  fail_msg("node %u has no child %s", parent, name);
  return CPROF_NONE;
}

static cprof_profile_t *merge2(const char *x, const char *y) {
  cprof_profile_t *in[2] = {parse_ok(x), parse_ok(y)}, *out = NULL;
  assert_int_equal(cprof_profile_merge(in, 2, &out), CPROF_OK);
  assert_non_null(out);
  cprof_profile_free(in[0]);
  cprof_profile_free(in[1]);
  return out;
}

/* The merged profile written by `exporter` and read back. */
static cprof_profile_t *reread_as(const cprof_profile_t *m, cprof_exporter_fn exporter) {
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(exporter(m, f), CPROF_OK);
  size_t n;
  char *json = slurp(f, &n);
  fclose(f);
  cprof_profile_t *r = parse_raw(json, n);
  free(json);
  return r;
}

/* As a .cpuprofile: cprof's parser sets each node's self from the samples
 * and timeDeltas by DevTools' rule (a sample lasts until the next one, the
 * last until endTime). */
static cprof_profile_t *reread(const cprof_profile_t *m) {
  return reread_as(m, cprof_export_cpuprofile);
}

/* Read back, every node's self is the merged one: the sum of the inputs'
 * own. Nodes keep their order through the writer and the parser. */
static void assert_reread_exact(const cprof_profile_t *m) {
  cprof_profile_t *r = reread(m);
  assert_int_equal(r->nnodes, m->nnodes);
  for (uint32_t i = 0; i < m->nnodes; i++) {
    assert_string_equal(node_name(r, i), node_name(m, i));
    assert_int_equal(r->nodes[i].self, m->nodes[i].self);
  }
  cprof_profile_free(r);
}

static void cpu_merges_by_call_path(void **state) {
  (void)state;
  cprof_profile_t *m = merge2(CPU1, CPU2);
  check_invariants(m);
  assert_int_equal(m->kind, CPROF_KIND_CPU);
  /* (root), a, b, c: the second's a > b is the first's a > b, despite
   * other script ids and node ids. */
  assert_int_equal(m->nnodes, 4);
  uint32_t a = child_named(m, 0, "a"), b = child_named(m, a, "b"), c = child_named(m, 0, "c");
  assert_int_equal(m->nodes[a].self, 20);
  assert_int_equal(m->nodes[b].self, 40 + 15);
  assert_int_equal(m->nodes[c].self, 5);
  assert_int_equal(m->nodes[b].hit_count, 3);
  assert_int_equal(m->nodes[c].hit_count, 1);
  assert_int_equal(m->nodes[a].total, 20 + 55);
  assert_int_equal(cprof_profile_total(m), 60 + 20);
  /* Children keep the order they were first met in: a before c. */
  assert_int_equal(m->nodes[0].first_child, a);
  assert_int_equal(m->nodes[a].next_sibling, c);
  /* The first script id met is kept. */
  assert_string_equal(m->frames[m->nodes[a].frame].script_id, "7");
  cprof_profile_free(m);
}

/* Two functions made by new Function: no url, the same position, told
 * apart only by their script ids. They stay two nodes, in one profile and
 * across two. */
static const char *EVALS =
    "{'nodes':[{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
    "'lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':[2,3]},"
    "{'id':2,'callFrame':{'functionName':'','scriptId':'90','url':'',"
    "'lineNumber':0,'columnNumber':19},'hitCount':1},"
    "{'id':3,'callFrame':{'functionName':'','scriptId':'91','url':'',"
    "'lineNumber':0,'columnNumber':19},'hitCount':1}],"
    "'startTime':0,'endTime':30,'samples':[2,3],'timeDeltas':[0,10]}";

static void urlless_frames_keep_script_ids(void **state) {
  (void)state;
  cprof_profile_t *m = merge2(EVALS, EVALS);
  check_invariants(m);
  assert_int_equal(m->nnodes, 3);
  assert_int_equal(m->nsamples, 4);
  uint32_t a = m->nodes[0].first_child, b = m->nodes[a].next_sibling;
  assert_string_equal(m->frames[m->nodes[a].frame].script_id, "90");
  assert_string_equal(m->frames[m->nodes[b].frame].script_id, "91");
  assert_int_equal(m->nodes[a].self, 20);
  assert_int_equal(m->nodes[b].self, 40);
  cprof_profile_free(m);
}

static void cpu_samples_keep_true_timestamps(void **state) {
  (void)state;
  cprof_profile_t *m = merge2(CPU1, CPU2);
  assert_int_equal(m->start_time, 1000);
  assert_int_equal(m->end_time, 1100);
  assert_int_equal(m->nsamples, 5);
  const char *names[] = {"b", "a", "b", "c", "b"};
  /* First: 1000, 1010, 1030; second: 1080, 1085. The first delta of the
   * second counts from 1030, the first's last sample. */
  const int64_t deltas[] = {0, 10, 20, 50, 5};
  int64_t t = m->start_time;
  for (uint32_t i = 0; i < 5; i++) {
    assert_string_equal(node_name(m, m->samples[i]), names[i]);
    assert_int_equal(m->time_deltas[i], deltas[i]);
    t += m->time_deltas[i];
  }
  assert_int_equal(t, 1085);
  cprof_profile_free(m);
}

static void cpu_unrelated_clock_goes_back_to_back(void **state) {
  (void)state;
  /* The second starts at 1060 on its clock, the first at 5000 on its: not
   * one clock, so the second is placed end to end: its first sample at the
   * first's end (5060), its lead-in (20) left out. */
  const char *first =
      "{'nodes':[{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
      "'lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':[2]},"
      "{'id':2,'callFrame':{'functionName':'a','scriptId':'7','url':'file:///x.js',"
      "'lineNumber':1,'columnNumber':2},'hitCount':1}],"
      "'startTime':5000,'endTime':5060,'samples':[2,2],'timeDeltas':[10,10]}";
  cprof_profile_t *m = merge2(first, CPU2);
  assert_int_equal(m->start_time, 5000);
  assert_int_equal(m->end_time, 5060 + 20);
  /* 5010, 5020; then 5060, 5065. */
  assert_int_equal(m->time_deltas[2], 40);
  assert_int_equal(m->time_deltas[3], 5);
  int64_t t = m->start_time;
  for (uint32_t i = 0; i < m->nsamples; i++)
    t += m->time_deltas[i];
  assert_true(t <= m->end_time);
  cprof_profile_free(m);
}

static void cpu_concurrent_profiles_go_back_to_back(void **state) {
  (void)state;
  /* The same window twice: one clock, but the second's first sample (1000)
   * comes before the first's last (1030): they ran at the same time, so
   * the second goes after the first (shifted by 60). */
  cprof_profile_t *m = merge2(CPU1, CPU1);
  assert_int_equal(m->start_time, 1000);
  assert_int_equal(m->end_time, 1120);
  const int64_t deltas[] = {0, 10, 20, 30, 10, 20};
  assert_int_equal(m->nsamples, 6);
  for (uint32_t i = 0; i < 6; i++)
    assert_int_equal(m->time_deltas[i], deltas[i]);
  assert_int_equal(cprof_profile_total(m), 120);
  assert_reread_exact(m);
  cprof_profile_free(m);
}

/* The same program run twice, 3.9 ms apart on one clock (V8's clock is the
 * machine's monotonic one, shared by processes). The second run is placed
 * end to end: its first sample (5020) at the first's end (1060). Read back,
 * b keeps 30 from the first run's last sample, not the 3.99 ms to the next
 * run's first sample. */
static const char *LATER =
    "{'nodes':[{'id':10,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
    "'lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':[20,40]},"
    "{'id':20,'callFrame':{'functionName':'a','scriptId':'9','url':'file:///x.js',"
    "'lineNumber':1,'columnNumber':2},'hitCount':0,'children':[30]},"
    "{'id':30,'callFrame':{'functionName':'b','scriptId':'9','url':'file:///x.js',"
    "'lineNumber':5,'columnNumber':2},'hitCount':1},"
    "{'id':40,'callFrame':{'functionName':'c','scriptId':'9','url':'file:///x.js',"
    "'lineNumber':9,'columnNumber':0},'hitCount':1}],"
    "'startTime':5000,'endTime':5040,'samples':[40,30],'timeDeltas':[20,5]}";

static void cpu_gap_between_runs_is_cut(void **state) {
  (void)state;
  cprof_profile_t *m = merge2(CPU1, LATER);
  assert_int_equal(m->start_time, 1000);
  const int64_t deltas[] = {0, 10, 20, 30, 5};
  assert_int_equal(m->nsamples, 5);
  for (uint32_t i = 0; i < 5; i++)
    assert_int_equal(m->time_deltas[i], deltas[i]);
  /* 1065 + 15: the second's end, moved with it. */
  assert_int_equal(m->end_time, 1080);
  uint32_t a = child_named(m, 0, "a"), b = child_named(m, a, "b");
  assert_int_equal(m->nodes[b].self, 40 + 15);
  assert_reread_exact(m);
  cprof_profile_free(m);
}

/* A recorder's windows: the second touches the first (it starts at the
 * first's end) and keeps its true timestamps; the third window was lost, so
 * the fourth starts 40 µs after the second ended: that time is cut. */
static void cpu_windows_continue_and_a_lost_one_is_cut(void **state) {
  (void)state;
  const char *w4 = "{'nodes':[{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
                   "'lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':[2]},"
                   "{'id':2,'callFrame':{'functionName':'d','scriptId':'7','url':'file:///x.js',"
                   "'lineNumber':20,'columnNumber':0},'hitCount':2}],"
                   "'startTime':1140,'endTime':1170,'samples':[2,2],'timeDeltas':[10,10]}";
  cprof_profile_t *in[3] = {parse_ok(CPU1), parse_ok(CPU2), parse_ok(w4)}, *m = NULL;
  assert_int_equal(cprof_profile_merge(in, 3, &m), CPROF_OK);
  /* 1000, 1010, 1030 | 1080, 1085 (true) | 1100, 1110 (the fourth's first
   * sample, 1150 on its clock, at the second's end, 1100). */
  const int64_t deltas[] = {0, 10, 20, 50, 5, 15, 10};
  assert_int_equal(m->nsamples, 7);
  for (uint32_t i = 0; i < 7; i++)
    assert_int_equal(m->time_deltas[i], deltas[i]);
  assert_int_equal(m->end_time, 1170 - 50);
  uint32_t d = child_named(m, 0, "d");
  /* d: 10, then 10 up to its end: its own 20, not the lost window's 40. */
  assert_int_equal(m->nodes[d].self, 20);
  cprof_profile_t *r = reread(m);
  assert_int_equal(r->nodes[d].self, 20);
  cprof_profile_free(r);
  for (int i = 0; i < 3; i++)
    cprof_profile_free(in[i]);
  cprof_profile_free(m);
}

static void heap_sums_and_renumbers_ordinals(void **state) {
  (void)state;
  cprof_profile_t *m = merge2(HEAP1, HEAP2);
  check_invariants(m);
  assert_int_equal(m->kind, CPROF_KIND_HEAP);
  assert_int_equal(m->nnodes, 3);
  uint32_t alloc = child_named(m, 0, "alloc"), other = child_named(m, 0, "other");
  assert_int_equal(m->nodes[alloc].self, 364);
  assert_int_equal(m->nodes[other].self, 32);
  assert_int_equal(cprof_profile_total(m), 396);
  assert_int_equal(m->nsamples, 4);
  const int64_t sizes[] = {100, 200, 64, 32};
  for (uint32_t i = 0; i < 4; i++) {
    assert_int_equal(m->sample_sizes[i], sizes[i]);
    for (uint32_t j = 0; j < i; j++)
      assert_true(m->sample_ordinals[j] < m->sample_ordinals[i]);
  }
  assert_int_equal(m->start_time, 0);
  assert_int_equal(m->end_time, 0);
  cprof_profile_free(m);
}

static void rejects_bad_arguments(void **state) {
  (void)state;
  cprof_profile_t *in[2] = {parse_ok(CPU1), parse_ok(HEAP1)}, *out = (cprof_profile_t *)in;
  assert_int_equal(cprof_profile_merge(in, 2, &out), CPROF_EINVAL);
  assert_null(out);
  out = (cprof_profile_t *)in;
  assert_int_equal(cprof_profile_merge(in, 0, &out), CPROF_EINVAL);
  assert_null(out);
  assert_int_equal(cprof_profile_merge(NULL, 1, &out), CPROF_EINVAL);
  assert_int_equal(cprof_profile_merge(in, 1, NULL), CPROF_EINVAL);
  cprof_profile_t *holes[2] = {in[0], NULL};
  assert_int_equal(cprof_profile_merge(holes, 2, &out), CPROF_EINVAL);
  /* A model that breaks its promises is refused, not walked. */
  uint32_t saved = in[0]->nodes[1].parent;
  in[0]->nodes[1].parent = 5;
  assert_int_equal(cprof_profile_merge(in, 1, &out), CPROF_EINVAL);
  in[0]->nodes[1].parent = saved;
  cprof_profile_free(in[0]);
  cprof_profile_free(in[1]);
}

/* Merging one profile keeps it as it is, up to node ids. */
static void single_profile_is_a_copy(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.cpuprofile"), *m = NULL;
  assert_int_equal(cprof_profile_merge(&p, 1, &m), CPROF_OK);
  check_invariants(m);
  assert_int_equal(m->nsamples, p->nsamples);
  assert_int_equal(m->start_time, p->start_time);
  assert_int_equal(m->end_time, p->end_time);
  assert_int_equal(cprof_profile_total(m), cprof_profile_total(p));
  for (uint32_t i = 0; i < p->nsamples; i++) {
    assert_int_equal(m->time_deltas[i], p->time_deltas[i]);
    assert_string_equal(node_name(m, m->samples[i]), node_name(p, p->samples[i]));
  }
  cprof_profile_free(m);
  cprof_profile_free(p);
}

/* The fixture twice, back to back on one clock: totals and samples double,
 * every call path keeps one node, and the .cpuprofile writer's output parses
 * again with unique ids, parents first, samples and deltas paired. */
static void fixture_twice_exports(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  cprof_profile_t *q = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  int64_t len = q->end_time - q->start_time;
  q->start_time += len;
  q->end_time += len;
  cprof_profile_t *in[2] = {p, q}, *m = NULL;
  assert_int_equal(cprof_profile_merge(in, 2, &m), CPROF_OK);
  check_invariants(m);
  assert_true(m->nnodes <= p->nnodes);
  assert_int_equal(m->nsamples, 2 * p->nsamples);
  assert_int_equal(cprof_profile_total(m), 2 * cprof_profile_total(p));
  assert_int_equal(m->start_time, p->start_time);
  assert_int_equal(m->end_time, q->end_time);

  cprof_profile_t *r = reread(m);
  check_invariants(r);
  assert_int_equal(r->nnodes, m->nnodes);
  assert_int_equal(r->nsamples, m->nsamples);
  assert_int_equal(r->start_time, m->start_time);
  assert_int_equal(r->end_time, m->end_time);
  for (uint32_t i = 0; i < r->nnodes; i++) {
    for (uint32_t j = 0; j < i; j++)
      assert_true(r->nodes[i].id != r->nodes[j].id);
  }
  /* Re-read from the timeline (as DevTools reads it), the first's last
   * sample also gets the second's lead-in, startTime to its first sample,
   * which neither profile counted (merge.h): exactly that much more. */
  assert_true(q->time_deltas[0] > 0);
  assert_int_equal(cprof_profile_total(r), cprof_profile_total(m) + q->time_deltas[0]);
  cprof_profile_free(r);
  cprof_profile_free(m);
  cprof_profile_free(p);
  cprof_profile_free(q);
}

static void heap_fixture_exports(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.heapprofile");
  cprof_profile_t *in[3] = {p, p, p}, *m = NULL;
  assert_int_equal(cprof_profile_merge(in, 3, &m), CPROF_OK);
  check_invariants(m);
  assert_int_equal(m->nsamples, 3 * p->nsamples);
  assert_int_equal(cprof_profile_total(m), 3 * cprof_profile_total(p));
  cprof_profile_t *r = reread_as(m, cprof_export_heapprofile);
  assert_int_equal(r->nnodes, m->nnodes);
  assert_int_equal(r->nsamples, m->nsamples);
  assert_int_equal(cprof_profile_total(r), cprof_profile_total(m));
  cprof_profile_free(r);
  cprof_profile_free(m);
  cprof_profile_free(p);
}

/* The accounting counts at least every array at its length, and grows with
 * the profile. */
static void bytes_counts_what_is_held(void **state) {
  (void)state;
  assert_int_equal(cprof_profile_bytes(NULL), 0);
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  size_t floor = sizeof(*p) + p->nnodes * sizeof(*p->nodes) + p->nframes * sizeof(*p->frames) +
                 p->nsamples * (sizeof(*p->samples) + sizeof(*p->time_deltas));
  size_t b = cprof_profile_bytes(p);
  assert_true(b > floor);
  cprof_profile_t *in[2] = {p, p}, *m = NULL;
  assert_int_equal(cprof_profile_merge(in, 2, &m), CPROF_OK);
  /* Twice the samples, the same nodes: more than one, less than two. */
  size_t mb = cprof_profile_bytes(m);
  assert_true(mb > p->nsamples * 2 * (sizeof(*p->samples) + sizeof(*p->time_deltas)));
  cprof_profile_free(m);
  cprof_profile_free(p);
}

/* CPU1 and CPU2 with positionTicks. b: 40 µs over ticks {6: 1, 7: 1} in
 * the first (20 + 20), 15 µs over {6: 1, 7: 2} in the second (5 + 10); a:
 * 20 µs on line 2; c has none (its 5 µs: line 0). */
static char *with_ticks(const char *json, const char *node, const char *ticks) {
  const char *at = strstr(json, node);
  assert_non_null(at);
  size_t n = strlen(json), k = (size_t)(at - json) + strlen(node);
  char *out = malloc(n + strlen(ticks) + 1);
  assert_non_null(out);
  memcpy(out, json, k);
  strcpy(out + k, ticks);
  strcat(out, json + k);
  return out;
}

/* The self time of name's line `line` in lines l (0 when absent). */
static int64_t line_self(const cprof_profile_t *p, const cprof_flat_t *flat, const cprof_lines_t *l,
                         const char *name, int32_t line) {
  for (uint32_t f = 0; f < flat->nfuncs; f++) {
    if (strcmp(p->frames[flat->funcs[f].frame].name, name) != 0) continue;
    for (uint32_t i = l->first[f]; i < l->first[f + 1]; i++)
      if (l->lines[i].line == line) return l->lines[i].self;
  }
  return 0;
}

static void merge_keeps_lines(void **state) {
  (void)state;
  char *x1 = with_ticks(CPU1, "'lineNumber':1,'columnNumber':2},'hitCount':1,",
                        "'positionTicks':[{'line':2,'ticks':1}],");
  char *x = with_ticks(x1, "'lineNumber':5,'columnNumber':2},'hitCount':2",
                       ",'positionTicks':[{'line':6,'ticks':1},{'line':7,'ticks':1}]");
  char *y = with_ticks(CPU2, "'lineNumber':5,'columnNumber':2},'hitCount':1",
                       ",'positionTicks':[{'line':6,'ticks':1},{'line':7,'ticks':2}]");
  cprof_profile_t *m = merge2(x, y);
  assert_true(m->nline_ticks > 0);
  cprof_flat_t flat;
  cprof_lines_t l;
  assert_int_equal(cprof_flat_build(m, &flat), CPROF_OK);
  assert_int_equal(cprof_lines_build(m, &flat, NULL, &l), CPROF_OK);
  /* Each line: the sum of the inputs' (not 55 split 2:3, which is 22 + 33). */
  assert_int_equal(line_self(m, &flat, &l, "b", 6), 20 + 5);
  assert_int_equal(line_self(m, &flat, &l, "b", 7), 20 + 10);
  assert_int_equal(line_self(m, &flat, &l, "a", 2), 20);
  assert_int_equal(line_self(m, &flat, &l, "c", 0), 5);
  /* A function's lines add up to its self. */
  for (uint32_t f = 0; f < flat.nfuncs; f++) {
    int64_t sum = 0;
    for (uint32_t i = l.first[f]; i < l.first[f + 1]; i++)
      sum += l.lines[i].self;
    assert_int_equal(sum, flat.funcs[f].self);
  }
  cprof_lines_free(&l);
  cprof_flat_free(&flat);

  /* The merged .cpuprofile carries them: b's ticks summed per line. */
  cprof_profile_t *r = reread(m);
  uint32_t b = CPROF_NONE;
  for (uint32_t i = 0; i < r->nnodes; i++)
    if (strcmp(node_name(r, i), "b") == 0) b = i;
  assert_int_not_equal(b, CPROF_NONE);
  uint32_t t6 = 0, t7 = 0, n = 0;
  for (uint32_t i = 0; i < r->nline_ticks; i++) {
    n++;
    if (r->line_ticks[i].node != b) continue;
    if (r->line_ticks[i].line == 6) t6 = r->line_ticks[i].ticks;
    if (r->line_ticks[i].line == 7) t7 = r->line_ticks[i].ticks;
  }
  assert_int_equal(t6, 2);
  assert_int_equal(t7, 3);
  assert_int_equal(n, 3); /* a's line 2, b's 6 and 7; no line 0 written */
  cprof_profile_free(r);
  cprof_profile_free(m);
  free(x1);
  free(x);
  free(y);
}

/* Inputs without positionTicks merge into a profile without them. */
static void merge_without_ticks_has_none(void **state) {
  (void)state;
  cprof_profile_t *m = merge2(CPU1, CPU2);
  assert_int_equal(m->nline_ticks, 0);
  assert_null(m->line_ticks);
  cprof_profile_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpu_merges_by_call_path),
      cmocka_unit_test(urlless_frames_keep_script_ids),
      cmocka_unit_test(cpu_samples_keep_true_timestamps),
      cmocka_unit_test(cpu_unrelated_clock_goes_back_to_back),
      cmocka_unit_test(cpu_concurrent_profiles_go_back_to_back),
      cmocka_unit_test(cpu_gap_between_runs_is_cut),
      cmocka_unit_test(cpu_windows_continue_and_a_lost_one_is_cut),
      cmocka_unit_test(heap_sums_and_renumbers_ordinals),
      cmocka_unit_test(rejects_bad_arguments),
      cmocka_unit_test(single_profile_is_a_copy),
      cmocka_unit_test(fixture_twice_exports),
      cmocka_unit_test(heap_fixture_exports),
      cmocka_unit_test(bytes_counts_what_is_held),
      cmocka_unit_test(merge_keeps_lines),
      cmocka_unit_test(merge_without_ticks_has_none),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

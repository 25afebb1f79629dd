/* The flight recorder's ring (ring.c): eviction by age and bytes, the
 * newest window always kept, overlap trimming, selection by `last`, and
 * references that outlive eviction. */
#include <pthread.h>
#include <stdatomic.h>

#include "helpers.h"
#include "ring.h"

/* clang-format off */
#define FRAME(name) "'callFrame':{'functionName':'" name "','scriptId':'1','url':'file:///a.js'," \
                    "'lineNumber':1,'columnNumber':1}"
/* root -> a, root -> b; samples every 10 µs from start. */
#define CPU(start, end, samples, deltas)                                                           \
  "{'nodes':[{'id':1," FRAME("(root)") ",'hitCount':0,'children':[2,3]},"                          \
  "{'id':2," FRAME("a") ",'hitCount':0},{'id':3," FRAME("b") ",'hitCount':0}],"                   \
  "'startTime':" #start ",'endTime':" #end ",'samples':[" samples "],'timeDeltas':[" deltas "]}"
/* clang-format on */

static cprof_window_t *win(const char *json, int64_t from, int64_t to, size_t bytes, uint64_t seq) {
  cprof_window_t *w = cprof_window_new(parse_ok(json), from, to, bytes, seq);
  assert_non_null(w);
  return w;
}

static cprof_window_t *plain(int64_t from, int64_t to, size_t bytes, uint64_t seq) {
  return win(CPU(0, 30, "2,3,2", "10,10,10"), from, to, bytes, seq);
}

static void stats(cprof_ring_t *r, uint32_t windows, size_t bytes, int64_t from, int64_t to) {
  cprof_ring_stats_t s;
  cprof_ring_stats(r, &s);
  assert_int_equal(s.windows, windows);
  assert_int_equal(s.bytes, bytes);
  assert_int_equal(s.from_ms, from);
  assert_int_equal(s.to_ms, to);
}

static void evicts_by_age_keeping_newest(void **state) {
  (void)state;
  cprof_ring_t *r = cprof_ring_new(25, 0);
  assert_non_null(r);
  for (int i = 0; i < 6; i++)
    assert_int_equal(cprof_ring_push(r, plain(i * 10, i * 10 + 10, 100, i)), 0);
  /* newest ends at 60: windows ending before 35 are gone (10, 20, 30). */
  stats(r, 3, 300, 30, 60);
  /* Far in the future: all but the newest go. */
  assert_int_equal(cprof_ring_evict(r, 10000), 2);
  stats(r, 1, 100, 50, 60);
  cprof_ring_free(r);
}

static void evicts_by_bytes(void **state) {
  (void)state;
  cprof_ring_t *r = cprof_ring_new(0, 250);
  for (int i = 0; i < 5; i++)
    cprof_ring_push(r, plain(i * 10, i * 10 + 10, 100, i));
  stats(r, 2, 200, 30, 50);
  /* A window larger than the whole budget still stays, alone. */
  cprof_ring_push(r, plain(50, 60, 1000, 5));
  stats(r, 1, 1000, 50, 60);
  cprof_ring_stats_t s;
  cprof_ring_stats(r, &s);
  assert_int_equal(s.evicted, 5);
  cprof_ring_free(r);
}

static void selects_newest_covering_last(void **state) {
  (void)state;
  cprof_ring_t *r = cprof_ring_new(0, 0);
  cprof_window_t **sel;
  size_t n;
  for (int i = 0; i < 4; i++)
    cprof_ring_push(r, plain(i * 10, i * 10 + 10, 1, i));
  assert_int_equal(cprof_ring_select(r, 5, &sel, &n), 0); /* [35, 40]: the newest */
  assert_int_equal(n, 1);
  assert_int_equal(sel[0]->seq, 3);
  cprof_window_unref(sel[0]);
  free(sel);
  assert_int_equal(cprof_ring_select(r, 15, &sel, &n), 0); /* [25, 40]: two */
  assert_int_equal(n, 2);
  assert_int_equal(sel[0]->seq, 2);
  assert_int_equal(sel[1]->seq, 3);
  for (size_t i = 0; i < n; i++)
    cprof_window_unref(sel[i]);
  free(sel);
  assert_int_equal(cprof_ring_select(r, 0, &sel, &n), 0); /* all */
  assert_int_equal(n, 4);
  assert_int_equal(sel[0]->seq, 0);
  for (size_t i = 0; i < n; i++)
    cprof_window_unref(sel[i]);
  free(sel);
  assert_int_equal(cprof_ring_select(r, 1000, &sel, &n), 0); /* more than kept: all */
  assert_int_equal(n, 4);
  for (size_t i = 0; i < n; i++)
    cprof_window_unref(sel[i]);
  free(sel);
  cprof_ring_free(r);
}

/* A dump's reference keeps an evicted window (and its profile) alive. */
static void references_outlive_eviction(void **state) {
  (void)state;
  cprof_ring_t *r = cprof_ring_new(0, 150);
  cprof_window_t **sel;
  size_t n;
  cprof_ring_push(r, plain(0, 10, 100, 0));
  assert_int_equal(cprof_ring_select(r, 0, &sel, &n), 0);
  cprof_ring_push(r, plain(10, 20, 100, 1)); /* evicts window 0 */
  stats(r, 1, 100, 10, 20);
  assert_int_equal(sel[0]->profile->nsamples, 3); /* still readable */
  cprof_window_unref(sel[0]);
  free(sel);
  cprof_ring_free(r);
  /* And the ring going away first leaves a dump's windows alone. */
  r = cprof_ring_new(0, 0);
  cprof_ring_push(r, plain(0, 10, 100, 0));
  cprof_ring_select(r, 0, &sel, &n);
  cprof_ring_free(r);
  assert_int_equal(sel[0]->profile->nodes[0].total, 20); /* the last sample weighs 0 */
  cprof_window_unref(sel[0]);
  free(sel);
}

/* Window 1 ran 1000..1100; window 2 started at 1070, before 1 stopped, so
 * its samples at 1080 and 1100 are also in window 1 and go. */
static void trims_cpu_overlap(void **state) {
  (void)state;
  cprof_ring_t *r = cprof_ring_new(0, 0);
  cprof_ring_push(r, win(CPU(1000, 1100, "2,2,2,2,2,2,2,2,2,2", "10,10,10,10,10,10,10,10,10,10"), 0,
                         100, 1, 0));
  cprof_window_t *w2 = win(CPU(1070, 1200, "2,2,3,3,3", "10,20,30,30,30"), 99, 200, 1, 1);
  cprof_ring_push(r, w2);
  cprof_ring_stats_t s;
  cprof_ring_stats(r, &s);
  assert_int_equal(s.trimmed, 2);
  cprof_profile_t *p = w2->profile;
  assert_int_equal(p->start_time, 1100);
  assert_int_equal(p->nsamples, 3); /* at 1130, 1160, 1190 */
  assert_int_equal(p->time_deltas[0], 30);
  /* self: 3 x 30 µs, the last up to endTime (10) */
  assert_int_equal(p->nodes[0].total, 70);
  assert_int_equal(p->nodes[2].self, 70);
  assert_int_equal(p->nodes[1].self, 0);
  assert_int_equal(p->nodes[2].hit_count, 0); /* hitCount 0 stays 0 */
  check_invariants(p);
  /* The wall-clock range now starts where the previous one ended. */
  assert_int_equal(w2->from_ms, 100);
  cprof_ring_free(r);
}

static void trims_everything_when_contained(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(CPU(0, 30, "2,3,2", "10,10,10"));
  assert_int_equal(cprof_profile_trim_before(p, 100), 3);
  assert_int_equal(p->nsamples, 0);
  assert_int_equal(p->start_time, 100);
  assert_int_equal(p->end_time, 100);
  assert_int_equal(p->nodes[0].total, 0);
  assert_int_equal(cprof_profile_trim_before(p, 50), 0); /* earlier: no-op */
  cprof_profile_free(p);
}

typedef struct {
  cprof_ring_t *r;
  _Atomic int done;
} race_t;

static void *pusher(void *arg) {
  race_t *t = arg;
  for (int i = 0; i < 2000; i++)
    cprof_ring_push(t->r, plain(i, i + 1, 10, i));
  atomic_store(&t->done, 1);
  return NULL;
}

/* One thread pushes (and so evicts) while this one selects and drops its
 * references: run under ASan/valgrind (make check SAN=1) to catch a use
 * after free. */
static void push_and_select_race(void **state) {
  (void)state;
  race_t t = {cprof_ring_new(0, 50), 0};
  pthread_t th;
  unsigned rounds = 0;
  assert_int_equal(pthread_create(&th, NULL, pusher, &t), 0);
  while (!atomic_load(&t.done) || rounds++ < 100) {
    cprof_window_t **sel;
    size_t n;
    assert_int_equal(cprof_ring_select(t.r, 0, &sel, &n), 0);
    for (size_t k = 0; k < n; k++) {
      /* Every window after the first overlaps it on V8's clock: trimmed. */
      assert_int_equal(sel[k]->profile->nsamples, sel[k]->seq == 0 ? 3 : 0);
      assert_int_equal(sel[k]->profile->nodes[0].total, sel[k]->seq == 0 ? 20 : 0);
      cprof_window_unref(sel[k]);
    }
    free(sel);
  }
  pthread_join(th, NULL);
  stats(t.r, 5, 50, 1995, 2000);
  cprof_ring_free(t.r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(evicts_by_age_keeping_newest),
      cmocka_unit_test(evicts_by_bytes),
      cmocka_unit_test(selects_newest_covering_last),
      cmocka_unit_test(references_outlive_eviction),
      cmocka_unit_test(trims_cpu_overlap),
      cmocka_unit_test(trims_everything_when_contained),
      cmocka_unit_test(push_and_select_race),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The job engine (job.c, job_load.c, job_tail.c, job_merge.c): each kind
 * run end to end on real files, as the addon's worker thread runs it, and
 * each way a job fails: the code, the message, and what out keeps. */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "job_internal.h"
#include "note_fixture.h"
#include "rmtree.h"
#include "snapshot_tiny.h"

#define CPU_FIXTURE CPROF_FIXTURES "/small.cpuprofile"
#define HEAP_FIXTURE CPROF_FIXTURES "/small.heapprofile"

/* The whole file, NUL-terminated (helpers.h's slurp). */
static char *read_whole(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n;
  char *buf = slurp(f, &n);
  fclose(f);
  if (len) *len = n;
  return buf;
}

static char *tmpdir(void) {
  char *dir = strdup("/tmp/cprof-test-job-XXXXXX");
  assert_non_null(dir);
  assert_non_null(mkdtemp(dir));
  return dir;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
  assert_int_equal(fclose(f), 0);
}

/* A file the job wrote: there, of the size it reported. */
static void assert_written(const char *path, long long size) {
  struct stat st;
  assert_non_null(path);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal((long long)st.st_size, size);
  assert_true(size > 0);
}

/* Runs a job; returns its code, which err and run agree on. */
static int run(cprof_job_t *job) {
  int rc = cprof_job_run(&job->in, &job->out, &job->err);
  assert_int_equal(rc, job->err.code);
  if (rc != CPROF_OK && rc != CPROF_ENOMEM) assert_true(job->err.msg[0] != '\0');
  return rc;
}

static void release(cprof_job_t *job) {
  cprof_job_in_free(&job->in);
  cprof_job_out_free(&job->out);
}

/* The five formats came from one analysis (the tree, the flat profile and
 * every function's lines, each built once), and each file is byte for byte
 * what its writer makes alone. */
static void assert_same_as_alone(const cprof_job_t *job, const char *dir) {
  const cprof_job_out_t *out = &job->out;
  assert_int_equal(out->analysis.builds, 3);
  assert_null(out->analysis.tree); /* dropped once the files were written */
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++) {
    char err[256];
    assert_int_equal(cprof_write_format(dir, "alone", (cprof_format_t)i, out->profile,
                                        &job->in.opts, NULL, err, sizeof err),
                     CPROF_OK);
    char *path = cprof_path_join(dir, "alone");
    size_t a_len, b_len;
    char *a = read_whole(path, &a_len), *b = read_whole(out->out_paths[i], &b_len);
    assert_int_equal(a_len, b_len);
    assert_memory_equal(a, b, a_len);
    free(a);
    free(b);
    free(path);
  }
}

static void file_job_summarises_and_writes(void **state) {
  (void)state;
  char *dir = tmpdir();
  cprof_job_t job = {.in = {.kind = CPROF_JOB_FILE,
                            .src.path = strdup(CPU_FIXTURE),
                            .dest = {.dir = strdup(dir), .name = strdup("p.cpuprofile")},
                            .want = {.top = 5, .text = 1, .lines = 1}}};
  const char *names[CPROF_FORMAT_COUNT] = {"p.pb.gz", "p.folded", "p.svg", "p.txt", "p.html"};
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++)
    job.in.dest.outs[i] = strdup(names[i]);
  job.in.opts.lines = 1;
  assert_int_equal(run(&job), CPROF_OK);
  const cprof_job_out_t *out = &job.out;
  assert_int_equal(out->profile->nsamples, 218);
  assert_int_equal(out->ntop, 5);
  for (size_t i = 1; i < out->ntop; i++)
    assert_true(out->top[i - 1].self >= out->top[i].self);
  assert_non_null(out->analysis.lines.first); /* lines of every function */
  assert_non_null(out->text);
  assert_int_equal(strlen(out->text), out->text_len);
  assert_non_null(strstr(out->text, "busyStrings"));
  assert_int_equal(out->raw, 0);
  assert_written(out->file, out->size);
  for (int i = 0; i < CPROF_FORMAT_COUNT; i++)
    assert_written(out->out_paths[i], out->out_sizes[i]);
  assert_same_as_alone(&job, dir);
  size_t len;
  char *again = read_whole(out->file, &len); /* the model written back parses the same */
  cprof_profile_t *p = parse_raw(again, len);
  assert_int_equal(p->nsamples, 218);
  assert_int_equal(p->nnodes, out->profile->nnodes);
  cprof_profile_free(p);
  free(again);
  assert_false(cprof_job_has_result(&job));
  release(&job);
  rmtree(dir);
  free(dir);
}

/* A stop's reply: V8's profile text goes to disk as V8 made it. */
static void stop_reply_written_raw(void **state) {
  (void)state;
  char *dir = tmpdir(), *text = read_whole(CPU_FIXTURE, NULL);
  size_t cap = strlen(text) + 64;
  char *reply = malloc(cap);
  assert_non_null(reply);
  snprintf(reply, cap, "{\"id\":7,\"result\":{\"profile\":%s}}", text);
  cprof_job_t job = {.in = {.kind = CPROF_JOB_STOP_CPU,
                            .src = {.json = reply, .len = strlen(reply)},
                            .dest = {.dir = strdup(dir), .name = strdup("s.cpuprofile")},
                            .want.top = 3}};
  assert_int_equal(run(&job), CPROF_OK);
  assert_null(job.in.src.json); /* never held twice */
  assert_int_equal(job.out.raw, 1);
  size_t len;
  char *written = read_whole(job.out.file, &len);
  assert_int_equal(len, strlen(text));
  assert_memory_equal(written, text, len);
  assert_int_equal(job.out.ntop, 3);
  free(written);
  free(text);
  release(&job);
  rmtree(dir);
  free(dir);
}

/* v8.startCpuProfile's text that does not parse: kept as written, and the
 * caller is told to use the inspector from now on. */
static void v8_text_that_fails(void **state) {
  (void)state;
  char *dir = tmpdir();
  cprof_job_t job = {.in = {.kind = CPROF_JOB_STOP_CPU,
                            .src = {.json = strdup("{\"nodes\":[{nope"), .len = 15, .v8_text = 1},
                            .dest = {.dir = strdup(dir), .name = strdup("v.cpuprofile")},
                            .want.top = 3}};
  assert_int_not_equal(run(&job), CPROF_OK);
  assert_int_equal(job.out.v8_failed, 1);
  assert_non_null(strstr(job.err.msg, "later CPU profiles of this process go through the "
                                      "inspector"));
  assert_non_null(strstr(job.err.msg, "v.cpuprofile"));
  char *written = read_whole(job.out.file, NULL);
  assert_string_equal(written, "{\"nodes\":[{nope");
  free(written);
  release(&job);
  rmtree(dir);
  free(dir);
}

static void diff_of_two_kinds(void **state) {
  (void)state;
  cprof_job_t job = {.in = {.kind = CPROF_JOB_DIFF,
                            .src = {.path = strdup(CPU_FIXTURE), .path_b = strdup(HEAP_FIXTURE)},
                            .want.top = 3}};
  assert_int_equal(run(&job), CPROF_EINVAL);
  assert_non_null(strstr(job.err.msg, "cannot diff a CPU profile"));
  release(&job);
  /* the same kind twice: the diff's table */
  job = (cprof_job_t){.in = {.kind = CPROF_JOB_DIFF,
                             .src = {.path = strdup(CPU_FIXTURE), .path_b = strdup(CPU_FIXTURE)},
                             .want = {.top = 3, .text = 1}}};
  assert_int_equal(run(&job), CPROF_OK);
  assert_non_null(job.out.profile_b);
  assert_true(job.out.text_len > 0);
  release(&job);
}

static char **paths(const char *a, const char *b) {
  char **p = calloc(2, sizeof *p);
  assert_non_null(p);
  p[0] = strdup(a);
  p[1] = strdup(b);
  return p;
}

static void merge_files(void **state) {
  (void)state;
  cprof_job_t job = {.in = {.kind = CPROF_JOB_MERGE,
                            .src = {.paths = paths(CPU_FIXTURE, CPU_FIXTURE), .npaths = 2},
                            .want = {.top = 3, .need_samples = 1}}};
  assert_int_equal(run(&job), CPROF_OK);
  assert_int_equal(job.out.profile->nsamples, 2 * 218);
  release(&job);
  /* a file that is not there: named */
  job = (cprof_job_t){
      .in = {.kind = CPROF_JOB_MERGE,
             .src = {.paths = paths(CPU_FIXTURE, "/nonexistent/x.cpuprofile"), .npaths = 2}}};
  assert_int_equal(run(&job), CPROF_EIO);
  assert_non_null(strstr(job.err.msg, "/nonexistent/x.cpuprofile"));
  assert_null(job.out.profile);
  release(&job);
  /* two kinds */
  job = (cprof_job_t){.in = {.kind = CPROF_JOB_MERGE,
                             .src = {.paths = paths(CPU_FIXTURE, HEAP_FIXTURE), .npaths = 2}}};
  assert_int_equal(run(&job), CPROF_EINVAL);
  assert_non_null(strstr(job.err.msg, "cannot merge a CPU profile"));
  release(&job);
}

/* 130 profiles (past one merge step of 128 files), every other one with
 * its labels beside it: the merged sidecar and pprof keep each sample's
 * set, in the merged samples' order; a sidecar that is not its profile's
 * fails the merge, naming it. */
#define NFILES 130
static void merge_keeps_labels(void **state) {
  (void)state;
  char *dir = tmpdir(), path[300];
  char **ps = calloc(NFILES, sizeof *ps);
  assert_non_null(ps);
  for (int k = 0; k < NFILES; k++) {
    snprintf(path, sizeof path, "%s/p%03d.cpuprofile", dir, k);
    write_file(
        path, "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\","
              "\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2]},{\"id\":2,"
              "\"callFrame\":{\"functionName\":\"f\",\"scriptId\":\"1\",\"url\":\"file:///f.js\","
              "\"lineNumber\":1,\"columnNumber\":1}}],\"startTime\":0,\"endTime\":300,"
              "\"samples\":[2,2],\"timeDeltas\":[100,100]}");
    ps[k] = strdup(path);
    if (k % 2) continue;
    char side[160];
    snprintf(path, sizeof path, "%s/p%03d.labels.json", dir, k);
    snprintf(side, sizeof side,
             "{\"version\":1,\"sets\":[{},{\"x\":\"y\"},{\"route\":\"/r%d\"}],\"samples\":[2,0],"
             "\"unknownSamples\":0}",
             k % 3);
    write_file(path, side);
  }
  cprof_job_t job = {.in = {.kind = CPROF_JOB_MERGE,
                            .src = {.paths = ps, .npaths = NFILES},
                            .dest = {.dir = strdup(dir), .name = strdup("m.cpuprofile")},
                            .want = {.top = 3, .need_samples = 1},
                            .labels = cprof_labels_new()}};
  job.in.dest.outs[CPROF_FORMAT_PPROF] = strdup("m.pb.gz");
  job.in.labels->file = strdup("m.labels.json");
  assert_int_equal(run(&job), CPROF_OK);
  assert_int_equal(job.out.profile->nsamples, 2 * NFILES);
  assert_written(job.out.labels_path, job.out.labels_size);
  assert_written(job.out.out_paths[CPROF_FORMAT_PPROF], job.out.out_sizes[CPROF_FORMAT_PPROF]);
  size_t len;
  char *text = read_whole(job.out.labels_path, &len), err[256];
  cprof_labels_t *l = NULL;
  assert_int_equal(cprof_labels_read(text, len, &l, err, sizeof err), CPROF_OK);
  assert_int_equal(l->nsamples, 2 * NFILES);
  assert_int_equal(l->nsets, 4); /* {}, /r0, /r2, /r1 as first met; {x: y} is used by none */
  for (int k = 0; k < NFILES; k++) {
    const cprof_label_set_t *s = &l->sets[l->sample_set[2 * k]];
    char want[16];
    snprintf(want, sizeof want, "/r%d", k % 3);
    if (k % 2)
      assert_int_equal(s->n, 0);
    else
      assert_string_equal(s->kv[1], want);
    assert_int_equal(l->sample_set[2 * k + 1], 0);
  }
  cprof_labels_free(l);
  free(text);
  release(&job);
  /* p002's labels of 3 samples: not its profile's */
  snprintf(path, sizeof path, "%s/p002.labels.json", dir);
  write_file(path, "{\"version\":1,\"sets\":[{}],\"samples\":[0,0,0]}");
  char first[300];
  snprintf(first, sizeof first, "%s/p000.cpuprofile", dir);
  snprintf(path, sizeof path, "%s/p002.cpuprofile", dir);
  char **two = paths(first, path); /* ps went with the first job */
  job = (cprof_job_t){.in = {.kind = CPROF_JOB_MERGE,
                             .src = {.paths = two, .npaths = 2},
                             .want = {.top = 3},
                             .labels = cprof_labels_new()}};
  assert_int_equal(run(&job), CPROF_ESCHEMA);
  assert_non_null(strstr(job.err.msg, "p002.labels.json: 3 samples, the profile has 2"));
  release(&job);
  rmtree(dir);
  free(dir);
}

static void empty_profile_and_missing_focus(void **state) {
  (void)state;
  char *dir = tmpdir(), path[256];
  snprintf(path, sizeof path, "%s/empty.cpuprofile", dir);
  write_file(path, "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":"
                   "\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1}}],\"startTime\":0,"
                   "\"endTime\":1,\"samples\":[],\"timeDeltas\":[]}");
  cprof_job_t job = {.in = {.kind = CPROF_JOB_FILE,
                            .src.path = strdup(path),
                            .want = {.top = 3, .need_samples = 1}}};
  assert_int_equal(run(&job), CPROF_ESCHEMA);
  assert_non_null(strstr(job.err.msg, "empty profile"));
  release(&job);
  job = (cprof_job_t){.in = {.kind = CPROF_JOB_FILE,
                             .src.path = strdup(CPU_FIXTURE),
                             .focus = strdup("noSuchFunction"),
                             .want.top = 3}};
  job.in.opts.focus = job.in.focus;
  assert_int_equal(run(&job), CPROF_EINVAL);
  assert_non_null(strstr(job.err.msg, "no function named \"noSuchFunction\""));
  release(&job);
  rmtree(dir);
  free(dir);
}

/* A write that fails after the summary: the error, and the summary kept
 * for err.result. */
static void failed_write_keeps_the_summary(void **state) {
  (void)state;
  cprof_job_t job = {
      .in = {.kind = CPROF_JOB_FILE,
             .src.path = strdup(HEAP_FIXTURE),
             .dest = {.dir = strdup("/dev/null/sub"), .name = strdup("h.heapprofile")},
             .want.top = 3}};
  assert_int_equal(run(&job), CPROF_EIO);
  assert_true(cprof_job_has_result(&job));
  assert_true(job.out.ntop > 0);
  assert_null(job.out.file);
  release(&job);
}

static int produced, produce_freed;
static char heap_fixture[] = HEAP_FIXTURE;

static int produce(void *ctx, cprof_profile_t **out, cprof_labels_t **labels, char *errbuf,
                   size_t errlen) {
  size_t len;
  (void)labels;
  char *text = read_whole(ctx, &len);
  produced++;
  int rc = cprof_profile_parse(text, len, out, errbuf, errlen);
  free(text);
  return rc;
}

static void produce_free(void *ctx) {
  (void)ctx;
  produce_freed++;
}

static void produce_job(void **state) {
  (void)state;
  produced = produce_freed = 0;
  cprof_job_t job = {
      .in = {.kind = CPROF_JOB_PRODUCE,
             .src = {.produce = produce, .produce_free = produce_free, .produce_ctx = heap_fixture},
             .want = {.top = 4, .max_depth = 2}}};
  assert_int_equal(run(&job), CPROF_OK);
  assert_int_equal(job.out.profile->kind, CPROF_KIND_HEAP);
  assert_int_equal(produced, 1);
  assert_int_equal(produce_freed, 0);
  release(&job);
  assert_int_equal(produce_freed, 1); /* once, with the job */
}

static void snapshot_jobs(void **state) {
  (void)state;
  char *dir = tmpdir(), path[256], err[512], *want = NULL;
  snprintf(path, sizeof path, "%s/tiny.heapsnapshot", dir);
  char *text = dq(TINY);
  write_file(path, text);
  free(text);
  assert_int_equal(cprof_snapshot_report_file(path, 5, &want, err, sizeof err), CPROF_OK);
  char **one = calloc(1, sizeof *one);
  one[0] = strdup(path);
  cprof_job_t job = {.in = {.kind = CPROF_JOB_SNAPSHOT, .src = {.paths = one, .npaths = 1}}};
  job.in.want.top = 5;
  assert_int_equal(run(&job), CPROF_OK);
  assert_string_equal(job.out.text, want);
  assert_int_equal(job.out.text_len, strlen(want));
  release(&job);
  free(want);
  /* a diff of the snapshot with itself, and the viewer's data */
  job = (cprof_job_t){
      .in = {.kind = CPROF_JOB_SNAPSHOT, .src = {.paths = paths(path, path), .npaths = 2}}};
  job.in.want.top = 5;
  assert_int_equal(run(&job), CPROF_OK);
  assert_non_null(strchr(job.out.text, '{'));
  release(&job);
  one = calloc(1, sizeof *one);
  one[0] = strdup(path);
  job = (cprof_job_t){.in = {.kind = CPROF_JOB_SNAPSHOT_VIEW, .src = {.paths = one, .npaths = 1}}};
  job.in.want.top = 5;
  assert_int_equal(run(&job), CPROF_OK);
  assert_true(job.out.text_len > 0);
  release(&job);
  /* a missing file: the kind of failure first, then why */
  one = calloc(1, sizeof *one);
  one[0] = strdup("/nonexistent/x.heapsnapshot");
  job = (cprof_job_t){.in = {.kind = CPROF_JOB_SNAPSHOT, .src = {.paths = one, .npaths = 1}}};
  job.in.want.top = 5;
  assert_int_equal(run(&job), CPROF_EIO);
  assert_true(strncmp(job.err.msg, cprof_strerror(CPROF_EIO), strlen(cprof_strerror(CPROF_EIO))) ==
              0);
  assert_non_null(strstr(job.err.msg, "/nonexistent/x.heapsnapshot"));
  release(&job);
  rmtree(dir);
  free(dir);
}

static void window_job(void **state) {
  (void)state;
  cprof_window_cfg_t cfg = {.interval_us = 1000};
  cprof_ring_t *ring = cprof_ring_new(0, 0);
  cprof_ring_stats_t s;
  char *json = dq(NOTE);
  cprof_job_t job = {.in = {.kind = CPROF_JOB_WINDOW}};
  job.in.src.window = (cprof_job_window_t){
      .text = {.json = json, .len = strlen(json), .from_ms = 1000, .to_ms = 2000, .seq = 4},
      .cfg = &cfg,
      .ring = ring};
  assert_int_equal(run(&job), CPROF_OK);
  assert_null(job.in.src.window.text.json); /* freed before keeping */
  assert_int_equal(job.in.src.window.text.seq, 4);
  assert_int_equal(job.out.made.samples, 2);
  cprof_ring_stats(ring, &s);
  assert_int_equal(s.windows, 1);
  release(&job);
  /* a text that is not a window: said, nothing kept */
  job = (cprof_job_t){.in = {.kind = CPROF_JOB_WINDOW}};
  job.in.src.window = (cprof_job_window_t){
      .text = {.json = strdup("{}"), .len = 2, .seq = 5}, .cfg = &cfg, .ring = ring};
  assert_int_not_equal(run(&job), CPROF_OK);
  cprof_ring_stats(ring, &s);
  assert_int_equal(s.windows, 1);
  release(&job);
  cprof_ring_free(ring);
}

static void trim_job(void **state) {
  (void)state;
  cprof_job_t job = {.in = {.kind = CPROF_JOB_TRIM}};
#ifdef __GLIBC__
  assert_int_equal(cprof_job_trim_claim(), 1);
  assert_int_equal(cprof_job_trim_claim(), 0); /* one queued covers every caller */
  assert_int_equal(run(&job), CPROF_OK);
  assert_int_equal(cprof_job_trim_claim(), 1); /* started: the next frees need another */
  cprof_job_trim_unclaim();
  assert_int_equal(cprof_job_trim_claim(), 1);
  cprof_job_trim_unclaim();
#else
  assert_int_equal(cprof_job_trim_claim(), 0);
  assert_int_equal(run(&job), CPROF_OK);
#endif
}

/* What a kind reads, missing: a message, never a crash. */
static void missing_input(void **state) {
  (void)state;
  static const cprof_job_kind_t kinds[] = {
      CPROF_JOB_STOP_CPU, CPROF_JOB_STOP_HEAP, CPROF_JOB_FILE,        CPROF_JOB_DIFF,
      CPROF_JOB_MERGE,    CPROF_JOB_PRODUCE,   CPROF_JOB_SNAPSHOT,    CPROF_JOB_SNAPSHOT_VIEW,
      CPROF_JOB_WINDOW,   CPROF_JOB_KINDS,     (cprof_job_kind_t)(-1)};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    cprof_job_t job = {.in = {.kind = kinds[i]}};
    assert_int_equal(run(&job), CPROF_EINVAL);
    assert_non_null(strstr(job.err.msg, "needs"));
    release(&job);
  }
}

static void source_maps_with_the_shared_cache(void **state) {
  (void)state;
  cprof_smcache_t *cache = cprof_job_smcache();
  assert_non_null(cache);
  assert_ptr_equal(cprof_job_smcache(), cache);
  cprof_job_t job = {.in = {.kind = CPROF_JOB_FILE,
                            .src.path = strdup(CPU_FIXTURE),
                            .want = {.top = 3, .source_maps = 1},
                            .sm_cache = cache}};
  assert_int_equal(run(&job), CPROF_OK);
  /* node: urls name no script file: nothing to map, and said so */
  assert_int_equal(job.out.sm_stats.mapped, 0);
  assert_int_equal(job.out.sm_stats.frames, job.out.sm_stats.unmapped);
  release(&job);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(file_job_summarises_and_writes),
      cmocka_unit_test(stop_reply_written_raw),
      cmocka_unit_test(v8_text_that_fails),
      cmocka_unit_test(diff_of_two_kinds),
      cmocka_unit_test(merge_files),
      cmocka_unit_test(merge_keeps_labels),
      cmocka_unit_test(empty_profile_and_missing_focus),
      cmocka_unit_test(failed_write_keeps_the_summary),
      cmocka_unit_test(produce_job),
      cmocka_unit_test(snapshot_jobs),
      cmocka_unit_test(window_job),
      cmocka_unit_test(trim_job),
      cmocka_unit_test(missing_input),
      cmocka_unit_test(source_maps_with_the_shared_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The job engine's part of one fuzz iteration (src/core/job.h), included
 * by harness.c (so the libFuzzer target and the cmocka replay run it):
 * the input as a stop's text, run through cprof_job_run as the addon's
 * worker thread runs it (a CPU stop, with the v8 text repair and cprof's
 * own start call as knobs pick, or a heap stop), with a summary, lines,
 * the text report and a depth limit, but no files. Oracles: the run's code
 * is err's; a failure says why (but out of memory) and leaves no profile to
 * report unless a write failed; a success has a profile whose flat total
 * is its total, at most top functions, and the text when asked; either
 * way the text is freed once parsed and the v8 fallback only follows a
 * failed v8 text. */

static void fuzz_job_one(const char *json, size_t size, cprof_job_kind_t kind, uint8_t k) {
  cprof_job_t job = {.in = {.kind = kind,
                            .want = {.top = k % 16,
                                     .lines = k & 1,
                                     .text = (k >> 1) & 1,
                                     .need_samples = (k >> 2) & 1,
                                     .max_depth = (k >> 4) & 1 ? 2 : 0}}};
  job.in.src.json = malloc(size ? size : 1);
  if (!job.in.src.json) return;
  memcpy(job.in.src.json, json, size);
  job.in.src.len = size;
  job.in.src.v8_text = kind == CPROF_JOB_STOP_CPU && (k >> 3) & 1;
  if (kind == CPROF_JOB_STOP_CPU && (k >> 5) & 1 && !(job.in.own_url = strdup("file:///")))
    goto out;
  job.in.opts.lines = job.in.want.lines;
  int rc = cprof_job_run(&job.in, &job.out, &job.err);
  FUZZ_CHECK(rc == job.err.code, "job returned %d, err says %d", rc, job.err.code);
  FUZZ_CHECK(job.in.src.json == NULL, "the job kept the stop's text");
  FUZZ_CHECK(!job.out.v8_failed || (job.in.src.v8_text && rc != CPROF_OK), "v8 fallback on %d", rc);
  if (rc != CPROF_OK) {
    FUZZ_CHECK(rc < 0 && (job.err.msg[0] || rc == CPROF_ENOMEM), "job failed (%d) silently", rc);
    FUZZ_CHECK(!cprof_job_has_result(&job), "a job without files has a partial result");
    goto out;
  }
  const cprof_job_out_t *o = &job.out;
  FUZZ_CHECK(o->profile != NULL, "a job succeeded without a profile");
  FUZZ_CHECK(o->analysis.flat.total == cprof_profile_total(o->profile),
             "flat total %lld != total %lld", (long long)o->analysis.flat.total,
             (long long)cprof_profile_total(o->profile));
  FUZZ_CHECK(o->ntop <= job.in.want.top, "top %zu of %u", o->ntop, job.in.want.top);
  FUZZ_CHECK(!job.in.want.text || (o->text && o->text_len > 0), "no text report");
  FUZZ_CHECK(!job.in.want.need_samples || o->profile->nsamples > 0, "no samples needed");
  if (o->text) check_term_text("job text", o->text, o->text_len);
out:
  cprof_job_in_free(&job.in);
  cprof_job_out_free(&job.out);
}

static void fuzz_job(const char *json, size_t size, uint8_t k) {
  fuzz_job_one(json, size, CPROF_JOB_STOP_CPU, k);
  fuzz_job_one(json, size, CPROF_JOB_STOP_HEAP, (uint8_t)(k ^ 0x3));
}

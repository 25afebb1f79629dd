/* The profile kinds' loaders (job.h), one per kind, each giving the job its
 * profile (a diff two): a stop's reply text parsed (V8's text written
 * first, as V8 made it), profile files read and parsed, files merged, or
 * the recorder's windows produced. */
#define _POSIX_C_SOURCE 200809L /* fileno, open_memstream */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fsutil.h"
#include "job_internal.h"
#include "own_start.h"
#include "repair.h"
#include "reply.h"

#define ERRBUF(r) CPROF__JOB_ERRBUF(r)

int cprof__job_read_file(cprof__run_t *r, const char *path, int profile, char **out, size_t *len) {
  FILE *f = fopen(path, "rb");
  struct stat st;
  long n;
  char *buf;
  int have_st = f && fstat(fileno(f), &st) == 0;
  if (have_st && !S_ISREG(st.st_mode)) {
    fclose(f);
    snprintf(ERRBUF(r), "cannot read %s: %s", path,
             S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
    return CPROF_EIO;
  }
  if (!f || !have_st || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0) {
    snprintf(ERRBUF(r), "cannot read %s: %s", path, strerror(errno));
    if (f) fclose(f);
    return CPROF_EIO;
  }
  if (profile) { /* whose profile it is: the line views show what they could read */
    cprof_source_owners_add(&r->out->owners, (uint32_t)st.st_uid, (uint32_t)st.st_gid);
    r->in->opts.source_owners = &r->out->owners;
  }
  buf = malloc((size_t)n + 1);
  *len = buf ? fread(buf, 1, (size_t)n, f) : 0;
  int bad = !buf || ferror(f);
  fclose(f);
  if (bad) {
    snprintf(ERRBUF(r), "cannot read %s: %s", path, buf ? strerror(errno) : "out of memory");
    free(buf);
    return buf ? CPROF_EIO : CPROF_ENOMEM;
  }
  buf[*len] = '\0';
  *out = buf;
  return CPROF_OK;
}

/* need: a profile without samples is an error (the CLI's rule). */
static int need_samples(cprof__run_t *r, const char *path, int need, const cprof_profile_t *p) {
  if (!need || p->nsamples > 0) return CPROF_OK;
  snprintf(ERRBUF(r), "%s: empty profile: it holds no samples, so there is nothing to show",
           path ? path : "the profile");
  return CPROF_ESCHEMA;
}

/* Reads (if path) and parses; a file's errors name the file. need: a
 * profile without samples is an error. */
static int load(cprof__run_t *r, const char *path, char **json, size_t *len, int need,
                cprof_profile_t **out) {
  int rc;
  if (path && (rc = cprof__job_read_file(r, path, 1, json, len)) != CPROF_OK) return rc;
  rc = cprof_profile_parse(*json, *len, out, ERRBUF(r));
  free(*json); /* never hold the profile twice */
  *json = NULL;
  if (rc != CPROF_OK && path) {
    char msg[sizeof r->err->msg];
    snprintf(msg, sizeof msg, "%s: %.700s", path,
             r->err->msg[0] ? r->err->msg : cprof_strerror(rc));
    memcpy(r->err->msg, msg, sizeof msg);
    return rc;
  }
  return rc == CPROF_OK ? need_samples(r, path, need, *out) : rc;
}

/* ---- STOP_CPU: V8's text on disk as soon as it can be ---- */

typedef struct {
  const char *text;
  size_t len;
  uint32_t drop; /* leading samples to leave out (cprof's own start) */
} span_t;

static int write_span(void *ctx, FILE *f) {
  const span_t *s = ctx;
  return cprof_write_text_drop_leading(s->text, s->len, s->drop, f);
}

/* The CPU reply's profile text, written as V8 made it (positionTicks and
 * all) but for the drop leading samples. Nothing when the reply is not of
 * that shape: the tail then exports the parsed model. A failure goes to
 * out->write_err, reported after the parse (the tail). */
static void write_raw(cprof__run_t *r, uint32_t drop) {
  const cprof_job_src_t *src = &r->in->src;
  const cprof_job_dest_t *dest = &r->in->dest;
  cprof_job_err_t *e = &r->out->write_err;
  span_t s = {NULL, 0, drop};
  size_t off;
  if (!dest->dir || !dest->name) return;
  if (src->v8_text) { /* the profile itself, repaired or as V8 made it */
    off = 0;
    s.len = src->len;
  } else if (!cprof_reply_profile_span(src->json, src->len, &off, &s.len)) {
    return;
  }
  s.text = src->json + off;
  int rc = cprof_dir_prepare(dest->dir, dest->own_dir ? CPROF_DIR_OWN : 0, e->msg, sizeof e->msg);
  if (rc == CPROF_OK)
    rc = cprof_write_atomic_fn(dest->dir, dest->name, write_span, &s, &r->out->size, e->msg,
                               sizeof e->msg);
  if (rc == CPROF_OK && !(r->out->file = cprof_path_join(dest->dir, dest->name))) rc = CPROF_ENOMEM;
  r->out->raw = rc == CPROF_OK;
  e->code = rc;
}

/* v8.startCpuProfile's text with its raw names escaped (repair.h). A text
 * the repair refuses stays as V8 made it: it is written so, and its parse
 * fails (the message says which). */
static int repair_v8(cprof__run_t *r) {
  cprof_job_src_t *src = &r->in->src;
  char *fixed;
  size_t len;
  if (cprof_cpu_text_repair(src->json, src->len, &fixed, &len, NULL) != CPROF_OK) return 0;
  free(src->json);
  src->json = fixed;
  src->len = len;
  return 1;
}

/* A v8 text that does not parse: out->v8_failed tells the caller to use
 * the inspector from now on, and the message says where V8's text is. */
static int v8_fallback(cprof__run_t *r, int rc, int repaired) {
  char msg[sizeof r->err->msg];
  r->out->v8_failed = 1;
  snprintf(msg, sizeof msg,
           "%.500s (v8.startCpuProfile's text%s; it is kept as written%s%s); later CPU profiles of "
           "this process go through the inspector",
           r->err->msg[0] ? r->err->msg : cprof_strerror(rc),
           repaired ? " still did not parse after its repair" : " could not be repaired",
           r->out->file ? " in " : "", r->out->file ? r->out->file : "");
  memcpy(r->err->msg, msg, sizeof msg);
  return rc;
}

/* The CPU reply with cprof's own start call dropped: which leading samples
 * are its own is in the tree, so the parse comes first, then V8's text is
 * written without them (even when the parse failed, as V8 made it: the
 * parse's message stays the job's), then the text goes. */
static int load_own(cprof__run_t *r) {
  cprof_job_src_t *src = &r->in->src;
  int rc = cprof_profile_parse(src->json, src->len, &r->out->profile, ERRBUF(r));
  uint32_t k = rc == CPROF_OK ? cprof_profile_leading_own(r->out->profile, r->in->own_url) : 0;
  if (k > 0) rc = cprof_profile_drop_leading(r->out->profile, k);
  write_raw(r, rc == CPROF_OK ? k : 0);
  free(src->json); /* never hold the profile twice */
  src->json = NULL;
  return rc == CPROF_OK ? need_samples(r, NULL, r->in->want.need_samples, r->out->profile) : rc;
}

/* V8's text is written first, then parsed (after a failed write the parse
 * still runs: the caller's error keeps the summary). */
static int load_stop_cpu(cprof__run_t *r) {
  cprof_job_src_t *src = &r->in->src;
  int repaired = src->v8_text && repair_v8(r), rc;
  if (r->in->own_url) {
    rc = load_own(r);
  } else {
    write_raw(r, 0);
    rc = load(r, NULL, &src->json, &src->len, r->in->want.need_samples, &r->out->profile);
  }
  return rc != CPROF_OK && src->v8_text ? v8_fallback(r, rc, repaired) : rc;
}

/* ---- the other kinds ---- */

static int load_stop_heap(cprof__run_t *r) {
  cprof_job_src_t *src = &r->in->src;
  return load(r, NULL, &src->json, &src->len, r->in->want.need_samples, &r->out->profile);
}

static int load_file(cprof__run_t *r) {
  char *json = NULL;
  size_t len = 0;
  return load(r, r->in->src.path, &json, &len, r->in->want.need_samples, &r->out->profile);
}

static const char *kind_name(const cprof_profile_t *p) {
  return p->kind == CPROF_KIND_CPU ? "CPU" : "heap";
}

static int load_diff(cprof__run_t *r) {
  const cprof_job_src_t *src = &r->in->src;
  char *json = NULL;
  size_t len = 0;
  int rc = load_file(r);
  if (rc != CPROF_OK || (rc = load(r, src->path_b, &json, &len, r->in->want.need_samples,
                                   &r->out->profile_b)) != CPROF_OK)
    return rc;
  if (r->out->profile->kind != r->out->profile_b->kind) {
    snprintf(ERRBUF(r), "cannot diff a %s profile (%s) with a %s profile (%s)",
             kind_name(r->out->profile), src->path, kind_name(r->out->profile_b), src->path_b);
    return CPROF_EINVAL;
  }
  return CPROF_OK;
}

/* path's sidecar (X.cpuprofile's X.labels.json) read, when there is one;
 * one that is there must be this profile's. */
static int load_sidecar(cprof__run_t *r, const char *path, const cprof_profile_t *p,
                        cprof_labels_t **out) {
  struct stat st;
  char *side = cprof_labels_sidecar_name(path), *json = NULL;
  size_t len = 0;
  int rc = CPROF_OK;
  if (!side || (stat(side, &st) != 0 && errno == ENOENT)) {
    free(side);
    return CPROF_OK; /* none: its samples carry no labels */
  }
  if ((rc = cprof__job_read_file(r, side, 0, &json, &len)) == CPROF_OK) {
    char why[512];
    rc = cprof_labels_read(json, len, out, why, sizeof why);
    if (rc == CPROF_OK && (*out)->nsamples != p->nsamples) {
      snprintf(why, sizeof why, "%u samples, the profile has %u: not this profile's labels",
               (*out)->nsamples, p->nsamples);
      rc = CPROF_ESCHEMA;
    }
    if (rc != CPROF_OK)
      snprintf(ERRBUF(r), "%s: %s (the labels beside %s)", side, why[0] ? why : cprof_strerror(rc),
               path);
  }
  free(json);
  free(side);
  if (rc != CPROF_OK) {
    cprof_labels_free(*out);
    *out = NULL;
  }
  return rc;
}

/* A merge's file loader: each file alone may be empty (a quiet window);
 * the merged profile is what must hold samples. */
static int load_one(void *ctx, const char *path, cprof_profile_t **out, cprof_labels_t **labels) {
  char *json = NULL;
  size_t len = 0;
  int rc = load(ctx, path, &json, &len, 0, out);
  if (rc == CPROF_OK && labels && (*out)->kind == CPROF_KIND_CPU)
    rc = load_sidecar(ctx, path, *out, labels);
  return rc;
}

/* in->labels asks for the inputs' labels: the merged ones replace it,
 * under its sidecar name (none for a heap profile). */
static void take_labels(cprof__run_t *r, cprof_labels_t *merged) {
  cprof_labels_t *asked = r->in->labels;
  if (merged) {
    merged->file = asked->file;
    asked->file = NULL;
  }
  cprof_labels_free(asked);
  r->in->labels = merged;
}

static int load_merge(cprof__run_t *r) {
  const cprof_job_src_t *src = &r->in->src;
  cprof_labels_t *merged = NULL;
  int rc = cprof__job_merge_files(src->paths, src->npaths, r->in->want.need_samples, load_one, r,
                                  &r->out->profile, r->in->labels ? &merged : NULL, ERRBUF(r));
  if (rc == CPROF_OK && r->in->labels) take_labels(r, merged);
  return rc;
}

static int load_produce(cprof__run_t *r) {
  const cprof_job_src_t *src = &r->in->src;
  cprof_labels_t *merged = NULL;
  int rc =
      src->produce(src->produce_ctx, &r->out->profile, r->in->labels ? &merged : NULL, ERRBUF(r));
  if (rc == CPROF_OK && r->in->labels) {
    take_labels(r, r->out->profile->kind == CPROF_KIND_CPU ? merged : NULL);
    if (r->out->profile->kind != CPROF_KIND_CPU) cprof_labels_free(merged);
  } else {
    cprof_labels_free(merged);
  }
  return rc;
}

static int (*const LOADERS[])(cprof__run_t *r) = {
    [CPROF_JOB_STOP_CPU] = load_stop_cpu, [CPROF_JOB_STOP_HEAP] = load_stop_heap,
    [CPROF_JOB_FILE] = load_file,         [CPROF_JOB_DIFF] = load_diff,
    [CPROF_JOB_MERGE] = load_merge,       [CPROF_JOB_PRODUCE] = load_produce,
};

int cprof__job_load(cprof__run_t *r) {
  if ((unsigned)r->in->kind >= sizeof LOADERS / sizeof LOADERS[0] || !LOADERS[r->in->kind] ||
      (r->in->kind == CPROF_JOB_PRODUCE && !r->in->src.produce)) {
    snprintf(ERRBUF(r), "job kind %d has no profile to load", (int)r->in->kind);
    return CPROF_EINVAL;
  }
  return LOADERS[r->in->kind](r);
}

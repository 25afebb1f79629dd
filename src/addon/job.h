/* The off-thread half of a stop: one napi_async_work that parses the
 * inspector's JSON text (or reads a profile file), aggregates, writes the
 * output file atomically, and settles a promise with the summary. */
#ifndef CPROF_JOB_H
#define CPROF_JOB_H

#include <node_api.h>
#include <stddef.h>

typedef struct {
  char *json;         /* JSON text to parse (owned, freed once parsed), or NULL */
  size_t len;         /* its length */
  char *path;         /* a profile file to read instead of json (owned), or NULL */
  char *dir;          /* output directory (owned), or NULL to write nothing */
  char *name;         /* output file name inside dir (owned) */
  unsigned top;       /* how many functions the summary lists */
  int want_nodes;     /* also return every node's id, self and total */
  unsigned max_depth; /* heap: frames kept per stack (0 = all) */
} cprof_job_in_t;

/* Queues the job and returns its promise. Takes ownership of in's buffers,
 * also on failure (then it throws and returns NULL). The promise resolves
 * with { kind, samples, durationMs, summary, file?: { path, size },
 * nodes? } and rejects with an ERR_CPROF_* error; an ERR_CPROF_IO error
 * carries err.result, the same object without file. */
napi_value cprof__job_queue(napi_env env, cprof_job_in_t *in);

/* Reads (dir, name, top) from argv[0..2] into in. 0, or -1 with a throw. */
int cprof__job_args(napi_env env, napi_value *argv, cprof_job_in_t *in);

/* Frees in's buffers (for callers that fail before queueing). */
void cprof__job_in_free(cprof_job_in_t *in);

#endif

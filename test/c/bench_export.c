/* Times the stop -> file stages of the C core on one profile, best of N:
 *   parse         cprof_profile_parse (cJSON parse + conversion)
 *   flat          cprof_flat_build
 *   export        the profile's exporter into an open, 1 MB-buffered file
 *   write_atomic  cprof_write_atomic (temp file, export, rename)
 * Not a test: `make -C test/c bench FILE=path [RUNS=5]`. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cprof.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  long n;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    perror(path);
    exit(1);
  }
  char *buf = malloc((size_t)n + 1);
  if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    perror(path);
    exit(1);
  }
  buf[n] = '\0';
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static void die(const char *what, int rc, const char *err) {
  fprintf(stderr, "%s failed (%d): %s\n", what, rc, err != NULL ? err : cprof_strerror(rc));
  exit(1);
}

static void report(const char *stage, const double *t, int runs) {
  double best = t[0], sum = 0;
  for (int i = 0; i < runs; i++) {
    if (t[i] < best) best = t[i];
    sum += t[i];
  }
  printf("%-13s best %8.2f ms   mean %8.2f ms\n", stage, best, sum / runs);
}

int main(int argc, char **argv) {
  enum { MAX_RUNS = 100 };
  double tp[MAX_RUNS], tf[MAX_RUNS], te[MAX_RUNS], tw[MAX_RUNS];
  char err[256] = "", dir[] = "/tmp/cprof-bench-XXXXXX", path[64];
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [RUNS]\n", argv[0]);
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (runs < 1 || runs > MAX_RUNS) runs = 5;
  size_t len;
  char *json = read_all(argv[1], &len);
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(path, sizeof(path), "%s/export.out", dir);

  cprof_profile_t *p = NULL;
  for (int i = 0; i < runs; i++) {
    cprof_profile_free(p);
    p = NULL;
    double t0 = now_ms();
    int rc = cprof_profile_parse(json, len, &p, err, sizeof(err));
    tp[i] = now_ms() - t0;
    if (rc != 0) die("parse", rc, err);
  }
  cprof_exporter_fn fn =
      p->kind == CPROF_KIND_HEAP ? cprof_export_heapprofile : cprof_export_cpuprofile;

  for (int i = 0; i < runs; i++) {
    cprof_flat_t flat;
    double t0 = now_ms();
    int rc = cprof_flat_build(p, &flat);
    tf[i] = now_ms() - t0;
    if (rc != 0) die("flat", rc, NULL);
    cprof_flat_free(&flat);
  }

  char *vbuf = malloc(1024 * 1024);
  long out_size = 0;
  for (int i = 0; i < runs; i++) {
    FILE *f = fopen(path, "wb");
    if (f == NULL || vbuf == NULL) {
      perror(path);
      return 1;
    }
    setvbuf(f, vbuf, _IOFBF, 1024 * 1024);
    double t0 = now_ms();
    int rc = fn(p, f);
    te[i] = now_ms() - t0;
    if (rc != 0) die("export", rc, NULL);
    out_size = ftell(f);
    fclose(f);
  }
  free(vbuf);

  for (int i = 0; i < runs; i++) {
    long long size = 0;
    double t0 = now_ms();
    int rc = cprof_write_atomic(dir, "atomic.out", fn, p, &size, err, sizeof(err));
    tw[i] = now_ms() - t0;
    if (rc != 0) die("write_atomic", rc, err);
  }

  printf("%s: %zu bytes in, %u nodes, %u frames, %u samples, %ld bytes out, best of %d\n", argv[1],
         len, p->nnodes, p->nframes, p->nsamples, out_size, runs);
  report("parse", tp, runs);
  report("flat", tf, runs);
  report("export", te, runs);
  report("write_atomic", tw, runs);

  snprintf(path, sizeof(path), "%s/export.out", dir);
  if (unlink(path) != 0) perror(path);
  snprintf(path, sizeof(path), "%s/atomic.out", dir);
  if (unlink(path) != 0) perror(path);
  if (rmdir(dir) != 0) perror(dir);
  cprof_profile_free(p);
  free(json);
  return 0;
}

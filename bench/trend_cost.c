/* The heap trend's cost per heap window (docs/recorder.md, Heap trend):
 * cprof_trend_add over 80 windows of 1,024 sites with a 60-window trend,
 * the mean and max of the last 20 adds, with no site growing (argv[1] 0) or
 * most of them growing (1: the worst case, every growing site's slope).
 *   gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc/core bench/trend_cost.c \
 *     src/core/*.c -lcjson -lz -lm -lpthread -o /tmp/trend_cost
 *   /tmp/trend_cost 0; /tmp/trend_cost 1 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cprof.h"
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static cprof_profile_t *heap_of(const long long *b, int n) {
  size_t cap = 256 + (size_t)n * 200;
  char *s = malloc(cap);
  size_t k = snprintf(
      s, cap,
      "{\"head\":{\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\","
      "\"lineNumber\":-1,\"columnNumber\":-1},\"selfSize\":0,\"id\":1,\"children\":[");
  for (int i = 0; i < n; i++)
    k += snprintf(s + k, cap - k,
                  "%s{\"callFrame\":{\"functionName\":\"s%d\",\"scriptId\":\"1\",\"url\":\"file:///"
                  "app.js\",\"lineNumber\":%d,\"columnNumber\":2},\"selfSize\":%lld,\"id\":%d,"
                  "\"children\":[]}",
                  i ? "," : "", i, i, b[i], i + 2);
  snprintf(s + k, cap - k, "]},\"samples\":[]}");
  cprof_profile_t *p = NULL;
  cprof_profile_parse(s, strlen(s), &p, NULL, 0);
  free(s);
  return p;
}
int main(int argc, char **argv) {
  int grow = atoi(argv[1]);
  int n = 1024;
  long long b[1024];
  cprof_trend_t *t = cprof_trend_new(60, 1024);
  cprof_trend_opts_t o;
  cprof_trend_opts_default(&o);
  o.min_growth = 4 * 32768;
  double tot = 0, mx = 0;
  unsigned x = 1;
  for (int w = 0; w < 80; w++) {
    for (int i = 0; i < n; i++) {
      x = x * 1103515245 + 12345;
      b[i] = 100000 + (grow ? (long long)w * 1000 * (i % 7 + 1) : 0) + (x >> 16) % 30000;
    }
    cprof_profile_t *p = heap_of(b, n);
    double t0 = now();
    cprof_trend_add(t, p, 1000 * (w + 1), &o);
    double d = now() - t0;
    if (w >= 60) {
      tot += d;
      if (d > mx) mx = d;
    }
    cprof_profile_free(p);
  }
  cprof_trend_result_t r;
  cprof_trend_latest(t, &r);
  printf("grow=%d sites=%u growing=%u mean %.2f ms max %.2f ms per add (60 windows, 1024 sites)\n",
         grow, r.sites, r.growing, tot / 20, mx);
  cprof_trend_result_free(&r);
  cprof_trend_free(t);
}

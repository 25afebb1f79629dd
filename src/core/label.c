/* Frame labels and kinds, values for reading (see label.h). */
#include "label.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- frames ---- */

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

cprof__kind_t cprof__frame_kind(const cprof_frame_t *f) {
  if (f->url[0] == '\0')
    return strcmp(f->name, "(idle)") == 0 ? CPROF__KIND_IDLE : CPROF__KIND_NATIVE;
  if (starts_with(f->url, "node:") || starts_with(f->url, "internal/")) return CPROF__KIND_NODE;
  if (strstr(f->url, "/node_modules/") != NULL || strstr(f->url, "\\node_modules\\") != NULL)
    return CPROF__KIND_DEPS;
  return CPROF__KIND_APP;
}

const char *cprof__short_url(const char *url) {
  if (starts_with(url, "file://")) return url + 7;
  return url;
}

char *cprof__frame_label(const cprof_frame_t *f) {
  const char *name = f->name[0] ? f->name : "(anonymous)";
  const char *path = cprof__short_url(f->url);
  size_t n = strlen(name) + strlen(path) + 32;
  char *s = malloc(n);
  if (s == NULL) return NULL;
  if (f->url[0] == '\0')
    snprintf(s, n, "%s", name);
  else if (f->line >= 0)
    snprintf(s, n, "%s (%s:%" PRId32 ")", name, path, f->line + 1);
  else
    snprintf(s, n, "%s (%s)", name, path);
  return s;
}

/* ---- numbers ---- */

void cprof__fmt_value(char *buf, size_t len, cprof_kind_t kind, int64_t v) {
  if (kind == CPROF_KIND_CPU) {
    snprintf(buf, len, "%.2f ms", (double)v / 1000.0);
    return;
  }
  double a = (double)(v < 0 ? -v : v);
  if (a >= 1024.0 * 1024.0 * 1024.0)
    snprintf(buf, len, "%.2f GiB", (double)v / (1024.0 * 1024.0 * 1024.0));
  else if (a >= 1024.0 * 1024.0)
    snprintf(buf, len, "%.2f MiB", (double)v / (1024.0 * 1024.0));
  else if (a >= 1024.0)
    snprintf(buf, len, "%.1f KiB", (double)v / 1024.0);
  else
    snprintf(buf, len, "%" PRId64 " B", v);
}

double cprof__pct(int64_t part, int64_t whole) {
  return whole != 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

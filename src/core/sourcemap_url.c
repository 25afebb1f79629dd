/* File URLs and paths for the source-map units. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup */
#endif
#include "sourcemap_url.h"

#include <stdlib.h>
#include <string.h>

static int hex(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *cprof__sm_percent_decode(const char *s, size_t n) {
  char *out = malloc(n + 1), *o = out;
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++) {
    int hi, lo;
    if (s[i] == '%' && i + 2 < n && (hi = hex((unsigned char)s[i + 1])) >= 0 &&
        (lo = hex((unsigned char)s[i + 2])) >= 0) {
      *o = (char)(hi * 16 + lo);
      i += 2;
    } else {
      *o = s[i];
    }
    if (*o++ == '\0') {
      free(out);
      return NULL;
    }
  }
  *o = '\0';
  return out;
}

char *cprof__sm_url_to_path(const char *url) {
  if (url[0] == '/') return strdup(url);
  if (strncmp(url, "file://", 7) != 0) return NULL;
  const char *p = url + 7;
  if (strncmp(p, "localhost/", 10) == 0) p += 9;
  if (*p != '/') return NULL; /* file://host/...: not this machine's */
  size_t n = strcspn(p, "?#");
  return cprof__sm_percent_decode(p, n);
}

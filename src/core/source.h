/* A script's or original source's text, read for the line views (the text
 * report's --lines, the HTML viewer's source pane). Only the files a
 * profile names are read: a frame's url, or the original file a source map
 * maps it to, only files named like source code (.js .mjs .cjs .jsx .ts
 * .mts .cts .tsx .vue .svelte .coffee), and only regular files of bounded
 * size (a FIFO or device named by a hostile profile is refused, never
 * waited on). Internal. */
#ifndef CPROF_SOURCE_H
#define CPROF_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#define CPROF__SOURCE_MAX (8u << 20) /* bytes: larger files are not shown */

typedef struct {
  char *text;
  size_t len;
  uint32_t *starts; /* byte offset of line i + 1's start; starts[nlines] = len + 1 */
  uint32_t nlines;
} cprof__source_t;

/* The file url names ("/abs/x.js" or a file: URL): CPROF_OK, or CPROF_EIO
 * when there is no such readable regular file under the size limit (or the
 * url names no file), CPROF_ENOMEM. */
int cprof__source_read(const char *url, cprof__source_t *out);

/* Line `line` (1-based) without its line break: 1 with *s and *n, 0 when
 * the file has no such line. */
int cprof__source_line(const cprof__source_t *src, int32_t line, const char **s, size_t *n);

void cprof__source_free(cprof__source_t *src);

#endif

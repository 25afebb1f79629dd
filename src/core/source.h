/* A script's or original source's text, read for the line views (the text
 * report's --lines, the HTML viewer's source pane). Only the files a
 * profile names are read: a frame's url, or the original file a source map
 * maps it to, only files named like source code (.js .mjs .cjs .jsx .ts
 * .mts .cts .tsx .vue .svelte .coffee) once every link is resolved, and
 * only regular files of bounded size (a FIFO or device named by a hostile
 * profile is refused, never waited on); when the profile is another
 * user's, only files that user could read too (issue 36). Internal. */
#ifndef CPROF_SOURCE_H
#define CPROF_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"

#define CPROF__SOURCE_MAX (8u << 20) /* bytes: larger files are not shown */

typedef struct {
  char *text;
  size_t len;
  uint32_t *starts; /* byte offset of line i + 1's start; starts[nlines] = len + 1 */
  uint32_t nlines;
} cprof__source_t;

/* Texts from source maps' sourcesContent, for original files not on disk
 * (a build that ships dist/ without src/): url as the mapped frames name
 * it, and the text (copied; at most CPROF__SOURCE_TEXTS_MAX bytes in all). */
#define CPROF__SOURCE_TEXTS_MAX (16u << 20)

struct cprof_source_texts_s {
  const char **key; /* the map's own text pointer, to find a source again cheaply */
  char **url;
  char **text;
  size_t *len;
  uint32_t n, cap;
  size_t bytes;
};

/* Adds url's text (key: the map's pointer to it) unless url is there or
 * the budget is spent. CPROF_OK or CPROF_ENOMEM. */
int cprof__source_texts_add(cprof_source_texts_t *t, const char *key, const char *url,
                            const char *text);
void cprof__source_texts_free(cprof_source_texts_t *t);

/* The file url names ("/abs/x.js" or a file: URL), or when it cannot be
 * read or is not shown, its text in texts (may be NULL): CPROF_OK, or
 * CPROF_EIO when there is no such file (why empty) or it is not shown (why
 * says why: a link to a file not named like source code, or not readable
 * by one of owners, whose check is in source.c), CPROF_ENOMEM. The file
 * read is the real file after every link, a regular file under the size
 * limit, named like source code. */
int cprof__source_read(const char *url, const cprof_source_texts_t *texts,
                       const cprof_source_owners_t *owners, cprof__source_t *out, char *why,
                       size_t whylen);

/* Whether each of o (NULL: nobody) could read the file at path: every
 * directory of its real path searchable and the file readable by its mode
 * bits, as for cprof__source_read (stat, for a file already read: a source
 * map). 0 with the reason in why. */
int cprof__source_owners_may_read(const char *path, const cprof_source_owners_t *o, char *why,
                                  size_t whylen);

/* Whether the script url names ("/abs/x.js" or a file: URL, named like
 * source code) has a source map of its own, found as
 * cprof_sourcemap_find finds one but nothing decoded: a sourceMappingURL
 * comment ending the script (looked for in src's text when it was read,
 * else in the last CPROF__SOURCE_TAIL bytes of the file, opened as
 * cprof__source_read opens it: links resolved, a source-named regular file
 * the owners could read), else a regular file <script>.map beside it that
 * the owners could read (stat only). For the line views of a profile not
 * mapped through its maps: "x.js has a source map". 1 or 0. */
#define CPROF__SOURCE_TAIL 65536
int cprof__source_has_map(const char *url, const cprof__source_t *src,
                          const cprof_source_owners_t *owners);

/* Line `line` (1-based) without its line break: 1 with *s and *n, 0 when
 * the file has no such line. */
int cprof__source_line(const cprof__source_t *src, int32_t line, const char **s, size_t *n);

void cprof__source_free(cprof__source_t *src);

#endif

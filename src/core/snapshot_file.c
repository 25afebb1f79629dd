/* cprof_snapshot_report_file, cprof_snapshot_view_file and cprof_snapshot_diff_files: each
 * snapshot read into memory of its own, not mapped, as the parse needs it (snapshot_input.c). */
#include <string.h>

#include "error.h"
#include "heapsnapshot.h"
#include "internal.h"
#include "snapshot.h"

typedef int (*one_fn)(const char *json, size_t len, unsigned top, cprof__snap_map_t *file,
                      char **out, char *errbuf, size_t errlen);

/* fn (the report or the view) on the file read. */
static int one_file(one_fn fn, const char *path, unsigned top, char **out, char *errbuf,
                    size_t errlen) {
  cprof__snap_map_t m;
  *out = NULL;
  int rc = cprof__snap_load(path, &m, errbuf, errlen);
  if (rc != CPROF_OK) return rc;
  rc = fn(m.map, m.len, top, &m, out, errbuf, errlen);
  cprof__snap_unload(&m);
  return rc;
}

int cprof_snapshot_report_file(const char *path, unsigned top, char **out, char *errbuf,
                               size_t errlen) {
  return one_file(cprof__snap_report, path, top, out, errbuf, errlen);
}

int cprof_snapshot_view_file(const char *path, unsigned classes, char **out, char *errbuf,
                             size_t errlen) {
  return one_file(cprof__snap_view, path, classes, out, errbuf, errlen);
}

/* cprof_snapshot_diff_files: one file in memory at a time, unloaded once its
 * analysis is freed. */
typedef struct {
  const char *const *paths;
  cprof__snap_map_t map;
} files_t;

static int file_load(void *ctx, unsigned i, cprof__snap_t *s, char *errbuf, size_t errlen) {
  files_t *f = ctx;
  memset(s, 0, sizeof *s);
  int rc = cprof__snap_load(f->paths[i], &f->map, errbuf, errlen);
  if (rc != CPROF_OK) return rc;
  return cprof__snap_analyse(f->map.map, f->map.len, &f->map, s, errbuf, errlen);
}

static void file_done(void *ctx, unsigned i) {
  (void)i;
  cprof__snap_unload(&((files_t *)ctx)->map);
}

static const char *file_label(void *ctx, unsigned i) {
  return ((files_t *)ctx)->paths[i];
}

int cprof_snapshot_diff_files(const char *const *paths, unsigned n, unsigned top, char **out,
                              char *errbuf, size_t errlen) {
  files_t f = {paths, {.map = NULL, .fd = -1}};
  cprof__snap_source_t src = {file_load, file_done, file_label, &f};
  return cprof__snap_diff(&src, n, top, out, errbuf, errlen);
}

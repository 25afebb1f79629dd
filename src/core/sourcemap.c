/* Source map decoding (ECMA-426): the JSON through cJSON, "mappings" as
 * base64 VLQ into one segment array indexed by generated line, index maps
 * ("sections") flattened into the same array, and the lookup. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup, strndup, O_CLOEXEC, st_mtim */
#endif
#include "sourcemap.h"
#include "sourcemap_url.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "internal.h"

#define MAX_SECTION_DEPTH 8
/* An index map's sections may start at most this many generated lines in:
 * lines are indexed densely (4 bytes each), and a hostile offset must not
 * make that index gigabytes. 4,194,304 lines is far beyond any real bundle. */
#define MAX_SECTION_LINE (1u << 22)

/* One mapping: a generated column on its line and what it maps to. */
typedef struct {
  int32_t gen_col;
  int32_t src; /* -1: a segment without a source (maps to nothing) */
  int32_t line, col;
  int32_t name; /* -1: no name */
} seg_t;

struct cprof_sourcemap_s {
  char **sources;
  uint32_t nsources, sources_cap;
  char **contents; /* sourcesContent of sources not on disk (NULL elsewhere), at most
                      CPROF_SM_CONTENT_MAX bytes; for sources [0, ncontents) */
  uint32_t ncontents;
  size_t contents_bytes;
  char **names;
  uint32_t nnames, names_cap;
  seg_t *segs;
  size_t nsegs, segs_cap;
  uint32_t *line_end; /* segments of line l: [line_end[l-1] or 0, line_end[l]) */
  uint32_t nlines, lines_cap;
  size_t bytes;
};

/* ---- growth ---- */

static int grow(void **arr, uint32_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return CPROF_OK;
  size_t n = *cap ? *cap : 16;
  while (n < need)
    n *= 2;
  if (n > UINT32_MAX) return CPROF_ENOMEM;
  void *p = realloc(*arr, n * elem);
  if (!p) return CPROF_ENOMEM;
  *arr = p;
  *cap = (uint32_t)n;
  return CPROF_OK;
}

/* Ends every generated line up to line (exclusive of later ones). */
static int close_lines(cprof_sourcemap_t *m, uint32_t nlines) {
  if (nlines <= m->nlines) return CPROF_OK;
  if (grow((void **)&m->line_end, &m->lines_cap, nlines, sizeof *m->line_end)) return CPROF_ENOMEM;
  while (m->nlines < nlines)
    m->line_end[m->nlines++] = (uint32_t)m->nsegs;
  return CPROF_OK;
}

static int push_seg(cprof_sourcemap_t *m, const seg_t *s) {
  if (m->nsegs == m->segs_cap) {
    size_t n = m->segs_cap ? m->segs_cap * 2 : 256;
    if (n > UINT32_MAX) return CPROF_ENOMEM;
    seg_t *p = realloc(m->segs, n * sizeof *p);
    if (!p) return CPROF_ENOMEM;
    m->segs = p;
    m->segs_cap = n;
  }
  m->segs[m->nsegs++] = *s;
  return CPROF_OK;
}

/* ---- resolving sources (ECMA-426: sourceRoot + source, against the map) ---- */

static int has_scheme(const char *s) {
  const char *p = s;
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) return 0;
  while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
         *p == '+' || *p == '-' || *p == '.')
    p++;
  return *p == ':' && p - s > 1; /* "C:" is not a scheme */
}

/* Removes "." and ".." segments from the path part of s (in place); ".."
 * never climbs above the root. */
static void normalize(char *s) {
  char *path = s;
  if (has_scheme(s)) {
    path = strchr(s, ':') + 1;
    if (path[0] == '/' && path[1] == '/') {
      char *slash = strchr(path + 2, '/');
      if (!slash) return;
      path = slash;
    }
  }
  if (*path != '/') return;
  char *out = path + 1, *in = path + 1;
  while (*in) {
    char *end = strchr(in, '/');
    size_t n = end ? (size_t)(end - in) : strlen(in);
    if ((n == 1 && in[0] == '.') || n == 0) {
      /* drop "." and empty segments */
    } else if (n == 2 && in[0] == '.' && in[1] == '.') {
      if (out > path + 1) {
        out--; /* the '/' after the previous segment */
        while (out > path + 1 && out[-1] != '/')
          out--;
      }
    } else {
      memmove(out, in, n);
      out += n;
      if (end) *out++ = '/';
    }
    in = end ? end + 1 : in + n;
  }
  /* A path that ended in "/." or "/.." still names a directory. */
  *out = '\0';
}

/* dir (a path or URL, with or without a trailing '/') + rel. */
static char *join(const char *dir, const char *rel) {
  size_t a = strlen(dir), b = strlen(rel);
  char *s = malloc(a + b + 2);
  if (!s) return NULL;
  memcpy(s, dir, a);
  if (a == 0 || s[a - 1] != '/') s[a++] = '/';
  memcpy(s + a, rel, b + 1);
  return s;
}

/* A file: URL's path (percent-decoded), or a copy of s when it is not one. */
static char *file_url_path(const char *s) {
  if (strncmp(s, "file://", 7) != 0) return strdup(s);
  char *p = cprof__sm_url_to_path(s);
  return p ? p : strdup(s);
}

static char *resolve(const char *base, const char *root, const char *src) {
  char *dir = NULL, *out;
  if (has_scheme(src) || src[0] == '/') {
    out = strdup(src);
  } else {
    if (root && root[0]) {
      dir = has_scheme(root) || root[0] == '/' ? strdup(root) : join(base, root);
      if (!dir) return NULL;
    }
    out = join(dir ? dir : base, src);
    free(dir);
  }
  if (!out) return NULL;
  char *path = file_url_path(out);
  free(out);
  if (path) normalize(path);
  return path;
}

/* ---- VLQ ---- */

static int b64(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* One VLQ value from *p; 0, or -1 on a bad digit or a value beyond int32. */
static int vlq(const char **p, const char *end, int64_t *out) {
  uint64_t v = 0;
  unsigned shift = 0;
  for (;;) {
    if (*p == end) return -1;
    int d = b64((unsigned char)*(*p)++);
    if (d < 0 || shift > 30) return -1;
    v |= (uint64_t)(d & 31) << shift;
    shift += 5;
    if (!(d & 32)) break;
  }
  if (v > 0xFFFFFFFFull) return -1;
  int64_t mag = (int64_t)(v >> 1);
  *out = (v & 1) ? -mag : mag;
  return 0;
}

/* ---- one regular map, or the sections of an index map ---- */

typedef struct {
  uint32_t line_off, col_off;   /* where this map starts in the generated file */
  uint32_t stop_line, stop_col; /* where the next section starts (UINT32_MAX: none) */
} window_t;

typedef struct {
  char *errbuf;
  size_t errlen;
  const char *base;
} ctx_t;

static int add_strings(char ***arr, uint32_t *n, uint32_t *cap, const cJSON *list, const char *what,
                       const ctx_t *cx, const char *root, int resolve_them) {
  const cJSON *it;
  if (list && !cJSON_IsArray(list))
    return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA, "\"%s\" is not an array", what);
  cJSON_ArrayForEach(it, list) {
    const char *s = cJSON_IsString(it) ? it->valuestring : "";
    char *copy = resolve_them ? resolve(cx->base, root, s) : strdup(s);
    if (!copy || grow((void **)arr, cap, (size_t)*n + 1, sizeof **arr)) {
      free(copy);
      return CPROF_ENOMEM;
    }
    (*arr)[(*n)++] = copy;
  }
  return CPROF_OK;
}

/* Fields of a segment past the first, as deltas; state carries across lines. */
typedef struct {
  int64_t src, line, col, name;
} state_t;

static int bad_mappings(const ctx_t *cx, uint32_t line) {
  return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA,
                     "\"mappings\" is malformed (generated line %u)", line + 1);
}

/* Decodes one segment's fields from p (up to ',' ';' or end) into s. */
static int decode_seg(const char **p, const char *end, int64_t *gen_col, state_t *st,
                      uint32_t src_base, uint32_t nsrc, uint32_t name_base, uint32_t nname,
                      seg_t *s) {
  int64_t d;
  if (vlq(p, end, &d)) return -1;
  *gen_col += d;
  s->gen_col = (int32_t)*gen_col; /* range-checked below, before use */
  s->src = s->name = -1;
  s->line = s->col = 0;
  if (*p == end || **p == ',' || **p == ';') return *gen_col < 0 || *gen_col > INT32_MAX ? -1 : 0;
  int64_t f[4];
  int nf = 0;
  while (*p != end && **p != ',' && **p != ';') {
    if (nf == 4 || vlq(p, end, &f[nf])) return -1;
    nf++;
  }
  if (nf != 3 && nf != 4) return -1;
  st->src += f[0];
  st->line += f[1];
  st->col += f[2];
  if (nf == 4) st->name += f[3];
  if (*gen_col < 0 || *gen_col > INT32_MAX || st->src < 0 || st->src >= nsrc || st->line < 0 ||
      st->line > INT32_MAX || st->col < 0 || st->col > INT32_MAX)
    return -1;
  if (nf == 4 && (st->name < 0 || st->name >= nname)) return -1;
  s->src = (int32_t)(src_base + st->src);
  s->line = (int32_t)st->line;
  s->col = (int32_t)st->col;
  if (nf == 4) s->name = (int32_t)(name_base + st->name);
  return 0;
}

static int seg_cmp(const seg_t *a, const seg_t *b) {
  return a->gen_col < b->gen_col ? -1 : a->gen_col > b->gen_col;
}

/* Stable merge sort of one line's segments by generated column (a map may
 * list them out of order; trace-mapping sorts them the same way). */
static int sort_line(seg_t *a, size_t n) {
  size_t i;
  for (i = 1; i < n && seg_cmp(&a[i - 1], &a[i]) <= 0; i++) {
  }
  if (i >= n) return CPROF_OK;
  seg_t *tmp = malloc(n * sizeof *tmp);
  if (!tmp) return CPROF_ENOMEM;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t x = lo, y = mid, k = lo;
      while (x < mid && y < hi)
        tmp[k++] = seg_cmp(&a[y], &a[x]) < 0 ? a[y++] : a[x++];
      while (x < mid)
        tmp[k++] = a[x++];
      while (y < hi)
        tmp[k++] = a[y++];
    }
    memcpy(a, tmp, n * sizeof *a);
  }
  free(tmp);
  return CPROF_OK;
}

static int end_line(cprof_sourcemap_t *m, size_t line_first_seg) {
  if (m->nsegs - line_first_seg < 2) return CPROF_OK; /* also: segs may still be NULL */
  return sort_line(m->segs + line_first_seg, m->nsegs - line_first_seg);
}

static int decode_mappings(cprof_sourcemap_t *m, const char *s, size_t len, const window_t *w,
                           uint32_t src_base, uint32_t name_base, const ctx_t *cx) {
  const char *p = s, *end = s + len;
  state_t st = {0, 0, 0, 0};
  uint32_t line = 0;
  int64_t gen_col = 0;
  size_t first = m->nsegs;
  int rc;
  uint32_t nsrc = m->nsources - src_base, nname = m->nnames - name_base;
  while (p != end) {
    if (*p == ';') {
      if ((rc = end_line(m, first)) != CPROF_OK) return rc;
      p++;
      line++;
      gen_col = 0;
      continue;
    }
    if (*p == ',') {
      p++;
      continue;
    }
    seg_t sg;
    if (decode_seg(&p, end, &gen_col, &st, src_base, nsrc, name_base, nname, &sg))
      return bad_mappings(cx, line);
    uint64_t gl = (uint64_t)w->line_off + line;
    uint64_t gc = (uint64_t)sg.gen_col + (line == 0 ? w->col_off : 0);
    if (gl > INT32_MAX || gc > INT32_MAX) return bad_mappings(cx, line);
    /* A section ends where the next one starts. */
    if (gl > w->stop_line || (gl == w->stop_line && gc >= w->stop_col)) {
      if (gl > w->stop_line) break;
      continue;
    }
    if (gl + 1 > m->nlines) {
      if ((rc = end_line(m, first)) != CPROF_OK) return rc;
      if ((rc = close_lines(m, (uint32_t)gl)) != CPROF_OK) return rc;
      first = m->nsegs;
      m->nlines++; /* the current line, whose end is set below */
      if (grow((void **)&m->line_end, &m->lines_cap, m->nlines, sizeof *m->line_end))
        return CPROF_ENOMEM;
    } else if (gl + 1 < m->nlines) {
      return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA,
                         "sections overlap or are out of "
                         "order");
    }
    sg.gen_col = (int32_t)gc;
    if ((rc = push_seg(m, &sg)) != CPROF_OK) return rc;
    m->line_end[m->nlines - 1] = (uint32_t)m->nsegs;
  }
  return end_line(m, first);
}

static int decode_map(cprof_sourcemap_t *m, const cJSON *o, const window_t *w, int depth,
                      const ctx_t *cx);

static int offset_of(const cJSON *sec, uint32_t *line, uint32_t *col) {
  const cJSON *off = cJSON_GetObjectItemCaseSensitive(sec, "offset");
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(off, "line");
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(off, "column");
  if (!cJSON_IsNumber(l) || !cJSON_IsNumber(c) || l->valuedouble < 0 || c->valuedouble < 0 ||
      l->valuedouble > INT32_MAX || c->valuedouble > INT32_MAX)
    return -1;
  *line = (uint32_t)l->valuedouble;
  *col = (uint32_t)c->valuedouble;
  return 0;
}

static int decode_sections(cprof_sourcemap_t *m, const cJSON *secs, const window_t *w, int depth,
                           const ctx_t *cx) {
  if (!cJSON_IsArray(secs) || depth >= MAX_SECTION_DEPTH)
    return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA, "\"sections\" is not an array");
  int n = cJSON_GetArraySize(secs), rc;
  for (int i = 0; i < n; i++) {
    const cJSON *sec = cJSON_GetArrayItem(secs, i), *next = cJSON_GetArrayItem(secs, i + 1);
    window_t sw = *w;
    uint32_t l, c;
    if (offset_of(sec, &l, &c) || (next && offset_of(next, &sw.stop_line, &sw.stop_col)))
      return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA,
                         "section %d has no valid offset {line, column}", i);
    if (!next) {
      sw.stop_line = w->stop_line;
      sw.stop_col = w->stop_col;
    } else if (sw.stop_line < l || (sw.stop_line == l && sw.stop_col < c)) {
      return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA, "sections are out of order");
    }
    uint64_t line_off = (uint64_t)w->line_off + l,
             col_off = (uint64_t)(l == 0 ? w->col_off : 0) + c;
    if (line_off > MAX_SECTION_LINE || col_off > INT32_MAX)
      return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA, "section %d is out of range", i);
    sw.line_off = (uint32_t)line_off;
    sw.col_off = (uint32_t)col_off;
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(sec, "map");
    if (!cJSON_IsObject(map))
      return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA, "section %d has no \"map\"", i);
    if ((rc = decode_map(m, map, &sw, depth + 1, cx)) != CPROF_OK) return rc;
  }
  return CPROF_OK;
}

/* Whether a resolved source is a regular file on disk (stat only). */
static int on_disk(const char *src) {
  struct stat st;
  return src[0] == '/' && stat(src, &st) == 0 && S_ISREG(st.st_mode);
}

/* sourcesContent, kept only where the line views could not read the
 * source itself (a file not on disk, a webpack:// url) and within
 * CPROF_SM_CONTENT_MAX bytes per map: most maps cost nothing more. */
static int keep_contents(cprof_sourcemap_t *m, uint32_t src_base, const cJSON *list) {
  const cJSON *it;
  uint32_t i = src_base;
  if (!cJSON_IsArray(list)) return CPROF_OK;
  cJSON_ArrayForEach(it, list) {
    if (i >= m->nsources) break;
    uint32_t k = i++;
    if (!cJSON_IsString(it) || on_disk(m->sources[k])) continue;
    size_t n = strlen(it->valuestring);
    if (n + 1 > CPROF_SM_CONTENT_MAX - m->contents_bytes) continue;
    if (m->ncontents < m->nsources) { /* index maps add sources section by section */
      char **c = realloc(m->contents, m->nsources * sizeof *c);
      if (!c) return CPROF_ENOMEM;
      memset(c + m->ncontents, 0, (m->nsources - m->ncontents) * sizeof *c);
      m->contents = c;
      m->ncontents = m->nsources;
    }
    if (!(m->contents[k] = strdup(it->valuestring))) return CPROF_ENOMEM;
    m->contents_bytes += n + 1;
  }
  return CPROF_OK;
}

static int decode_map(cprof_sourcemap_t *m, const cJSON *o, const window_t *w, int depth,
                      const ctx_t *cx) {
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(o, "version");
  if (!cJSON_IsNumber(ver) || ver->valuedouble != 3)
    return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA, "not a version 3 source map");
  const cJSON *secs = cJSON_GetObjectItemCaseSensitive(o, "sections");
  if (secs) return decode_sections(m, secs, w, depth, cx);
  const cJSON *maps = cJSON_GetObjectItemCaseSensitive(o, "mappings");
  const cJSON *root = cJSON_GetObjectItemCaseSensitive(o, "sourceRoot");
  if (!cJSON_IsString(maps))
    return cprof__errf(cx->errbuf, cx->errlen, CPROF_ESCHEMA, "\"mappings\" is not a string");
  uint32_t src_base = m->nsources, name_base = m->nnames;
  int rc = add_strings(&m->sources, &m->nsources, &m->sources_cap,
                       cJSON_GetObjectItemCaseSensitive(o, "sources"), "sources", cx,
                       cJSON_IsString(root) ? root->valuestring : NULL, 1);
  if (rc == CPROF_OK)
    rc = keep_contents(m, src_base, cJSON_GetObjectItemCaseSensitive(o, "sourcesContent"));
  if (rc == CPROF_OK)
    rc = add_strings(&m->names, &m->nnames, &m->names_cap,
                     cJSON_GetObjectItemCaseSensitive(o, "names"), "names", cx, NULL, 0);
  if (rc != CPROF_OK) return rc;
  return decode_mappings(m, maps->valuestring, strlen(maps->valuestring), w, src_base, name_base,
                         cx);
}

static size_t strings_bytes(char **arr, uint32_t n) {
  size_t b = (size_t)n * sizeof *arr;
  for (uint32_t i = 0; i < n; i++)
    b += strlen(arr[i]) + 1;
  return b;
}

int cprof_sourcemap_parse(const char *json, size_t len, const char *base, cprof_sourcemap_t **out,
                          char *errbuf, size_t errlen) {
  ctx_t cx = {errbuf, errlen, base ? base : "/"};
  cJSON *root = cJSON_ParseWithLength(json, len);
  *out = NULL;
  if (!root) {
    /* cJSON_GetErrorPtr is global, not thread-safe: say no more than this. */
    return cprof__errf(errbuf, errlen, CPROF_EPARSE, "not JSON");
  }
  cprof_sourcemap_t *m = calloc(1, sizeof *m);
  int rc = CPROF_ENOMEM;
  if (m) {
    window_t w = {0, 0, UINT32_MAX, UINT32_MAX};
    rc = cJSON_IsObject(root)
             ? decode_map(m, root, &w, 0, &cx)
             : cprof__errf(errbuf, errlen, CPROF_ESCHEMA, "not a source map (not an object)");
  }
  cJSON_Delete(root);
  if (rc != CPROF_OK) {
    cprof_sourcemap_free(m);
    return rc;
  }
  /* Give back what growth over-allocated: the cache holds maps for long. */
  if (m->nsegs && m->nsegs < m->segs_cap) {
    seg_t *s = realloc(m->segs, m->nsegs * sizeof *s);
    if (s) m->segs = s, m->segs_cap = m->nsegs;
  }
  m->bytes = sizeof *m + m->segs_cap * sizeof(seg_t) + (size_t)m->lines_cap * sizeof(uint32_t) +
             strings_bytes(m->sources, m->nsources) + strings_bytes(m->names, m->nnames) +
             m->contents_bytes + (size_t)m->ncontents * sizeof(char *);
  *out = m;
  return CPROF_OK;
}

void cprof_sourcemap_free(cprof_sourcemap_t *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->nsources; i++)
    free(m->sources[i]);
  for (uint32_t i = 0; i < m->ncontents; i++)
    free(m->contents[i]);
  free(m->contents);
  for (uint32_t i = 0; i < m->nnames; i++)
    free(m->names[i]);
  free(m->sources);
  free(m->names);
  free(m->segs);
  free(m->line_end);
  free(m);
}

size_t cprof_sourcemap_bytes(const cprof_sourcemap_t *m) {
  return m ? m->bytes : 0;
}

/* A segment's original position: 1, or 0 when it maps to nothing. */
static int pos_of(const cprof_sourcemap_t *m, const seg_t *s, cprof_sm_pos_t *out) {
  if (s->src < 0) return 0;
  out->source = m->sources[s->src];
  out->content = (uint32_t)s->src < m->ncontents ? m->contents[s->src] : NULL;
  out->name = s->name >= 0 ? m->names[s->name] : NULL;
  out->line = s->line;
  out->column = s->col;
  return 1;
}

int cprof_sourcemap_lookup(const cprof_sourcemap_t *m, int32_t line, int32_t column,
                           cprof_sm_pos_t *out) {
  if (!m || line < 0 || (uint32_t)line >= m->nlines) return 0;
  size_t lo = line ? m->line_end[line - 1] : 0, hi = m->line_end[line];
  if (lo == hi) return 0;
  if (column < 0) column = 0;
  /* First segment with gen_col > column. */
  size_t a = lo, b = hi;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (m->segs[mid].gen_col <= column)
      a = mid + 1;
    else
      b = mid;
  }
  const seg_t *s;
  if (a == lo) {
    /* Before every mapping: the nearest one after (the last of equal ones,
     * as trace-mapping's LEAST_UPPER_BOUND picks). */
    size_t i = lo;
    while (i + 1 < hi && m->segs[i + 1].gen_col == m->segs[lo].gen_col)
      i++;
    s = &m->segs[i];
  } else {
    size_t i = a - 1;
    while (i > lo && m->segs[i - 1].gen_col == m->segs[i].gen_col)
      i--; /* the first of equal columns */
    s = &m->segs[i];
  }
  return pos_of(m, s, out);
}

int cprof_sourcemap_lookup_in(const cprof_sourcemap_t *m, int32_t line, int32_t from, int32_t end,
                              cprof_sm_pos_t *out) {
  if (!m || line < 0 || (uint32_t)line >= m->nlines || from >= end) return 0;
  size_t lo = line ? m->line_end[line - 1] : 0, hi = m->line_end[line];
  /* First segment with gen_col >= from. */
  size_t a = lo, b = hi;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (m->segs[mid].gen_col < from)
      a = mid + 1;
    else
      b = mid;
  }
  for (; a < hi && m->segs[a].gen_col < end; a++)
    if (m->segs[a].src >= 0) return pos_of(m, &m->segs[a], out);
  return 0;
}

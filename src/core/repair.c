/* Repairing the CPU profile text of v8.startCpuProfile().stop().
 *
 * On Node 24.x-26.x that text is V8's own serialiser's, which writes every
 * callFrame's functionName and url as raw bytes: a RegExp frame
 * ("RegExp: ^(\d+)-(\w+)$"), a name or path with a quote, backslash or
 * control character make the whole text invalid JSON, or worse, valid JSON
 * with another name. Everything else in the text is numbers and fixed keys,
 * so the two raw values are the only unknowns: each is cut where the rest of
 * the node parses as V8 writes it (the callFrame's other members, then the
 * node's own until the next node or the end of the array), trying the
 * candidate ends in order, and written back escaped. A name that holds a
 * whole fake tail can still fool the cut; the caller parses the result and
 * falls back when it does not parse.
 *
 * The node as V8 26 writes it:
 *   {"id":N,"hitCount":N,"callFrame":{"functionName":"RAW","lineNumber":N,
 *    "columnNumber":N,"scriptId":N,"url":"RAW"},"children":[N,...],
 *    "positionTicks":[{"line":N,"ticks":N},...]}
 * The callFrame's members after functionName are taken in any order, and
 * the node's optional ones too (deoptReason included), so the same code
 * reads Node 24's order. */
#include "repair.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"

/* How many candidate ends one raw value may try: bounds the work on hostile
 * text (each try fails within a few bytes on real text). */
#define CANDIDATES 4096

typedef struct {
  const char *t;
  size_t n;
  size_t lim; /* raw values end before here: the next frame's KEY */
} src_t;

/* Length of w when the text has it at at, else 0. */
static size_t lit(const src_t *s, size_t at, const char *w) {
  size_t k = strlen(w);
  return at <= s->n && s->n - at >= k && memcmp(s->t + at, w, k) == 0 ? k : 0;
}

/* Length of an integer (optional minus) at at, else 0. */
static size_t int_at(const src_t *s, size_t at) {
  size_t i = at;
  if (i < s->n && s->t[i] == '-') i++;
  size_t d = i;
  while (i < s->n && s->t[i] >= '0' && s->t[i] <= '9')
    i++;
  return i > d ? i - at : 0;
}

/* [int,int,...] or []: length, else 0. */
static size_t int_list(const src_t *s, size_t at) {
  size_t i = at, k;
  if (!lit(s, i, "[")) return 0;
  i++;
  if (lit(s, i, "]")) return i + 1 - at;
  for (;;) {
    if (!(k = int_at(s, i))) return 0;
    i += k;
    if (lit(s, i, "]")) return i + 1 - at;
    if (!lit(s, i, ",")) return 0;
    i++;
  }
}

/* [{"line":N,"ticks":N},...]: length, else 0. */
static size_t ticks_list(const src_t *s, size_t at) {
  size_t i = at, k;
  if (!lit(s, i, "[")) return 0;
  i++;
  if (lit(s, i, "]")) return i + 1 - at;
  for (;;) {
    if (!(k = lit(s, i, "{\"line\":"))) return 0;
    i += k;
    if (!(k = int_at(s, i))) return 0;
    i += k;
    if (!(k = lit(s, i, ",\"ticks\":"))) return 0;
    i += k;
    if (!(k = int_at(s, i))) return 0;
    i += k;
    if (!lit(s, i, "}")) return 0;
    i++;
    if (lit(s, i, "]")) return i + 1 - at;
    if (!lit(s, i, ",")) return 0;
    i++;
  }
}

/* After the callFrame's closing brace: the node's other members, its
 * brace, then the next node or the end of the nodes array. */
static int node_rest(const src_t *s, size_t at) {
  size_t i = at, k, m;
  for (;;) {
    if ((k = lit(s, i, ",\"children\":")) && (m = int_list(s, i + k))) {
      i += k + m;
    } else if ((k = lit(s, i, ",\"positionTicks\":")) && (m = ticks_list(s, i + k))) {
      i += k + m;
    } else if (((k = lit(s, i, ",\"id\":")) || (k = lit(s, i, ",\"hitCount\":"))) &&
               (m = int_at(s, i + k))) {
      i += k + m;
    } else if ((k = lit(s, i, ",\"deoptReason\":\""))) {
      const char *q = memchr(s->t + i + k, '"', s->n - i - k); /* V8's fixed texts */
      if (!q) return 0;
      i = (size_t)(q - s->t) + 1;
    } else {
      break;
    }
  }
  return lit(s, i, "}") && (lit(s, i + 1, ",{\"id\":") || lit(s, i + 1, "]"));
}

enum { SEEN_LINE = 1, SEEN_COL = 2, SEEN_SCRIPT = 4, SEEN_URL = 8, SEEN_ALL = 15 };

/* Where one frame's values are: the url's raw span, and scriptId's digits
 * when V8 wrote it as a number (the inspector's form, which every tool
 * reads, is a string: it is quoted on the way out). sid_len 0: quoted. */
typedef struct {
  size_t name_end, url, url_end, sid, sid_len;
} cut_t;

/* The callFrame's members after functionName, from at (just after a raw
 * value's closing quote), all four of them. 1 on a match, with c filled;
 * 0 on none; -1 when the url can end at two places before the next frame
 * (ambiguous: the caller refuses the text). */
static int frame_rest(const src_t *s, size_t at, int seen, cut_t *c) {
  size_t k, m;
  if (lit(s, at, "}")) return seen == SEEN_ALL && node_rest(s, at + 1);
  if (!(seen & SEEN_LINE) && (k = lit(s, at, ",\"lineNumber\":")) && (m = int_at(s, at + k)))
    return frame_rest(s, at + k + m, seen | SEEN_LINE, c);
  if (!(seen & SEEN_COL) && (k = lit(s, at, ",\"columnNumber\":")) && (m = int_at(s, at + k)))
    return frame_rest(s, at + k + m, seen | SEEN_COL, c);
  if (!(seen & SEEN_SCRIPT) && (k = lit(s, at, ",\"scriptId\":"))) {
    size_t q = lit(s, at + k, "\"");
    if ((m = int_at(s, at + k + q)) && (!q || lit(s, at + k + q + m, "\""))) {
      c->sid = at + k;
      c->sid_len = q ? 0 : m;
      return frame_rest(s, at + k + m + 2 * q, seen | SEEN_SCRIPT, c);
    }
  }
  if (!(seen & SEEN_URL) && (k = lit(s, at, ",\"url\":\""))) {
    size_t from = at + k, tries = 0;
    cut_t first = *c, t;
    int found = 0;
    for (size_t e = from; e < s->lim && tries < CANDIDATES; e++) {
      if (s->t[e] != '"') continue;
      tries++;
      t = *c;
      int r = frame_rest(s, e + 1, seen | SEEN_URL, &t);
      if (r < 0 || (r == 1 && found)) return -1;
      if (r == 1) { /* and on: a second end before the next frame? */
        found = 1;
        first = t;
        first.url = from;
        first.url_end = e;
      }
    }
    *c = first;
    return found;
  }
  return 0;
}

/* ---- the output ---- */

typedef struct {
  char *b;
  size_t len, cap;
} buf_t;

static int put(buf_t *o, const char *p, size_t n) {
  if (o->b == NULL || o->cap - o->len < n) {
    size_t cap = o->cap ? o->cap : 1024;
    while (cap - o->len < n)
      cap *= 2;
    char *b = realloc(o->b, cap);
    if (!b) return 0;
    o->b = b;
    o->cap = cap;
  }
  if (n) memcpy(o->b + o->len, p, n);
  o->len += n;
  return 1;
}

/* Raw bytes as the inside of a JSON string. */
static int put_escaped(buf_t *o, const char *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    if (!put(o, p + run, i - run)) return 0;
    run = i + 1;
    char e[6] = {'\\', (char)c, 0, 0, 0, 0};
    size_t k = 2;
    if (c < 0x20) {
      memcpy(e, "\\u00", 4);
      e[4] = hex[c >> 4];
      e[5] = hex[c & 15];
      k = 6;
    }
    if (!put(o, e, k)) return 0;
  }
  return put(o, p + run, n - run);
}

static const char KEY[] = "\"callFrame\":{\"functionName\":\"";

/* The first KEY in t[at, n), or n (memmem is a GNU extension). */
static size_t find_key(const src_t *s, size_t at) {
  while (at < s->n) {
    const char *q = memchr(s->t + at, KEY[0], s->n - at);
    if (!q) break;
    at = (size_t)(q - s->t);
    if (lit(s, at, KEY)) return at;
    at++;
  }
  return s->n;
}

/* One callFrame's values from at (just after KEY). A second cut that also
 * parses, ending inside the first one's frame (a name holding
 * ","lineNumber":1,...,"url":" reads both ways when url comes last), makes
 * the frame ambiguous: refused rather than guessed. */
static int cut_frame(src_t *s, size_t at, cut_t *c) {
  size_t tries = 0;
  int found = 0;
  cut_t t;
  s->lim = find_key(s, at); /* a raw value holding KEY is refused */
  for (size_t e = at; e < s->lim && tries < CANDIDATES; e++) {
    if (s->t[e] != '"') continue;
    tries++;
    if (found && e > c->url_end) break;
    t = (cut_t){0};
    int r = frame_rest(s, e + 1, 0, &t);
    if (r < 0 || (r == 1 && found)) return 0; /* ambiguous */
    if (r == 0) continue;
    found = 1;
    *c = t;
    c->name_end = e;
  }
  return found;
}

/* The text from at to the url's end, with the name (from name) and the
 * url escaped and a numeric scriptId quoted. */
static int put_frame(buf_t *o, const char *t, size_t at, size_t name, const cut_t *c) {
  if (!put(o, t + at, name - at) || !put_escaped(o, t + name, c->name_end - name)) return 0;
  size_t from = c->name_end;
  if (c->sid_len && c->sid < c->url) {
    if (!put(o, t + from, c->sid - from) || !put(o, "\"", 1) || !put(o, t + c->sid, c->sid_len) ||
        !put(o, "\"", 1))
      return 0;
    from = c->sid + c->sid_len;
  }
  if (!put(o, t + from, c->url - from) || !put_escaped(o, t + c->url, c->url_end - c->url))
    return 0;
  from = c->url_end;
  if (c->sid_len && c->sid > c->url) {
    if (!put(o, t + from, c->sid - from) || !put(o, "\"", 1) || !put(o, t + c->sid, c->sid_len) ||
        !put(o, "\"", 1))
      return 0;
    from = c->sid + c->sid_len;
  }
  return put(o, t + from, 0) ? 1 : 0;
}

int cprof_cpu_text_repair(const char *text, size_t len, char **out, size_t *out_len,
                          size_t *nframes) {
  src_t s = {text, len, len};
  buf_t o = {NULL, 0, 0};
  size_t at = 0, frames = 0;
  if (text == NULL || out == NULL || out_len == NULL) return CPROF_EINVAL;
  *out = NULL;
  *out_len = 0;
  if (!put(&o, "", 0)) return CPROF_ENOMEM;
  for (;;) {
    /* The next key after the last frame's url: raw values lie behind. */
    size_t k = find_key(&s, at);
    if (k == len) break;
    size_t name = k + sizeof KEY - 1;
    cut_t c;
    if (!cut_frame(&s, name, &c)) {
      free(o.b);
      return CPROF_EPARSE;
    }
    if (!put_frame(&o, text, at, name, &c)) {
      free(o.b);
      return CPROF_ENOMEM;
    }
    at = c.sid_len && c.sid > c.url ? c.sid + c.sid_len : c.url_end;
    frames++;
  }
  if (!put(&o, text + at, len - at) || !put(&o, "", 1)) {
    free(o.b);
    return CPROF_ENOMEM;
  }
  *out = o.b;
  *out_len = o.len - 1; /* NUL-terminated, not counted */
  if (nframes) *nframes = frames;
  return CPROF_OK;
}

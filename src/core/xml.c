/* UTF-8 and XML text (see xml.h). */
#include "xml.h"

#include <inttypes.h>
#include <stdint.h>

#include "error.h"

/* ---- UTF-8 and XML ---- */

size_t cprof__utf8_next(const unsigned char *s, uint32_t *cp) {
  unsigned char c = s[0];
  size_t n;
  uint32_t v, min;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if ((c & 0xE0) == 0xC0) {
    n = 2, v = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, v = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0; /* also stops at the terminator */
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

size_t cprof__utf8_len(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t count = 0;
  uint32_t cp;
  while (*u) {
    size_t n = cprof__utf8_next(u, &cp);
    u += n ? n : 1;
    count++;
  }
  return count;
}

const char *cprof__utf8_skip(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  uint32_t cp;
  for (; *u && n > 0; n--) {
    size_t k = cprof__utf8_next(u, &cp);
    u += k ? k : 1;
  }
  return (const char *)u;
}

int cprof__xml_put(FILE *f, const char *s, size_t max_chars) {
  const unsigned char *u = (const unsigned char *)s;
  size_t written = 0;
  uint32_t cp;
  while (*u && written < max_chars) {
    size_t n = cprof__utf8_next(u, &cp);
    const char *rep = NULL;
    if (n == 0 || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE ||
        cp == 0xFFFF)
      rep = "\xEF\xBF\xBD"; /* U+FFFD */
    else if (cp == '&')
      rep = "&amp;";
    else if (cp == '<')
      rep = "&lt;";
    else if (cp == '>')
      rep = "&gt;";
    else if (cp == '"')
      rep = "&quot;";
    else if (cp == '\'')
      rep = "&#39;";
    else if (cp == '\n')
      rep = "&#10;"; /* kept in attributes too */
    if (rep != NULL) {
      if (fputs(rep, f) == EOF) return CPROF_EIO;
    } else if (fwrite(u, 1, n, f) != n) {
      return CPROF_EIO;
    }
    u += n ? n : 1;
    written++;
  }
  return CPROF_OK;
}

/* ---- terminal text ---- */

/* Code points a terminal acts on rather than shows: C0 controls (ESC, BEL,
 * CR, LF...), DEL, C1 controls (U+0080-U+009F, U+009B is a CSI on some
 * terminals) and the bidirectional overrides that reorder what is shown. */
static int term_control(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

int cprof__term_put(FILE *f, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  uint32_t cp;
  char esc[12];
  while (*u) {
    const unsigned char *run = u; /* printable bytes go out in one fwrite */
    size_t n;
    while (*u && (n = cprof__utf8_next(u, &cp)) != 0 && !term_control(cp))
      u += n;
    if (u > run && fwrite(run, 1, (size_t)(u - run), f) != (size_t)(u - run)) return CPROF_EIO;
    if (*u == '\0') break;
    n = cprof__utf8_next(u, &cp);
    if (n == 0 || cp < 0x80) {
      unsigned char c = *u;
      if (c == '\n' || c == '\r' || c == '\t')
        snprintf(esc, sizeof(esc), "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
      else
        snprintf(esc, sizeof(esc), "\\x%02x", (unsigned)c);
      u += 1;
    } else {
      snprintf(esc, sizeof(esc), "\\u%04" PRIx32, cp);
      u += n;
    }
    if (fputs(esc, f) == EOF) return CPROF_EIO;
  }
  return CPROF_OK;
}

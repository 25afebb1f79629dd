/* UTF-8 walking, XML escaping (what the SVG writer puts text with) and
 * terminal escaping (what the text report and diff put names with).
 * Internal; the C tests include it. */
#ifndef CPROF_XML_H
#define CPROF_XML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- XML text ---- */

/* Writes s escaped for XML character data and attribute values: & < > " '
 * become entities, control characters XML 1.0 forbids and invalid UTF-8
 * become U+FFFD. At most max_chars code points are written (SIZE_MAX for
 * all). CPROF_OK or CPROF_EIO. */
int cprof__xml_put(FILE *f, const char *s, size_t max_chars);

/* ---- terminal text ---- */

/* Writes s for a terminal: nothing in it can move the cursor, ring, clear
 * or retitle the screen, or reorder what is shown. LF, CR and TAB become
 * \n \r \t; other C0 controls, DEL and invalid UTF-8 bytes become \xNN;
 * C1 controls (U+0080-U+009F) and bidirectional controls become \uNNNN;
 * the rest goes out unchanged. CPROF_OK or CPROF_EIO. */
int cprof__term_put(FILE *f, const char *s);

/* ---- UTF-8 ---- */

/* Decodes one code point at s into *cp; returns its byte length, or 0 when
 * the sequence is not valid UTF-8 (overlong, surrogate, out of range, cut). */
size_t cprof__utf8_next(const unsigned char *s, uint32_t *cp);

/* Number of UTF-8 code points in s (invalid bytes count one each). */
size_t cprof__utf8_len(const char *s);

/* s advanced by n code points (or to its end), counted as cprof__utf8_len. */
const char *cprof__utf8_skip(const char *s, size_t n);

#endif

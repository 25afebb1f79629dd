'use strict'
// Text for a terminal. Function names, urls, file names, app names and
// labels come from profiles, directories and other processes'
// announcements: a control character in them must not reach the terminal
// raw (an ESC sequence can retitle, clear or rewrite the screen; CR and LF
// can forge lines). Every text output of the CLI puts such strings through
// termSafe, with the escapes the C core's text report uses
// (cprof__term_put, docs/cli.md): LF, CR, TAB as \n \r \t; other C0
// controls and DEL as \xNN; C1 controls, bidirectional controls and lone
// surrogates as \uNNNN. Everything else is unchanged. JSON output needs
// none of this: JSON.stringify escapes control characters itself.

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
const NAMED = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

function escapeOne (c) {
  if (NAMED[c]) return NAMED[c]
  const code = c.charCodeAt(0)
  return code < 0x80 ? '\\x' + code.toString(16).padStart(2, '0') : '\\u' + code.toString(16).padStart(4, '0')
}

/** s (any value, as String(s)) with its control characters escaped. */
function termSafe (s) {
  return String(s).replace(CONTROL, escapeOne)
}

// rows (arrays of strings, the header first) → one line each, for the CLI's
// tables (cprof ps, leaks, list): every column as wide as its widest cell,
// two spaces apart, the columns in `right` right-aligned; the last column is
// not padded (a long name or path ends the line).
function columns (rows, { right = [] } = {}) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)))
  return rows.map((r) => r.map((cell, c) =>
    right.includes(c) ? cell.padStart(widths[c]) : c === r.length - 1 ? cell : cell.padEnd(widths[c])).join('  '))
}

module.exports = { termSafe, columns }

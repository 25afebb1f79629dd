'use strict'

// The CLI's tables (cprof ps, leaks, list): aligned text columns.

// rows (arrays of strings, the header first) → one line each: every column
// as wide as its widest cell, two spaces apart, the columns in `right`
// right-aligned; the last column is not padded (a long name or path ends
// the line).
function columns (rows, { right = [] } = {}) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)))
  return rows.map((r) => r.map((cell, c) =>
    right.includes(c) ? cell.padStart(widths[c]) : c === r.length - 1 ? cell : cell.padEnd(widths[c])).join('  '))
}

module.exports = { columns }

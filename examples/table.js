'use strict'

// formatTop(summary): the top functions of a cprof summary as a text table.
//
//   #  self ms  self %  total ms  total %  function     file:line
//   1   2104.3   62.1%    2110.8    62.3%  hashPayload  examples/server.js:24
//
// Heap summaries (unit 'bytes') show sizes in B / KiB / MiB / GiB instead:
//
//   #     self  self %    total  total %  function        file:line
//   1  9.6 MiB   91.3%  9.6 MiB    91.3%  retainSessions  examples/leak.js:29
//
// Paths are shown relative to `cwd` (default process.cwd()) when the file is
// under it; `file://` URLs become paths; node:internal frames stay as they are.

const path = require('node:path')
const { fileURLToPath } = require('node:url')

function displayLocation (url, line, cwd) {
  if (!url) return line > 0 ? `:${line}` : ''
  let file = url
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file)
    } catch {
      // keep the URL as it is
    }
  }
  if (path.isAbsolute(file)) {
    const rel = path.relative(cwd, file)
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) file = rel
  }
  return line > 0 ? `${file}:${line}` : file
}

// Long names (V8 names RegExp frames after their source) are cut to fit.
function shorten (name, max) {
  return name.length <= max ? name : name.slice(0, max - 1) + '…'
}

function ms (v) {
  return v.toFixed(1)
}

// 1536 → '1.5 KiB'; binary units, as heap tools use.
function bytes (v) {
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  if (Math.abs(v) < 1024) return `${Math.round(v)} B`
  let u = -1
  do {
    v /= 1024
    u++
  } while (Math.abs(v) >= 1024 && u < units.length - 1)
  return `${v.toFixed(1)} ${units[u]}`
}

function pct (v) {
  return `${v.toFixed(1)}%`
}

function formatTop (summary, { cwd = process.cwd(), limit = Infinity, nameWidth = 48 } = {}) {
  const inBytes = summary.unit === 'bytes'
  const amount = inBytes ? bytes : ms
  const header = inBytes
    ? ['#', 'self', 'self %', 'total', 'total %', 'function', 'file:line']
    : ['#', 'self ms', 'self %', 'total ms', 'total %', 'function', 'file:line']
  const rightAligned = [true, true, true, true, true, false, false]
  const rows = summary.top.slice(0, limit).map((f, i) => [
    String(i + 1),
    amount(f.self),
    pct(f.selfPercent),
    amount(f.total),
    pct(f.totalPercent),
    shorten(f.functionName || '(anonymous)', nameWidth),
    displayLocation(f.url, f.line, cwd)
  ])
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)))
  const line = (cells) =>
    cells
      .map((cell, c) => {
        if (c === cells.length - 1) return cell // no trailing padding
        return rightAligned[c] ? cell.padStart(widths[c]) : cell.padEnd(widths[c])
      })
      .join('  ')
      .trimEnd()

  const out = [line(header), ...rows.map(line)]
  const share = (label, s) => (s ? `${label} ${ms(s.self)} ms (${pct(s.percent)})` : null)
  const footer = [
    inBytes ? `total ${bytes(summary.total)}` : `total ${ms(summary.total)} ms`,
    share('program', summary.program),
    share('garbage collector', summary.gc),
    share('idle', summary.idle)
  ].filter(Boolean)
  out.push('', footer.join(', '))
  return out.join('\n')
}

module.exports = { formatTop, formatBytes: bytes, displayLocation }

'use strict'
// The short summary the fleet commands (attach, trigger --app/--tree) and
// cprof merge print: a profile's top functions by self, as every cprof
// output names a frame (docs/formats.md): name (path:line), a file:// url
// shortened to its path. Labels come from the profile: printed through
// termSafe (lib/term.js).
const { termSafe } = require('../term')

function fmt (v, digits) {
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

function frameLabel (f) {
  const name = f.functionName || '(anonymous)'
  if (!f.url) return name
  const where = f.url.startsWith('file://') ? decodeURIComponent(f.url.slice('file://'.length)) : f.url
  return `${name} (${where}:${f.line})`
}

/** Lines: "total …; top N by self …" and one row per function. */
function topLines (r, top) {
  const cpu = r.kind === 'cpu'
  const unit = r.summary.unit
  const rows = r.summary.top.slice(0, top)
  const out = [`total ${fmt(r.summary.total, cpu ? 1 : 0)} ${unit}; top ${rows.length} by self ${cpu ? 'time' : 'size'}:`]
  out.push(`  ${`self ${unit}`.padStart(14)}  ${'self %'.padStart(6)}  function`)
  for (const f of rows) {
    out.push(`  ${fmt(f.self, cpu ? 1 : 0).padStart(14)}  ${f.selfPercent.toFixed(1).padStart(5)}%  ${termSafe(frameLabel(f))}`)
  }
  return out
}

module.exports = { topLines, frameLabel, fmt }

'use strict'
// The holders report as text: what `cprof leaks --holders` prints
// (lib/cli/leaks-holders.js) and the heapGrowth incident writes beside its
// files (lib/incidents/holders-report.js), from the result both build over
// lib/incidents/holders-sum.js. Here, not in the CLI, so that the incident
// (a feature) does not reach up into a front end.
const { bytes, perMinute } = require('../recorder/heap-trend')
const { termSafe, columns } = require('../term')

const DIFF_TOP = 500 // groups read from the diff to sum by holder
const HOLDERS_TOP = 10 // in --json
const TEXT_TOP = 5

const seconds = (ms) => (ms / 1000).toFixed(ms < 10_000 ? 1 : 0)

function holderTable (all) {
  if (all.length === 0) return '  no new objects held: nothing grew between the snapshots\n'
  const hs = all.slice(0, TEXT_TOP)
  const rows = [['NEW', 'SHALLOW', 'RATE', 'HELD BY: NEW OBJECTS']]
  for (const h of hs) {
    const what = h.classes.slice(0, 3).map((c) => `${c.count.toLocaleString('en-US')} ${c.class}`).join(', ') +
      (h.classes.length > 3 ? `, … (${h.classes.length} classes)` : '')
    rows.push([`+${h.count.toLocaleString('en-US')}`, `+${bytes(h.selfSize)}`,
      h.perMinute === null ? '-' : perMinute(h.perMinute), `${h.holder}: ${what}`].map(termSafe))
  }
  let out = columns(rows).map((l) => '  ' + l).join('\n') + '\n'
  out += '  retainer paths (of the largest group under the first holders):\n'
  for (const h of hs.slice(0, 2)) out += `    ${termSafe(h.path)}\n`
  return out
}

/** The text of the holders part of the report. */
function renderHolders (r) {
  const a = r.snapshots
  const pauses = a[0].durationMs === null ? '' : `pauses ${seconds(a[0].durationMs)} s and ${seconds(a[1].durationMs)} s; `
  let out = `held by (${r.measures.holders}): heap snapshots ${seconds(r.intervalMs)} s apart ` +
    `(${pauses}${bytes(a[0].bytes)} and ${bytes(a[1].bytes)}); ` +
    `new in the second: ${r.added.count.toLocaleString('en-US')} objects, ${bytes(r.added.selfSize)}, by what holds them\n`
  out += holderTable(r.holders)
  for (const w of r.warnings) out += `  warning: ${termSafe(w)}\n`
  if (r.kept) out += `  snapshots kept: ${termSafe(a[0].file)} ${termSafe(a[1].file)} (cprof snapshot diff A B)\n`
  return out
}

module.exports = { renderHolders, seconds, DIFF_TOP, HOLDERS_TOP }

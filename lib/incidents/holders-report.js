'use strict'
// The heapGrowth incident's holders report, in a child process of the app
// (lib/incidents/holders.js starts it at the lowest CPU priority): argv
// <first.heapsnapshot> <second.heapsnapshot> <out.json> <out.txt>
// <intervalMs> <reason JSON>. Compares the two as `cprof snapshot diff A B`
// does (lib/snapshot-report.js, the C core), sums the new objects by holder
// (lib/incidents/holders-sum.js), deletes the second snapshot (compared: the
// report never appears beside it) and writes both files (0600, renamed
// whole). Exit 0 when written, 1 with a line on stderr.
const fs = require('node:fs')
const { snapshotDiff } = require('../snapshot-report')
const { holders } = require('./holders-sum')
const { renderHolders, DIFF_TOP, HOLDERS_TOP } = require('./holders-text')
const { writeWhole } = require('../viewer/marks-file')

async function main ([first, second, json, text, intervalText, reasonText]) {
  const intervalMs = Number(intervalText)
  try {
    const diff = await snapshotDiff([first, second], DIFF_TOP)
    const size = (f) => fs.statSync(f).size
    const bytes = [size(first), size(second)]
    fs.rmSync(second, { force: true })
    const result = {
      reason: JSON.parse(reasonText),
      measures: { holders: 'retainer paths of the objects new in the second snapshot' },
      intervalMs,
      snapshots: [{ file: first, bytes: bytes[0], durationMs: null }, { file: second, bytes: bytes[1], durationMs: null, deleted: true }],
      added: { count: diff.added.count, selfSize: diff.added.selfSize, paths: diff.added.paths },
      holders: holders(diff, intervalMs, HOLDERS_TOP),
      warnings: diff.warnings,
      kept: false
    }
    await writeWhole(json, JSON.stringify(result, null, 2) + '\n')
    await writeWhole(text, renderHolders(result))
  } finally {
    fs.rmSync(second, { force: true })
  }
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`${err.code ? err.code + ': ' : ''}${err.message}\n`)
  process.exitCode = 1
})

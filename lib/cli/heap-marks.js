'use strict'
// A recorder store's heap page (cprof convert <store> --kind heap --to
// html): the page is the process's newest heap window, and its overview the
// live heap at the end of each of that process's heap windows before it in
// the range, as a recorder heap dump's page shows them (docs/formats.md,
// "Viewer marks"). Each window's live bytes are its profile's total, read
// off the main thread by the native core; at most the newest MAX_WINDOWS.
const path = require('node:path')
const { listWindows } = require('./store')

const MAX_WINDOWS = 60 // the heap trend's default length

/** The viewerMarks text for a store input of one process's heap, or undefined. */
async function storeHeapMarks (store) {
  if (!store || store.kind !== 'heap' || store.windows.length !== 1) return undefined
  const last = store.windows[0]
  const from = store.range && store.range.from !== undefined ? store.range.from : -Infinity
  const wins = listWindows(path.dirname(last.file))
    .filter((w) => w.kind === 'heap' && w.ext === last.ext && w.pid === last.pid && w.to <= last.to && w.to > from)
    .sort((a, b) => a.to - b.to)
    .slice(-MAX_WINDOWS)
  const native = require('../native') // here, as store.js: the CLI loads commands without the addon
  const live = []
  for (const w of wins) {
    try {
      live.push((await native.convert(w.file, null, 1, { needSamples: false })).summary.total)
    } catch (_) {
      return undefined // a window that cannot be read: no overview rather than a wrong one
    }
  }
  return JSON.stringify({ endAt: last.to, heapWindows: { ends: wins.map((w) => w.to), live } })
}

module.exports = { storeHeapMarks }

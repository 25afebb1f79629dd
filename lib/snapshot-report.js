'use strict'
// A .heapsnapshot's report (cprof snapshot, analyze()): the native core's
// dominator tree and classes by DevTools' rules, read off the main thread
// from the file mapped (src/core/heapsnapshot.h). Costs memory in
// proportion to the snapshot: for the CLI and scripts, not a profiled app.
const fs = require('node:fs')
const native = require('./native')

const SNAPSHOT_TOP_MAX = 1000

// Whether the file starts as V8 writes a heap snapshot: {"snapshot":{...
// (the first member, in V8's writer and in DevTools' saved files).
async function isHeapSnapshot (file) {
  let fh
  try {
    fh = await fs.promises.open(file, 'r')
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(256), 0, 256, 0)
    return /^\s*\{\s*"snapshot"\s*:/.test(buffer.toString('latin1', 0, bytesRead))
  } catch {
    return false // the native side reports the file's error
  } finally {
    await fh?.close()
  }
}

// { nodes, edges, strings, totalSize, unreachable, objects, classes } for
// the `top` (1 – 1000) largest objects and classes.
async function snapshotReport (file, top) {
  const n = Math.min(SNAPSHOT_TOP_MAX, Math.max(1, top))
  return JSON.parse(await native.snapshotReport(file, n))
}

// cprof snapshot diff: { snapshots, classes, added, leaked (with a third
// file), warnings } for two or three snapshots of one process, analysed one
// after another (src/core/heapsnapshot.h: cprof_snapshot_diff).
async function snapshotDiff (files, top) {
  const n = Math.min(SNAPSHOT_TOP_MAX, Math.max(1, top))
  return JSON.parse(await native.snapshotDiff(files, n))
}

// The HTML viewer's data: the `classes` (1 – 1000) largest classes, their
// largest objects and the retainer tree (src/core/heapsnapshot.h:
// cprof_snapshot_view), as JSON text for the page.
function snapshotView (file, classes) {
  return native.snapshotView(file, Math.min(SNAPSHOT_TOP_MAX, Math.max(1, classes)))
}

module.exports = { isHeapSnapshot, snapshotReport, snapshotDiff, snapshotView, SNAPSHOT_TOP_MAX }

'use strict'
// The heapGrowth incident's heap snapshot (incidents: { heapGrowth: {
// snapshot: true } }): written with heap.snapshot() (lib/snapshot.js, whose
// V8 write is cprof's own time, lib/own-time.js) after the firing's report
// and heap profile, beside them under the firing's stem. Not taken while
// another snapshot is being written (a second would need the pause and the
// memory again), nor when the directory's free space is below twice the
// heap in use: the file measured 1.3-2.2 times V8's used heap size
// (docs/incidents.md, heapGrowth).
const fs = require('node:fs')
const v8 = require('node:v8')
const { snapshot, isWriting } = require('../snapshot')
const { cprofError } = require('../errors')

const SPACE_FACTOR = 2
const MIB = 1024 * 1024

const mib = (bytes) => `${(bytes / MIB).toFixed(1)} MiB`

// The bytes the directory has free for this user.
async function freeBytes (dir) {
  const s = await fs.promises.statfs(dir)
  return s.bavail * s.bsize
}

const DEFAULT_DEPS = {
  snapshot,
  isWriting,
  freeBytes,
  heapBytes: () => v8.getHeapStatistics().used_heap_size
}

/**
 * Writes <at>/<name>.heapsnapshot: at is the directory the firing's heap
 * profile went to, dir the dump's dir option (undefined: the default, which
 * heap.snapshot() resolves to the same directory, with the same checks).
 * Resolves with { file } or { skipped: 'busy' | 'space' | 'failed', why,
 * err? (the write's error) }: the caller counts it, and reports a refusal
 * for space and a failure. Never rejects.
 */
async function incidentSnapshot ({ at, dir, name }, deps = DEFAULT_DEPS) {
  try {
    const heap = deps.heapBytes()
    const free = await deps.freeBytes(at)
    // Checked after the await, right before heap.snapshot() counts itself
    // as writing (synchronously): no other snapshot can start in between.
    if (deps.isWriting()) return { skipped: 'busy', why: 'another heap snapshot is being written' }
    if (free < SPACE_FACTOR * heap) return { skipped: 'space', why: noSpace(at, free, heap) }
    return { file: await deps.snapshot({ ...(dir !== undefined ? { dir } : {}), name }) }
  } catch (err) { // statfs failed, or the disk filled up after all: the firing's other files stand
    return { skipped: 'failed', why: `heapGrowth: ${err.message}`, err }
  }
}

const noSpace = (at, free, heap) => `heapGrowth: no heap snapshot written: ${at} has ${mib(free)} free, below twice the ` +
  `${mib(heap)} heap in use (a snapshot file is 1.3-2.2 times it); the report and the heap profile are written`

/** A snapshot refused or failed as an error for report() (one stderr line
 * without an 'error' listener); null when there is nothing to report. */
function snapshotError (s) {
  if (s.skipped === 'failed') return s.err
  return s.skipped === 'space' ? cprofError('ERR_CPROF_IO', s.why) : null
}

module.exports = { incidentSnapshot, snapshotError, SPACE_FACTOR, DEFAULT_DEPS }

'use strict'
// The heapGrowth incident's heap snapshot (incidents: { heapGrowth: {
// snapshot: true } }): written with heap.snapshot() (lib/snapshot.js, whose
// V8 write is cprof's own time, lib/own-time.js) after the firing's report
// and heap profile, beside them under the firing's stem. Not taken while
// another snapshot is being written, nor when the directory's free space is
// below twice the heap in use: lib/snapshot.js's guard, the triggers' too.
const { snapshot, reserve, room, GUARD_DEPS } = require('../snapshot')
const { cprofError } = require('../errors')

const DEFAULT_DEPS = { snapshot, ...GUARD_DEPS }

/**
 * Writes <at>/<name>.heapsnapshot: at is the directory the firing's heap
 * profile went to, dir the dump's dir option (undefined: the default, which
 * heap.snapshot() resolves to the same directory, with the same checks).
 * Resolves with { file } or { skipped: 'busy' | 'space' | 'failed', why,
 * err? (the write's error) }: the caller counts it, and reports a refusal
 * for space and a failure. Never rejects.
 */
async function incidentSnapshot ({ at, dir, name }, deps = DEFAULT_DEPS) {
  const { release, why } = reserve()
  if (!release) return { skipped: 'busy', why }
  try {
    const full = await room(at, deps)
    if (full) return { skipped: 'space', why: `heapGrowth: no heap snapshot written: ${full}; the report and the heap profile are written` }
    return { file: await deps.snapshot({ ...(dir !== undefined ? { dir } : {}), name }) }
  } catch (err) { // the disk filled up after all, or the write failed: the firing's other files stand
    return { skipped: 'failed', why: `heapGrowth: ${err.message}`, err }
  } finally {
    release()
  }
}

/** A snapshot refused or failed as an error for report() (one stderr line
 * without an 'error' listener); null when there is nothing to report. */
function snapshotError (s) {
  if (s.skipped === 'failed') return s.err
  return s.skipped === 'space' ? cprofError('ERR_CPROF_IO', s.why) : null
}

module.exports = { incidentSnapshot, snapshotError, DEFAULT_DEPS }

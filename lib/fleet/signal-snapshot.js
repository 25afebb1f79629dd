'use strict'
// A heap snapshot of one running process, asked for from outside:
// `cprof trigger <pid> --snapshot` and, one process at a time, `cprof
// trigger --app NAME --snapshot` (lib/cli/trigger.js). The request (with an
// id) goes into the process's own run directory (lib/triggers/dump-request.js,
// the rules of docs/reliability.md), then the signal its entry names
// (triggers.snapshotSignal: any of cprof's signals takes the request,
// lib/triggers/index.js); then cprof waits for its entry to report the
// snapshot with that id, or why it was refused (ERR_CPROF_BUSY,
// ERR_CPROF_NO_SPACE). ctx: { out, err, who }.
const path = require('node:path')
const dumpRequest = require('../triggers/dump-request')
const { parseSignal } = require('../triggers/signals')
const { termSafe } = require('../term')
const rundir = require('../identity/rundir')
const { WAIT_S, send, catches } = require('./signal-profile')

// How long a snapshot may take once the process took the request: V8 walks
// and writes the whole heap (a 1.5 GB heap takes minutes on a slow disk).
const WRITE_WAIT_S = 600

/** The warning said before any snapshot is asked for. */
function warning (who, what) {
  return `${who}: a heap snapshot pauses ${what} while V8 walks and writes its heap (seconds per ` +
    'GB of heap), needs memory beside it (up to about the heap\'s size again) and disk for a file ' +
    'about the heap\'s size; it holds every string in the process (secrets too): keep the file private\n'
}

// The process's run directory and the signal that carries the request:
// { found, sig } or { why } (nothing sent).
function targetOf (pid, force) {
  const owner = rundir.processOwner(pid)
  const me = process.geteuid()
  if (owner === null) return { why: `no process ${pid}` }
  if (me !== 0 && owner !== me) return { why: `cannot signal process ${pid}: not permitted (it runs as uid ${owner}, you are uid ${me})` }
  let skipped = null
  const found = rundir.ofProcess(pid, (w) => { skipped = w })
  if (!found && skipped) return { why: `${skipped}; nothing was sent` }
  if (!found) {
    return { why: `process ${pid} does not run cprof: it has no entry in a run directory of its user (\`cprof ps\` ` +
      'lists the processes that do). Start it with node -r cprof/register and CPROF_PROFILING=1, or call cprof.init()' }
  }
  const name = (found.entry.triggers || {}).snapshotSignal
  if (name === undefined) return { why: `process ${pid} runs a cprof that takes no snapshot requests (older than --snapshot)` }
  if (name === null) {
    return { why: `process ${pid} installed no cprof signal to carry the request` +
      `${found.entry.triggers.pm2Actions ? '; pm2 trigger <app> cprof:snapshot takes one' : ''}` }
  }
  let sig
  try {
    sig = parseSignal(name, 'its snapshotSignal')
  } catch (e) {
    return { why: e.message }
  }
  if (!force && catches(pid, sig.number) === false) {
    return { why: `process ${pid} does not catch ${sig.name}, so cprof's trigger is not installed there; --force sends anyway` }
  }
  return { found, sig }
}

// Polls the entry for the outcome of request id: { file, bytes, durationMs } or { why }.
async function outcome (pid, found, id, since) {
  let taken = false
  for (;;) {
    const e = rundir.entryIn(found.dir, pid, found.owner)
    if (!e) return { why: `process ${pid} exited (or removed its entry) before reporting the snapshot` }
    const done = e.last && e.last.snapshot
    const failed = e.errors && e.errors.snapshot
    if (done && done.id === id) return { file: done.files.heapsnapshot, bytes: done.bytes, durationMs: done.durationMs }
    if (failed && failed.id === id) return { why: `${failed.code ? failed.code + ': ' : ''}${failed.message}` }
    const waited = Date.now() - since
    if (!taken && waited >= WAIT_S * 1000) {
      if (dumpRequest.removeSnapshot(found.dir, pid, found.owner, id)) {
        return { why: `it did not take the request within ${WAIT_S} s (removed): it may be busy (it acts on ` +
          'signals when its event loop turns)' }
      }
      taken = true
    }
    if (waited >= WRITE_WAIT_S * 1000) return { why: `it reported no snapshot within ${WRITE_WAIT_S} s` }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * Asks process pid for a heap snapshot and waits for it: resolves
 * { file, bytes, durationMs } or { why } (said by the caller). force: send
 * even if the process does not seem to catch the signal; dir: where it
 * writes the snapshot instead of its configured directory.
 */
async function requestSnapshot (pid, { force = false, dir } = {}) {
  const t = targetOf(pid, force)
  if (t.why) return t
  const { found, sig } = t
  const since = Date.now()
  let id
  try {
    id = dumpRequest.putSnapshot(found.dir, pid, found.owner, dir !== undefined ? path.resolve(dir) : undefined)
  } catch (e) {
    return { why: e.code === 'ERR_CPROF_BUSY' ? `${e.code}: ${e.message}` : e.message }
  }
  try {
    send(pid, sig)
  } catch (e) {
    dumpRequest.removeSnapshot(found.dir, pid, found.owner, id)
    return { why: e.message }
  }
  return { sig, ...(await outcome(pid, found, id, since)) }
}

/** One line for a written snapshot r: its path, size (MB) and pause (s). */
function wroteLine (r) {
  return `${termSafe(r.file)} (${(r.bytes / 1048576).toFixed(1)} MB, ${(r.durationMs / 1000).toFixed(2)} s)`
}

/** `cprof trigger <pid> --snapshot`: o { pid, force, dir? }; resolves the exit status. */
async function snapshotOne (o, { out, err, who }) {
  err.write(warning(who, `process ${o.pid}`))
  const r = await requestSnapshot(o.pid, o)
  if (r.why) {
    err.write(`${who}: ${r.sig ? `sent ${r.sig.name} to ${o.pid}, but no snapshot: ` : ''}${termSafe(r.why)}\n`)
    return 1
  }
  out.write(`sent ${r.sig.name} to ${o.pid}: it wrote a heap snapshot: ${wroteLine(r)}\n`)
  return 0
}

module.exports = { requestSnapshot, snapshotOne, warning, wroteLine, WRITE_WAIT_S }

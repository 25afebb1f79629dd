'use strict'
// The fan-out behind `cprof trigger --app NAME` and `cprof trigger <pid>
// --tree`: signal every process of a set (from the run directory) at once,
// wait until each has written its profile (its run-directory entry says
// so), and merge them (lib/cluster/merge-set.js). A node:cluster primary in
// the set passes the signal on to its workers itself and writes the merged
// profile; then its result is used, not merged twice. kind 'dump': every
// process's flight recorder writes what it holds (each one is signalled
// itself: a primary does not pass a dump on), and cprof merges the dumps.
const path = require('node:path')
const native = require('../native')
const { formatNames } = require('../options')
const procfs = require('../procfs')
const rundir = require('../identity/rundir')
const { parseSignal } = require('../triggers/signals')
const { discover } = require('./discover')
const { mergeSet, label, viewerOpts } = require('../cluster/merge-set')
const dumpRequest = require('../triggers/dump-request')

const POLL_MS = 100

function sleep (ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function entryOf (pid) {
  return discover({ prune: false }).entries.find((e) => e.pid === pid) || null
}

// The processes to signal: not a worker whose primary is in the set (the
// primary passes a profile's signal on to it); for a dump, every one.
function targets (members, kind) {
  if (kind === 'dump') return members
  const primaries = new Set(members.filter((m) => m.role === 'primary').map((m) => m.pid))
  return members.filter((m) => !(m.role === 'worker' && primaries.has(m.ppid)))
}

function signalName (m, kind) {
  if (!m.triggers) return null
  return kind === 'heap' ? m.triggers.heapSignal : kind === 'dump' ? m.triggers.dumpSignal : m.triggers.signal
}

// The signal m announced for kind, checked: { sig } or { why } it is not
// sent. An entry only names a signal; it goes out only if it is one cprof
// can install (parseSignal: never SIGKILL, SIGTERM, SIGINT, SIGSTOP, …), to
// the process that announced itself (same start time), running Node.js, that
// catches it now (so it cannot terminate it) — the checks `cprof trigger
// <pid>` makes, and more.
function checkedSignal (m, kind) {
  const name = signalName(m, kind)
  if (kind === 'dump' && !(name && m.recorder && m.recorder.running)) {
    return { why: 'runs no flight recorder (CPROF_RECORDER=1 or init({ recorder }))' }
  }
  if (!name) return { why: `has no ${kind === 'heap' ? 'heapSignal (CPROF_HEAP_SIGNAL)' : 'CPU signal'} installed` }
  let sig
  try {
    sig = parseSignal(name, 'its announced signal')
  } catch (err) {
    return { why: `was not signalled: ${err.message}` }
  }
  if (!procfs.sameProcess(m.pid, m.startTime)) return { why: 'exited before the signal' }
  if (procfs.isNode(m.pid) !== true) {
    return { why: `was not signalled: it does not run Node.js (its executable is ${procfs.exe(m.pid) || 'unreadable'})` }
  }
  const disp = procfs.signalDisposition(m.pid, sig.number)
  if (disp !== 'caught') {
    return { why: `was not signalled: it does not catch ${sig.name} (${disp || 'its /proc status is unreadable'}), so cprof's trigger is not installed there` }
  }
  return { sig }
}

/**
 * Sends each target its signal for kind; returns the members that could
 * not be signalled, with the reason (a heap profile without a heapSignal, a
 * process gone, no recorder running for a dump, a signal that fails the
 * checks of checkedSignal). last (ms, dump only): the dump covers only the
 * last that many ms (lib/triggers/dump-request.js); a request that cannot be passed
 * is a failure, and that process is not signalled.
 */
function signalAll (members, kind, last) {
  const failed = new Map()
  for (const m of targets(members, kind)) {
    const { sig, why } = checkedSignal(m, kind)
    if (why) {
      failed.set(m.pid, why)
      continue
    }
    try {
      if (kind === 'dump' && last !== undefined) dumpRequest.put(m.runDir, m.pid, last, rundir.processOwner(m.pid))
    } catch (err) {
      failed.set(m.pid, `was not signalled: cannot pass --last: ${err.message}`)
      continue
    }
    try {
      process.kill(m.pid, sig.name)
    } catch (err) {
      failed.set(m.pid, `cannot be signalled: ${err.code}`)
    }
  }
  return failed
}

// Whether entry e shows that its kind profile asked for at since has
// started: running since then, or already over (written, or failed).
function startedSince (e, kind, since) {
  const run = e.running && e.running[kind]
  const last = e.last && e.last[kind]
  const err = e.errors && e.errors[kind]
  return Boolean((run && run.since >= since) || (last && last.startTime >= since) || (err && err.at >= since))
}

/**
 * Waits (at most waitMs) until every member that is still running shows in
 * its entry that its kind profile, signalled at since, has started: a
 * process acts on a signal when its event loop turns, and a busy one turns
 * it late. Resolves { entries: run-directory entries now, by pid, late:
 * the members that had not started when the wait ended }.
 */
async function untilStarted (members, kind, since, waitMs) {
  const deadline = Date.now() + waitMs
  for (;;) {
    const entries = new Map(discover({ prune: false }).entries.map((e) => [e.pid, e]))
    const late = members.filter((m) => {
      const e = entries.get(m.pid)
      return e && !startedSince(e, kind, since) && procfs.sameProcess(m.pid, m.startTime)
    })
    if (late.length === 0 || Date.now() >= deadline) return { entries, late }
    await sleep(POLL_MS)
  }
}

/**
 * Waits for each member's profile of kind started at or after since:
 * { [pid]: { file } | { reason } }. A member that exits, fails, or writes
 * nothing within waitMs delivers nothing; so does one its primary says is
 * missing.
 */
async function collect (members, kind, since, waitMs, failed) {
  const out = {}
  for (const [pid, reason] of failed) out[pid] = { reason }
  const deadline = Date.now() + waitMs
  for (;;) {
    for (const m of members) {
      if (out[m.pid]) continue
      if (!procfs.sameProcess(m.pid, m.startTime)) {
        out[m.pid] = { reason: 'exited before delivering its profile' }
        continue
      }
      const e = entryOf(m.pid)
      const last = e && e.last && e.last[kind]
      const err = e && e.errors && e.errors[kind]
      if (last && (kind === 'dump' ? last.at : last.startTime) >= since && last.files) {
        out[m.pid] = { file: last.files.cpuprofile || last.files.heapprofile, entry: e }
      } else if (err && err.at >= since) {
        out[m.pid] = { reason: `failed: ${err.code ? err.code + ': ' : ''}${err.message}` }
      }
    }
    if (members.every((m) => out[m.pid])) return out
    if (Date.now() >= deadline) break
    await sleep(POLL_MS)
  }
  for (const m of members) {
    if (!out[m.pid]) out[m.pid] = { reason: `wrote no profile within ${waitMs / 1000} s` }
  }
  return out
}

// A primary's merged result for its group, once it says so.
async function primaryMerged (primary, kind, since, waitMs) {
  const deadline = Date.now() + waitMs
  for (;;) {
    const e = entryOf(primary.pid)
    const merged = e && e.last && e.last[kind] && e.last[kind].merged
    if (merged && merged.startTime >= since) return merged
    if (!e || Date.now() >= deadline) return null
    await sleep(POLL_MS)
  }
}

/**
 * Stops (or finishes) a fan-out: waits for the files, merges. members:
 * run-directory entries; opts: { kind, app, since, waitMs, formats, top,
 * failed }. Resolves the merge-set result (plus by: 'primary' | 'cprof').
 */
async function gather (members, opts) {
  const got = await collect(members, opts.kind, opts.since, opts.waitMs, opts.failed || new Map())
  // A --last request a process did not take goes: it would shape its next dump.
  if (opts.kind === 'dump') for (const m of members) dumpRequest.remove(m.runDir, m.pid, rundir.processOwner(m.pid))
  const primary = opts.kind !== 'dump' && members.find((m) => m.role === 'primary' && !got[m.pid].reason)
  if (primary && members.some((m) => m.ppid === primary.pid)) {
    const merged = await primaryMerged(primary, opts.kind, opts.since, opts.waitMs)
    if (merged && merged.error) {
      const err = new Error(`the cluster primary (pid ${primary.pid}) could not merge: ` +
        `${merged.error.code ? merged.error.code + ': ' : ''}${merged.error.message}`)
      err.code = 'ERR_CPROF_FLEET'
      throw err
    }
    if (merged) {
      const files = { ...merged.files }
      const file = files.cpuprofile || files.heapprofile
      // The primary wrote the formats of its own config; the ones asked for
      // here (--formats) that it did not are written from its merged file,
      // beside it, in the same pass that reads it for the summary.
      const stem = path.basename(file).replace(/\.(?:cpuprofile|heapprofile)$/, '')
      const outs = formatNames(stem, (opts.formats || []).filter((f) => !files[f]))
      const more = Object.keys(outs).length > 0
      const r = await native.convert(file, more ? path.dirname(file) : null, opts.top || 10, {
        outs, title: path.basename(file), needSamples: true, keepExisting: true, ...(outs.html ? primaryViewerOpts(merged) : {})
      })
      for (const f of Object.keys(outs)) files[f] = r.outputs[f].path
      return { by: 'primary', primary: primary.pid, ...merged, files, kind: r.kind, durationMs: r.durationMs, summary: r.summary }
    }
  }
  const list = members.map((m) => ({
    pid: m.pid, app: m.app, instance: m.instance, role: m.role, file: got[m.pid].file || null, reason: got[m.pid].reason
  }))
  const r = await mergeSet(list, { kind: opts.kind === 'dump' ? 'cpu' : opts.kind, app: opts.app, startTime: opts.since, formats: opts.formats, top: opts.top })
  return { by: 'cprof', ...r }
}

// The viewer page of the primary's merged file: its instances (in the
// order it merged them, each with its file) place the boundaries.
function primaryViewerOpts (merged) {
  const ins = Array.isArray(merged.instances) && merged.instances.every((i) => i && typeof i.file === 'string') ? merged.instances : []
  return viewerOpts(merged.files.heapprofile ? 'heap' : 'cpu', ins.map((i) => i.file), ins.map((i) => `${i.label} (pid ${i.pid})`))
}

module.exports = { targets, signalAll, untilStarted, collect, gather, label }

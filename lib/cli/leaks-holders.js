'use strict'
// cprof leaks <pid> | --app NAME --holders [--interval S] [--keep] [--dir DIR]:
// beside the growing allocation sites (the heap trend: where V8 allocated the
// bytes), what holds what grew. Two heap snapshots of the process, S seconds
// apart, through the guarded path `cprof trigger --snapshot` uses
// (lib/fleet/signal-snapshot.js → the process's lib/triggers/snapshot-trigger.js:
// one at a time, the free-disk check, the pause it documents), then `cprof
// snapshot diff A B` in this process (lib/snapshot-report.js, the C core),
// then one report; the snapshots are deleted unless --keep. Before the first,
// what they cost is printed (lib/incidents/holders-sum.js: cost, from the measured
// rules of docs/incidents.md). With --app, only the instance whose heap grows
// fastest is snapshotted: each snapshot pauses the instance it is taken in,
// and the instances of one app hold their leaks the same way.
const fs = require('node:fs')
const { requestSnapshot, wroteLine } = require('../fleet/signal-snapshot')
const rundir = require('../identity/rundir')
const procfs = require('../procfs')
const { bytes } = require('../recorder/heap-trend')
const { cost, holders } = require('../incidents/holders-sum')
const { snapshotDiff } = require('../snapshot-report')
const { renderHolders, seconds, DIFF_TOP, HOLDERS_TOP } = require('../incidents/holders-text')
const { termSafe } = require('../term')

const INTERVAL_DEFAULT_S = 30

/** With --app: the instance to snapshot, the one whose heap grows fastest
 * (its trend's perMinute; an instance without a trend last). */
function pickInstance (entries) {
  const rate = (e) => {
    const t = e.recorder && e.recorder.heapTrend
    return t && t.windows ? t.perMinute : -Infinity
  }
  return [...entries].sort((a, b) => rate(b) - rate(a) || a.pid - b.pid)[0]
}

// The target's used heap, estimated from outside: V8's used heap as its
// recorder last announced it (recorder.heapUsed), else the recorder's sampled
// live heap (what its trend calls live: only what was allocated since it
// started), else the RSS (an upper bound).
function heapEstimate (e) {
  const t = e.recorder && e.recorder.heapTrend
  const rss = procfs.rssBytes(e.pid)
  if (e.recorder && e.recorder.heapUsed > 0) return { heap: e.recorder.heapUsed, rss, from: 'V8\'s used heap at its last recorder window' }
  if (t && t.live > 0) return { heap: t.live, rss, from: 'the recorder\'s sampled live heap' }
  return { heap: rss || 0, rss, from: 'its RSS, an upper bound' }
}

const range = ([lo, hi], f) => f(lo) === f(hi) ? f(lo) : `${f(lo)}–${f(hi)}`

/** The lines said before the first snapshot: what the two will cost. */
function costLines (who, e, est, intervalS, dir, keep) {
  const c = cost(est.heap, 2)
  return `${who}: --holders takes two heap snapshots of process ${e.pid}, ${intervalS} s apart, in ${termSafe(dir || 'its directory')}.\n` +
    `  its heap: about ${bytes(est.heap)} (${est.from}${est.rss ? `; RSS ${bytes(est.rss)}` : ''})\n` +
    `  each snapshot pauses it about ${range(c.pauseMs, seconds)} s (40–80 ms per MiB of heap measured; ` +
    'more on a loaded machine), raises its RSS by up to ' +
    `${bytes(c.rss[0])}–${bytes(c.rss[1])} while written (8–22 times the heap), and writes a file of ` +
    `${bytes(c.file[0])}–${bytes(c.file[1])} (1.3–2.2 times the heap)\n` +
    `  disk: about ${bytes(c.disk)} free (the process refuses a snapshot below twice its heap free, ERR_CPROF_NO_SPACE); ` +
    `the diff then needs about ${bytes(c.diffMemory)} of memory in this process\n` +
    `  the snapshots hold every string in the process (secrets too); ${keep ? 'kept (--keep): keep them private' : 'deleted once compared (--keep keeps them)'}\n`
}

/** Before any pause: null when dir's free space (statfs) is at least need
 * bytes, or cannot be read (the process's own check still applies), else why. */
async function diskShort (dir, need, statfs = (d) => fs.promises.statfs(d)) {
  if (!dir) return null
  let free
  try {
    const st = await statfs(dir)
    free = st.bavail * st.bsize
  } catch {
    return null
  }
  return free < need ? `${dir} has ${bytes(free)} free, below the ${bytes(need)} the two snapshots need (the first file, then twice the heap free for the second)` : null
}

function unlinkQuiet (file) {
  try {
    fs.unlinkSync(file)
  } catch {}
}

/**
 * The two snapshots of process e (a run-directory entry), the diff, the
 * holders: resolves { result } (the holders part of the report, and the
 * entry as of after the snapshots) or { why, code }.
 * o: { intervalS, keep, dir, force }; io: { err, who }.
 */
async function takeHolders (e, o, { err, who }) {
  const est = heapEstimate(e)
  const dir = o.dir || e.dir
  err.write(costLines(who, e, est, o.intervalS, dir, o.keep))
  const full = await diskShort(dir, cost(est.heap, 2).disk)
  if (full) return { why: `ERR_CPROF_NO_SPACE: no snapshot taken: ${full}. Free disk space or give --dir on a larger disk`, code: 1 }
  const files = []
  let interrupted = false
  let pending = false // a request the process may still answer with a file
  const onInt = () => {
    interrupted = true
    if (!o.keep) for (const f of files) unlinkQuiet(f)
    if (pending) err.write(`${who}: interrupted while process ${e.pid} writes a snapshot: it will be left in ${termSafe(dir || 'its directory')} (heap-${e.pid}-*.heapsnapshot); delete it\n`)
    process.exit(130)
  }
  process.once('SIGINT', onInt)
  try {
    pending = true
    const a = await requestSnapshot(e.pid, { force: o.force, dir: o.dir })
    pending = false
    if (a.why) return { why: `no first snapshot: ${a.why}`, code: 1 }
    files.push(a.file)
    err.write(`${who}: snapshot A: ${wroteLine(a)}; the next in ${o.intervalS} s\n`)
    const startA = Date.now()
    await new Promise((resolve) => setTimeout(resolve, o.intervalS * 1000))
    if (procfs.status(e.pid) === null) return { why: `process ${e.pid} exited before the second snapshot`, code: 1 }
    const startB = Date.now()
    pending = true
    const b = await requestSnapshot(e.pid, { force: o.force, dir: o.dir })
    pending = false
    if (b.why) return { why: `no second snapshot: ${b.why}`, code: 1 }
    files.push(b.file)
    err.write(`${who}: snapshot B: ${wroteLine(b)}; comparing\n`)
    const found = rundir.ofProcess(e.pid)
    const entry = found ? { ...found.entry, pid: e.pid } : e
    const diff = await snapshotDiff([a.file, b.file], DIFF_TOP)
    const intervalMs = startB - startA + a.durationMs // between the snapshots' starts, near enough
    return {
      entry,
      result: {
        measures: { holders: 'retainer paths of the objects new in the second snapshot' },
        intervalMs,
        snapshots: [a, b].map((s) => ({ file: s.file, bytes: s.bytes, durationMs: s.durationMs })),
        added: { count: diff.added.count, selfSize: diff.added.selfSize, paths: diff.added.paths },
        holders: holders(diff, intervalMs, HOLDERS_TOP),
        warnings: diff.warnings,
        kept: Boolean(o.keep)
      }
    }
  } finally {
    process.removeListener('SIGINT', onInt)
    if (!o.keep && !interrupted) for (const f of files) unlinkQuiet(f)
  }
}

module.exports = { takeHolders, renderHolders, pickInstance, heapEstimate, costLines, diskShort, INTERVAL_DEFAULT_S }

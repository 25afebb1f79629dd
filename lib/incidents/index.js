'use strict'
// Incident triggers: watchers (lib/incidents/watchers.js) report values;
// a value crossing its threshold fires once — the recorder's last seconds
// are written like dump() with the reason in the file name and in the
// 'profile' event — unless the trigger's cooldown or the hourly cap
// suppresses it (counted). heapNearLimit writes a heap profile instead: the
// recorder's heap windows, or a heap sampling profile it starts itself at
// the lower mark.
const fs = require('node:fs')
const watchers = require('./watchers')
const { createStartup } = require('./startup')
const heapGrowth = require('./heap-growth')
const { snapshotError } = require('./heap-snapshot')
const { fileStem } = require('../controller')
const { cprofError } = require('../errors')
const { ownMs, ownCpuMicros } = require('../own-time')

const HOUR_MS = 3600 * 1000
// A heapGrowth snapshot not written → its counter in status().snapshots.
const SNAPSHOT_COUNTER = { busy: 'skipped', space: 'refused', failed: 'failed' }

/**
 * deps: { recorder (lib/recorder/index.js), heap (the heap controller),
 * report(err), changed() (the counters changed: optional) }.
 */
function createIncidents (deps) {
  let active = null
  const counts = { fired: 0, suppressed: 0, failed: 0, last: null }

  // The file stem of a firing: <kind>-incident-<trigger>-<pid>-<UTC time>.
  function stem (kind, trigger, at) {
    return fileStem(kind, undefined, at).replace(/^(cpu|heap)-/, `$1-incident-${trigger}-`)
  }

  // Whether a firing may write now; a refusal is counted, in all and per
  // trigger until its next firing (whose reason says how many it hid).
  function allowed (run, trigger, now) {
    const last = run.lastFired[trigger]
    run.hour = run.hour.filter((t) => now - t < HOUR_MS)
    const cooling = last !== undefined && now - last < run.o.cooldown
    const capped = run.o.maxPerHour > 0 && run.hour.length >= run.o.maxPerHour
    if (cooling || capped) {
      counts.suppressed++
      run.suppressed[trigger] = (run.suppressed[trigger] || 0) + 1
      changed()
      return false
    }
    run.lastFired[trigger] = now
    run.hour.push(now)
    return true
  }

  // The counters changed: cprof ps shows them (lib/fleet/announce.js).
  function changed () {
    if (deps.changed) deps.changed()
  }

  function failed (err) {
    counts.failed++
    deps.report(err)
  }

  function fire (run, trigger, value) {
    const at = Date.now()
    if (!allowed(run, trigger, at)) return
    const reason = { trigger, value, threshold: heapGrowth.threshold(run.o, trigger), at, suppressed: run.suppressed[trigger] || 0 }
    run.suppressed[trigger] = 0
    counts.fired++
    counts.last = reason
    changed()
    if (trigger === 'heapNearLimit') return fireHeap(run, reason)
    if (trigger === 'heapGrowth') {
      return heapGrowth.writeHeapGrowth(deps.recorder, { ...run.dumpOpts, name: stem('heap', trigger, at) },
        reason, run.trend, run.o.heapGrowth.snapshot ? countSnapshot : null)
        .catch(failed)
    }
    deps.recorder.dump({ ...run.dumpOpts, last: run.o.last, name: stem('cpu', trigger, at) }, { reason })
      .catch(failed)
  }

  // A heapGrowth firing's snapshot (incidents.heapGrowth.snapshot), before
  // its 'profile' event: written, skipped while another was being written,
  // refused for disk space or failed (those two also reported: one stderr
  // line without an 'error' listener).
  function countSnapshot (s) {
    counts.snapshots[s.file ? 'written' : SNAPSHOT_COUNTER[s.skipped]]++
    const err = snapshotError(s)
    if (err) deps.report(err)
    changed()
  }

  // The heap profile before an out-of-memory crash: the heap windows, else
  // the sampling started at the lower mark (or now, if the use jumped past
  // both marks between two checks).
  function fireHeap (run, reason) {
    if (deps.recorder.recordsHeap()) {
      deps.recorder.dump({ ...run.dumpOpts, kind: 'heap', last: run.o.last, name: stem('heap', 'heapNearLimit', reason.at) }, { reason })
        .catch(failed)
      return
    }
    if (!run.sampling) startSampling(run, reason.at)
    if (!run.sampling) return
    run.sampling = false
    deps.heap.stop({ reason }).catch(failed)
  }

  // Starts the heap sampling profile; run.sampling says whether it runs
  // (heap.start() is async but starts synchronously: a failure rejects).
  function startSampling (run, at) {
    if (deps.heap.isRunning()) {
      failed(cprofError('ERR_CPROF_BUSY', 'heapNearLimit: a heap profile started with heap.start() is running, ' +
        'so the incident cannot sample the heap; stop it, or record heap windows (recorder: { heap: true })'))
      return
    }
    deps.heap.start({ ...run.dumpOpts, interval: run.heapInterval, name: stem('heap', 'heapNearLimit', at) })
      .catch(failed)
    run.sampling = deps.heap.isRunning()
  }

  // Crossing detection: a value at or over the threshold fires when the
  // previous one was under it (every stall is its own crossing).
  function crossing (run, trigger) {
    let over = false
    return (value) => {
      const now = value >= run.o[trigger]
      if (now && !over) fire(run, trigger, value)
      over = now
    }
  }

  function heapMeasure (run) {
    const fireHigh = crossing(run, 'heapNearLimit')
    return (pct) => {
      // The lower mark starts sampling (unless the heap windows cover it).
      if (pct >= run.o.heapLowMark && !run.sampling && !deps.recorder.recordsHeap() &&
          pct < run.o.heapNearLimit && !deps.heap.isRunning()) {
        const last = run.lastFired.heapNearLimit
        if (last === undefined || Date.now() - last >= run.o.cooldown) startSampling(run, Date.now())
      }
      fireHigh(pct)
    }
  }

  // A watcher's value never throws into the app.
  function guarded (fn) {
    return (value) => {
      try {
        fn(value)
      } catch (err) {
        failed(err)
      }
    }
  }

  /**
   * Starts the watchers: o from lib/incidents/options.js; opts: { dir,
   * formats, heapInterval } for the files.
   */
  function start (o, opts = {}) {
    stop()
    const dumpOpts = {}
    if (opts.dir !== undefined) dumpOpts.dir = opts.dir
    if (opts.formats && opts.formats.length) dumpOpts.formats = opts.formats
    const run = { o, dumpOpts, heapInterval: opts.heapInterval, lastFired: {}, suppressed: {}, hour: [], sampling: false, stops: [] }
    if (run.heapInterval === undefined) delete run.heapInterval
    if (o.eventLoopDelay !== null) {
      const measure = guarded(crossing(run, 'eventLoopDelay'))
      run.stops.push(watchers.watchLoopDelay(o.eventLoopDelay, measure, ownMs, createStartup()))
    }
    if (o.cpu !== null) run.stops.push(watchers.watchCpu(o.cpuWindow, guarded(crossing(run, 'cpu')), ownCpuMicros))
    if (o.rss !== null) run.stops.push(watchers.watchRss(guarded(crossing(run, 'rss'))))
    if (o.heapNearLimit !== null) run.stops.push(watchers.watchHeap(guarded(heapMeasure(run))))
    if (o.heapGrowth) {
      if (o.heapGrowth.snapshot && !counts.snapshots) counts.snapshots = { written: 0, skipped: 0, refused: 0, failed: 0 }
      let over = false // fires once per run of growth, as crossing() does
      const grown = (trend) => {
        run.trend = trend // value: bytes per minute; the file gets the whole trend
        if (!over) fire(run, 'heapGrowth', trend.perMinute)
        over = true
      }
      run.stops.push(heapGrowth.watchHeapGrowth(o.heapGrowth, deps.recorder, guarded(grown), () => { over = false }))
    }
    active = run
  }

  // Stops the watchers; a heap sampling profile started at the lower mark
  // ends without leaving a file.
  function stop () {
    const run = active
    active = null
    if (!run) return
    for (const s of run.stops) s()
    if (run.sampling && deps.heap.isRunning()) {
      deps.heap.stop({ quiet: true }).then((r) => {
        for (const file of Object.values(r.files)) fs.rm(file, { force: true }, () => {})
      }, () => {})
    }
  }

  /** { fired, suppressed, failed, last: reason | null, snapshots?: { written,
   * skipped, refused, failed } (once heapGrowth.snapshot was on) }, or null when never started. */
  function status () {
    if (!active && !counts.fired && !counts.suppressed && !counts.failed) return null
    return counts.snapshots ? { ...counts, snapshots: { ...counts.snapshots } } : { ...counts }
  }

  return { start, stop, status }
}

module.exports = { createIncidents }

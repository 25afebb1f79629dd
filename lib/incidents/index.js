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
// The unit of each trigger's value, in the lines said on stderr.
const UNITS = { eventLoopDelay: ' ms', cpu: ' %', rss: ' bytes', heapNearLimit: ' %', heapGrowth: ' bytes/min' }

// HH:MM:SS UTC of ms since the epoch.
function clock (ms) {
  return new Date(ms).toISOString().slice(11, 19) + ' UTC'
}
// A heapGrowth snapshot not written → its counter in status().snapshots.
const SNAPSHOT_COUNTER = { busy: 'skipped', space: 'refused', failed: 'failed' }

/**
 * deps: { recorder (lib/recorder/index.js), heap (the heap controller),
 * report(err), changed() (the counters changed: optional) }.
 */
function createIncidents (deps) {
  let active = null
  const counts = { fired: 0, suppressed: 0, failed: 0, last: null, suppressedBy: {} }

  // The file stem of a firing: <kind>-incident-<trigger>-<pid>-<UTC time>.
  function stem (kind, trigger, at) {
    return fileStem(kind, undefined, at).replace(/^(cpu|heap)-/, `$1-incident-${trigger}-`)
  }

  // Whether a firing may write now. A crossing the cooldown would hide
  // fires anyway when it is escalate times the value that last fired
  // (a 1.8 s stall after a 283 ms one); maxPerHour is never passed (it
  // bounds the files). A refusal is counted, in all and per trigger.
  function allowed (run, trigger, now, value) {
    const last = run.lastFired[trigger]
    run.hour = run.hour.filter((t) => now - t < HOUR_MS)
    const cooling = last !== undefined && now - last < run.o.cooldown
    const escalated = cooling && run.o.escalate > 0 && value >= run.o.escalate * run.lastValue[trigger]
    const capped = run.o.maxPerHour > 0 && run.hour.length >= run.o.maxPerHour
    if (capped || (cooling && !escalated)) {
      suppress(run, trigger, value, now, capped ? 'maxPerHour' : 'cooldown')
      return false
    }
    run.lastFired[trigger] = now
    run.lastValue[trigger] = value
    run.hour.push(now)
    return escalated ? 'escalated' : true
  }

  // A crossing that wrote nothing: counted with its trigger's largest
  // suppressed value (status().incidents.suppressedBy), and said once per
  // cooldown (the warm-up's are only counted: start-up noise).
  function suppress (run, trigger, value, now, why) {
    counts.suppressed++
    // the next firing's reason.suppressed: what the cooldown or the cap hid
    if (why !== 'warmup') run.suppressed[trigger] = (run.suppressed[trigger] || 0) + 1
    const by = counts.suppressedBy[trigger] || (counts.suppressedBy[trigger] = { count: 0, largest: null, at: null, cooldown: 0, maxPerHour: 0, warmup: 0 })
    by.count++
    by[why]++
    if (by.largest === null || value > by.largest) {
      by.largest = value
      by.at = now
    }
    if (why !== 'warmup' && run.noted[trigger] !== run.lastFired[trigger]) {
      run.noted[trigger] = run.lastFired[trigger]
      if (deps.suppressed) deps.suppressed(suppressedNote(run, trigger, value, why))
    }
    changed()
  }

  // { trigger, value, why, threshold, lastValue, lastAt, until, fireAt,
  // line }: the one line a cooldown (or the hourly cap) says.
  function suppressedNote (run, trigger, value, why) {
    const lastValue = run.lastValue[trigger]
    const lastAt = run.lastFired[trigger]
    const fireAt = why === 'cooldown' && run.o.escalate > 0 ? run.o.escalate * lastValue : null
    const until = why === 'cooldown' ? lastAt + run.o.cooldown : null
    const unit = UNITS[trigger] || ''
    const line = why === 'cooldown'
      ? `incident ${trigger} ${value}${unit} suppressed by the cooldown of the one at ` +
        `${clock(lastAt)} (${lastValue}${unit}) until ${clock(until)}` +
        (fireAt !== null ? `; ${fireAt}${unit} or more fires anyway` : '') +
        '; status().incidents.suppressedBy counts the rest'
      : `incident ${trigger} ${value}${unit} suppressed: maxPerHour (${run.o.maxPerHour}) firings in the last hour; ` +
        'status().incidents.suppressedBy counts the rest'
    return { trigger, value, why, threshold: heapGrowth.threshold(run.o, trigger), lastValue, lastAt, until, fireAt, line }
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
    const ok = allowed(run, trigger, at, value)
    if (!ok) return
    const reason = { trigger, value, threshold: heapGrowth.threshold(run.o, trigger), at, suppressed: run.suppressed[trigger] || 0 }
    if (ok === 'escalated') reason.escalated = true
    run.suppressed[trigger] = 0
    counts.fired++
    counts.last = reason
    changed()
    if (trigger === 'heapNearLimit') return fireHeap(run, reason)
    if (trigger === 'heapGrowth') {
      // heapGrowth.holders: the report comes later; stop() cancels it
      const holders = run.o.heapGrowth.holders
        ? {
            seconds: run.o.heapGrowth.holders,
            done: (err) => { if (err) deps.report(err) },
            scheduled: (cancel) => { if (active === run) run.stops.push(cancel); else cancel() }
          }
        : null
      return heapGrowth.writeHeapGrowth(deps.recorder, { ...run.dumpOpts, name: stem('heap', trigger, at) },
        reason, run.trend, run.o.heapGrowth.snapshot ? countSnapshot : null, holders)
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
  // previous one was under it (every stall is its own crossing). In the
  // warm-up (warmed: eventLoopDelay and cpu) the bar is escalate times the
  // threshold (escalate 0: no other bar); a value under it is counted, and is not "over", so a CPU
  // still high when the warm-up ends fires then.
  function crossing (run, trigger, warmed = false) {
    let over = false
    return (value) => {
      let now = value >= run.o[trigger]
      if (now && warmed && run.o.escalate > 0 && warmingUp(run) && value < run.o.escalate * run.o[trigger]) {
        suppress(run, trigger, value, Date.now(), 'warmup')
        now = false
      }
      if (now && !over) fire(run, trigger, value)
      over = now
    }
  }

  // The first warmup ms of the process's life (not of init()'s).
  function warmingUp (run) {
    return performance.now() < run.o.warmup
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
    const run = { o, dumpOpts, heapInterval: opts.heapInterval, lastFired: {}, lastValue: {}, noted: {}, suppressed: {}, hour: [], sampling: false, stops: [] }
    if (run.heapInterval === undefined) delete run.heapInterval
    if (o.eventLoopDelay !== null) {
      const measure = guarded(crossing(run, 'eventLoopDelay', true))
      run.stops.push(watchers.watchLoopDelay(o.eventLoopDelay, measure, ownMs, createStartup()))
    }
    if (o.cpu !== null) run.stops.push(watchers.watchCpu(o.cpuWindow, guarded(crossing(run, 'cpu', true)), ownCpuMicros))
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

  /** { fired, suppressed, failed, last: reason | null, suppressedBy?: {
   * [trigger]: { count, largest, at, cooldown, maxPerHour, warmup } } (once
   * one was suppressed), snapshots?: { written, skipped, refused, failed }
   * (once heapGrowth.snapshot was on) }, or null when never started. */
  function status () {
    if (!active && !counts.fired && !counts.suppressed && !counts.failed) return null
    const { suppressedBy, ...out } = counts
    if (counts.suppressed > 0) {
      out.suppressedBy = Object.fromEntries(Object.entries(suppressedBy).map(([t, by]) => [t, { ...by }]))
    }
    if (counts.snapshots) out.snapshots = { ...counts.snapshots }
    return out
  }

  return { start, stop, status }
}

module.exports = { createIncidents }

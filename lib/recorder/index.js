'use strict'
// cprof.recorder: the flight recorder. CPU sampling runs all the time in
// windows (src/addon/recorder.c); finished windows live in a ring in C
// (src/core/ring.c), evicted whole by age (keep) and bytes (maxBytes);
// dump() writes the last seconds as one ordinary profile, merged off the
// main thread. With store, every window is also written to a directory
// (continuous profiling) with retention by age and bytes.
const native = require('../native')
const { prepareDirSync } = require('../dirs')
const options = require('../options')
const { startOptions, dumpOptions } = require('./options')
const { fileStem } = require('../controller')
const { publicOptions } = require('../push/options')
const { series } = require('../push/labels')
const { createPusher } = require('../push/client')
const { TEMPLATE_PATH } = require('../viewer')
const { viewerMarks, heapWindows, keepMarks } = require('./marks')
const { timed } = require('../own-time')
const { removeStale } = require('../stale-temps')
const { shapeResult } = require('../result')
const labels = require('../labels')

/** hooks: { report(err), emitProfile(result), emit(event, value), changed() (status() changed) } */
function createRecorder (hooks) {
  let run = null // { o, timer, transport, waiters: Map<'<kind>:<seq>', resolve>, heapFrom (ms) }
  let intervalUs = options.CPU_INTERVAL_DEFAULT_US
  let heapIntervalBytes = options.HEAP_INTERVAL_DEFAULT_BYTES
  let sourceMaps = null // the last start()'s; null: start()'s default at dump time
  let labelled = false // the last start()'s labels: a CPU dump keeps its windows' labels
  let pusher = null // the last start()'s push client; its counts stay after stop()

  // The ends of the last CPU windows (ms since the epoch), for the
  // viewer's window edges (viewerMarks); bounded, a few KB in a page.
  const windowEnds = []
  function onWindow (info) {
    const r = run
    if (!info.error && info.kind === 'cpu' && info.to > 0) {
      windowEnds.push(info.to)
      if (windowEnds.length > 512) windowEnds.splice(0, windowEnds.length - 512)
    }
    if (info.push) {
      if (r && r.pusher) r.pusher.enqueue(info)
      delete info.push // the event's listeners get no copy of the bytes
    }
    if (info.error) hooks.report(info.error)
    else hooks.emit('window', info)
    if (hooks.changed) hooks.changed()
    const key = `${info.kind}:${info.seq}`
    if (r && r.waiters.has(key)) {
      r.waiters.get(key)(info)
      r.waiters.delete(key)
    }
  }

  // Resolves once window seq (CPU, and heap when one ended with it) is in its ring.
  function waitFor (r, seq, heap) {
    const kinds = heap ? ['cpu', 'heap'] : ['cpu']
    return Promise.all(kinds.map((k) => new Promise((resolve) => r.waiters.set(`${k}:${seq}`, resolve))))
  }

  // Ends the current window (the next one has already started), and the
  // heap window with it when heap, and resolves once they are in the ring.
  function rotate (heap) {
    const r = run
    const seq = timed(() => native.recRotate(heap, windowLabels(r)))
    if (heap) r.heapFrom = Date.now()
    if (seq === 0) return Promise.resolve(null) // lost: someone ended our profile
    return waitFor(r, seq, heap)
  }

  // labels: true: the switches over the window ending now (docs/labels.md);
  // the next one starts here.
  function windowLabels (r) {
    if (!r || !r.o.labels) return undefined
    const args = labels.stopArgs(r.labelsFrom)
    r.labelsFrom = labels.mark()
    return args
  }

  // Whether the CPU window ending now ends a heap window too: heapWindow ms
  // since the last one, less half a CPU window (so 60 s over 10 s windows is
  // every 6th rotation, whatever the timer's drift).
  function heapDue (r) {
    return r.o.heap && Date.now() - r.heapFrom >= r.o.heapWindow - r.o.window / 2
  }

  function tick () {
    try {
      rotate(heapDue(run))
    } catch (err) {
      hooks.report(err)
    }
  }

  /**
   * Starts recording: { window (ms, 10000), keep (ms, 60000), maxBytes
   * (bytes, 16 MiB), interval (µs, 10000), heap (false), heapInterval
   * (bytes, 32768), heapWindow (ms, 60000), trendWindows (15), store: { dir, maxBytes (256 MiB), maxAge (ms, 24 h),
   * formats (['cpuprofile']) }, sourceMaps (on under --enable-source-maps:
   * dumps' derived outputs and summary map frames through source maps) }. Returns { transport, ...those options }.
   */
  function start (arg) {
    const o = startOptions(arg)
    // store.dir is the user's: created 0700, must be a directory (the rule
    // for dir, docs/reliability.md); checked here so start() throws at once.
    if (o.store) prepareDirSync(o.store.dir, false, 'pass store.dir a directory you own')
    if (o.labels) labels.use(o.labels.otel)
    let transport
    try {
      transport = timed(() => native.recStart(nativeStart(o, onWindow)))
    } catch (err) {
      if (o.labels) labels.release(o.labels.otel)
      throw err
    }
    if (o.store) removeStale(o.store.dir) // killed writers' temp files; never rejects
    const timer = setInterval(tick, o.window)
    timer.unref() // recording never keeps the process alive
    if (pusher) pusher.close() // the previous recording's: what it still held is dropped
    pusher = o.push ? createPusher(o.push, series(o.push), hooks) : null
    run = { o, timer, transport, waiters: new Map(), pusher, heapFrom: Date.now(), labelsOn: o.labels, labelsFrom: o.labels ? labels.mark() : null }
    intervalUs = o.interval
    heapIntervalBytes = o.heapInterval
    sourceMaps = o.sourceMaps
    labelled = o.labels
    if (hooks.changed) hooks.changed()
    return { transport, ...o, push: publicOptions(o.push) } // never the token or password
  }

  /** Stops recording; the ring stays for a last dump() until the next start().
   * With push, waits (at most push.timeout ms) for the queued windows'
   * uploads, retries included; what is left then is dropped (counted). */
  async function stop () {
    const r = run
    if (r) clearInterval(r.timer)
    let seq
    try {
      seq = timed(() => native.recStop(windowLabels(r))) // throws ERR_CPROF_NOT_STARTED when not running
    } finally {
      if (r && r.labelsOn) { // once, however many stop() calls
        r.labelsOn = false
        labels.release(r.o.labels.otel)
      }
    }
    if (seq !== 0) await waitFor(r, seq, r.o.heap) // stopping ends the heap window too
    if (r && r.pusher) {
      await r.pusher.flush(r.o.push.timeout)
      r.pusher.close()
    }
    if (hooks.changed) hooks.changed()
    return status()
  }

  /** { running, windows, bytes, from, to (ms since the epoch), evicted, lost, ... } */
  function status () {
    const s = native.recStatus()
    if (!s) return { running: false, windows: 0, bytes: 0, from: null, to: null }
    if (s.windows === 0) { s.from = null; s.to = null }
    if (pusher) s.push = pusher.status()
    return s
  }

  /**
   * Writes the recorded CPU profile of the last `last` ms (default: all
   * kept), the current window included up to now. Recording goes on.
   * Resolves with stop()'s result shape plus from, to (ms since the epoch)
   * and windows. extra: fields added to the result (an incident's reason);
   * finish(result): what the caller writes beside the dump before the
   * 'profile' event (the heapGrowth incident's report, its snapshot).
   */
  async function dump (arg, extra, finish) {
    const o = dumpOptions(arg)
    const heap = o.kind === 'heap'
    // A heap dump is the live heap now: its window ends here (a full GC);
    // a CPU dump leaves the heap window running.
    if (run && native.recStatus().running) await rotate(heap && run.o.heap)
    // The dump ends where its newest window did (the rotation just now, or
    // stop()'s), on the windows' clock: not when this line runs, which a
    // loaded machine can make 100s of ms later, and an incident's firing
    // would map that much early on the profile's time axis (marks.endAt).
    const s = native.recStatus()
    const end = s && (heap ? s.heap && s.heap.windows > 0 && s.heap.to : s.windows > 0 && s.to)
    const stamp = end > 0 ? end : Date.now()
    const stem = o.name || fileStem(o.kind, undefined, stamp).replace(/^(cpu|heap)-/, '$1-recording-')
    const ext = heap ? 'heapprofile' : 'cpuprofile'
    const fileName = `${stem}.${ext}`
    // The newest window end is where the dump ends (its rotation, or
    // stop()'s): not an edge between two of its windows.
    const marks = heap ? viewerMarks(extra, stamp, null, heapWindows(stamp)) : viewerMarks(extra, stamp, windowEnds.slice(0, -1))
    const interval = heap ? heapIntervalBytes : intervalUs
    const d = timed(() => native.recDump({
      lastMs: o.last,
      dir: o.dir,
      name: fileName,
      top: options.TOP_DEFAULT,
      exportOptions: {
        outs: options.formatNames(stem, o.formats),
        interval,
        title: fileName,
        ownDir: o.ownDir, // the default directory: refused unless private (lib/dirs.js)
        htmlTemplate: TEMPLATE_PATH, // formats: ['html'] is the viewer, as at stop()
        sourceMaps: o.sourceMaps ?? sourceMaps ?? options.sourceMapsDefault(),
        // the windows' labels merged, <stem>.labels.json beside it (docs/labels.md)
        ...(labelled && !heap ? { labelsFile: `${stem}.labels.json` } : {}),
        ...marks
      },
      heap
    }))
    const swept = removeStale(o.dir) // the temp files killed writers left there (lib/stale-temps.js)
    let r
    try {
      r = await d.promise
    } catch (err) {
      if (err.result) err.result = shape(err.result, d, heap, interval)
      throw err
    } finally {
      await swept
    }
    const result = { ...shape(r, d, heap, interval), ...extra }
    if (marks.viewerMarks && r.file) await keepMarks(result, r.file.path, marks.viewerMarks, hooks.report)
    try {
      if (finish) await finish(result)
    } finally {
      hooks.emitProfile(result) // with what finish wrote, even if it failed after the dump
    }
    return result
  }

  return {
    start,
    stop,
    status,
    dump,
    isRunning: () => native.recStatus()?.running === true,
    recordsHeap: () => Boolean(run && run.o.heap && native.recStatus()?.running)
  }
}

// startOptions' o as native.recStart takes it.
function nativeStart (o, onWindow) {
  const store = o.store && {
    dir: o.store.dir,
    cpuprofile: o.store.formats.includes('cpuprofile'),
    pprof: o.store.formats.includes('pprof'),
    maxAge: o.store.maxAge,
    maxBytes: o.store.maxBytes,
    lines: o.lines
  }
  // cwd: pushed frames name their files relative to it ("./lib/a.js:fib:3", docs/pyroscope.md)
  const push = o.push && { maxSamples: o.push.maxSamples, maxBytes: o.push.maxProfileBytes, cwd: process.cwd(), lines: o.lines }
  return {
    intervalUs: o.interval,
    keepMs: o.keep,
    maxBytes: o.maxBytes,
    store,
    onWindow,
    heapIntervalBytes: o.heap ? o.heapInterval : 0,
    push,
    trendWindows: o.trendWindows
  }
}

// The result of a dump (lib/result.js): a profile's, plus the recording it
// covers (from, to: ms since the epoch; windows). interval: the recording's
// (µs, or bytes for heap).
function shape (r, d, heap, interval) {
  const fields = heap
    ? { durationMs: d.to - d.from, samples: r.samples, intervalBytes: interval, includeCollected: false }
    : { durationMs: r.durationMs, samples: r.samples, intervalUs: interval }
  return shapeResult(heap ? 'heap' : 'cpu', r, { startTime: d.from, ...fields }, { from: d.from, to: d.to, windows: d.windows })
}

module.exports = { createRecorder }

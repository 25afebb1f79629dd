'use strict'
// cprof's public API: CPU and heap controllers over the native addon.
const { EventEmitter } = require('node:events')
const { pathToFileURL } = require('node:url')
const native = require('./native')
const options = require('./options')
const { createController } = require('./controller')
const { snapshot } = require('./snapshot')
const { isHeapSnapshot, snapshotReport } = require('./snapshot-report')
const { createTriggers } = require('./triggers')
const { createRecorder } = require('./recorder')
const { createIncidents } = require('./incidents')
const { createAnnouncer } = require('./fleet/announce')
const { TEMPLATE_PATH } = require('./viewer')
const labels = require('./labels')

const cprof = new EventEmitter()

// A failure no caller awaits: the 'error' listeners, else one stderr line.
function report (err) {
  if (cprof.listenerCount('error') > 0) {
    try {
      cprof.emit('error', err)
      return
    } catch (listenerErr) {
      err = listenerErr
    }
  }
  const code = err && err.code ? `${err.code}: ` : ''
  process.stderr.write(`cprof: ${code}${err && err.message ? err.message : err}\n`)
}

const announcer = createAnnouncer({ report })

function emitProfile (result) {
  if (result.merged) announcer.merged(result.kind, result)
  else announcer.finished(result.kind, result)
  try {
    cprof.emit('profile', result)
  } catch (err) {
    report(err)
  }
}

// value to the event's listeners, a listener's throw reported; false when
// nobody listens.
function emitTo (event, value) {
  if (cprof.listenerCount(event) === 0) return false
  try {
    cprof.emit(event, value)
  } catch (err) {
    report(err)
  }
  return true
}

// A profile a signal started: the 'start' event (the preload prints it, so
// whoever sent the signal sees it was received; register.js).
function signalStarted (kind, signal, o) {
  const dir = o.dir !== undefined ? o.dir : options[kind === 'cpu' ? 'cpuStartOptions' : 'heapStartOptions']({}).dir
  emitTo('start', { kind, trigger: 'signal', signal, pid: process.pid, timeout: o.timeout, dir })
}

const hooks = {
  report,
  emitProfile,
  signalStarted,
  started: (kind, run) => announcer.running(kind, run),
  failed: (kind, err) => announcer.failed(kind, err)
}

// The url prefix of cprof's own code as V8 names it in call frames: a CPU
// profile's leading samples under it are cprof's start call (V8 samples
// while Profiler.start runs), dropped at stop (src/core/own_start.c).
const OWN_URL = pathToFileURL(__dirname).href + '/'

// What pprof's one Mapping names: the app's main script (under PM2, the
// script PM2 runs, not its container), else node itself (-e, the REPL).
function mainScript () {
  const script = process.env.pm_exec_path || process.argv[1]
  return typeof script === 'string' && script !== '' ? script : process.execPath
}

// 'window': every recorder window once it is in the ring (and the store).
// Its dumps and its state go to the run directory (cprof ps, the fan-out).
const recorder = createRecorder({
  report,
  emitProfile: (result) => {
    announcer.dumped(result)
    try {
      cprof.emit('profile', result)
    } catch (err) {
      report(err)
    }
  },
  changed: () => announcer.recorder(recorderStatus()), // with the incident counters
  emit: (event, value) => {
    try {
      cprof.emit(event, value)
    } catch (err) {
      report(err)
    }
  }
})

// labels: true: withLabels() is tracked while the profile runs; its
// switches count from labelsFrom, the start on the labels' clock.
function cpuStart (o, onTimeout) {
  if (o.labels) {
    labels.use(o.labels.otel)
    o.labelsFrom = labels.mark()
  }
  try {
    return native.cpuStart({ intervalUs: o.interval, timeoutMs: o.timeout, onTimeout })
  } catch (err) {
    if (o.labels) labels.release(o.labels.otel)
    throw err
  }
}

// The stop takes the switches at once (the addon copies them): labels go
// off here, and the job writes <stem>.labels.json beside the profile (its
// result's outputs.labels).
function cpuStop (run) {
  const name = run.o.labels ? run.fileName.replace(/\.cpuprofile$/, '.labels.json') : null
  try {
    return cpuStopJob(run, name ? labels.stopArgs(run.o.labelsFrom, name) : undefined)
  } finally {
    if (run.o.labels) labels.release(run.o.labels.otel)
  }
}

const cpu = createController({
  kind: 'cpu',
  label: 'CPU',
  ext: 'cpuprofile',
  startOptions: options.cpuStartOptions,
  profileOptions: (arg) => options.profileOptions(arg, options.cpuStartOptions),
  nativeStart: cpuStart,
  nativeStop: cpuStop,
  resultFields: (run, r) => ({ durationMs: r.durationMs, samples: r.samples, intervalUs: run.o.interval, transport: run.transport })
}, hooks)

function cpuStopJob (run, labelArgs) {
  return native.cpuStop({
    dir: run.o.dir,
    name: run.fileName,
    top: options.TOP_DEFAULT,
    exportOptions: {
      outs: run.outs, interval: run.o.interval, startTime: run.startTime, title: run.fileName, main: mainScript(), ownUrl: OWN_URL,
      ownDir: run.o.ownDir,
      sourceMaps: run.o.sourceMaps,
      htmlTemplate: TEMPLATE_PATH,
      lines: run.o.lines,
      pprofLines: run.o.lines,
      labels: labelArgs
    }
  })
}

const heap = createController({
  kind: 'heap',
  label: 'heap',
  ext: 'heapprofile',
  startOptions: options.heapStartOptions,
  profileOptions: (arg) => options.profileOptions(arg, options.heapStartOptions),
  nativeStart: (o, onTimeout) => native.heapStart({
    intervalBytes: o.interval, stackDepth: o.stackDepth, includeCollected: o.includeCollected, forceGC: o.forceGC, timeoutMs: o.timeout, onTimeout
  }),
  nativeStop: (run) => native.heapStop({
    dir: run.o.dir,
    name: run.fileName,
    top: options.TOP_DEFAULT,
    stackDepth: run.o.stackDepth,
    exportOptions: {
      outs: run.outs,
      interval: run.o.interval,
      startTime: run.startTime,
      duration: Math.round((run.stoppedAt - run.startedAt) * 1000),
      includeCollected: run.o.includeCollected,
      title: run.fileName,
      main: mainScript(),
      ownDir: run.o.ownDir,
      sourceMaps: run.o.sourceMaps,
      htmlTemplate: TEMPLATE_PATH
    }
  }),
  resultFields: (run, r) => ({
    durationMs: run.stoppedAt - run.startedAt,
    samples: r.samples,
    droppedSamples: r.droppedSamples,
    intervalBytes: run.o.interval,
    includeCollected: run.o.includeCollected,
    // The inspector's stop always runs a full GC; v8.startHeapProfile's only on request.
    gcAtStop: run.transport !== 'v8' || run.o.forceGC
  })
}, hooks)

/** Runs the native core on any .cpuprofile / .heapprofile / .heapsnapshot file. */
async function analyze (file, opts) {
  const o = options.analyzeOptions(file, opts)
  if (await isHeapSnapshot(o.path)) return { kind: 'snapshot', ...await snapshotReport(o.path, o.top) }
  return native.analyze(o)
}

// A crossing the cooldown or the hourly cap hid, once per cooldown: the
// 'suppressed' listeners, else one stderr line.
function suppressed (note) {
  if (!emitTo('suppressed', note)) process.stderr.write(`cprof: ${note.line}\n`)
}

// Incident triggers (init({ incidents })): the recorder's last seconds, or a
// heap profile near the heap limit, written when a threshold is crossed.
const incidents = createIncidents({ recorder, heap, report, suppressed, changed: () => announcer.recorder(recorderStatus()) })

// recorder.status(), with the incident counters once incidents were set.
function recorderStatus () {
  const s = recorder.status()
  const inc = incidents.status()
  return inc ? { ...s, incidents: inc } : s
}

// A snapshot a trigger took (lib/triggers/snapshot-trigger.js): into the
// entry with its request's id and size, and to 'profile' like the others.
function emitSnapshot (result, extra) {
  announcer.finished('snapshot', result, extra)
  try {
    cprof.emit('profile', result)
  } catch (err) {
    report(err)
  }
}

const triggers = createTriggers({ cpu, heap, recorder, incidents }, snapshot, { ...hooks, announcer, emitSnapshot })

Object.assign(cprof, {
  init: triggers.init,
  destroy: triggers.destroy,
  start: cpu.start,
  withLabels: labels.withLabels,
  getLabels: labels.getLabels,
  stop: async (opts) => cpu.stop({}, options.stopOptions(opts, 'stop()')),
  profile: cpu.profile,
  analyze,
  recorder: { start: recorder.start, stop: recorder.stop, status: recorderStatus, dump: (opts) => recorder.dump(opts) },
  heap: { start: heap.start, stop: async (opts) => heap.stop({}, options.stopOptions(opts, 'heap.stop()')), profile: heap.profile, snapshot }
})
module.exports = cprof

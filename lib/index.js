'use strict'
// cprof's public API: a thin state machine over the native addon.
const { EventEmitter } = require('node:events')
const { threadId, isMainThread } = require('node:worker_threads')
const native = require('./native')
const options = require('./options')
const { cprofError } = require('./errors')

const cprof = new EventEmitter()
let cpu = null // the running CPU profile: { startTime, intervalUs, dir, fileName, ... }

// cpu-<pid>-<20261122T082325.123Z>.cpuprofile; workers add -w<threadId>.
function fileName (kind, ext, name, startTime) {
  if (name) return `${name}.${ext}`
  const stamp = new Date(startTime).toISOString().replace(/[-:]/g, '')
  const thread = isMainThread ? '' : `-w${threadId}`
  return `${kind}-${process.pid}${thread}-${stamp}.${ext}`
}

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

function emitProfile (result) {
  try {
    cprof.emit('profile', result)
  } catch (err) {
    report(err)
  }
}

function cpuResult (run, r) {
  const out = {
    kind: 'cpu',
    files: {},
    startTime: run.startTime,
    durationMs: r.durationMs,
    samples: r.samples,
    intervalUs: run.intervalUs,
    summary: r.summary
  }
  if (r.file) out.files.cpuprofile = r.file.path
  return out
}

function deferred () {
  let resolve, reject
  const promise = new Promise((res, rej) => { resolve = res; reject = rej })
  promise.catch(() => {}) // settled for whoever awaits it; never unhandled
  return { promise, resolve, reject }
}

/**
 * Starts a CPU profile. Resolves once V8 samples.
 * @param {number|{timeout?: number, interval?: number, dir?: string, name?: string}} [opts]
 */
async function start (opts) {
  const o = options.cpuStartOptions(opts)
  const run = {
    startTime: Date.now(),
    intervalUs: o.interval,
    dir: o.dir,
    fileName: null,
    finished: deferred(),
    awaited: false
  }
  run.fileName = fileName('cpu', 'cpuprofile', o.name, run.startTime)
  native.cpuStart(o.interval, o.timeout, () => onTimeout(run))
  cpu = run
}

function onTimeout (run) {
  if (cpu !== run) return
  stop().catch((err) => { if (!run.awaited) report(err) })
}

/** Stops the CPU profile, writes it off the main thread, resolves with the result. */
async function stop () {
  const run = cpu
  if (!run) {
    throw cprofError('ERR_CPROF_NOT_STARTED', 'no CPU profile is running: call start() first')
  }
  cpu = null
  let result
  try {
    result = cpuResult(run, await native.cpuStop(run.dir, run.fileName, options.TOP_DEFAULT))
  } catch (err) {
    if (err.result) err.result = cpuResult(run, err.result)
    run.finished.reject(err)
    throw err
  }
  run.finished.resolve(result)
  emitProfile(result)
  return result
}

/** start(), wait `duration` ms (on an unref'd timer), stop(). */
async function profile (opts) {
  const { duration, start: startOpts } = options.profileOptions(opts)
  await start({ ...startOpts, timeout: duration })
  const run = cpu
  run.awaited = true
  return run.finished.promise
}

/** Runs the native core on any .cpuprofile / .heapprofile file. */
async function analyze (file, opts) {
  const o = options.analyzeOptions(file, opts)
  return native.analyze(o.path, o.top, o.nodes)
}

Object.assign(cprof, { start, stop, profile, analyze })
module.exports = cprof

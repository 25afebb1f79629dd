'use strict'
// One state machine for every kind of sampling profile (CPU, heap): start,
// stop, profile(), timeout delivery. The kinds differ only in their options,
// their native calls and the fields of their result.
// node:worker_threads and node:perf_hooks are not loaded up front: every
// module costs the host app resident memory (about 3 MB for these two).
// performance is a global; the thread is only needed for file names.
const { cprofError } = require('./errors')
const { formatNames } = require('./options')
const { timed } = require('./own-time')
const { removeStale } = require('./stale-temps')
const { shapeResult } = require('./result')

// <kind>-<pid>-<20261122T082325.123Z>; worker threads add -w<threadId>; an
// instance of a PM2 app or a node:cluster worker/primary puts
// <app>.<instance> before the pid (lib/identity/process.js fileTag).
function fileStem (kind, name, startTime) {
  if (name) return name
  const stamp = new Date(startTime).toISOString().replace(/[-:]/g, '')
  const { threadId, isMainThread } = require('node:worker_threads')
  const thread = isMainThread ? '' : `-w${threadId}`
  const tag = require('./identity/process').fileTag()
  return `${kind}-${tag ? tag + '-' : ''}${process.pid}${thread}-${stamp}`
}

function fileName (kind, ext, name, startTime) {
  return `${fileStem(kind, name, startTime)}.${ext}`
}

function deferred () {
  let resolve, reject
  const promise = new Promise((res, rej) => { resolve = res; reject = rej })
  promise.catch(() => {}) // settled for whoever awaits it; never unhandled
  return { promise, resolve, reject }
}

/**
 * spec: {
 *   kind: 'cpu' | 'heap', label: 'CPU' | 'heap', ext (the file's extension),
 *   startOptions(arg) → { timeout, dir, name, ... },
 *   profileOptions(arg) → { duration, start },
 *   nativeStart(o, onTimeout), nativeStop(run) → Promise<native result>,
 *   resultFields(run, r) → kind-specific fields of the result (lib/result.js)
 * }
 * hooks: { emitProfile(result), report(err) }
 */
function createController (spec, hooks) {
  let current = null

  const shape = (run, r) => shapeResult(spec.kind, r, { startTime: run.startTime, ...spec.resultFields(run, r) })

  async function start (arg) {
    const o = spec.startOptions(arg)
    const startTime = Date.now()
    const stem = fileStem(spec.kind, o.name, startTime)
    const run = {
      o,
      startTime,
      startedAt: performance.now(),
      fileName: `${stem}.${spec.ext}`,
      outs: formatNames(stem, o.formats),
      finished: deferred(),
      awaited: false
    }
    run.transport = timed(() => spec.nativeStart(o, () => onTimeout(run)))
    current = run
    if (hooks.started) hooks.started(spec.kind, run)
  }

  function onTimeout (run) {
    if (current !== run) return
    stop().catch((err) => { if (!run.awaited) hooks.report(err) })
  }

  // extra: fields added to the result (an incident's reason); quiet: no
  // 'profile' event (a profile ended only to be thrown away); to: { dir,
  // ownDir } of the public stop({ dir }) (options.stopOptions), which
  // replace start()'s.
  async function stop ({ quiet = false, ...extra } = {}, to = {}) {
    const run = current
    if (!run) {
      throw cprofError('ERR_CPROF_NOT_STARTED',
        `no ${spec.label} profile is running: call start() first`)
    }
    current = null
    if (to.dir !== undefined) run.o = { ...run.o, dir: to.dir, ownDir: to.ownDir }
    run.stoppedAt = performance.now()
    let result
    try {
      // The stop holds the main thread while V8 hands over its profile (the
      // inspector's heap stop runs a full GC first: seconds on a large heap).
      const stopping = timed(() => spec.nativeStop(run))
      // Meanwhile, the temp files killed writers left in that directory.
      const swept = removeStale(run.o.dir)
      result = { ...shape(run, await stopping), ...extra }
      await swept
    } catch (err) {
      if (err.result) err.result = shape(run, err.result)
      if (hooks.failed) hooks.failed(spec.kind, err)
      run.finished.reject(err)
      throw err
    }
    run.finished.resolve(result)
    if (!quiet) hooks.emitProfile(result)
    return result
  }

  // The caller awaits the result, so unlike a bare timeout this holds the
  // process open until the profile is written, as awaiting a timer would.
  async function profile (arg) {
    const { duration, start: startOpts } = spec.profileOptions(arg)
    await start({ ...startOpts, timeout: duration })
    const run = current
    run.awaited = true
    const hold = setInterval(() => {}, 2 ** 30)
    try {
      return await run.finished.promise
    } finally {
      clearInterval(hold)
    }
  }

  // The result of the profile running now (however it ends), or null.
  const finished = () => (current ? current.finished.promise : null)

  return { start, stop, profile, finished, isRunning: () => current !== null }
}

module.exports = { createController, fileName, fileStem }

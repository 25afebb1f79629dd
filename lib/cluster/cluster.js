'use strict'
// node:cluster: a primary with cprof initialised passes its trigger on to
// its workers. Its signal (or `cprof trigger --tree`) starts a profile in
// itself and sends { cprof: 'fleet', op: 'start' } to every live worker;
// the next one stops them all; each worker writes its own file and answers
// { op: 'done' } with it; the primary then writes the merged profile
// (lib/cluster/merge-set.js) and reports which workers delivered nothing: one
// that exited, or did not answer within ANSWER_MS after the stop (cprof not
// initialised there).
//
// Over the IPC channel node:cluster already has; the worker's 'message'
// listener does not keep it alive (the channel's count is taken back, as in
// lib/identity/pm2.js).
const { identity, clusterWorkers, loadedCluster } = require('../identity/process')
const { mergeSet } = require('./merge-set')
const { shapeResult } = require('../result')

const ANSWER_MS = 30000

function isFleetMessage (msg) {
  return msg !== null && typeof msg === 'object' && msg.cprof === 'fleet'
}

function send (msg) {
  if (typeof process.send !== 'function' || process.connected === false) return
  try {
    process.send(msg, () => {})
  } catch {}
}

function resultInfo (r) {
  if (!r) return null
  return { files: r.files, samples: r.samples, startTime: r.startTime, durationMs: r.durationMs }
}

/**
 * In a node:cluster worker: answers the primary's start/stop. ctl: { cpu,
 * heap } controllers; startOptions(kind, timeout) → start options; report(err).
 * Returns uninstall().
 */
function installWorker (ctl, startOptions, report) {
  let runs = { cpu: null, heap: null } // the primary's run each profile belongs to: { id, started, stopAsked }

  function onMessage (msg) {
    if (!isFleetMessage(msg) || !ctl[msg.kind]) return
    const k = ctl[msg.kind]
    if (msg.op === 'start') {
      const run = { id: msg.run, started: false, stopAsked: false }
      runs[msg.kind] = run
      Promise.resolve()
        .then(() => k.start(startOptions(msg.kind, msg.timeout)))
        .then(() => {
          run.started = true
          const done = k.finished()
          if (run.stopAsked) k.stop().catch(() => {}) // the stop came while it started
          return done
        })
        .then(
          (r) => send({ cprof: 'fleet', op: 'done', run: msg.run, kind: msg.kind, result: resultInfo(r) }),
          (err) => {
            send({ cprof: 'fleet', op: 'done', run: msg.run, kind: msg.kind, error: { code: err && err.code, message: err && err.message ? err.message : String(err) } })
            report(err)
          })
        .catch(report) // never an unhandled rejection in the app
    } else if (msg.op === 'stop' && runs[msg.kind] && runs[msg.kind].id === msg.run) {
      const run = runs[msg.kind]
      runs[msg.kind] = null
      if (!run.started) run.stopAsked = true
      else if (k.isRunning()) k.stop().catch(() => {}) // its result or error goes out through finished() above
    }
  }

  const channel = process.channel
  process.on('message', onMessage)
  const counted = channel && typeof channel.unrefCounted === 'function'
  if (counted) channel.unrefCounted()
  return function uninstall () {
    runs = { cpu: null, heap: null }
    if (counted && process.channel === channel) channel.refCounted()
    process.removeListener('message', onMessage)
  }
}

/**
 * In a primary: the group of workers a toggle acts on. hooks: { report,
 * emitProfile, announcer }. Returns { toggle(kind, ctl, startOpts) } or
 * null when this process has no live workers.
 */
function createPrimary (hooks) {
  const groups = { cpu: null, heap: null }

  function start (kind, k, opts) {
    const workers = clusterWorkers()
    if (workers.length === 0) return false
    const run = `${process.pid}-${Date.now()}`
    const g = { run, kind, startTime: Date.now(), members: new Map(), opts }
    for (const w of workers) g.members.set(w.id, { worker: w, pid: w.process.pid, id: w.id, result: null, reason: null })
    groups[kind] = g
    const cluster = loadedCluster()
    g.onMessage = (worker, msg) => {
      if (!isFleetMessage(msg) || msg.op !== 'done' || msg.run !== run) return
      const m = g.members.get(worker.id)
      if (!m || m.result || m.reason) return
      if (msg.result) m.result = msg.result
      else m.reason = `failed: ${msg.error && msg.error.code ? msg.error.code + ': ' : ''}${msg.error ? msg.error.message : 'unknown error'}`
      settle(g)
    }
    g.onExit = (worker, code, signal) => {
      const m = g.members.get(worker.id)
      if (!m || m.result || m.reason) return
      m.reason = `exited (${signal || `code ${code}`}) before delivering its profile`
      settle(g)
    }
    cluster.on('message', g.onMessage)
    cluster.on('exit', g.onExit)
    g.own = k.start(opts).then(() => k.finished())
    g.own.catch(() => {})
    // However the primary's own profile ends (its signal, its timer), the
    // workers stop with it.
    g.own.finally(() => stopWorkers(g)).catch(() => {})
    // A callback on every send: without one, a worker whose channel closed
    // before the primary saw its 'exit' makes Node emit an 'error' on the
    // Worker, which nobody listens to: the app's primary would die of it.
    // Such a worker is named missing by onExit (or the stop's deadline).
    for (const m of g.members.values()) {
      try {
        m.worker.send({ cprof: 'fleet', op: 'start', run, kind, timeout: opts.timeout }, () => {})
      } catch {
        m.reason = 'could not be sent the start'
      }
    }
    return true
  }

  function stopWorkers (g) {
    if (g.stopping) return
    g.stopping = true
    for (const m of g.members.values()) {
      if (m.result || m.reason) continue
      try {
        m.worker.send({ cprof: 'fleet', op: 'stop', run: g.run, kind: g.kind }, () => {})
      } catch {}
    }
    g.deadline = setTimeout(() => {
      for (const m of g.members.values()) {
        if (!m.result && !m.reason) m.reason = `did not answer within ${ANSWER_MS / 1000} s (is cprof initialised in the worker?)`
      }
      settle(g)
    }, ANSWER_MS)
    g.deadline.unref()
    settle(g)
  }

  function settle (g) {
    if (!g.stopping || g.done) return
    for (const m of g.members.values()) if (!m.result && !m.reason) return
    g.done = true
    clearTimeout(g.deadline)
    const cluster = loadedCluster()
    cluster.removeListener('message', g.onMessage)
    cluster.removeListener('exit', g.onExit)
    if (groups[g.kind] === g) groups[g.kind] = null
    finish(g).catch((err) => {
      // Say so in the run directory too: cprof trigger --tree waits for it.
      hooks.announcer.merged(g.kind, { startTime: g.startTime, error: { code: err.code, message: err.message } })
      hooks.report(err)
    })
  }

  async function finish (g) {
    const me = identity()
    const members = []
    const own = await g.own.then((r) => r, (err) => ({ error: err }))
    members.push({ pid: process.pid, app: me.app, instance: null, role: 'primary', file: own.error ? null : firstFile(own.files), reason: own.error ? `failed: ${own.error.message}` : null })
    for (const m of g.members.values()) {
      members.push({ pid: m.pid, app: me.app, instance: m.id, role: 'worker', file: m.result ? firstFile(m.result.files) : null, reason: m.reason })
    }
    const merged = await mergeSet(members, {
      kind: g.kind, app: me.app, startTime: g.startTime, formats: g.opts.formats, dir: own.error ? undefined : g.opts.dir
    })
    hooks.emitProfile(shapeResult(g.kind, { files: merged.files, summary: merged.summary },
      { startTime: g.startTime, samples: merged.samples, durationMs: merged.durationMs },
      { merged: true, instances: merged.instances, missing: merged.missing }))
  }

  /** Toggles kind in this primary and its workers; false when it has none (a plain toggle then). */
  function toggle (kind, k, opts) {
    const g = groups[kind]
    if (g && !g.stopping) {
      k.stop().catch(() => {}) // g.own settles; stopWorkers follows
      return true
    }
    if (k.isRunning()) return false // a profile started otherwise: a plain stop
    return start(kind, k, opts)
  }

  return { toggle }
}

function firstFile (files) {
  if (!files) return null
  return files.cpuprofile || files.heapprofile || null
}

module.exports = { installWorker, createPrimary, isFleetMessage, ANSWER_MS }

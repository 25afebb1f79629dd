'use strict'
// cprof.init(config) / cprof.destroy(): profiles started and stopped from
// outside the app, by a signal (src/addon/signal.c) or a PM2 action
// (lib/identity/pm2.js). Every trigger goes through the same controllers as the API,
// so results go to 'profile' and failures to report(); nothing throws into
// the app.
const { invalidArg } = require('../errors')
const { initConfig } = require('./config')
const { TRIGGERS } = require('../incidents/options')
const pm2 = require('../identity/pm2')
const { cpuStartOptions } = require('../options')
const { identity } = require('../identity/process')
const { installWorker, createPrimary } = require('../cluster/cluster')

const SLOT = { cpu: 0, heap: 1, dump: 2 } // src/addon/addon.h: CPROF_SIGNAL_SLOTS
const dumpRequest = require('./dump-request')
const { watchSignal } = require('./signal-watch')
const { resultLine } = require('../result')
const { createSnapshotTrigger } = require('./snapshot-trigger')

// The profile's timer: the trigger's timeout (or the configured one),
// never longer than maxDuration.
function startOptions (c, kind, timeout) {
  const t = timeout !== undefined ? timeout : c.timeout
  const o = { timeout: t > 0 ? Math.min(t, c.maxDuration) : c.maxDuration }
  const interval = kind === 'cpu' ? c.interval : c.heapInterval
  if (interval !== undefined) o.interval = interval
  if (c.dir !== undefined) o.dir = c.dir
  if (c.formats.length) o.formats = c.formats
  if (c.sourceMaps !== undefined) o.sourceMaps = c.sourceMaps
  if (c.labels && kind === 'cpu') o.labels = c.labels
  return o
}

// A PM2 action's parameter: words, "<ms>" (a timeout, or a dump's last)
// and "full" (the reply keeps the summary) → { ms, full }.
function actionParam (param) {
  const out = { ms: undefined, full: false }
  if (param === undefined || param === null) return out
  for (const word of String(param).split(/[\s,]+/).filter(Boolean)) {
    if (word === 'full') {
      out.full = true
      continue
    }
    const ms = Number(word)
    if (!Number.isFinite(ms) || ms < 0 || out.ms !== undefined) {
      throw invalidArg(`the parameter is a timeout in milliseconds >= 0 and/or "full", got ${JSON.stringify(param)}`)
    }
    out.ms = ms
  }
  return out
}

// A profile's reply to `pm2 trigger`: first a line a person reads (the
// file, its length, the top 3 by self time), then the fields a script
// reads; the summary (20 functions, ~3 KB an instance) only with "full".
function profileReply (r, { full }) {
  const { summary, ...rest } = r
  return { line: resultLine(r), ok: true, ...rest, ...(full ? { summary } : {}) }
}

// A dump of the recorder, as its triggers ask: into the configured dir,
// in the configured formats, the last `last` ms (undefined: all kept).
function dumpOptions (c, last) {
  const o = {}
  if (last !== undefined && last > 0) o.last = last
  if (c.dir !== undefined) o.dir = c.dir
  if (c.formats.length) o.formats = c.formats
  return o
}

// The PM2 actions c asks for, over the controllers ctl (lib/identity/pm2.js);
// snap: the guarded snapshot trigger (lib/triggers/snapshot-trigger.js).
function pm2Actions (c, ctl, snapshot, snap) {
  const actions = {}
  if (c.recorder) {
    actions['cprof:dump'] = async (param) => {
      const p = actionParam(param)
      return profileReply(await ctl.recorder.dump(dumpOptions(c, p.ms)), p)
    }
    if (c.recorder.heap === true) {
      actions['cprof:dump:heap'] = async (param) => {
        const p = actionParam(param)
        return profileReply(await ctl.recorder.dump({ ...dumpOptions(c, p.ms), kind: 'heap' }), p)
      }
    }
  }
  for (const kind of ['cpu', 'heap']) {
    if (!c[kind]) continue
    actions[`cprof:${kind}:start`] = async (param) => {
      const o = startOptions(c, kind, actionParam(param).ms)
      await ctl[kind].start(o)
      return { ok: true, kind, started: true, pid: process.pid, stopsAfterMs: o.timeout }
    }
    actions[`cprof:${kind}:stop`] = async (param) => profileReply(await ctl[kind].stop(), actionParam(param))
  }
  if (c.heap) {
    actions['cprof:heap:snapshot'] = async () => {
      const file = await snapshot(c.dir !== undefined ? { dir: c.dir } : undefined)
      return { ok: true, kind: 'heapsnapshot', files: { heapsnapshot: file } }
    }
  }
  actions['cprof:snapshot'] = async () => {
    const r = await snap.take(c, 'pm2', {})
    return { ok: true, kind: 'snapshot', pid: process.pid, file: r.files.heapsnapshot, bytes: r.bytes, durationMs: r.durationMs }
  }
  return actions
}

// The signal `cprof trigger --snapshot` sends with its request: any of
// cprof's takes it (onSignal); null: none installed (PM2's cprof:snapshot only).
function snapshotSignal (c) {
  const sig = c.signal || c.dumpSignal || c.heapSignal
  return sig ? sig.name : null
}

// What init() returns (and announces): what is installed.
function describe (c, actions) {
  return {
    cpu: Boolean(c && c.cpu),
    heap: Boolean(c && c.heap),
    signal: c && c.signal ? c.signal.name : null,
    heapSignal: c && c.heapSignal ? c.heapSignal.name : null,
    recorder: Boolean(c && c.recorder),
    dumpSignal: c && c.dumpSignal ? c.dumpSignal.name : null,
    incidents: c && c.incidents ? TRIGGERS.filter((t) => c.incidents[t] !== null) : [],
    maxDuration: c ? c.maxDuration : null,
    pm2Actions: actions ? Object.keys(actions) : []
  }
}

/**
 * ctl: { cpu, heap } controllers (start, stop, isRunning), recorder
 * (lib/recorder/index.js), incidents (lib/incidents/index.js); snapshot(opts);
 * hooks: { report(err), announcer (lib/fleet/announce.js) }.
 */
function createTriggers (ctl, snapshot, hooks) {
  let active = null // { c, uninstall: [] }

  // A node:cluster primary passes the toggle on to its workers (lib/cluster/cluster.js).
  const primary = createPrimary(hooks)
  const snap = createSnapshotTrigger(snapshot, hooks)

  // Every cprof signal first looks for a `cprof trigger --snapshot` request
  // (lib/triggers/dump-request.js) in this process's run directory: one
  // there means this signal asks for a heap snapshot, not its usual action.
  // A request refused (not this user's regular file) does neither.
  function onSignal (c, action) {
    let req
    try {
      req = dumpRequest.takeSnapshot(hooks.announcer.dir())
    } catch (err) {
      hooks.announcer.failed('snapshot', err, { id: err.request || null })
      hooks.report(err)
      return
    }
    if (req) snap.take(c, 'signal', req).catch(hooks.report)
    else action()
  }

  function toggle (c, kind) {
    const k = ctl[kind]
    try {
      if (primary.toggle(kind, k, startOptions(c, kind))) return
    } catch (err) {
      hooks.report(err)
      return
    }
    if (k.isRunning()) {
      k.stop().catch(hooks.report)
      return
    }
    const o = startOptions(c, kind)
    const sig = kind === 'cpu' ? c.signal : c.heapSignal
    k.start(o).then(() => { if (sig && hooks.signalStarted) hooks.signalStarted(kind, sig.name, o) }, hooks.report)
  }

  // The dump signal: `cprof trigger <pid> --dump --last S` leaves the
  // seconds in a request file in this process's run directory first
  // (lib/triggers/dump-request.js). A request that is there but refused makes no
  // dump: all the recorder holds is not what was asked; the failure goes
  // into the run-directory entry, where the CLI reads it.
  function onDumpSignal (c) {
    let last
    try {
      last = dumpRequest.take(hooks.announcer.dir())
    } catch (err) {
      hooks.announcer.failed('dump', err)
      hooks.report(err)
      return
    }
    ctl.recorder.dump(dumpOptions(c, last)).catch((err) => {
      hooks.announcer.failed('dump', err) // the fan-out names this instance missing, and why
      hooks.report(err)
    })
    if (ctl.recorder.recordsHeap()) ctl.recorder.dump({ ...dumpOptions(c, last), kind: 'heap' }).catch(hooks.report)
  }

  /**
   * Installs the triggers config asks for. Calling it again replaces the
   * previous triggers (a bad config throws and leaves them as they were).
   * Returns what is installed.
   */
  function init (config) {
    const c = initConfig(config)
    if ((c.cpu || c.heap || c.recorder) && !require('node:worker_threads').isMainThread) {
      throw invalidArg('init() installs process-wide triggers (signals, PM2 actions) and works in ' +
        'the main thread only; in a worker thread use start()/stop(), heap.start()/heap.stop() or ' +
        'recorder.start()/recorder.dump()')
    }
    destroy()
    if (!c.cpu && !c.heap && !c.recorder) return describe(null, null)
    const state = { c, uninstall: [] }
    try {
      if (c.recorder) {
        // init's sourceMaps (CPROF_SOURCE_MAPS) applies to the recorder's dumps too,
        // unless recorder: { sourceMaps } says otherwise.
        const sm = c.recorder.sourceMaps === undefined ? c.sourceMaps : c.recorder.sourceMaps
        ctl.recorder.start(sm === undefined ? c.recorder : { ...c.recorder, sourceMaps: sm })
        state.uninstall.push(() => { if (ctl.recorder.isRunning()) ctl.recorder.stop().catch(hooks.report) })
        state.uninstall.push(watchSignal(SLOT.dump, c.dumpSignal, () => onSignal(c, () => onDumpSignal(c))))
      }
      if (c.incidents) {
        ctl.incidents.start(c.incidents, { dir: c.dir, formats: c.formats, heapInterval: c.heapInterval })
        state.uninstall.push(() => ctl.incidents.stop())
      }
      for (const kind of ['cpu', 'heap']) {
        const sig = kind === 'cpu' ? c.signal : c.heapSignal
        if (!sig) continue
        state.uninstall.push(watchSignal(SLOT[kind], sig, () => onSignal(c, () => toggle(c, kind))))
      }
      if (identity().role === 'worker') {
        state.uninstall.push(installWorker(ctl, (kind, timeout) => startOptions(c, kind, timeout), hooks.report))
      }
      let actions = null
      if (pm2.underPm2()) {
        actions = pm2Actions(c, ctl, snapshot, snap)
        state.uninstall.push(pm2.installActions(actions, hooks.report))
      }
      active = state
      const installed = describe(c, actions)
      hooks.announcer.start({
        dir: c.dir !== undefined ? c.dir : cpuStartOptions({}).dir,
        triggers: { ...installed, pm2Actions: installed.pm2Actions.length > 0, snapshotSignal: snapshotSignal(c) }
      })
      return installed
    } catch (err) {
      for (const undo of state.uninstall.reverse()) undo()
      throw err
    }
  }

  /**
   * Removes every trigger (signal handlers, PM2 listener). Profiles already
   * running keep running until their timer or stop(). Safe to call anytime.
   */
  function destroy () {
    const state = active
    active = null
    if (!state) return
    hooks.announcer.stop()
    for (const undo of state.uninstall.reverse()) {
      try {
        undo()
      } catch (err) {
        hooks.report(err)
      }
    }
  }

  return { init, destroy }
}

module.exports = { createTriggers }

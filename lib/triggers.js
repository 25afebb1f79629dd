'use strict'
// cprof.init(config) / cprof.destroy(): profiles started and stopped from
// outside the app, by a signal (src/addon/signal.c) or a PM2 action
// (lib/pm2.js). Every trigger goes through the same controllers as the API,
// so results go to 'profile' and failures to report(); nothing throws into
// the app.
const native = require('./native')
const { invalidArg } = require('./errors')
const { initConfig } = require('./trigger-config')
const pm2 = require('./pm2')

const SLOT = { cpu: 0, heap: 1 } // src/addon/addon.h: CPROF_SIGNAL_SLOTS

/**
 * ctl: { cpu, heap } controllers (start, stop, isRunning); snapshot(opts);
 * hooks: { report(err) }.
 */
function createTriggers (ctl, snapshot, hooks) {
  let active = null // { c, uninstall: [] }

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
    return o
  }

  function toggle (c, kind) {
    const k = ctl[kind]
    const p = k.isRunning() ? k.stop() : k.start(startOptions(c, kind))
    p.catch(hooks.report)
  }

  function timeoutParam (param) {
    if (param === undefined || param === null || param === '') return undefined
    const ms = Number(param)
    if (!Number.isFinite(ms) || ms < 0) {
      throw invalidArg(`the parameter is a timeout in milliseconds >= 0, got ${JSON.stringify(param)}`)
    }
    return ms
  }

  function pm2Actions (c) {
    const actions = {}
    for (const kind of ['cpu', 'heap']) {
      if (!c[kind]) continue
      actions[`cprof:${kind}:start`] = async (param) => {
        const o = startOptions(c, kind, timeoutParam(param))
        await ctl[kind].start(o)
        return { ok: true, kind, started: true, pid: process.pid, stopsAfterMs: o.timeout }
      }
      actions[`cprof:${kind}:stop`] = async () => ({ ok: true, ...(await ctl[kind].stop()) })
    }
    if (c.heap) {
      actions['cprof:heap:snapshot'] = async () => {
        const file = await snapshot(c.dir !== undefined ? { dir: c.dir } : undefined)
        return { ok: true, kind: 'heapsnapshot', files: { heapsnapshot: file } }
      }
    }
    return actions
  }

  function describe (c, actions) {
    return {
      cpu: Boolean(c && c.cpu),
      heap: Boolean(c && c.heap),
      signal: c && c.signal ? c.signal.name : null,
      heapSignal: c && c.heapSignal ? c.heapSignal.name : null,
      maxDuration: c ? c.maxDuration : null,
      pm2Actions: actions ? Object.keys(actions) : []
    }
  }

  /**
   * Installs the triggers config asks for. Calling it again replaces the
   * previous triggers (a bad config throws and leaves them as they were).
   * Returns what is installed.
   */
  function init (config) {
    const c = initConfig(config)
    if ((c.cpu || c.heap) && !require('node:worker_threads').isMainThread) {
      throw invalidArg('init() installs process-wide triggers (signals, PM2 actions) and works in ' +
        'the main thread only; in a worker thread use start()/stop() or heap.start()/heap.stop()')
    }
    destroy()
    if (!c.cpu && !c.heap) return describe(null, null)
    const state = { c, uninstall: [] }
    try {
      for (const kind of ['cpu', 'heap']) {
        const sig = kind === 'cpu' ? c.signal : c.heapSignal
        if (!sig) continue
        native.signalWatch(SLOT[kind], sig.number, () => toggle(c, kind))
        state.uninstall.push(() => native.signalUnwatch(SLOT[kind]))
      }
      let actions = null
      if (pm2.underPm2()) {
        actions = pm2Actions(c)
        state.uninstall.push(pm2.installActions(actions, hooks.report))
      }
      active = state
      return describe(c, actions)
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

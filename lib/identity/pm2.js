'use strict'
// PM2 custom actions, over PM2's own IPC protocol (the one @pm2/io and PM2's
// bundled pm2-io-bpm speak; see pm2/lib/God/ActionMethods.js msgProcess and
// pm2/lib/API/Extra.js trigger):
//
//   app → PM2   { type: 'axm:action', data: { action_name, action_type: 'custom', arity, opts } }
//               registers an action (the daemon keeps it in pm2_env.axm_actions)
//   PM2 → app   'name'                                   (`pm2 trigger <app> <name>`)
//               { msg: 'name', opts: 'param', id|name }  (`pm2 trigger <app> <name> <param>`)
//   app → PM2   { type: 'axm:reply', data: { at, action_name, return } }
//               `pm2 trigger` prints `[app:id:namespace]=<JSON of return>` and exits
//
// The 'message' listener must not keep the process alive: Node refs the IPC
// channel for each 'message' listener; this one takes its count back.

/**
 * The environment PM2 gives the app. In cluster mode PM2 forks its
 * ProcessContainer.js with the app's whole environment in one variable,
 * pm2_env (JSON), and copies it into process.env only when that script
 * runs: after the preload (-r cprof/register). So a preload (and anything
 * before the app) reads it from pm2_env; what is in process.env wins.
 * Objects (PM2's io) become JSON, as fork mode passes them.
 */
function startEnv (env = process.env) {
  if (typeof env.pm2_env !== 'string' || env.pm_id !== undefined) return env
  let pe
  try {
    pe = JSON.parse(env.pm2_env)
  } catch {
    return env
  }
  if (pe === null || typeof pe !== 'object') return env
  const out = {}
  for (const [k, v] of Object.entries(pe)) {
    if (v === null || v === undefined || k === 'env') continue
    out[k] = typeof v === 'object' ? JSON.stringify(v) : String(v)
  }
  return { ...out, ...env }
}

/** Running under PM2: an IPC channel to the daemon and PM2's markers. */
function underPm2 (env = startEnv()) {
  return typeof process.send === 'function' && env.pm_id !== undefined && env.pm_id !== ''
}

function send (message) {
  if (typeof process.send !== 'function' || process.connected === false) return
  try {
    // With a callback, a failed send is passed to it instead of 'error'.
    process.send(message, () => {})
  } catch {
    // The daemon went away: nothing to tell it.
  }
}

/**
 * Registers actions: { [name]: async (param) => return value }. A handler's
 * rejection becomes the reply { ok: false, error: { code, message } } and
 * goes to onError. Returns uninstall().
 */
// `pm2 trigger` (PM2 7.0.4, lib/API/Extra.js) exits when it has counted as
// many replies as the daemon's answer says processes got the command; a reply
// that reaches it before that answer is counted against 0 and the CLI never
// exits. cprof's quick replies (start, errors) could win that race (seen in
// CI), so replies wait a moment; the timer is unref'd.
const REPLY_DELAY_MS = 100

function installActions (actions, onError) {
  const names = Object.keys(actions)
  const reply = (name, value) => {
    const data = { at: Date.now(), action_name: name, return: value }
    setTimeout(() => send({ type: 'axm:reply', data }), REPLY_DELAY_MS).unref()
  }

  function onMessage (msg) {
    const name = typeof msg === 'string' ? msg : msg !== null && typeof msg === 'object' ? msg.msg : undefined
    if (typeof name !== 'string' || !Object.hasOwn(actions, name)) return
    const param = msg !== null && typeof msg === 'object' ? msg.opts : undefined
    Promise.resolve()
      .then(() => actions[name](param))
      .then(
        (value) => reply(name, value),
        (err) => {
          const error = { code: err && err.code, message: err && err.message ? err.message : String(err) }
          reply(name, { ok: false, error, ...(err && err.result ? { result: err.result } : {}) })
          onError(err)
        })
  }

  const channel = process.channel
  process.on('message', onMessage)
  const counted = channel && typeof channel.unrefCounted === 'function'
  if (counted) channel.unrefCounted()
  for (const name of names) {
    send({ type: 'axm:action', data: { action_name: name, action_type: 'custom', arity: 2, opts: null } })
  }

  return function uninstall () {
    if (counted && process.channel === channel) channel.refCounted() // removeListener takes it back
    process.removeListener('message', onMessage)
  }
}

module.exports = { underPm2, installActions, startEnv }

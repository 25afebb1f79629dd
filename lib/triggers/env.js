'use strict'
// The preload's configuration (register.js) read from the environment:
// PM2's `io` variable, the CPROF_* variables over it, CPROF_RECORDER_* and
// CPROF_PUSH_* into the recorder's options, CPROF_ON_* into incidents'.
// A bad value → ERR_CPROF_INVALID_ARG naming the variable, not the key.
const { invalidArg } = require('../errors')
const { envNumber, envFlag, envLabels } = require('../validate')
const { startOptions: recorderStartOptions } = require('../recorder/options')
const { parseLabels } = require('../push/options')
const { envIncidents } = require('../incidents/options')
const { INIT_KEYS, initConfig } = require('./config')

// Environment variable → init() key, and how its text is read.
const ENV_VARS = [
  ['CPROF_PROFILING', 'profiling', envProfiling],
  ['CPROF_SIGNAL', 'signal', (s) => s],
  ['CPROF_HEAP_SIGNAL', 'heapSignal', (s) => s],
  ['CPROF_DIR', 'dir', (s) => s],
  ['CPROF_TIMEOUT', 'timeout', envNumber],
  ['CPROF_MAX_DURATION', 'maxDuration', envNumber],
  ['CPROF_INTERVAL', 'interval', envNumber],
  ['CPROF_HEAP_INTERVAL', 'heapInterval', envNumber],
  ['CPROF_FORMATS', 'formats', (s) => s.split(',').map((f) => f.trim()).filter(Boolean)],
  ['CPROF_DUMP_SIGNAL', 'dumpSignal', (s) => s],
  ['CPROF_SOURCE_MAPS', 'sourceMaps', envFlag],
  ['CPROF_LABELS', 'labels', envLabels]
]

// CPROF_RECORDER=1 and its options → init()'s recorder object.
const RECORDER_VARS = [
  ['CPROF_RECORDER_WINDOW', 'window'],
  ['CPROF_RECORDER_KEEP', 'keep'],
  ['CPROF_RECORDER_MAX_BYTES', 'maxBytes'],
  ['CPROF_RECORDER_INTERVAL', 'interval'],
  ['CPROF_RECORDER_HEAP', 'heap'],
  ['CPROF_RECORDER_HEAP_INTERVAL', 'heapInterval'],
  ['CPROF_RECORDER_HEAP_WINDOW', 'heapWindow'],
  ['CPROF_RECORDER_TREND_WINDOWS', 'trendWindows'],
  ['CPROF_RECORDER_STORE', 'store.dir'],
  ['CPROF_RECORDER_STORE_MAX_BYTES', 'store.maxBytes'],
  ['CPROF_RECORDER_STORE_MAX_AGE', 'store.maxAge'],
  ['CPROF_RECORDER_STORE_FORMATS', 'store.formats'],
  ['CPROF_RECORDER_LABELS', 'labels'],
  // Push to Grafana Pyroscope (docs/pyroscope.md); CPROF_PUSH_URL alone
  // switches the recorder on.
  ['CPROF_PUSH_URL', 'push.url'],
  ['CPROF_PUSH_APP', 'push.app'],
  ['CPROF_PUSH_LABELS', 'push.labels'],
  ['CPROF_PUSH_TOKEN', 'push.token'],
  ['CPROF_PUSH_USER', 'push.user'],
  ['CPROF_PUSH_PASSWORD', 'push.password'],
  ['CPROF_PUSH_TENANT', 'push.tenant'],
  ['CPROF_PUSH_TIMEOUT', 'push.timeout'],
  ['CPROF_PUSH_QUEUE_BYTES', 'push.queueBytes']
]
const PUSH_TEXT = ['push.url', 'push.app', 'push.token', 'push.user', 'push.password', 'push.tenant']

function envRecorder (env) {
  const on = env.CPROF_RECORDER
  const push = env.CPROF_PUSH_URL !== undefined && env.CPROF_PUSH_URL !== ''
  const orphan = !push && RECORDER_VARS.find(([name, key]) => key.startsWith('push.') && env[name])
  if (orphan) throw invalidArg(`${orphan[0]} is set but CPROF_PUSH_URL (the Pyroscope server) is not`)
  if (on === undefined && !push) return undefined
  let enabled = true
  try {
    if (on !== undefined) enabled = envProfiling(on) === true
  } catch {
    throw invalidArg(`CPROF_RECORDER=${JSON.stringify(on.slice(0, 40))}: must be 1 or 0 (true/false, on/off, yes/no)`)
  }
  if (!enabled && push) throw invalidArg('CPROF_PUSH_URL is set but CPROF_RECORDER=0: pushing needs the recorder')
  if (!enabled) return false
  const rec = {}
  for (const [name, key] of RECORDER_VARS) {
    const text = env[name]
    if (text === undefined || text === '') continue
    let value
    try {
      value = key === 'store.dir' || PUSH_TEXT.includes(key) ? text
        : key === 'heap' ? envFlag(text)
        : key === 'labels' ? envLabels(text)
        : key === 'store.formats' ? text.split(',').map((f) => f.trim()).filter(Boolean)
        : key === 'push.labels' ? parseLabels(text)
          : envNumber(text)
    } catch (err) {
      // Never echo a secret.
      const shown = /TOKEN|PASSWORD/.test(name) ? '…' : JSON.stringify(text.slice(0, 40))
      throw invalidArg(`${name}=${shown}: ${err.message}`)
    }
    if (key.startsWith('push.')) {
      if (!push) throw invalidArg(`${name} is set but CPROF_PUSH_URL (the Pyroscope server) is not`)
      rec.push = { ...rec.push, [key.slice(5)]: value }
    } else if (key.startsWith('store.')) {
      if (key !== 'store.dir' && env.CPROF_RECORDER_STORE === undefined) {
        throw invalidArg(`${name} is set but CPROF_RECORDER_STORE (the store directory) is not`)
      }
      rec.store = { ...rec.store, [key.slice(6)]: value }
    } else {
      rec[key] = value
    }
  }
  try {
    recorderStartOptions(rec)
  } catch (err) {
    const entry = RECORDER_VARS.find(([, key]) => err.message.startsWith(key))
    if (entry) err.message = `${entry[0]}: ${err.message}`
    else if (err.message.startsWith('push')) err.message = `CPROF_PUSH_*: ${err.message}`
    throw err
  }
  return rec
}

function envProfiling (text) {
  const s = text.trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(s)) return true
  if (['0', 'false', 'no', 'off', ''].includes(s)) return false
  const parts = s.split(',').map((p) => p.trim())
  if (parts.every((p) => p === 'cpu' || p === 'heap')) {
    return { cpu: parts.includes('cpu'), heap: parts.includes('heap') }
  }
  throw new Error('must be 1 or 0 (true/false, on/off, yes/no), or a list of cpu and heap such as "cpu,heap"')
}

/**
 * The preload's config: PM2's `io` variable (the JSON of an ecosystem app's
 * `io` object; its init() keys are read, others such as `conf` belong to PM2),
 * then the CPROF_* variables on top. Returns null when profiling is not
 * switched on. Throws ERR_CPROF_INVALID_ARG naming the variable at fault.
 */
function envConfig (env = process.env) {
  const config = {}
  if (env.io !== undefined && env.io !== '') {
    let io
    try {
      io = JSON.parse(env.io)
    } catch (err) {
      throw invalidArg(`the io environment variable is not JSON: ${err.message}`)
    }
    if (io !== null && typeof io === 'object' && !Array.isArray(io)) {
      for (const key of INIT_KEYS) if (io[key] !== undefined) config[key] = io[key]
    }
  }
  for (const [name, key, read] of ENV_VARS) {
    if (env[name] === undefined) continue
    if (key === 'dir' && env[name] === '') continue // as start(): an empty CPROF_DIR is unset
    try {
      config[key] = read(env[name])
    } catch (err) {
      throw invalidArg(`${name}=${JSON.stringify(env[name].slice(0, 40))}: ${err.message}`)
    }
  }
  const rec = envRecorder(env)
  if (rec !== undefined) config.recorder = rec
  const inc = envIncidents(env) // CPROF_ON_* over PM2's io.incidents
  if (inc !== undefined) {
    const io = config.incidents !== null && typeof config.incidents === 'object' ? config.incidents : {}
    config.incidents = { ...io, ...inc }
  }
  if (!config.recorder && !config.incidents && (config.profiling === undefined || config.profiling === false)) return null
  try {
    initConfig(config)
  } catch (err) {
    // Name the variable, not the init() key.
    const entry = ENV_VARS.find(([name, key]) => env[name] !== undefined && err.message.startsWith(key))
    if (entry) err.message = `${entry[0]}: ${err.message}`
    throw err
  }
  return config
}

module.exports = { ENV_VARS, envConfig }

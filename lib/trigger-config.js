'use strict'
// The configuration of cprof.init() and of the preload (register.js):
// checking init(config), and reading it from the environment (CPROF_* and
// PM2's `io` variable). Wrong type or range → ERR_CPROF_INVALID_ARG.
const os = require('node:os')
const { invalidArg } = require('./errors')
const { describe, invalid, isObject, validateKeys, validateBoolean, validateString, validateMs, validateInteger, envNumber } = require('./validate')
const { startOptions: recorderStartOptions } = require('./recorder/options')
const { CPU_INTERVAL_RANGE_US, HEAP_INTERVAL_RANGE_BYTES, FORMAT_EXT } = require('./options')
const { incidentsOption, envIncidents } = require('./incidents/options')

const MAX_DURATION_DEFAULT_MS = 10 * 60 * 1000
const DEFAULT_SIGNAL = 'SIGUSR2'
const INIT_KEYS = ['profiling', 'signal', 'heapSignal', 'dir', 'timeout', 'maxDuration', 'interval', 'heapInterval', 'formats', 'recorder', 'dumpSignal', 'sourceMaps', 'incidents']
const INIT_FORMATS = ['cpuprofile', 'heapprofile', ...Object.keys(FORMAT_EXT)]

// Signals that can never be triggers, by number (aliases such as SIGIOT
// included), and why. src/addon/signal.c refuses the same ones.
const REFUSED = new Map()
function refuse (names, why) {
  for (const name of names) REFUSED.set(os.constants.signals[name], why)
}
refuse(['SIGUSR1'], 'Node.js uses it to open the inspector')
refuse(['SIGINT', 'SIGTERM'], 'it asks the process to stop')
refuse(['SIGKILL', 'SIGSTOP'], 'it cannot be caught')
refuse(['SIGPROF'], "V8's CPU sampler uses it")
refuse(['SIGCHLD'], 'libuv uses it to watch child processes')
refuse(['SIGPIPE'], 'Node.js ignores it: writes to closed sockets raise it')
refuse(['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGABRT', 'SIGTRAP', 'SIGSYS'],
  'it reports a fault and cannot be handled later on the event loop')

/** 'SIGUSR2', 'sigusr2' or 'USR2' → { name: 'SIGUSR2', number: 12 }. */
function parseSignal (value, what = 'signal') {
  if (typeof value !== 'string' || value === '') {
    throw invalid(`${what} must be a signal name such as "SIGUSR2"`, value)
  }
  const upper = value.toUpperCase()
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`
  const number = Object.hasOwn(os.constants.signals, name) ? os.constants.signals[name] : undefined
  if (number === undefined) {
    throw invalidArg(`${what}: ${JSON.stringify(value)} is not a signal this system knows ` +
      '(use a name such as "SIGUSR2", "SIGURG" or "SIGWINCH")')
  }
  if (REFUSED.has(number)) {
    throw invalidArg(`${what}: ${name} cannot be a cprof trigger: ${REFUSED.get(number)}`)
  }
  return { name, number }
}

function profilingOption (value) {
  if (value === undefined || value === true) return { cpu: true, heap: true }
  if (value === false) return { cpu: false, heap: false }
  if (!isObject(value)) throw invalid('profiling must be a boolean or { cpu, heap }', value)
  validateKeys(value, ['cpu', 'heap'], 'in profiling', 'key')
  return { cpu: validateBoolean(value.cpu, 'profiling.cpu', false), heap: validateBoolean(value.heap, 'profiling.heap', false) }
}

/**
 * init(config) → {
 *   cpu, heap: booleans (what is switched on),
 *   signal: { name, number } | null, heapSignal: { name, number } | null,
 *   dir: string | undefined, timeout: ms (0: none), maxDuration: ms,
 *   interval: µs | undefined, heapInterval: bytes | undefined,
 *   formats: string[] (for both kinds; each kind skips the other's own format),
 *   sourceMaps: boolean | undefined (undefined: start()'s default),
 *   recorder: recorder.start() options | null ({} when only incidents ask for it),
 *   incidents: lib/incidents/options.js's object | null
 * }
 */
function initConfig (config) {
  if (config === undefined || config === null) config = {}
  if (!isObject(config)) throw invalid('init() takes a config object', config)
  validateKeys(config, INIT_KEYS, 'for init()')
  const incidents = incidentsOption(config.incidents)
  if (incidents && config.recorder === false) {
    throw invalidArg('incidents need the flight recorder (they write its last seconds): ' +
      'leave recorder unset (it starts with its defaults) or set it to true or { ...options }')
  }
  // Incidents write the recorder's last seconds: they start it with its
  // defaults when init() does not configure it.
  let recorder = recorderOption(config.recorder) || (incidents ? {} : null)
  if (incidents && incidents.heapGrowth) { // it reads the heap windows' trend
    if (recorder.heap === false) throw invalidArg('incidents.heapGrowth needs the recorder\'s heap windows: leave recorder.heap unset or true')
    recorder = { ...recorder, heap: true }
  }
  // With the recorder on, CPU sampling is always running: a dump gives the
  // last seconds, so profiling defaults to off. Asked for (profiling: true,
  // CPROF_PROFILING=1), the CPU toggle runs beside the recorder: V8 runs
  // several CPU profiles at once (docs/recorder.md).
  const { cpu, heap } = profilingOption(config.profiling === undefined && recorder ? false : config.profiling)
  if (config.dumpSignal !== undefined && !recorder) {
    throw invalidArg('dumpSignal is set but the recorder is off (set recorder: true or { ...options })')
  }
  const dumpSignal = recorder
    ? parseSignal(config.dumpSignal !== undefined ? config.dumpSignal
      : config.signal !== undefined ? config.signal : DEFAULT_SIGNAL, 'dumpSignal')
    : null
  const parsed = parseSignal(config.signal === undefined ? DEFAULT_SIGNAL : config.signal, 'signal')
  // One signal, one meaning: the dump keeps it (it defaults to signal), and
  // the CPU toggle beside the recorder has a signal only when dumpSignal is
  // another one; else PM2 actions and the API drive it.
  const signal = cpu && !(dumpSignal && dumpSignal.number === parsed.number) ? parsed : null
  const heapSignal = config.heapSignal === undefined ? null : parseSignal(config.heapSignal, 'heapSignal')
  if (heapSignal && signal && heapSignal.number === signal.number) {
    throw invalidArg(`heapSignal and signal must differ, both are ${signal.name}`)
  }
  if (heapSignal && dumpSignal && heapSignal.number === dumpSignal.number) {
    throw invalidArg(`heapSignal and dumpSignal must differ, both are ${dumpSignal.name}`)
  }
  if (heapSignal && !heap) {
    throw invalidArg('heapSignal is set but heap profiling is off (profiling.heap is not true)')
  }
  return {
    cpu,
    heap,
    signal,
    heapSignal,
    dir: validateString(config.dir, 'dir', undefined, 'a directory path'),
    timeout: validateMs(config.timeout, 'timeout', 0),
    maxDuration: validateMs(config.maxDuration, 'maxDuration', MAX_DURATION_DEFAULT_MS, { positive: true }),
    interval: validateInteger(config.interval, 'interval', CPU_INTERVAL_RANGE_US, 'µs'),
    heapInterval: validateInteger(config.heapInterval, 'heapInterval', HEAP_INTERVAL_RANGE_BYTES, 'bytes'),
    formats: initFormats(config.formats),
    recorder,
    dumpSignal,
    sourceMaps: validateBoolean(config.sourceMaps, 'sourceMaps'), // undefined: start()'s default
    incidents
  }
}

// recorder: true | false | recorder.start() options (checked there).
function recorderOption (value) {
  if (value === undefined || value === false) return null
  if (value === true) return {}
  if (!isObject(value)) throw invalid('recorder must be a boolean or recorder.start() options', value)
  recorderStartOptions(value) // throws on a bad option, naming it
  return value
}

// One list for CPU and heap profiles: 'cpuprofile' and 'heapprofile' are
// each kind's own file, always written; the rest apply to both.
function initFormats (value) {
  if (value === undefined) return []
  if (!Array.isArray(value) || !value.every((f) => INIT_FORMATS.includes(f))) {
    throw invalidArg(`formats must be an array of ${INIT_FORMATS.map((f) => `'${f}'`).join(', ')}, ` +
      `got ${Array.isArray(value) ? JSON.stringify(value) : describe(value)}`)
  }
  return value.filter((f, i) => FORMAT_EXT[f] && value.indexOf(f) === i)
}

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
  ['CPROF_SOURCE_MAPS', 'sourceMaps', envFlag]
]

// CPROF_RECORDER=1 and its options → init()'s recorder object.
const RECORDER_VARS = [
  ['CPROF_RECORDER_WINDOW', 'window'],
  ['CPROF_RECORDER_KEEP', 'keep'],
  ['CPROF_RECORDER_MAX_BYTES', 'maxBytes'],
  ['CPROF_RECORDER_INTERVAL', 'interval'],
  ['CPROF_RECORDER_HEAP', 'heap'],
  ['CPROF_RECORDER_HEAP_INTERVAL', 'heapInterval'],
  ['CPROF_RECORDER_TREND_WINDOWS', 'trendWindows'],
  ['CPROF_RECORDER_STORE', 'store.dir'],
  ['CPROF_RECORDER_STORE_MAX_BYTES', 'store.maxBytes'],
  ['CPROF_RECORDER_STORE_MAX_AGE', 'store.maxAge'],
  ['CPROF_RECORDER_STORE_FORMATS', 'store.formats'],
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

function envFlag (text) {
  const s = text.trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(s)) return true
  if (['0', 'false', 'no', 'off'].includes(s)) return false
  throw new Error('must be 1 or 0 (true/false, on/off, yes/no)')
}

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
        : key === 'store.formats' ? text.split(',').map((f) => f.trim()).filter(Boolean)
        : key === 'push.labels' ? require('./push/options').parseLabels(text)
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

module.exports = {
  MAX_DURATION_DEFAULT_MS,
  DEFAULT_SIGNAL,
  INIT_KEYS,
  ENV_VARS,
  parseSignal,
  initConfig,
  envConfig
}

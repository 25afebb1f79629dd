'use strict'
// cprof.init(config) checked (lib/validate.js's vocabulary): what it
// switches on, its signals (./signals.js), and the recorder and incidents it
// implies. Wrong type or range → ERR_CPROF_INVALID_ARG. The preload reads the
// same config from the environment (./env.js).
const { invalidArg } = require('../errors')
const { describe, invalid, isObject, validateKeys, validateBoolean, validateLabels, validatePath, validateMs, validateInteger } = require('../validate')
const { startOptions: recorderStartOptions } = require('../recorder/options')
const { CPU_INTERVAL_RANGE_US, HEAP_INTERVAL_RANGE_BYTES, FORMAT_EXT } = require('../options')
const { incidentsOption } = require('../incidents/options')
const { DEFAULT_SIGNAL, parseSignal } = require('./signals')

const MAX_DURATION_DEFAULT_MS = 10 * 60 * 1000
const INIT_KEYS = ['profiling', 'signal', 'heapSignal', 'dir', 'timeout', 'maxDuration', 'interval', 'heapInterval', 'formats', 'recorder', 'dumpSignal', 'sourceMaps', 'labels', 'incidents']
const INIT_FORMATS = ['cpuprofile', 'heapprofile', ...Object.keys(FORMAT_EXT)]

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
 *   labels: boolean (CPU profiles carry withLabels()'s labels, docs/labels.md),
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
    heapGrowthReachable(incidents.heapGrowth, recorderStartOptions(recorder))
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
    dir: validatePath(config.dir, 'dir', undefined, 'a directory path'),
    timeout: validateMs(config.timeout, 'timeout', 0),
    maxDuration: validateMs(config.maxDuration, 'maxDuration', MAX_DURATION_DEFAULT_MS, { positive: true }),
    interval: validateInteger(config.interval, 'interval', CPU_INTERVAL_RANGE_US, 'µs'),
    heapInterval: validateInteger(config.heapInterval, 'heapInterval', HEAP_INTERVAL_RANGE_BYTES, 'bytes'),
    formats: initFormats(config.formats),
    recorder,
    dumpSignal,
    sourceMaps: validateBoolean(config.sourceMaps, 'sourceMaps'), // undefined: start()'s default
    labels: validateLabels(config.labels, 'labels', false),
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

// heapGrowth fires on a trend at least `minutes` long, and the trend spans
// at most trendWindows heap windows (each at least heapWindow, and at least
// one CPU window, long): (trendWindows - 1) of them from the first window's
// end to the newest one's. Settings that can never fire are refused.
function heapGrowthReachable (growth, r) {
  const each = Math.max(r.heapWindow, r.window)
  const spanMs = (r.trendWindows - 1) * each
  if (growth.minutes * 60_000 <= spanMs) return
  const need = Math.ceil(growth.minutes * 60_000 / each) + 1
  throw invalidArg(`incidents.heapGrowth.minutes (${growth.minutes}) can never be reached: the heap trend spans at most ` +
    `${r.trendWindows - 1} heap windows of ${each / 1000} s (${(spanMs / 60_000).toFixed(2)} min; recorder trendWindows ` +
    `${r.trendWindows}, heapWindow ${r.heapWindow} ms): lower minutes, or set recorder.trendWindows to ${need} or more ` +
    '(CPROF_RECORDER_TREND_WINDOWS)')
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

module.exports = { MAX_DURATION_DEFAULT_MS, INIT_KEYS, initConfig }

'use strict'
// recorder.start() and recorder.dump() options checked (lib/validate.js's
// vocabulary): wrong type or range → ERR_CPROF_INVALID_ARG naming the option.
const path = require('node:path')
const { invalidArg } = require('../errors')
const { describe, invalid, validateOptions, validateBoolean, validateLabels, validatePath, validateInteger, validateNumber } = require('../validate')
const options = require('../options')
const { pushOptions } = require('../push/options')

const WINDOW_DEFAULT_MS = 10_000
const WINDOW_RANGE_MS = [100, 3_600_000]
const KEEP_DEFAULT_MS = 60_000
const MAX_BYTES_DEFAULT = 16 * 1024 * 1024
const STORE_MAX_BYTES_DEFAULT = 256 * 1024 * 1024
const STORE_MAX_AGE_DEFAULT_MS = 24 * 3600 * 1000
const START_KEYS = ['window', 'keep', 'maxBytes', 'interval', 'heap', 'heapInterval', 'heapWindow', 'trendWindows', 'store', 'sourceMaps', 'push', 'lines', 'labels']
// A heap window ends with the first CPU window to end heapWindow ms after
// the last one: every heap window's live heap costs a full GC, and with it
// V8 drops optimized code whose embedded maps died (re-optimized on its
// helper threads), 4-5 % of CPU per request at one every 10 s
// (docs/benchmarks.md, Cost of heap windows); once a minute by default.
const HEAP_WINDOW_DEFAULT_MS = 60_000
// The heap trend's length in heap windows (src/core/trend.h): 15 is 15
// minutes of the default 60 s heap windows (a heapGrowth incident's default
// 10 minutes fit in it); at least the trend's 8 to judge.
const TREND_WINDOWS_DEFAULT = 15
const TREND_WINDOWS_RANGE = [8, 10_000]
const STORE_KEYS = ['dir', 'maxBytes', 'maxAge', 'formats']
const STORE_FORMATS = ['cpuprofile', 'pprof']
const DUMP_KEYS = ['kind', 'last', 'formats', 'dir', 'name', 'sourceMaps']
const ANY = Number.MAX_SAFE_INTEGER

// An options object of where (undefined or null: {}).
function objectOption (value, keys, where) {
  return validateOptions(value, keys, where, `${where} takes an options object`)
}

// A number of unit in [min, max].
function amount (value, name, [min, max], unit, fallback) {
  return validateNumber(value, name, { min, max, unit }, fallback)
}

function storeOption (value) {
  if (value === undefined || value === null || value === false) return null
  const s = objectOption(value, STORE_KEYS, 'recorder.start() store')
  const dir = validatePath(s.dir, 'store.dir', null, 'a directory path') // null: none given
  if (dir === null) throw invalid('store.dir must be a non-empty string (a directory path)', s.dir)
  let formats = ['cpuprofile']
  if (s.formats !== undefined) {
    if (!Array.isArray(s.formats) || s.formats.length === 0 || !s.formats.every((f) => STORE_FORMATS.includes(f))) {
      throw invalidArg(`store.formats must be a non-empty array of 'cpuprofile', 'pprof', got ${
        Array.isArray(s.formats) ? JSON.stringify(s.formats) : describe(s.formats)}`)
    }
    formats = [...new Set(s.formats)]
  }
  return {
    dir: path.resolve(dir),
    maxBytes: amount(s.maxBytes, 'store.maxBytes', [0, ANY], 'bytes', STORE_MAX_BYTES_DEFAULT),
    maxAge: amount(s.maxAge, 'store.maxAge', [0, ANY], 'milliseconds', STORE_MAX_AGE_DEFAULT_MS),
    formats
  }
}

/** recorder.start() options → { window, keep, maxBytes, interval, heap, heapInterval, heapWindow,
 * trendWindows, store, sourceMaps, push, lines } */
function startOptions (arg) {
  const o = objectOption(arg, START_KEYS, 'recorder.start()')
  const heap = validateBoolean(o.heap, 'heap', false) // checked first, as before the split
  const interval = validateInteger(o.interval, 'interval', options.CPU_INTERVAL_RANGE_US, 'µs', options.CPU_INTERVAL_DEFAULT_US)
  return {
    window: amount(o.window, 'window', WINDOW_RANGE_MS, 'milliseconds', WINDOW_DEFAULT_MS),
    keep: amount(o.keep, 'keep', [0, ANY], 'milliseconds', KEEP_DEFAULT_MS),
    maxBytes: amount(o.maxBytes, 'maxBytes', [0, ANY], 'bytes', MAX_BYTES_DEFAULT),
    interval,
    heap,
    heapInterval: validateInteger(o.heapInterval, 'heapInterval', options.HEAP_INTERVAL_RANGE_BYTES, 'bytes',
      options.HEAP_INTERVAL_DEFAULT_BYTES),
    heapWindow: amount(o.heapWindow, 'heapWindow', WINDOW_RANGE_MS, 'milliseconds', HEAP_WINDOW_DEFAULT_MS),
    trendWindows: validateInteger(o.trendWindows, 'trendWindows', TREND_WINDOWS_RANGE, '(heap windows)', TREND_WINDOWS_DEFAULT),
    store: storeOption(o.store),
    sourceMaps: options.sourceMapsOption(o.sourceMaps), // start()'s default: on under --enable-source-maps
    push: pushOptions(o.push), // Grafana Pyroscope (lib/push, docs/pyroscope.md)
    lines: validateBoolean(o.lines, 'lines', false), // CPU windows' pprof: one Location per line
    labels: validateLabels(o.labels, 'labels', false) // withLabels()'s labels on the pushed and stored pprof
  }
}

/** recorder.dump() options → { kind, last, formats, dir, ownDir, name, sourceMaps }
 * (sourceMaps undefined: recorder.start()'s; ownDir: dir is cprof's default,
 * which the native writer checks is the user's private directory) */
function dumpOptions (arg) {
  const o = typeof arg === 'number' ? { last: arg } : objectOption(arg, DUMP_KEYS, 'recorder.dump()')
  if (o.kind !== undefined && o.kind !== 'cpu' && o.kind !== 'heap') {
    throw invalid("kind must be 'cpu' or 'heap'", o.kind)
  }
  const kind = o.kind || 'cpu'
  const startLike = (kind === 'heap' ? options.heapStartOptions : options.cpuStartOptions)(
    { dir: o.dir, name: o.name, formats: o.formats }, 'recorder.dump()')
  return {
    kind,
    last: amount(o.last, 'last', [0, ANY], 'milliseconds', 0),
    dir: startLike.dir,
    ownDir: startLike.ownDir,
    name: startLike.name,
    formats: startLike.formats,
    sourceMaps: o.sourceMaps === undefined ? undefined : options.sourceMapsOption(o.sourceMaps)
  }
}

module.exports = {
  startOptions,
  dumpOptions,
  WINDOW_DEFAULT_MS,
  KEEP_DEFAULT_MS,
  MAX_BYTES_DEFAULT,
  STORE_MAX_BYTES_DEFAULT,
  STORE_MAX_AGE_DEFAULT_MS,
  TREND_WINDOWS_DEFAULT
}

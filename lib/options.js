'use strict'
// Option checking for the public API: wrong type or range → ERR_CPROF_INVALID_ARG.
const path = require('node:path')
const { invalidArg } = require('./errors')
const { describe, invalid, validateOptions, validateBoolean, validateLabels, validatePath, validateMs, validateInteger } = require('./validate')
const { defaultDir } = require('./dirs')

const CPU_INTERVAL_DEFAULT_US = 10000 // 10 ms: ~1–2% overhead, 3,000 samples in 30 s
const CPU_INTERVAL_RANGE_US = [100, 1_000_000]
const HEAP_INTERVAL_DEFAULT_BYTES = 32768 // V8's default
const HEAP_INTERVAL_RANGE_BYTES = [1, 2 ** 30]
const HEAP_STACK_DEPTH_DEFAULT = 128
const HEAP_STACK_DEPTH_RANGE = [1, 480] // cJSON parses at most 1000 levels of nesting; a heap tree level takes two
const TOP_DEFAULT = 20
const CPU_KEYS = ['timeout', 'interval', 'dir', 'name', 'formats', 'sourceMaps', 'lines', 'labels']
const HEAP_KEYS = ['timeout', 'interval', 'stackDepth', 'includeCollected', 'forceGC', 'dir', 'name', 'formats', 'sourceMaps']
// Formats written besides the kind's own (.cpuprofile / .heapprofile), and
// their file extensions; every file of a profile shares the same stem.
const FORMAT_EXT = { pprof: 'pb.gz', folded: 'folded', svg: 'svg', txt: 'txt', html: 'html' }

// An API call's options object: its keys checked (undefined or null: {}).
function options (arg, keys, where) {
  return validateOptions(arg, keys, where, `${where} options must be an object`)
}

// { dir, ownDir }: ownDir when dir is cprof's default, <os.tmpdir()>/cprof-<uid>,
// which must be the user's private directory (lib/dirs.js); a dir the user
// named (the option, or $CPROF_DIR) is theirs to choose.
function dirOption (value) {
  if (value === undefined) {
    const env = process.env.CPROF_DIR
    return env ? { dir: path.resolve(env), ownDir: false } : { dir: defaultDir(), ownDir: true }
  }
  return { dir: path.resolve(validatePath(value, 'dir', undefined, 'a directory path')), ownDir: false }
}

function nameOption (value) {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value === '' || value.length > 200 ||
      /[/\\\0]/.test(value) || value === '.' || value === '..') {
    throw invalid('name must be a file name stem (1–200 characters, no "/", "\\" or NUL)', value)
  }
  return value
}

// Source maps are on by default when Node applies them to stack traces
// (--enable-source-maps, on the command line, in NODE_OPTIONS, or
// process.setSourceMapsEnabled(true)): the app expects original positions.
function sourceMapsDefault () {
  if (typeof process.sourceMapsEnabled === 'boolean') return process.sourceMapsEnabled
  const opts = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS || ''}`
  return /(^|\s)--enable-source-maps(\s|=true|$)/.test(opts)
}

function sourceMapsOption (value) {
  return validateBoolean(value, 'sourceMaps', sourceMapsDefault())
}

// formats: [own, 'pprof', 'folded', 'svg', 'txt', 'html'] in any order; the kind's
// own format is always written, so listing it changes nothing. Returns the
// derived formats, without duplicates.
function formatsOption (value, own) {
  const known = [own, ...Object.keys(FORMAT_EXT)]
  if (value === undefined) return []
  if (!Array.isArray(value)) {
    throw invalid(`formats must be an array of ${known.map((f) => `'${f}'`).join(', ')}`, value)
  }
  const out = []
  for (const f of value) {
    if (!known.includes(f)) {
      throw invalidArg(`unknown format ${describe(f)} in formats; known formats: ${known.join(', ')}`)
    }
    if (f !== own && !out.includes(f)) out.push(f)
  }
  return out
}

// start(opts) / start(timeoutMs)
function cpuStartOptions (arg, where = 'start()') {
  const opts = typeof arg === 'number' ? { timeout: arg } : options(arg, CPU_KEYS, where)
  return {
    timeout: validateMs(opts.timeout, 'timeout', 0),
    interval: validateInteger(opts.interval, 'interval', CPU_INTERVAL_RANGE_US, 'µs', CPU_INTERVAL_DEFAULT_US),
    ...dirOption(opts.dir),
    name: nameOption(opts.name),
    formats: formatsOption(opts.formats, 'cpuprofile'),
    sourceMaps: sourceMapsOption(opts.sourceMaps),
    // Self time per line (V8's positionTicks): in the summary, the txt and
    // html files, and one pprof Location per line.
    lines: validateBoolean(opts.lines, 'lines', false),
    // withLabels()'s labels on each sample: pprof labels, <stem>.labels.json (docs/labels.md).
    labels: validateLabels(opts.labels, 'labels', false)
  }
}

// heap.start(opts) / heap.start(timeoutMs)
function heapStartOptions (arg, where = 'heap.start()') {
  const opts = typeof arg === 'number' ? { timeout: arg } : options(arg, HEAP_KEYS, where)
  return {
    timeout: validateMs(opts.timeout, 'timeout', 0),
    interval: validateInteger(opts.interval, 'interval', HEAP_INTERVAL_RANGE_BYTES, 'bytes', HEAP_INTERVAL_DEFAULT_BYTES),
    stackDepth: validateInteger(opts.stackDepth, 'stackDepth', HEAP_STACK_DEPTH_RANGE, 'frames', HEAP_STACK_DEPTH_DEFAULT),
    includeCollected: validateBoolean(opts.includeCollected, 'includeCollected', false),
    forceGC: validateBoolean(opts.forceGC, 'forceGC', false),
    ...dirOption(opts.dir),
    name: nameOption(opts.name),
    formats: formatsOption(opts.formats, 'heapprofile'),
    sourceMaps: sourceMapsOption(opts.sourceMaps)
  }
}

// stop({ dir }) / heap.stop({ dir }): where this profile's files go, in
// place of the directory its start() chose. {} when not given.
function stopOptions (arg, where) {
  const opts = options(arg, ['dir'], where)
  return opts.dir === undefined ? {} : dirOption(opts.dir)
}

// profile({ duration, ...start options but timeout }): startOptions checks
// the rest; duration, the profile's timeout, is at most TIMER_MAX_MS.
function profileOptions (arg, startOptions) {
  if (arg === undefined || arg === null || typeof arg !== 'object' || Array.isArray(arg)) {
    throw invalid('profile() takes an options object with duration (ms)', arg)
  }
  const { duration: ms, ...rest } = arg
  if (rest.timeout !== undefined) {
    throw invalidArg('profile() takes no timeout: its duration (ms) is when it stops; for a profile that ' +
      'stops at a timeout unless stop() comes first, use start({ timeout })')
  }
  startOptions(rest, 'profile()')
  if (ms === undefined) throw invalidArg('profile() needs duration (ms)')
  const duration = validateMs(ms, 'duration')
  if (duration === 0) throw invalidArg('duration must be more than 0 ms')
  return { duration, start: rest }
}

function snapshotOptions (arg) {
  const opts = options(arg, ['dir', 'name'], 'heap.snapshot()')
  return { ...dirOption(opts.dir), name: nameOption(opts.name) }
}

function analyzeOptions (file, arg) {
  if (typeof file !== 'string' || file === '') {
    throw invalid('the profile path must be a non-empty string', file)
  }
  validatePath(file, 'the profile path')
  const opts = options(arg, ['top', 'nodes', 'lines'], 'analyze()')
  return {
    path: path.resolve(file),
    top: validateInteger(opts.top, 'top', [0, 100000], 'functions', TOP_DEFAULT),
    nodes: validateBoolean(opts.nodes, 'nodes', false),
    lines: validateBoolean(opts.lines, 'lines', false)
  }
}

// { format: '<stem>.<ext>' } for the formats asked: the derived files' names.
function formatNames (stem, formats = []) {
  const outs = {}
  for (const f of formats) outs[f] = `${stem}.${FORMAT_EXT[f]}`
  return outs
}

module.exports = {
  CPU_INTERVAL_DEFAULT_US,
  CPU_INTERVAL_RANGE_US,
  HEAP_INTERVAL_RANGE_BYTES,
  TOP_DEFAULT,
  FORMAT_EXT,
  HEAP_INTERVAL_DEFAULT_BYTES,
  HEAP_STACK_DEPTH_DEFAULT,
  cpuStartOptions,
  heapStartOptions,
  profileOptions,
  stopOptions,
  snapshotOptions,
  analyzeOptions,
  dirOption,
  formatNames,
  formatsOption,
  sourceMapsDefault,
  sourceMapsOption
}

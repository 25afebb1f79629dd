'use strict'
// A recorder store directory as input to report, flame, convert and merge:
// the windows whose time range overlaps [--from, --to], merged by the native
// core (lib/native merge) before the command's usual job.
//
// The recorder writes one file per window, named
//   <cpu|heap>-<pid>-<fromMs>-<toMs>.<cpuprofile|heapprofile|pb.gz>
// with fromMs/toMs in ms since the epoch. Only the V8 formats are merged
// (.cpuprofile, .heapprofile): pprof is an export, not read back. A heap
// window is the whole live heap at its end (docs/recorder.md), so windows
// of one process never add up: a heap range is each process's newest
// window in it, the processes' live heaps merged.
const fs = require('node:fs')
const path = require('node:path')
const { cprofError } = require('../errors')
const { termSafe } = require('../term')
// how a window is named: shared with cprof list and cprof ui (lib/files/)
const { parseWindowName } = require('../files/profiles')

const V8_EXT = { cpu: 'cpuprofile', heap: 'heapprofile' }
const UNITS = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 }

// The options every profile command takes for a store directory (rows of
// a lib/cli/kit.js table), and what its help says of stores.
const STORE_GROUP = { title: 'the recorder store options', anchor: '#recorder-stores' }
const STORE_OPTIONS = [
  {
    name: 'from',
    group: STORE_GROUP,
    arg: 'T',
    type: 'text',
    shown: 'all of it',
    help: 'with a store: the range\'s start: an ISO-8601 date (2026-11-23T18:30:00Z; no zone: local time; a ' +
      'date alone: UTC midnight), ms since the epoch, relative to now (-30s, -5m, -2h, -1d, -500ms), or "now"'
  },
  { name: 'to', group: STORE_GROUP, arg: 'T', type: 'text', shown: 'all of it', help: 'with a store: the range\'s end, as --from' },
  {
    name: 'pid',
    group: STORE_GROUP,
    arg: 'N',
    type: 'text',
    shown: 'every process',
    help: "with a store: only the windows of process N (each process's windows follow the previous process's)"
  },
  { name: 'kind', group: STORE_GROUP, arg: 'cpu|heap', type: 'text', shown: 'cpu when the store has any, else heap', help: 'with a store: which windows' }
]

const STORE_USAGE = `<file> may be a recorder store directory: its windows whose time range overlaps
[--from, --to] are merged into one profile first (heap windows: each process's
newest in range, its live heap then).`

const RELATIVE_RE = /^-(\d+(?:\.\d+)?)(ms|s|m|h|d)$/

/**
 * node:util parseArgs takes "--from -5m" for a missing value followed by an
 * option; users type it so. Joins such pairs into "--from=-5m" first.
 */
function joinTimeArgs (argv) {
  const out = []
  for (let i = 0; i < argv.length; i++) {
    if ((argv[i] === '--from' || argv[i] === '--to') && RELATIVE_RE.test(argv[i + 1] ?? '')) {
      out.push(`${argv[i]}=${argv[++i]}`)
    } else {
      out.push(argv[i])
    }
  }
  return out
}

/**
 * Parses a --from/--to value into ms since the epoch.
 * @returns {{ value: number } | { error: string }}
 */
function parseTime (name, text, now = Date.now()) {
  const t = text.trim()
  if (t === 'now') return { value: now }
  const rel = RELATIVE_RE.exec(t)
  if (rel) return { value: now - Number(rel[1]) * UNITS[rel[2]] }
  if (/^\d+$/.test(t)) return { value: Number(t) }
  // A date: at least YYYY-MM-DD, so "12" or "5m" never reads as one.
  if (/^\d{4}-\d{2}-\d{2}/.test(t)) {
    const v = Date.parse(t)
    if (Number.isFinite(v)) return { value: v }
  }
  return {
    error: `--${name} must be an ISO-8601 date (2026-11-23T18:30:00Z), ms since the epoch, ` +
      `or relative to now (-30s, -5m, -2h, -1d), got "${text}"`
  }
}

/** The windows in dir as the recorder names them: [{ file, kind, pid, from, to, ext }]. */
function listWindows (dir) {
  const out = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const w = parseWindowName(entry.name)
    if (w && entry.isFile()) out.push({ file: path.join(dir, entry.name), ...w })
  }
  return out
}

function iso (ms) {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms)
}

// Each process's newest window (heap windows: the live heap at its end).
function newestPerProcess (windows) {
  const newest = new Map()
  for (const w of windows) {
    const n = newest.get(w.pid)
    if (!n || w.to > n.to || (w.to === n.to && w.from > n.from)) newest.set(w.pid, w)
  }
  return [...newest.values()]
}

/**
 * Picks the V8-format windows of one kind overlapping [from, to] in a store,
 * in merge order: by process (the one whose windows start first, first),
 * then by time. Returns { windows, kind, from, to } or { error } (a message
 * for the user: nothing matched, and what the store holds).
 */
function selectWindows (dir, { from = -Infinity, to = Infinity, pid, kind } = {}) {
  const all = listWindows(dir).filter((w) => w.ext === V8_EXT[w.kind])
  // Windows are half-open, [fromMs, toMs): consecutive ones touch, and a
  // --from at a boundary starts with the window that begins there.
  const inRange = all.filter((w) => w.to > from && w.from <= to && (pid === undefined || w.pid === pid))
  const k = kind ?? (all.some((w) => w.kind === 'cpu' && (pid === undefined || w.pid === pid)) ? 'cpu' : 'heap')
  const windows = k === 'heap' ? newestPerProcess(inRange.filter((w) => w.kind === k)) : inRange.filter((w) => w.kind === k)
  if (windows.length === 0) {
    const held = all.filter((w) => w.kind === k)
    const what = `${k} windows${pid === undefined ? '' : ` of process ${pid}`}`
    const range = from === -Infinity
      ? (to === Infinity ? '' : ` up to ${iso(to)}`)
      : (to === Infinity ? ` from ${iso(from)} on` : ` between ${iso(from)} and ${iso(to)}`)
    const has = held.length === 0
      ? `it holds none (a store holds ${Object.values(V8_EXT).map((e) => `<kind>-<pid>-<fromMs>-<toMs>.${e}`).join(' or ')} files)`
      : `it holds ${held.length} from ${iso(Math.min(...held.map((w) => w.from)))} to ${iso(Math.max(...held.map((w) => w.to)))}`
    return { error: `no ${what} in ${dir}${range}: ${has}` }
  }
  const firstOf = new Map()
  for (const w of windows) firstOf.set(w.pid, Math.min(firstOf.get(w.pid) ?? Infinity, w.from))
  windows.sort((a, b) => firstOf.get(a.pid) - firstOf.get(b.pid) || a.pid - b.pid || a.from - b.from || a.to - b.to)
  return {
    windows,
    kind: k,
    from: Math.min(...windows.map((w) => w.from)),
    to: Math.max(...windows.map((w) => w.to))
  }
}

function isDirectory (file) {
  try {
    return fs.statSync(file).isDirectory()
  } catch {
    return false
  }
}

/**
 * What a profile command reads: one file, or the windows of a store
 * directory. Returns { path } | { paths, store } | { error, usage, io }:
 * usage is true for an argument mistake (exit 2), io for a directory that
 * is no store (ERR_CPROF_IO, as for any unreadable file), neither when the
 * store has nothing in range (exit 1).
 */
function resolveInput (file, values) {
  const abs = path.resolve(file)
  const storeOpts = ['from', 'to', 'pid', 'kind'].filter((k) => values[k] !== undefined)
  if (!isDirectory(abs)) {
    if (storeOpts.length > 0) {
      return { usage: true, error: `--${storeOpts[0]} takes a recorder store directory, and ${file} is not a directory` }
    }
    return { path: abs }
  }
  if (storeOpts.length === 0 && !listWindows(abs).some((w) => w.ext === V8_EXT[w.kind])) {
    return {
      io: true,
      error: `cannot read ${file}: it is a directory, and not a recorder store (no ` +
        '<cpu|heap>-<pid>-<fromMs>-<toMs>.cpuprofile or .heapprofile files in it)'
    }
  }
  const now = Date.now()
  const range = {}
  for (const k of ['from', 'to']) {
    if (values[k] === undefined) continue
    const t = parseTime(k, values[k], now)
    if (t.error) return { usage: true, error: t.error }
    range[k] = t.value
  }
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
    return { usage: true, error: `--from (${iso(range.from)}) is after --to (${iso(range.to)})` }
  }
  if (values.pid !== undefined && !/^\d+$/.test(values.pid)) {
    return { usage: true, error: `--pid must be a process id, got "${values.pid}"` }
  }
  if (values.kind !== undefined && !V8_EXT[values.kind]) {
    return { usage: true, error: `--kind must be cpu or heap, got "${values.kind}"` }
  }
  let sel
  try {
    sel = selectWindows(abs, {
      ...range,
      pid: values.pid === undefined ? undefined : Number(values.pid),
      kind: values.kind
    })
  } catch (err) {
    return { usage: false, error: `cannot read ${file}: ${err.message}` }
  }
  if (sel.error) return { usage: false, error: sel.error }
  return { paths: sel.windows.map((w) => w.file), store: { ...sel, range } }
}

/**
 * resolveInput for cmd (lib/cli/kit.js): { input } or { exit } after telling the user
 * (a usage error: 2; nothing in the store's range: 1).
 */
function commandInput (cmd, file, values) {
  const input = resolveInput(file, values)
  if (!input.error) return { input }
  if (input.io) throw cprofError('ERR_CPROF_IO', input.error)
  if (input.usage) return cmd.fail(input.error)
  process.stderr.write(`cprof ${cmd.name}: ${termSafe(input.error)}\n`)
  return { exit: 1 }
}

// Where a derived file of a store's merge goes without -o: the current
// directory (never the store, which the recorder prunes), named by kind
// and time range.
function storeOutputPath (input, ext) {
  const s = input.store
  return path.resolve(`${s.kind}-merged-${s.from}-${s.to}.${ext}`)
}

// A title for a store's merge: kind, range and window count.
function storeTitle (input) {
  const s = input.store
  return `${s.kind} ${iso(s.from)} to ${iso(s.to)} (${s.windows.length} window${s.windows.length === 1 ? '' : 's'})`
}

/**
 * Runs the native job on what resolveInput returned: convert on a file,
 * merge (then the same job) on a store's windows. Off the main thread.
 */
function profileJob (input, dir, top, opts) {
  const native = require('../native') // here: cprof list reads names without the addon
  if (input.paths) return native.merge(input.paths, dir, null, top, opts)
  return native.convert(input.path, dir, top, opts)
}

module.exports = {
  STORE_OPTIONS,
  STORE_USAGE,
  parseTime,
  joinTimeArgs,
  listWindows,
  selectWindows,
  resolveInput,
  commandInput,
  storeOutputPath,
  storeTitle,
  profileJob,
  iso
}

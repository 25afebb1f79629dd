'use strict'
// The only file that touches the compiled addon: it loads it, and wraps
// each of its calls in a function of named, documented parameters (as
// pprof-nodejs wraps its bindings), so the rest of lib/ never passes the
// addon a positional list. The addon's argument order lives here only
// (src/addon/binding.c lists its exports; each file there documents its call).
const path = require('node:path')
const { cprofError } = require('./errors')

const ROOT = path.join(__dirname, '..')

// Which file: CPROF_ADDON when set (`npm run test:asan` points it at its
// sanitizer build in .cache/asan, test:prebuild at a prebuild, and the whole
// suite runs against it); otherwise what node-gyp-build picks: a source
// build (build/Release, then build/Debug) before the prebuilt binary for this
// platform, arch and libc (prebuilds/linux-x64/cprof.glibc.node, ...).
function resolve () {
  if (process.env.CPROF_ADDON) return path.resolve(process.env.CPROF_ADDON)
  try {
    return require('node-gyp-build').resolve(ROOT)
  } catch (err) {
    throw cprofError('ERR_CPROF_NOT_BUILT',
      `cprof has no native addon for this machine (${err.message.split('\n')[0].replace(/^No native build was found for /, '')}): ` +
      'compile it: `npm rebuild cprof --build-from-source` in the app, `npm run build` in a clone (it needs ' +
      '`apt-get install -y build-essential python3 pkg-config libcjson-dev`)')
  }
}

function load () {
  const file = resolve()
  try {
    return require(file)
  } catch (err) {
    throw cprofError('ERR_CPROF_NOT_BUILT',
      `cprof's native addon ${file} does not load here (${err.message.split('\n')[0]}): compile it: ` +
      '`npm rebuild cprof --build-from-source` in the app, `npm run build` in a clone (it needs ' +
      '`apt-get install -y build-essential python3 pkg-config libcjson-dev`)', { cause: err })
  }
}

const addon = load()

/**
 * The options of every job that writes or reads a profile (src/addon/job_args.c):
 * @typedef {object} ExportOptions
 * @property {Object<string, string>} [outs] derived files by format (pprof, folded, svg, txt, html): their names in dir
 * @property {number} [interval] the sampling interval (µs, or bytes for heap)
 * @property {number} [startTime] the profile's start, ms since the epoch
 * @property {number} [duration] a heap profile's duration (µs)
 * @property {string} [title] the derived files' title
 * @property {string} [main] the app's main script (pprof's mapping)
 * @property {string} [ownUrl] cprof's own url prefix (its start call's samples dropped)
 * @property {boolean} [ownDir] dir is cprof's default: refused unless private (lib/dirs.js)
 * @property {boolean} [sourceMaps] map frames through source maps
 * @property {string} [htmlTemplate] the viewer's page template (formats: html)
 * @property {string} [viewerMarks] the viewer's marks (JSON text)
 * @property {boolean} [lines] self time per line; [pprofLines] one pprof Location per line
 * @property {boolean} [includeCollected] a heap profile's collected samples kept
 * @property {boolean} [keepExisting] never replace a file (link(2), not rename(2))
 * @property {boolean} [needSamples] refuse a profile without samples
 * @property {boolean} [text] the text report in the result (and cut, focus, linesFocus)
 * @property {{ sets: string[][], fromUs: number, file: string }} [labels] CPU stop: the label
 *   sets by id ([k, v, ...], [0] is []), the profile's start on the ring's clock, the sidecar's name
 */

// CPU profiles (src/addon/cpu.c)

/** Starts the CPU profile. → the transport: 'v8' (v8.startCpuProfile) or the inspector's.
 * @param {{ intervalUs: number, timeoutMs: number, onTimeout: () => void }} o timeoutMs 0: none */
function cpuStart ({ intervalUs, timeoutMs, onTimeout }) {
  return addon.cpuStart(intervalUs, timeoutMs, onTimeout)
}

/** Stops it and writes dir/name. → Promise<job result>
 * @param {{ dir: string, name: string, top: number, exportOptions: ExportOptions }} o top: functions in the summary */
function cpuStop ({ dir, name, top, exportOptions }) {
  return addon.cpuStop(dir, name, top, exportOptions)
}

// Heap sampling profiles (src/addon/heap.c)

/** Starts the heap profile. → the transport: 'v8' (Node >= 26) or the inspector's.
 * @param {{ intervalBytes: number, stackDepth: number, includeCollected: boolean, forceGC: boolean,
 *   timeoutMs: number, onTimeout: () => void }} o */
function heapStart ({ intervalBytes, stackDepth, includeCollected, forceGC, timeoutMs, onTimeout }) {
  return addon.heapStart(intervalBytes, stackDepth, includeCollected, forceGC, timeoutMs, onTimeout)
}

/** Stops it and writes dir/name. → Promise<job result>
 * @param {{ dir: string, name: string, top: number, stackDepth: number, exportOptions: ExportOptions }} o */
function heapStop ({ dir, name, top, stackDepth, exportOptions }) {
  return addon.heapStop(dir, name, top, stackDepth, exportOptions)
}

// A job that writes into dir, and meanwhile the removal of the temp files
// killed writers left there (lib/stale-temps.js): it settles as the job does,
// once both are done.
function sweeping (job, dir) {
  if (!dir) return job
  const swept = require('./stale-temps').removeStale(dir) // never rejects
  return job.then((r) => swept.then(() => r), (err) => swept.then(() => { throw err }))
}

// Profile files (src/addon/analyze.c, snapshot.c): read and worked on off
// the main thread. convert, diff and merge keep the addon's order (input,
// dir, top, then an options object), the order tests and benches call.

/** The summary of any profile file. → Promise<job result>
 * @param {{ path: string, top: number, nodes: boolean, lines: boolean }} o */
function analyze ({ path, top, nodes, lines }) {
  return addon.analyze(path, top, nodes, lines)
}

/** @param {string} file @param {string|null} dir where outs go (null: none written)
 * @param {number} top @param {ExportOptions} [options] → Promise<job result> */
function convert (file, dir, top, options) {
  return sweeping(addon.convert(file, dir, top, options), dir)
}

/** @param {string} before @param {string} after @param {string|null} dir
 * @param {number} top @param {ExportOptions} [options] → Promise<job result> */
function diff (before, after, dir, top, options) {
  return sweeping(addon.diff(before, after, dir, top, options), dir)
}

/** @param {string[]} files of one kind, merged in order @param {string|null} dir
 * @param {string|null} name the merged profile's file in dir @param {number} top
 * @param {ExportOptions} [options] → Promise<job result> */
function merge (files, dir, name, top, options) {
  return sweeping(addon.merge(files, dir, name, top, options), dir)
}

/** A .heapsnapshot's report. → Promise<string> (its JSON)
 * @param {string} file @param {number} top */
function snapshotReport (file, top) {
  return addon.snapshotReport(file, top)
}

/** `cprof snapshot diff`: A and B (and C), read one after another.
 * → Promise<string> (its JSON) @param {string[]} files 2 or 3 @param {number} top */
function snapshotDiff (files, top) {
  return addon.snapshotDiff(files, top)
}

/** The HTML viewer's data for a .heapsnapshot (cprof_snapshot_view).
 * → Promise<string> (its JSON) @param {string} file @param {number} classes */
function snapshotView (file, classes) {
  return addon.snapshotView(file, classes)
}

// Labels per sample (src/addon/labels.c)

/** The ring of label-set switches, made once per environment. → ArrayBuffer
 * @param {number} cap pairs (time µs, set id) kept */
function labelsRing (cap) {
  return addon.labelsRing(cap)
}

// Signal triggers (src/addon/watch.c)

/** Replaces slot's trigger: onSignal runs on the event loop at each signal.
 * @param {{ slot: number, signal: number, onSignal: () => void }} o slot: CPU 0, heap 1, dump 2 */
function signalWatch ({ slot, signal, onSignal }) {
  addon.signalWatch(slot, signal, onSignal)
}

/** @param {number} slot */
function signalUnwatch (slot) {
  addon.signalUnwatch(slot)
}

// The flight recorder (src/addon/recorder_api.c)

/**
 * Starts recording. → the transport.
 * @param {{ intervalUs: number, keepMs: number, maxBytes: number,
 *   store: null | { dir: string, cpuprofile: boolean, pprof: boolean, maxAge: number, maxBytes: number, lines: boolean },
 *   onWindow: (info: object) => void, heapIntervalBytes: number (0: no heap windows),
 *   push: null | { maxSamples: number, maxBytes: number, cwd: string, lines: boolean },
 *   trendWindows: number }} o
 */
function recStart ({ intervalUs, keepMs, maxBytes, store, onWindow, heapIntervalBytes, push, trendWindows }) {
  return addon.recStart(intervalUs, keepMs, maxBytes, store, onWindow, heapIntervalBytes, push, trendWindows)
}

/** Ends the current window, and the heap window with it when heap; labels: the
 * window's label sets and switches (as ExportOptions' labels). → its number (0: lost) */
const recRotate = (heap, labels) => addon.recRotate(Boolean(heap), labels)
/** Stops recording; the rings stay for a last dump. → the last window's number (0: lost) */
const recStop = (labels) => addon.recStop(labels)
/** → the status object, or null when never started */
const recStatus = () => addon.recStatus()

/**
 * Writes the last lastMs of the recording (0: all kept). → { promise, from, to, windows }
 * @param {{ lastMs: number, dir: string, name: string, top: number, exportOptions: ExportOptions,
 *   heap: boolean }} o heap: the heap windows
 */
function recDump ({ lastMs, dir, name, top, exportOptions, heap }) {
  return addon.recDump(lastMs, dir, name, top, exportOptions, heap)
}

module.exports = {
  cpuStart,
  cpuStop,
  heapStart,
  heapStop,
  analyze,
  convert,
  diff,
  merge,
  snapshotReport,
  snapshotDiff,
  snapshotView,
  labelsRing,
  signalWatch,
  signalUnwatch,
  recStart,
  recRotate,
  recStop,
  recStatus,
  recDump
}

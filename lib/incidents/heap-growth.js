'use strict'
// The heapGrowth incident trigger: fires when the live heap has grown
// steadily, at least mbPerMinute MiB a minute, for at least `minutes`, by
// the recorder's heap trend (status().heap.trend, src/core/trend.c: the
// Theil–Sen slope and the Mann–Kendall test over the heap windows). It
// writes the newest heap window (the live heap) and, next to it, the
// growing sites' report (<stem>.leaks.json), and the HTML viewer of the live
// heap with a "Heap trend" tab (<stem>.html). Kept apart from the other
// triggers (lib/incidents/index.js): they watch process measures, this one
// reads the recorder's windows.
const fs = require('node:fs')
const path = require('node:path')
const { invalid, isObject, validateKeys, validateNumber, validateBoolean } = require('../validate')
const { withTrend } = require('../viewer')
const { writeWhole } = require('../viewer/marks-file') // temp file + rename: never read half written
const { incidentSnapshot } = require('./heap-snapshot')
const { scheduleHolders } = require('./holders')

const MIB = 1024 * 1024
const MINUTES_DEFAULT = 10
const CHECK_MS = 1000

function positive (value, name, max) {
  return validateNumber(value, `incidents.heapGrowth.${name}`, { min: 0, max, above: true })
}

/** incidents.heapGrowth → null (off) or { mbPerMinute, minutes,
 * snapshot: true (only when on), holders: seconds (only when set) }. true:
 * any steady growth (mbPerMinute 0) for the default 10 minutes, no snapshot. */
function heapGrowthOption (value) {
  if (value === undefined || value === null || value === false) return null
  if (value === true) return { mbPerMinute: 0, minutes: MINUTES_DEFAULT }
  if (!isObject(value)) throw invalid('incidents.heapGrowth must be { mbPerMinute, minutes, snapshot, holders }', value)
  validateKeys(value, ['mbPerMinute', 'minutes', 'snapshot', 'holders'], 'in incidents.heapGrowth')
  const snapshot = validateBoolean(value.snapshot, 'incidents.heapGrowth.snapshot', false)
  const holders = value.holders === undefined || value.holders === null || value.holders === false ? null
    : validateNumber(value.holders, 'incidents.heapGrowth.holders', { min: 0, max: 3600, above: true, unit: 'seconds' })
  if (holders !== null && !snapshot) {
    throw invalid('incidents.heapGrowth.holders needs snapshot: true (its first snapshot is the firing\'s; each pauses the app)', value.holders)
  }
  return {
    mbPerMinute: value.mbPerMinute === undefined ? 0 : positive(value.mbPerMinute, 'mbPerMinute', 1e6),
    minutes: value.minutes === undefined ? MINUTES_DEFAULT : positive(value.minutes, 'minutes', 10_000),
    ...(snapshot ? { snapshot } : {}),
    ...(holders !== null ? { holders } : {})
  }
}

/** CPROF_ON_HEAP_GROWTH: "<mbPerMinute>[,<minutes>]", e.g. "2,10"; "1" is any
 * steady growth for the default 10 minutes. */
function envHeapGrowth (text) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:,\s*(\d+(?:\.\d+)?)\s*)?$/.exec(text)
  if (!m) throw new Error('must be <MiB per minute>[,<minutes>], e.g. 2,10')
  const mb = Number(m[1])
  return { ...(mb > 0 ? { mbPerMinute: mb } : {}), ...(m[2] !== undefined ? { minutes: Number(m[2]) } : {}) }
}

/** Whether the trend is the growth o asks for: steady (the trend test),
 * fast enough, and for long enough (the newest window's end minus since). */
function grows (trend, o) {
  return Boolean(trend && trend.growing && trend.perMinute > 0 && trend.perMinute >= o.mbPerMinute * MIB &&
    trend.to - trend.since >= o.minutes * 60_000)
}

/**
 * Checks the recorder's heap trend every second; measure(trend) when it
 * grows as o asks (the caller fires on the first of a run). Returns stop().
 */
function watchHeapGrowth (o, recorder, measure, onIdle) {
  const t = setInterval(() => {
    const s = recorder.status()
    const trend = s && s.heap && s.heap.trend
    if (grows(trend, o)) measure(trend)
    else onIdle()
  }, CHECK_MS)
  t.unref()
  return () => clearInterval(t)
}

/** A firing's threshold as its reason says it: heapGrowth's in bytes per
 * minute (its value's unit), every other trigger's as configured. */
function threshold (o, trigger) {
  return trigger === 'heapGrowth' ? o.heapGrowth.mbPerMinute * MIB : o[trigger]
}

/**
 * Writes the newest heap window (with the viewer page, always), the
 * growing sites' report next to it, the trend into the page and, when
 * snapshotted is given, a heap snapshot last, whose outcome (lib/incidents/
 * heap-snapshot.js) goes to snapshotted(s); the 'profile' event goes out once
 * all are written. Resolves with the dump's result plus files.leaks, and
 * files.heapsnapshot or snapshotSkipped: { reason: 'busy' | 'space' | 'failed', why }.
 * holders: { seconds, done(err|null), scheduled(cancel) } (heapGrowth.holders):
 * once the snapshot is written, a second one that many seconds later and
 * the holders report (lib/incidents/holders.js), after the event; cancel()
 * drops it if its timer has not run.
 */
async function writeHeapGrowth (recorder, dumpOpts, reason, trend, snapshotted, holders) {
  const formats = [...new Set([...(dumpOpts.formats || []), 'html'])]
  return recorder.dump({ ...dumpOpts, kind: 'heap', formats }, { reason, trend }, async (r) => {
    const at = path.dirname(r.files.heapprofile)
    const file = path.join(at, `${dumpOpts.name}.leaks.json`)
    await writeWhole(file, JSON.stringify({ reason, trend }, null, 2) + '\n')
    r.files.leaks = file
    if (r.files.html) await addTrend(r.files.html, trend)
    if (!snapshotted) return
    const s = await incidentSnapshot({ at, dir: dumpOpts.dir, name: dumpOpts.name })
    if (s.file) r.files.heapsnapshot = s.file
    else r.snapshotSkipped = { reason: s.skipped, why: s.why }
    snapshotted(s)
    if (s.file && holders) {
      const h = scheduleHolders({ first: s.file, at, dir: dumpOpts.dir, name: dumpOpts.name, reason }, holders.seconds, holders.done)
      holders.scheduled(h.cancel)
      r.holders = { files: h.files, due: h.due }
    }
  })
}

// The page gets its trend the same way, renamed over it.
async function addTrend (html, trend) {
  const page = withTrend(await fs.promises.readFile(html, 'utf8'), trend)
  if (page !== null) await writeWhole(html, page)
}

module.exports = { threshold, heapGrowthOption, envHeapGrowth, watchHeapGrowth, writeHeapGrowth, grows, MINUTES_DEFAULT, CHECK_MS }

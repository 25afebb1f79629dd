'use strict'
// A process of cprof ps as its row reads: what runs (profiles, the flight
// recorder, the incident triggers' counters), CPU %, RSS, the heap trend
// and the signals it installed, in words, from its run-directory entry
// (lib/fleet/discover.js, with withUsage's cpuPercent and rssBytes). cprof ps
// (lib/cli/ps.js) prints these cells; cprof ui's live table (lib/ui/server.js)
// shows the same ones.
const { psText } = require('../recorder/heap-trend')

function human (bytes) {
  if (bytes === null || bytes === undefined) return '-'
  const mib = bytes / (1024 * 1024)
  return mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${mib.toFixed(1)} MiB`
}

// Each trigger's largest suppressed crossing: ", largest eventLoopDelay
// 1800 ms at 21:10:03 UTC" (none: "").
const UNITS = { eventLoopDelay: ' ms', cpu: ' %', rss: ' B', heapNearLimit: ' %', heapGrowth: ' B/min' }
function largestText (by) {
  if (!by || typeof by !== 'object') return ''
  const each = Object.entries(by).filter(([t, b]) => UNITS[t] && b && Number.isFinite(b.largest) && Number.isFinite(b.at))
    .map(([t, b]) => `${t} ${b.largest}${UNITS[t]} at ${new Date(b.at).toISOString().slice(11, 19)} UTC`)
  return each.length ? `, largest ${each.join(', ')}` : ''
}

/** "cpu,recorder(30w),incidents(0 fired, 0 suppressed)", or "-". */
function runningText (e) {
  const now = []
  for (const kind of ['cpu', 'heap']) if (e.running && e.running[kind]) now.push(kind)
  if (e.recorder && e.recorder.running) now.push(`recorder(${e.recorder.windows}w)`)
  const inc = e.recorder && e.recorder.incidents
  if (inc) now.push(`incidents(${inc.fired} fired, ${inc.suppressed} suppressed${largestText(inc.suppressedBy)})`)
  return now.length ? now.join(',') : '-'
}

/** The signals the process installed, by what each does: cpu (the CPU
 * toggle), heap (heapSignal), dump (the flight recorder's), comma-separated; or "-". */
function signalText (e) {
  const t = e.triggers || {}
  const on = [['cpu', t.signal], ['heap', t.heapSignal], ['dump', t.dumpSignal]].filter(([, sig]) => sig)
  return on.length ? on.map(([kind, sig]) => `${kind}:${sig}`).join(',') : '-'
}

const dash = (v) => (v === null || v === undefined ? '-' : String(v))

/** The row of entry e, every cell a string, unescaped (the terminal's
 * caller escapes them, lib/term.js; the dashboard sets them as text):
 * { pid, app, pm2, instance, role, running, cpu, rss, heapTrend, signal }. */
function psRow (e) {
  return {
    pid: String(e.pid),
    app: dash(e.app),
    pm2: dash(e.pm2Id),
    instance: dash(e.instance),
    role: dash(e.role),
    running: runningText(e),
    cpu: e.cpuPercent === null || e.cpuPercent === undefined ? '-' : e.cpuPercent.toFixed(1),
    rss: human(e.rssBytes),
    heapTrend: psText(e),
    signal: signalText(e)
  }
}

/** The columns in cprof ps's order: [key, heading]. */
const PS_COLUMNS = [['pid', 'PID'], ['app', 'APP'], ['pm2', 'PM2'], ['instance', 'INST'], ['role', 'ROLE'],
  ['running', 'RUNNING'], ['cpu', 'CPU%'], ['rss', 'RSS'], ['heapTrend', 'HEAP TREND'], ['signal', 'SIGNAL']]

module.exports = { psRow, PS_COLUMNS, runningText, signalText }

'use strict'
// The profile files of a directory as cprof names them, read from their
// names alone (no addon): kind, process, time, and why each was written.
// cprof list (lib/cli/list.js), cprof ui (lib/ui/server.js) and the recorder
// store (lib/cli/store.js) read names with these.
const fs = require('node:fs')
const path = require('node:path')

// <cpu|heap>-<pid>-<fromMs>-<toMs>.<ext>: a flight recorder's window.
const WINDOW_RE = /^(cpu|heap)-(\d+)-(\d+)-(\d+)\.(cpuprofile|heapprofile|pb\.gz)$/

/** A recorder window's file name read: { kind, pid, from, to, ext }, or null. */
function parseWindowName (base) {
  const m = WINDOW_RE.exec(base)
  if (!m) return null // temp files start with a dot
  return { kind: m[1], pid: Number(m[2]), from: Number(m[3]), to: Number(m[4]), ext: m[5] }
}

// <cpu|heap>-<pid>[-w<thread>]-<YYYYMMDDTHHMMSS.mmmZ>.<ext>, as cprof names them.
// A PM2 instance or a node:cluster process puts <app>.<instance> before the
// pid (instance: a number, primary, or merged for a fan-out's merged file).
// A recorder dump puts recording- after the kind, an incident
// incident-<trigger>- (lib/incidents/index.js).
const NAME_RE = /^(cpu|heap)-(?:(recording)-|incident-([A-Za-z]+)-)?(?:([A-Za-z0-9_-]+)\.(\d+|primary|merged|x)-)?(\d+)(?:-w(\d+))?-(\d{8}T\d{6}\.\d{3}Z)\.(.+)$/
// cprof run's outputs (lib/cli/run.js): <kind>-<script>-<pid>[-worker<N>][-<n>]
// per process, <kind>-merged for their merge; no time stamp.
const RUN_RE = /^(cpu|heap)-(?:merged|[A-Za-z0-9._-]+-(\d+)(?:-worker\d+)?(?:-\d+)?)\.(cpuprofile|heapprofile|pb\.gz|folded|svg|txt|html)$/
// Extension → [kind, format]; the V8 formats are profiles whatever their name.
const V8_EXTS = {
  cpuprofile: ['cpu', 'cpuprofile'],
  heapprofile: ['heap', 'heapprofile'],
  heapsnapshot: ['snapshot', 'heapsnapshot']
}
const DERIVED_EXTS = ['pb.gz', 'folded', 'svg', 'txt', 'html'] // cprof's export formats

function extOf (base) {
  for (const ext of [...Object.keys(V8_EXTS), ...DERIVED_EXTS]) {
    if (base.endsWith(`.${ext}`)) return ext
  }
  return null
}

function stampTime (stamp) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{3})Z$/.exec(stamp)
  return m ? Date.UTC(+m[1], m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]) : NaN
}

// Why a file was written, from its name: 'incident' (and which trigger),
// 'dump' (the recorder's), 'window' (a recorder store's), 'fan-out' (a
// merge of an app's instances: cprof trigger --app/--tree, or a
// node:cluster primary's), 'run' (cprof run), else null: a profile of
// one process started by its signal or by the API, which its name does not tell apart.
function whyOf (m, w, run) {
  if (m && m[3]) return 'incident'
  if (m && m[2]) return 'dump'
  if (w) return 'window'
  if (m && m[5] === 'merged') return 'fan-out'
  if (run) return 'run'
  return null
}

/**
 * The profile files in dir: [{ file, kind, format, pid, thread, app, instance,
 * time, size, why, incident }]; a flight recorder's window
 * (<kind>-<pid>-<fromMs>-<toMs>.<ext>) also has `to`, and its time is its start.
 */
function listProfiles (dir) {
  const out = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const base = entry.name
    if (base.startsWith('.') || !entry.isFile()) continue // temp files and dirs start with '.'
    const ext = extOf(base)
    if (!ext) continue
    const m = NAME_RE.exec(base)
    const w = m ? null : parseWindowName(base)
    const run = m || w ? null : RUN_RE.exec(base)
    if (!m && !w && !run && !V8_EXTS[ext] && ext !== 'pb.gz') continue // an .svg or .txt not named by cprof
    let st
    try {
      st = fs.statSync(path.join(dir, base))
    } catch {
      continue // removed meanwhile
    }
    const kind = V8_EXTS[ext] ? V8_EXTS[ext][0] : m ? m[1] : w ? w.kind : run ? run[1] : 'unknown'
    const time = m && Number.isFinite(stampTime(m[8])) ? stampTime(m[8]) : w ? w.from : st.mtimeMs
    out.push({
      file: path.join(dir, base),
      kind,
      format: ext,
      pid: m ? Number(m[6]) : w ? w.pid : run && run[2] ? Number(run[2]) : null,
      thread: m && m[7] ? Number(m[7]) : null,
      app: m && m[4] ? m[4] : null,
      instance: m && m[5] ? (/^\d+$/.test(m[5]) ? Number(m[5]) : m[5]) : null,
      time: new Date(time).toISOString(),
      ...(w ? { to: new Date(w.to).toISOString() } : {}),
      size: st.size,
      why: whyOf(m, w, run),
      incident: m && m[3] ? m[3] : null
    })
  }
  return out.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.file < b.file ? -1 : 1))
}

/** The WHY column of cprof list and cprof ui for a row of listProfiles:
 * 'incident <trigger>', 'dump', 'window', 'fan-out', 'run', or '-'. */
function whyText (row) {
  return row.why === 'incident' ? `incident ${row.incident}` : row.why || '-'
}

module.exports = { listProfiles, whyText, parseWindowName, V8_EXTS }

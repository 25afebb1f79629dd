'use strict'
// cprof list [dir] [--json]: the profile files in a directory (default: where
// cprof writes them, $CPROF_DIR or <tmpdir>/cprof-<uid>), oldest first, with kind,
// process id, time and size.
const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { parseWindowName } = require('./store')
const { defaultDir } = require('../dirs')
const { termSafe } = require('../term')
const { columns } = require('./columns')

const USAGE = `usage: cprof list [dir] [--json]

Lists the profile files in dir (default: $CPROF_DIR, else ${defaultDir()}),
oldest first: kind, process id, time (UTC), size, why it was written, file.

  --json    one JSON object per file: { file, kind, format, pid, thread, app, instance,
            time, size, why, incident } (app, instance: a PM2 or node:cluster process's,
            else null; why: 'incident', 'dump', 'window' or null; incident: the
            trigger that wrote it, such as 'eventLoopDelay', else null)
`

// <cpu|heap>-<pid>[-w<thread>]-<YYYYMMDDTHHMMSS.mmmZ>.<ext>, as cprof names them.
// A PM2 instance or a node:cluster process puts <app>.<instance> before the
// pid (instance: a number, primary, or merged for the fan-out's merged file).
// A recorder dump puts recording- after the kind, an incident
// incident-<trigger>- (lib/incidents/index.js).
const NAME_RE = /^(cpu|heap)-(?:(recording)-|incident-([A-Za-z]+)-)?(?:([A-Za-z0-9_-]+)\.(\d+|primary|merged|x)-)?(\d+)(?:-w(\d+))?-(\d{8}T\d{6}\.\d{3}Z)\.(.+)$/
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
    if (!m && !w && !V8_EXTS[ext] && ext !== 'pb.gz') continue // an .svg or .txt not named by cprof
    let st
    try {
      st = fs.statSync(path.join(dir, base))
    } catch {
      continue // removed meanwhile
    }
    const kind = V8_EXTS[ext] ? V8_EXTS[ext][0] : m ? m[1] : w ? w.kind : 'unknown'
    const time = m && Number.isFinite(stampTime(m[8])) ? stampTime(m[8]) : w ? w.from : st.mtimeMs
    out.push({
      file: path.join(dir, base),
      kind,
      format: ext,
      pid: m ? Number(m[6]) : w ? w.pid : null,
      thread: m && m[7] ? Number(m[7]) : null,
      app: m && m[4] ? m[4] : null,
      instance: m && m[5] ? (/^\d+$/.test(m[5]) ? Number(m[5]) : m[5]) : null,
      time: new Date(time).toISOString(),
      ...(w ? { to: new Date(w.to).toISOString() } : {}),
      size: st.size,
      why: m && m[3] ? 'incident' : m && m[2] ? 'dump' : w ? 'window' : null,
      incident: m && m[3] ? m[3] : null
    })
  }
  return out.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.file < b.file ? -1 : 1))
}

function human (bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB']
  let v = bytes
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`
}

function table (rows) {
  const cells = [['KIND', 'PID', 'TIME (UTC)', 'SIZE', 'WHY', 'FILE']].concat(rows.map((r) => [
    V8_EXTS[r.format] ? r.kind : `${r.kind} (${r.format})`,
    r.pid === null ? '-' : r.thread === null ? String(r.pid) : `${r.pid}/w${r.thread}`,
    r.time.replace('T', ' ').replace('Z', ''),
    human(r.size),
    r.why === 'incident' ? `incident ${r.incident}` : r.why || '-',
    termSafe(path.basename(r.file)) // a file name may hold anything but / and NUL
  ]))
  return columns(cells, { right: [3] }).join('\n') + '\n'
}

async function run (argv, { out = process.stdout, err = process.stderr } = {}) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }
    })
  } catch (e) {
    err.write(`cprof list: ${e.message}\n\n${USAGE}`)
    return 2
  }
  const { values, positionals } = parsed
  if (values.help) {
    out.write(USAGE)
    return 0
  }
  if (positionals.length > 1) {
    err.write(`cprof list: give at most one directory\n\n${USAGE}`)
    return 2
  }
  const given = positionals.length === 1
  const dir = path.resolve(given ? positionals[0] : (process.env.CPROF_DIR || defaultDir()))
  let rows
  try {
    rows = listProfiles(dir)
  } catch (e) {
    if (e.code === 'ENOENT' && !given) {
      err.write(`cprof list: no profiles yet: ${termSafe(dir)} does not exist\n`)
      return 0
    }
    err.write(`cprof list: cannot read ${termSafe(dir)}: ${e.code === 'ENOENT' ? 'no such directory' : termSafe(e.message)}\n`)
    return 1
  }
  if (values.json) {
    for (const r of rows) out.write(JSON.stringify(r) + '\n')
    return 0
  }
  if (rows.length === 0) {
    err.write(`cprof list: no profile files in ${termSafe(dir)}\n`)
    return 0
  }
  out.write(`${termSafe(dir)}\n`)
  out.write(table(rows))
  return 0
}

module.exports = { run, listProfiles }

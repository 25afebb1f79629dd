'use strict'
// cprof list [dir] [--json]: the profile files in a directory (default: where
// cprof writes them, $CPROF_DIR or <tmpdir>/cprof-<uid>), oldest first, with kind,
// process id, time and size.
const path = require('node:path')
// the files and why each was written: shared with cprof ui
const { listProfiles, whyText, V8_EXTS } = require('../files/profiles')
const { defaultDir } = require('../dirs')
const { termSafe, columns } = require('../term')
const { command } = require('./kit')

const list = command({
  name: 'list',
  usage: ['[dir] [--json]'],
  positionals: [0, 1],
  about: `Lists the profile files in dir (default: $CPROF_DIR, else ${defaultDir()}),
oldest first: kind, process id, time (UTC), size, why it was written, file.`,
  options: [
    {
      name: 'json',
      type: 'flag',
      help: 'one JSON object per file: `{ file, kind, format, pid, thread, app, instance, time, size, why, incident }` ' +
        "(app, instance: a PM2 or node:cluster process's, else null; why: 'incident', 'dump', 'window', 'fan-out', " +
        "'run' or null; incident: the trigger that wrote it, such as 'eventLoopDelay', else null)"
    }
  ]
})

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
    whyText(r),
    termSafe(path.basename(r.file)) // a file name may hold anything but / and NUL
  ]))
  return columns(cells, { right: [3] }).join('\n') + '\n'
}

async function listDir ({ values, positionals }, out, err) {
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

async function run (argv, { out = process.stdout, err = process.stderr } = {}) {
  return list.run(argv, { out, err }, (a) => listDir(a, out, err))
}

module.exports = { run, command: list }

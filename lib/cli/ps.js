'use strict'
// cprof ps [--json] [--app NAME]: the live Node processes of this user that
// have cprof initialised (preload or init()), from the run directory
// (lib/identity/rundir.js), with CPU % and RSS from /proc.
const { discover, withUsage, byApp } = require('../fleet/discover')
const rundir = require('../identity/rundir')
const { termSafe, columns } = require('../term')
const { command } = require('./kit')
// each row's cells: shared with cprof ui's live table
const { psRow, PS_COLUMNS } = require('../fleet/ps-rows')

const WINDOW_MS = 250

const ps = command({
  name: 'ps',
  usage: ['[--json] [--app NAME]'],
  positionals: [0, 0],
  about: `Lists the live Node processes of this user that run cprof (cprof.init() or
node -r cprof/register with CPROF_PROFILING): pid, app name (the PM2 name,
else $CPROF_APP, process.title or the script's name), PM2 id and instance
(NODE_APP_INSTANCE, or the node:cluster worker id), cluster role, what is
running now (cpu, heap profile, recorder(<N>w): the flight recorder with N
windows in its ring; incidents(<F> fired, <S> suppressed): the incident
triggers' firings, and the crossings their cooldown, hourly cap or warm-up
kept from writing, with each trigger's largest), CPU % of one core over
${WINDOW_MS} ms, RSS, with the recorder's heap windows the heap trend (the top growing site, where V8
allocated the bytes, and its growth per minute, or "steady"; details, and what
holds them: cprof leaks <pid> [--holders]), and the signals it
installed (cpu:, heap: and dump: the flight recorder's).
Processes announce themselves in ${rundir.runDir()}
(or $CPROF_RUN_DIR); entries of processes that died are removed here.`,
  options: [
    { name: 'app', arg: 'NAME', type: 'text', help: 'only the processes of app NAME' },
    {
      name: 'json',
      type: 'flag',
      help: 'one JSON object per process: `{ pid, ppid, app, pm2Id, instance, role, running, recorder: { running, ' +
        'windows, from, to, incidents: { fired, suppressed, failed, suppressedBy }, heapTrend }, triggers, dir, ' +
        'cpuPercent, rssBytes, ... }`'
    }
  ]
})

function table (entries) {
  const rows = [PS_COLUMNS.map(([, heading]) => heading)]
  for (const e of entries) { // announced by the processes: escaped (lib/term.js)
    const row = psRow(e)
    rows.push(PS_COLUMNS.map(([key]) => termSafe(row[key])))
  }
  return columns(rows, { right: [0, 6, 7] }).map((l) => l.trimEnd()).join('\n') + '\n'
}

async function list ({ values }, out, err) {
  const found = discover()
  for (const w of found.warnings) err.write(`cprof ps: ${termSafe(w)}\n`)
  let entries = found.entries
  if (values.app !== undefined) entries = byApp(entries, values.app)
  await withUsage(entries, WINDOW_MS)
  if (values.json) {
    for (const e of entries) out.write(JSON.stringify(e) + '\n')
    return 0
  }
  if (entries.length === 0) {
    err.write(`cprof ps: no process runs cprof${values.app !== undefined ? ` as app ${JSON.stringify(values.app)}` : ''}\n`)
    return 0
  }
  out.write(table(entries))
  return 0
}

async function run (argv, { out = process.stdout, err = process.stderr } = {}) {
  return ps.run(argv, { out, err }, (a) => list(a, out, err))
}

module.exports = { run, command: ps }

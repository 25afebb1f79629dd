'use strict'
// cprof leaks <pid> | --app NAME [--json]: the allocation sites whose live
// bytes keep growing, from the heap trend each process's flight recorder
// announces in the run directory (lib/fleet/announce.js; computed in the
// process by src/core/trend.c at every heap window: docs/recorder.md, Heap
// trend). Nothing is sent to the process: this only reads its entry (as
// root, another user's process's entry in its owner's run directory,
// checked as `cprof trigger --dump` checks it). A site is where V8
// allocated the bytes, not what holds them: --holders adds that, from two
// heap snapshots (lib/cli/leaks-holders.js).
const { discover, findProcess, byApp } = require('../fleet/discover')
const { bytes, perMinute, siteName, clock, combine } = require('../recorder/heap-trend')
const { termSafe, columns } = require('../term')
const { takeHolders, renderHolders, pickInstance, INTERVAL_DEFAULT_S } = require('./leaks-holders')
const { command, UsageError } = require('./kit')

// What the sites are, in --json (the field names stay as they were).
const MEASURES = 'allocation site'

const leaks = command({
  name: 'leaks',
  usage: ['<pid> | --app NAME [--json]', '<pid> | --app NAME --holders [--interval S] [--keep] [--dir DIR] [--json]'],
  positionals: [0, 1],
  about: `Prints the allocation sites whose live heap keeps growing in a process that
runs cprof's flight recorder with heap windows (init({ recorder: { heap: true } })
or CPROF_RECORDER=1 CPROF_RECORDER_HEAP=1): for each site (function, script,
line) its live bytes now, its growth per minute (Theil–Sen), since when it
grows, and its share of the heap's growth. A site is reported only when it
grew steadily through the recorder's last windows (Mann–Kendall) and still
grows in the most recent ones: a cache filled once is not a leak.

A site is where V8 ALLOCATED the bytes, not what holds them: a string
flattened by hash.update(), a Buffer copied, an object a library builds and
the app keeps are counted where they were made. --holders says what holds them.`,
  options: [
    { name: 'app', arg: 'NAME', type: 'text', help: 'every instance of app NAME, then the sites summed across them' },
    {
      name: 'json',
      type: 'flag',
      help: 'one JSON object per process (`{ pid, app, instance, cwd, measures, trend }`), then with --app one ' +
        `\`{ app, instances, measures, sites }\`; measures: '${MEASURES}'`
    },
    {
      name: 'holders',
      type: 'flag',
      help: 'also what holds what grew: two heap snapshots, S seconds apart (--app: of the instance growing ' +
        'fastest), the new objects summed by their holder. Each PAUSES the process (the cost is printed first); ' +
        'deleted afterwards'
    },
    { name: 'interval', arg: 'S', type: 'seconds', above: true, max: 3600, default: INTERVAL_DEFAULT_S, help: 'with --holders: seconds between the two snapshots' },
    { name: 'keep', type: 'flag', help: 'with --holders: keep the two snapshots (their paths are printed)' },
    { name: 'dir', arg: 'DIR', type: 'dir', shown: 'its own directory', help: 'with --holders: where the process writes them' },
    { name: 'force', type: 'flag', help: 'with --holders: send the snapshot signal even if the process seems not to catch it' }
  ]
})

function header (e, t) {
  const who = `pid ${e.pid} (${e.app}${e.instance !== null && e.instance !== undefined ? `, instance ${e.instance}` : ''})`
  if (!t) return `${who}: no heap trend: the flight recorder does not record heap windows here ` +
    '(start it with heap: true, or CPROF_RECORDER_HEAP=1)'
  const verdict = t.growing ? `growing ${perMinute(t.perMinute)} since ${clock(t.since)}` : 'not growing steadily'
  return `${who}: live heap ${bytes(t.live)}, ${verdict} ` +
    `(${t.windows} windows, ${clock(t.from)}–${clock(t.to)} UTC; ${t.sites} allocation sites)`
}

function siteTable (sites, cwd, withInstances) {
  if (sites.length === 0) return '  no growing allocation site\n'
  const rows = [['LIVE', 'GROWTH', 'SINCE', 'SHARE', ...(withInstances ? ['INST'] : []), 'ALLOCATED AT']]
  for (const s of sites) {
    rows.push([bytes(s.live), perMinute(s.perMinute), clock(s.since),
      s.share === null || s.share === undefined ? '-' : `${Math.round(s.share * 100)}%`,
      ...(withInstances ? [String(s.instances)] : []), siteName(s, cwd)].map(termSafe))
  }
  return columns(rows).map((l) => '  ' + l).join('\n') + '\n'
}

async function report ({ values, given, positionals }, out, err) {
  const pid = positionals.length === 1 && /^[1-9][0-9]*$/.test(positionals[0]) ? Number(positionals[0]) : null
  if ((pid === null) === (values.app === undefined)) throw new UsageError('give one pid or --app NAME')
  const only = ['interval', 'keep', 'dir', 'force'].find((k) => given.has(k))
  if (only && !values.holders) throw new UsageError(`--${only} goes with --holders`)
  const warn = (w) => err.write(`cprof leaks: ${termSafe(w)}\n`)
  let entries
  if (pid !== null) {
    const one = findProcess(pid, warn)
    if (one.why) {
      warn(one.why)
      return 1
    }
    entries = [one.entry]
  } else {
    const found = discover()
    for (const w of found.warnings) warn(w)
    entries = byApp(found.entries, values.app)
    if (entries.length === 0) {
      warn(`no process runs cprof as app ${JSON.stringify(values.app)} (see \`cprof ps\`)`)
      return 1
    }
  }
  const trendOf = (e) => (e.recorder && e.recorder.heapTrend) || null
  if (values.holders) {
    return holdersReport(pickInstance(entries), entries.length, {
      intervalS: values.interval, keep: Boolean(values.keep), dir: values.dir, force: Boolean(values.force), json: values.json
    }, { out, err, trendOf })
  }
  if (values.json) {
    for (const e of entries) out.write(JSON.stringify({ pid: e.pid, app: e.app, instance: e.instance ?? null, cwd: e.cwd, measures: MEASURES, trend: trendOf(e) }) + '\n')
    if (pid === null) out.write(JSON.stringify({ app: values.app, instances: entries.length, measures: MEASURES, sites: combine(entries) }) + '\n')
  } else {
    for (const e of entries) {
      out.write(termSafe(header(e, trendOf(e))) + '\n')
      if (trendOf(e)) out.write(siteTable(trendOf(e).top || [], e.cwd, false))
    }
    if (pid === null && entries.length > 1) {
      out.write(`app ${termSafe(values.app)}, ${entries.length} instances together:\n`)
      out.write(siteTable(combine(entries), null, true))
    }
    if (entries.some((e) => (trendOf(e) || { top: [] }).top.length)) {
      out.write('allocated at: where V8 allocated the growing bytes, not what holds them (cprof leaks --holders)\n')
    }
  }
  return entries.some(trendOf) ? 0 : 1
}

// --holders: the sites of process e (as after the snapshots; as before them
// when the windows since, with the snapshots' pauses in them, name no growing
// site: on a loaded machine that erased the answer) beside what holds what
// grew between two snapshots of it.
async function holdersReport (e, instances, o, { out, err, trendOf }) {
  const who = 'cprof leaks'
  if (instances > 1) {
    err.write(`${who}: --holders snapshots one instance of ${instances}: pid ${e.pid}, whose heap grows fastest ` +
      '(each snapshot pauses the instance it is taken in)\n')
  }
  const r = await takeHolders(e, o, { err, who })
  if (r.why) {
    err.write(`${who}: ${termSafe(r.why)}\n`)
    return r.code
  }
  const after = trendOf(r.entry)
  const now = after && after.top && after.top.length > 0 ? r.entry : e
  const trend = trendOf(now)
  if (o.json) {
    out.write(JSON.stringify({ pid: e.pid, app: e.app, instance: e.instance ?? null, cwd: e.cwd, measures: MEASURES, trend, holders: r.result }) + '\n')
    return 0
  }
  out.write(termSafe(header(now, trend)) + '\n')
  if (trend) {
    out.write(`allocated at (the heap trend: where V8 allocated the growing bytes):\n`)
    out.write(siteTable(trend.top || [], now.cwd, false))
  }
  out.write(renderHolders(r.result))
  return 0
}

async function run (argv, { out = process.stdout, err = process.stderr } = {}) {
  return leaks.run(argv, { out, err }, (a) => report(a, out, err))
}

module.exports = { run, command: leaks }

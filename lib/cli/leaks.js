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
const { parseArgs } = require('node:util')
const { discover, findProcess, byApp } = require('../fleet/discover')
const { bytes, perMinute, siteName, clock, combine } = require('../recorder/heap-trend')
const { termSafe, columns } = require('../term')
const { takeHolders, renderHolders, intervalArg, pickInstance, INTERVAL_DEFAULT_S } = require('./leaks-holders')

// What the sites are, in --json (the field names stay as they were).
const MEASURES = 'allocation site'

const USAGE = `usage: cprof leaks <pid> | --app NAME [--json]
       cprof leaks <pid> | --app NAME --holders [--interval S] [--keep] [--dir DIR] [--json]

Prints the allocation sites whose live heap keeps growing in a process that
runs cprof's flight recorder with heap windows (init({ recorder: { heap: true } })
or CPROF_RECORDER=1 CPROF_RECORDER_HEAP=1): for each site (function, script,
line) its live bytes now, its growth per minute (Theil–Sen), since when it
grows, and its share of the heap's growth. A site is reported only when it
grew steadily through the recorder's last windows (Mann–Kendall) and still
grows in the most recent ones: a cache filled once is not a leak.

A site is where V8 ALLOCATED the bytes, not what holds them: a string
flattened by hash.update(), a Buffer copied, an object a library builds and
the app keeps are counted where they were made. --holders says what holds them.

  --app NAME    every instance of app NAME, then the sites summed across them
  --json        one JSON object per process ({ pid, app, instance, cwd,
                measures, trend }), then with --app one { app, instances,
                measures, sites }; measures: '${MEASURES}'
  --holders     also what holds what grew: two heap snapshots of the process
                (with --app: of the instance whose heap grows fastest), S
                seconds apart, compared as cprof snapshot diff A B does; the
                objects new in the second, summed by their holder. Each
                snapshot PAUSES the process (printed before the first, with
                the memory and disk it needs); deleted afterwards
  --interval S  seconds between the two snapshots (default ${INTERVAL_DEFAULT_S})
  --keep        keep the two snapshots (their paths are printed)
  --dir DIR     where the process writes them (default: its own directory)
  --force       send the snapshot signal even if the process seems not to catch it
`

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

async function run (argv, { out = process.stdout, err = process.stderr } = {}) {
  let a
  try {
    a = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        app: { type: 'string' },
        holders: { type: 'boolean' },
        interval: { type: 'string' },
        keep: { type: 'boolean' },
        dir: { type: 'string' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' }
      }
    })
  } catch (e) {
    err.write(`cprof leaks: ${e.message}\n\n${USAGE}`)
    return 2
  }
  if (a.values.help) {
    out.write(USAGE)
    return 0
  }
  const pid = a.positionals.length === 1 && /^[1-9][0-9]*$/.test(a.positionals[0]) ? Number(a.positionals[0]) : null
  if ((pid === null) === (a.values.app === undefined) || a.positionals.length > 1) {
    err.write(`cprof leaks: give one pid or --app NAME\n\n${USAGE}`)
    return 2
  }
  const interval = intervalArg(a.values.interval)
  if (interval.error) {
    err.write(`cprof leaks: ${interval.error}\n\n${USAGE}`)
    return 2
  }
  const only = ['interval', 'keep', 'dir', 'force'].find((k) => a.values[k] !== undefined)
  if (only && !a.values.holders) {
    err.write(`cprof leaks: --${only} goes with --holders\n\n${USAGE}`)
    return 2
  }
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
    entries = byApp(found.entries, a.values.app)
    if (entries.length === 0) {
      warn(`no process runs cprof as app ${JSON.stringify(a.values.app)} (see \`cprof ps\`)`)
      return 1
    }
  }
  const trendOf = (e) => (e.recorder && e.recorder.heapTrend) || null
  if (a.values.holders) {
    return holdersReport(pickInstance(entries), entries.length, {
      intervalS: interval.value, keep: Boolean(a.values.keep), dir: a.values.dir, force: Boolean(a.values.force), json: a.values.json
    }, { out, err, trendOf })
  }
  if (a.values.json) {
    for (const e of entries) out.write(JSON.stringify({ pid: e.pid, app: e.app, instance: e.instance ?? null, cwd: e.cwd, measures: MEASURES, trend: trendOf(e) }) + '\n')
    if (pid === null) out.write(JSON.stringify({ app: a.values.app, instances: entries.length, measures: MEASURES, sites: combine(entries) }) + '\n')
  } else {
    for (const e of entries) {
      out.write(termSafe(header(e, trendOf(e))) + '\n')
      if (trendOf(e)) out.write(siteTable(trendOf(e).top || [], e.cwd, false))
    }
    if (pid === null && entries.length > 1) {
      out.write(`app ${termSafe(a.values.app)}, ${entries.length} instances together:\n`)
      out.write(siteTable(combine(entries), null, true))
    }
    if (entries.some((e) => (trendOf(e) || { top: [] }).top.length)) {
      out.write('allocated at: where V8 allocated the growing bytes, not what holds them (cprof leaks --holders)\n')
    }
  }
  return entries.some(trendOf) ? 0 : 1
}

// --holders: the sites of process e (as after the snapshots) beside what
// holds what grew between two snapshots of it.
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
  const now = r.entry
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

module.exports = { run, USAGE }

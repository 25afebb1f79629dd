'use strict'
// cprof report <file>: the text report of a .cpuprofile / .heapprofile
// (top functions by self and by total, the top-down tree, callers of one
// function), or the summary object as JSON. Rendered by the native core.
const { TOP_DEFAULT } = require('../options')
const { parseCommand, SOURCE_MAPS_OPTION } = require('./profile-io')
const { command } = require('./kit')
const { STORE_OPTIONS, STORE_USAGE, commandInput, joinTimeArgs, profileJob, storeTitle } = require('./store')
const { termSafe } = require('../term')

const LINES_TOP = 5 // src/core/report_lines.h CPROF__LINES_TOP

const report = command({
  name: 'report',
  usage: ['<file> [--top N] [--cut PCT] [--bottom-up NAME] [--json] [--source-maps] [--lines [FUNCTION]] [--by KEY | --where KEY=VALUE]',
    '--app NAME [--heap] [--dir DIR]… [options]'],
  about: `Reports on a .cpuprofile or .heapprofile (cprof's, Chrome DevTools', node --cpu-prof's,
node --heap-prof's): the top functions by self and by total, the top-down call tree,
and with --bottom-up the callers of one function. CPU values are in ms, heap values
in bytes (B, KiB, MiB); percentages are of the profile's total.`,
  options: [
    { name: 'top', arg: 'N', type: 'count', min: 1, max: 100000, shown: String(TOP_DEFAULT), help: 'functions per table' },
    { name: 'cut', arg: 'PCT', type: 'percent', max: 100, shown: '1', help: 'leave out tree nodes under PCT % of the total' },
    { name: 'bottom-up', arg: 'NAME', type: 'text', help: 'also the callers of the function NAME (its exact name, or a part of "name (file:line)")' },
    {
      name: 'json',
      type: 'flag',
      help: 'print the summary object (kind, samples, durationMs, summary; for a store also windows, from, to) as JSON instead of the text'
    },
    {
      name: 'app',
      arg: 'NAME',
      type: 'text',
      help: "instead of <file>: app NAME's instances merged, each one's newest <kind>-NAME.<instance>-<pid>-… " +
        "file, in the directories the app's processes write to, or --dir"
    },
    { name: 'heap', type: 'flag', help: 'with --app: heap profiles instead of CPU' },
    { name: 'dir', arg: 'DIR', type: 'repeated', shown: "the app's processes' directories", help: 'with --app: where to look (repeatable)' },
    {
      name: 'lines',
      arg: '[FUNCTION]',
      type: 'flag',
      help: `also the self time of each line of the top ${LINES_TOP} functions by self, or of FUNCTION, with ` +
        "the source beside it (CPU profiles; --json: each summary function's lines)"
    },
    SOURCE_MAPS_OPTION,
    {
      name: 'by',
      arg: 'KEY',
      type: 'text',
      help: 'a .cpuprofile with labels (its .labels.json beside it): the time of each value of label KEY, and the top ' +
        "functions' self and total time by value (docs/labels.md)"
    },
    { name: 'where', arg: 'KEY=VALUE', type: 'text', help: 'the report of only the samples labelled KEY=VALUE' },
    ...STORE_OPTIONS
  ],
  notes: STORE_USAGE
})

// --app NAME: each instance's newest file, merged (lib/fleet/app-files.js).
function appInput (a) {
  const { latestByInstance, appDirs } = require('../fleet/app-files')
  const name = a.values.app
  const kind = a.values.heap ? 'heap' : 'cpu'
  const dirs = appDirs(name, a.values.dir)
  const found = latestByInstance(name, kind, dirs)
  if (found.length === 0) {
    process.stderr.write(`cprof report: no ${kind} profile of app ${JSON.stringify(name)} in ` +
      `${dirs.length ? termSafe(dirs.join(', ')) : 'the directories of its live processes (none runs: pass --dir)'}\n`)
    return { exit: 1 }
  }
  for (const f of found) process.stderr.write(`cprof report: ${termSafe(`${name}.${f.instance} (pid ${f.pid}): ${f.file}`)}\n`)
  return { input: { paths: found.map((f) => f.file) }, title: `${name}: ${found.length} instance${found.length === 1 ? '' : 's'} merged` }
}

// --lines takes an optional FUNCTION: one positional more than without it.
function positionalNames (argv, base) {
  if (!argv.includes('--lines')) return base
  let n
  try {
    n = report.parse(argv).positionals.length
  } catch {
    return base
  }
  return n > base.length ? [...base, 'function'] : base
}

async function run (argv) {
  const byApp = argv.some((x) => x === '--app' || x.startsWith('--app='))
  const args = joinTimeArgs(argv)
  const a = parseCommand(report, args, positionalNames(args, byApp ? [] : ['file']))
  if (a.exit !== undefined) return a.exit
  if (!byApp && (a.values.heap || a.values.dir)) return report.fail('--heap and --dir go with --app').exit
  const file = byApp ? `app ${a.values.app}` : a.positionals[0]
  const labeled = labelArgs(a, byApp)
  if (labeled.exit !== undefined) return labeled.exit
  if (a.values.by !== undefined) return byLabel(file, a.values.by, a.values.top ?? TOP_DEFAULT, a.values.json)
  const where = labeled.where ? require('./report-labels').whereProfile(file, labeled.where) : null
  try {
    return await reportOn(a, file, byApp, where)
  } finally {
    if (where) where.cleanup()
  }
}

// --by and --where: one .cpuprofile (its labels beside it), one of the two.
function labelArgs (a, byApp) {
  const { by, where } = a.values
  if (by === undefined && where === undefined) return {}
  if (by !== undefined && where !== undefined) return report.fail('--by and --where go one at a time')
  if (byApp || a.values.store !== undefined) return report.fail('--by and --where read one .cpuprofile file')
  if (by === '') return report.fail('--by needs a label name')
  if (where === undefined) return {}
  const w = require('./report-labels').parseWhere(where)
  return w ? { where: w } : report.fail(`--where takes KEY=VALUE, got "${where}"`)
}

function byLabel (file, key, top, json) {
  const { byLabel: split, byText } = require('./report-labels')
  const r = split(file, key, top)
  process.stdout.write(json ? JSON.stringify({ file, ...r }, null, 2) + '\n' : byText(file, r))
  return 0
}

async function reportOn (a, file, byApp, where) {
  if (where && where.kept === 0) {
    process.stderr.write(`cprof report: no sample of ${termSafe(file)} is labelled ${termSafe(a.values.where)}\n`)
    return 1
  }
  const src = where ? { input: { path: where.file } } : byApp ? appInput(a) : commandInput(report, file, a.values)
  if (src.exit !== undefined) return src.exit
  const share = where ? ` where ${a.values.where}: ${(where.keptUs / 1000).toFixed(2)} ms of ${(where.totalUs / 1000).toFixed(2)} ms` : ''
  const r = await profileJob(src.input, null, a.values.top ?? TOP_DEFAULT, {
    text: !a.values.json,
    top: a.values.top,
    cut: a.values.cut,
    focus: a.values.json ? undefined : a.values['bottom-up'],
    title: (src.title || (src.input.store ? storeTitle(src.input) : file)) + share,
    needSamples: true,
    sourceMaps: a.values['source-maps'] === true,
    lines: a.values.lines === true,
    linesFocus: a.values.lines ? a.positionals[byApp ? 0 : 1] : undefined
  })
  if (a.values.json) {
    const { kind, samples, durationMs, summary, sourceMaps } = r
    const merged = src.input.store
      ? { windows: src.input.paths, from: src.input.store.from, to: src.input.store.to }
      : byApp ? { instances: src.input.paths } : {}
    process.stdout.write(JSON.stringify({ file, ...merged, kind, samples, durationMs, summary, sourceMaps }, null, 2) + '\n')
  } else {
    process.stdout.write(r.text) // names escaped by the core (cprof__term_put)
  }
  return 0
}

module.exports = { run, command: report }

'use strict'
// cprof report <file>: the text report of a .cpuprofile / .heapprofile
// (top functions by self and by total, the top-down tree, callers of one
// function), or the summary object as JSON. Rendered by the native core.
const { parseArgs } = require('node:util')
const { TOP_DEFAULT } = require('../options')
const { parseCommand, intArg, percentArg } = require('./profile-io')
const { usageError } = require('./usage')
const { STORE_OPTIONS, STORE_USAGE, commandInput, joinTimeArgs, profileJob, storeTitle } = require('./store')
const { termSafe } = require('../term')

const LINES_TOP = 5 // src/core/report_lines.h CPROF__LINES_TOP

const USAGE = `usage: cprof report <file> [--top N] [--cut PCT] [--bottom-up NAME] [--json] [--source-maps]
                    [--lines [FUNCTION]] [--by KEY | --where KEY=VALUE]
       cprof report --app NAME [--heap] [--dir DIR]… [options]

Reports on a .cpuprofile or .heapprofile (cprof's, Chrome DevTools', node --cpu-prof's,
node --heap-prof's): the top functions by self and by total, the top-down call tree,
and with --bottom-up the callers of one function. CPU values are in ms, heap values
in bytes (B, KiB, MiB); percentages are of the profile's total.

  --top N             functions per table (default ${TOP_DEFAULT})
  --cut PCT           leave out tree nodes under PCT % of the total (default 1)
  --bottom-up NAME    also the callers of the function NAME (its exact name, or a
                      part of "name (file:line)")
  --json              print the summary object (kind, samples, durationMs, summary;
                      for a store also windows, from, to) as JSON instead of the text
  --app NAME          instead of <file>: the merged view of app NAME's instances,
                      each one's newest profile named <kind>-NAME.<instance>-<pid>-…
                      (as PM2 instances and node:cluster processes name theirs), in
                      the directories the app's live processes write to, or --dir
  --heap              with --app: heap profiles instead of CPU
  --dir DIR           with --app: where to look (repeatable)
  --lines [FUNCTION]  also the self time of each line (V8's positionTicks) of the
                      top ${LINES_TOP} functions by self, or of FUNCTION (its exact name, or a
                      part of "name (file:line)"), with the source line beside it
                      when the file can be read (CPU profiles; with --json: each
                      summary function's lines)
  --source-maps       map frames through the scripts' source maps (TypeScript,
                      bundles): original files, lines and names; the scripts and
                      maps must be at the paths the profile names
  --by KEY            a .cpuprofile with labels (its .labels.json beside it): the
                      time of each value of label KEY, and the top functions' self
                      and total time by value (docs/labels.md)
  --where KEY=VALUE   the report of only the samples labelled KEY=VALUE
${STORE_USAGE}`

const OPTIONS = {
  lines: { type: 'boolean' },
  top: { type: 'string' },
  cut: { type: 'string' },
  'bottom-up': { type: 'string' },
  json: { type: 'boolean' },
  app: { type: 'string' },
  heap: { type: 'boolean' },
  dir: { type: 'string', multiple: true },
  'source-maps': { type: 'boolean' },
  by: { type: 'string' },
  where: { type: 'string' },
  ...STORE_OPTIONS
}

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
    n = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: false }).positionals.length
  } catch {
    return base
  }
  return n > base.length ? [...base, 'function'] : base
}

async function run (argv) {
  const byApp = argv.some((x) => x === '--app' || x.startsWith('--app='))
  const args = joinTimeArgs(argv)
  const a = parseCommand('report', args, USAGE, OPTIONS, positionalNames(args, byApp ? [] : ['file']))
  if (a.exit !== undefined) return a.exit
  if (!byApp && (a.values.heap || a.values.dir)) return usageError('report', USAGE, '--heap and --dir go with --app').exit
  const top = intArg('report', 'top', a.values.top, 1, 100000)
  const cut = percentArg('cut', a.values.cut)
  const bad = top.error || cut.error
  if (bad) return usageError('report', USAGE, bad).exit
  const file = byApp ? `app ${a.values.app}` : a.positionals[0]
  const focus = a.values['bottom-up']
  const labeled = labelArgs(a, byApp)
  if (labeled.exit !== undefined) return labeled.exit
  if (a.values.by !== undefined) return byLabel(file, a.values.by, top.value ?? TOP_DEFAULT, a.values.json)
  const where = labeled.where ? require('./report-labels').whereProfile(file, labeled.where) : null
  try {
    return await report(a, file, byApp, where, { top, cut, focus })
  } finally {
    if (where) where.cleanup()
  }
}

// --by and --where: one .cpuprofile (its labels beside it), one of the two.
function labelArgs (a, byApp) {
  const { by, where } = a.values
  if (by === undefined && where === undefined) return {}
  if (by !== undefined && where !== undefined) return usageError('report', USAGE, '--by and --where go one at a time')
  if (byApp || a.values.store !== undefined) return usageError('report', USAGE, '--by and --where read one .cpuprofile file')
  if (by === '') return usageError('report', USAGE, '--by needs a label name')
  if (where === undefined) return {}
  const w = require('./report-labels').parseWhere(where)
  return w ? { where: w } : usageError('report', USAGE, `--where takes KEY=VALUE, got "${where}"`)
}

function byLabel (file, key, top, json) {
  const { byLabel: split, byText } = require('./report-labels')
  const r = split(file, key, top)
  process.stdout.write(json ? JSON.stringify({ file, ...r }, null, 2) + '\n' : byText(file, r))
  return 0
}

async function report (a, file, byApp, where, { top, cut, focus }) {
  if (where && where.kept === 0) {
    process.stderr.write(`cprof report: no sample of ${termSafe(file)} is labelled ${termSafe(a.values.where)}\n`)
    return 1
  }
  const src = where ? { input: { path: where.file } } : byApp ? appInput(a) : commandInput('report', USAGE, file, a.values)
  if (src.exit !== undefined) return src.exit
  const share = where ? ` where ${a.values.where}: ${(where.keptUs / 1000).toFixed(2)} ms of ${(where.totalUs / 1000).toFixed(2)} ms` : ''
  const r = await profileJob(src.input, null, top.value ?? TOP_DEFAULT, {
    text: !a.values.json,
    top: top.value,
    cut: cut.value,
    focus: a.values.json ? undefined : focus,
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

module.exports = { run, USAGE }

'use strict'
// cprof merge <files…> [-o out] [--formats …]: profiles of one kind merged
// into one by the native core (read, parsed, merged and written off the
// main thread), and a summary of the result.
const fs = require('node:fs')
const path = require('node:path')
const native = require('../native')
const { FORMAT_EXT } = require('../options')
const { claimOutputs, refused, OUTPUT_OPTION, FORCE_OPTION, SOURCE_MAPS_OPTION } = require('./profile-io')
const { command, UsageError } = require('./kit')
const { STORE_OPTIONS, STORE_USAGE, commandInput, joinTimeArgs, storeOutputPath, iso } = require('./store')
const { topLines, fmt } = require('../fleet/summary')
const { TEMPLATE_PATH } = require('../viewer')
const { mergeMarks } = require('../files/merge-marks')
const { mergedSidecar } = require('../files/labels-sidecar')
const { termSafe } = require('../term')

const FORMATS = Object.keys(FORMAT_EXT)

// --formats html: the viewer page, with where each input starts (CPU).
function htmlOpts (paths) {
  const marks = /\.heapprofile$/i.test(paths[0]) ? undefined : mergeMarks(paths)
  return marks ? { htmlTemplate: TEMPLATE_PATH, viewerMarks: marks } : { htmlTemplate: TEMPLATE_PATH }
}
const TOP = 10

const merge = command({
  name: 'merge',
  usage: [`<file>… [-o out] [--formats ${FORMATS.join(',')}] [--source-maps] [options]`],
  about: `Merges .cpuprofile files, or .heapprofile files, into one profile of the same
kind that Chrome DevTools, speedscope and every cprof command read. The same
function at the same position in the call stack becomes one node: self time
(µs) or self size (bytes) and hit counts add up. CPU samples follow each
other in the order the files are given (give them oldest first): a file that
starts where the one before it ended (a recorder's windows) keeps its true
timestamps; any other (after a gap, run at the same time, on another clock)
is laid end to end, its first sample where the one before it ended: the time
no file covered is cut out, so viewers never count it for a function.
Heap samples are appended, their ordinals renumbered after the previous file's.
A mix of CPU and heap profiles, or a file that is not a profile, is an error
(exit 1) naming the file.`,
  options: [
    {
      ...OUTPUT_OPTION(''),
      shown: "merged.cpuprofile or merged.heapprofile in the current directory, after the first file's extension",
      help: 'the merged profile; -o replaces an existing FILE'
    },
    FORCE_OPTION,
    { name: 'formats', arg: 'LIST', type: 'list', choices: FORMATS, noun: 'format', shown: 'none', help: 'also write these next to it, same name, their extension' },
    { name: 'top', arg: 'N', type: 'count', min: 1, max: 100000, default: TOP, help: 'functions in the printed summary' },
    { name: 'json', type: 'flag', help: 'print the result (kind, samples, durationMs, files, summary, sourceMaps) as JSON instead of text' },
    {
      ...SOURCE_MAPS_OPTION,
      help: "map frames through the scripts' source maps (TypeScript, bundles) in the summary and --formats outputs: " +
        "original files, lines and names; the merged profile keeps V8's positions; the scripts and maps must be at " +
        'the paths the profiles name'
    },
    ...STORE_OPTIONS
  ],
  notes: STORE_USAGE
})

// The files to merge: every positional, or the windows of one store directory.
function inputs (files, values) {
  const dirs = files.filter((f) => {
    try {
      return fs.statSync(f).isDirectory()
    } catch {
      return false
    }
  })
  if (dirs.length > 0 && files.length > 1) {
    return merge.fail(`${dirs[0]} is a directory: merge one store directory, or files`)
  }
  const src = commandInput(merge, files[0], values)
  if (src.exit !== undefined) return src
  if (src.input.store) return { paths: src.input.paths, store: src.input }
  return { paths: files.map((f) => path.resolve(f)) }
}

// -o as given; else a default that must not replace anything.
function outputFile (paths, store, output) {
  if (output !== undefined) return { file: path.resolve(output), explicit: true }
  if (store) return { file: storeOutputPath(store, store.store.kind === 'heap' ? 'heapprofile' : 'cpuprofile') }
  const m = /\.(cpuprofile|heapprofile)$/i.exec(paths[0])
  if (!m) return { error: `cannot tell the kind from the name ${path.basename(paths[0])}: name the output with -o` }
  return { file: path.resolve(`merged.${m[1].toLowerCase()}`) }
}

function printSummary (r, n, files, top) {
  const cpu = r.kind === 'cpu'
  const span = cpu ? `, ${fmt(r.durationMs / 1000, 2)} s profiled` : ''
  const out = [`merged ${n} ${cpu ? 'CPU' : 'heap'} profile${n === 1 ? '' : 's'}: ${r.samples} samples${span}`]
  for (const f of files) out.push(`  ${termSafe(f)}`)
  out.push(...topLines(r, top))
  process.stdout.write(out.join('\n') + '\n')
}

async function run (argv) {
  let a
  try {
    a = merge.parse(joinTimeArgs(argv))
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    return merge.fail(err.message).exit
  }
  if (a.help) {
    process.stdout.write(merge.help())
    return 0
  }
  if (a.positionals.length === 0) return merge.fail('missing <file>…').exit
  const formats = a.values.formats || []
  const src = inputs(a.positionals, a.values)
  if (src.exit !== undefined) return src.exit
  const out = outputFile(src.paths, src.store, a.values.output)
  if (out.error) return merge.fail(out.error).exit
  const base = out.file.replace(/\.(cpuprofile|heapprofile|json)$/i, '')
  const outs = {}
  for (const f of formats) outs[f] = path.basename(`${base}.${FORMAT_EXT[f]}`)
  const dir = path.dirname(out.file)
  const labels = mergedSidecar(src.paths, out.file) // the inputs' labels, merged beside it
  const claim = claimOutputs('merge', [out.file, ...(labels ? [labels] : []), ...Object.values(outs).map((o) => path.join(dir, o))], {
    explicit: out.explicit, force: a.values.force, inputs: src.paths
  })
  if (claim.exit !== undefined) return claim.exit
  const n = src.paths.length
  let r
  try {
    r = await native.merge(src.paths, dir, path.basename(out.file), a.values.top, {
      outs,
      title: src.store ? `${src.store.store.kind} ${iso(src.store.store.from)} to ${iso(src.store.store.to)}` : `${n} merged profiles`,
      needSamples: true,
      keepExisting: claim.keepExisting,
      sourceMaps: a.values['source-maps'] === true,
      ...(labels ? { labelsFile: path.basename(labels) } : {}),
      ...(outs.html ? htmlOpts(src.paths) : {})
    })
  } catch (err) {
    return refused('merge', err)
  }
  const files = [r.file.path, ...(r.outputs && r.outputs.labels ? [r.outputs.labels.path] : []), ...formats.map((f) => r.outputs[f].path)]
  if (a.values.json) {
    const { kind, samples, durationMs, summary, sourceMaps } = r
    process.stdout.write(JSON.stringify({ inputs: src.paths, files, kind, samples, durationMs, summary, sourceMaps }, null, 2) + '\n')
  } else {
    printSummary(r, n, files, a.values.top)
  }
  return 0
}

module.exports = { run, command: merge }

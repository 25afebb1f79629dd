'use strict'
// cprof convert <file> --to pprof|folded|svg|txt|html [-o out]: a .cpuprofile /
// .heapprofile in another format, written by the native core.
const path = require('node:path')
const { FORMAT_EXT } = require('../options')
const { TEMPLATE_PATH } = require('../viewer')
const { withLabels } = require('../viewer/labels-file')
const { termSafe } = require('../term')
const { parseCommand, input, outputPath, claimOutputs, refused, OUTPUT_OPTION, FORCE_OPTION, SOURCE_MAPS_OPTION } = require('./profile-io')
const { command } = require('./kit')
const { storeHeapMarks } = require('./heap-marks')
const { STORE_OPTIONS, STORE_USAGE, commandInput, joinTimeArgs, parseTime, profileJob, storeOutputPath, storeTitle } = require('./store')

const FORMATS = Object.keys(FORMAT_EXT)

// --to is the output format here, and a store's range end too: a value
// that is not a format name but a time (they never look alike) is the latter.
const convert = command({
  name: 'convert',
  usage: [`<file> --to ${FORMATS.join('|')} [-o out] [options]`],
  about: `Converts a .cpuprofile or .heapprofile to:
  pprof    gzip'd protobuf (pprof's profile.proto): go tool pprof, Pyroscope, Grafana
  folded   folded stacks, "a;b;c <count>" per line: flamegraph.pl, speedscope, inferno
           (count: self µs for CPU, bytes for heap)
  svg      an interactive SVG flame graph
  txt      the text report (as cprof report prints it)
  html     the self-contained HTML viewer (as cprof html writes it)`,
  options: [
    {
      name: 'to',
      arg: 'FORMAT',
      type: 'repeated',
      shown: 'required',
      help: `the output format: ${FORMATS.join(', ')} (repeat it for several; then -o is not allowed); with a store, a time is the range's end`
    },
    { ...OUTPUT_OPTION('pb.gz, .folded, .svg, .txt or .html') },
    FORCE_OPTION,
    {
      name: 'interval',
      arg: 'N',
      type: 'count',
      min: 1,
      max: 2 ** 40,
      shown: 'CPU: the mean gap between samples; heap: left out',
      help: 'pprof: the sampling interval (CPU µs, heap bytes)'
    },
    {
      name: 'include-collected',
      type: 'flag',
      help: 'pprof, heap: name the bytes alloc_space (the profile includes objects GC collected) instead of inuse_space'
    },
    {
      name: 'lines',
      type: 'flag',
      help: "pprof: one Location per source line (V8's positionTicks), so `go tool pprof -lines` and Pyroscope show " +
        'lines (default: one per function); txt: the "Self time by line" section'
    },
    SOURCE_MAPS_OPTION,
    ...STORE_OPTIONS.filter((o) => o.name !== 'to')
  ],
  notes: `${STORE_USAGE} In convert, --to names the format and, given a time, the range end too:
cprof convert store/ --from -5m --to now --to pprof. With a store and no -o,
outputs go to the current directory as <kind>-merged-<fromMs>-<toMs>.<ext>.`
})

async function run (argv) {
  const a = parseCommand(convert, joinTimeArgs(argv), ['file'])
  if (a.exit !== undefined) return a.exit
  const given = [...new Set(a.values.to || [])]
  const to = given.filter((f) => FORMATS.includes(f))
  const times = given.filter((f) => !FORMATS.includes(f) && !parseTime('to', f).error)
  const unknown = given.find((f) => !to.includes(f) && !times.includes(f))
  if (unknown) return convert.fail(`unknown format "${unknown}" for --to; known: ${FORMATS.join(', ')}`).exit
  if (to.length === 0) return convert.fail(`--to is required (${FORMATS.join(', ')})`).exit
  if (times.length > 1) return convert.fail(`one range end for --to, got ${times.join(' and ')}`).exit
  if (to.length > 1 && a.values.output !== undefined) {
    return convert.fail('-o names one file: use it with a single --to').exit
  }
  const [file] = a.positionals
  const src = commandInput(convert, file, { ...a.values, to: times[0] })
  if (src.exit !== undefined) return src.exit
  const store = src.input.store
  // Every output in the same directory: the input's, or -o's.
  const outs = {}
  const paths = []
  let dir
  for (const f of to) {
    const out = store && a.values.output === undefined
      ? storeOutputPath(src.input, FORMAT_EXT[f])
      : outputPath(file, a.values.output, FORMAT_EXT[f])
    dir = path.dirname(out)
    outs[f] = path.basename(out)
    paths.push(out)
  }
  const claim = claimOutputs('convert', paths, {
    explicit: a.values.output !== undefined, force: a.values.force, inputs: src.input.paths ?? [input(file)]
  })
  if (claim.exit !== undefined) return claim.exit
  // A store's heap page: the live heap per window as its overview.
  const marks = outs.html ? await storeHeapMarks(store) : undefined
  // A .cpuprofile's labels beside it (<stem>.labels.json): the page filters
  // by them, as cprof html's does (the job's pprof, if asked too, carries them).
  const labelled = outs.html && !store && src.input.path ? src.input.path : null
  const warn = (m) => process.stderr.write(`cprof convert: ${termSafe(m)}\n`)
  const job = (extra) => profileJob(src.input, dir, 0, {
    ...(marks ? { viewerMarks: marks } : {}),
    ...extra,
    outs,
    interval: a.values.interval,
    includeCollected: a.values['include-collected'] === true,
    title: store ? storeTitle(src.input) : path.basename(file),
    htmlTemplate: TEMPLATE_PATH,
    needSamples: true,
    keepExisting: claim.keepExisting,
    sourceMaps: a.values['source-maps'] === true,
    lines: a.values.lines === true,
    pprofLines: a.values.lines === true
  })
  let r
  try {
    r = labelled ? await withLabels(labelled, warn, job) : await job({})
  } catch (err) {
    return refused('convert', err)
  }
  for (const f of to) process.stdout.write(`${r.outputs[f].path}\n`)
  return 0
}

module.exports = { run, command: convert }

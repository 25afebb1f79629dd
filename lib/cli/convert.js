'use strict'
// cprof convert <file> --to pprof|folded|svg|txt|html [-o out]: a .cpuprofile /
// .heapprofile in another format, written by the native core.
const path = require('node:path')
const { FORMAT_EXT } = require('../options')
const { TEMPLATE_PATH } = require('../viewer')
const { parseCommand, intArg, input, outputPath, claimOutputs, refused } = require('./profile-io')
const { usageError } = require('./usage')
const { storeHeapMarks } = require('./heap-marks')
const { STORE_OPTIONS, STORE_USAGE, commandInput, joinTimeArgs, parseTime, profileJob, storeOutputPath, storeTitle } = require('./store')

const FORMATS = Object.keys(FORMAT_EXT)

const USAGE = `usage: cprof convert <file> --to ${FORMATS.join('|')} [-o out] [options]

Converts a .cpuprofile or .heapprofile to:
  pprof    gzip'd protobuf (pprof's profile.proto): go tool pprof, Pyroscope, Grafana
  folded   folded stacks, "a;b;c <count>" per line: flamegraph.pl, speedscope, inferno
           (count: self µs for CPU, bytes for heap)
  svg      an interactive SVG flame graph
  txt      the text report (as cprof report prints it)
  html     the self-contained HTML viewer (as cprof html writes it)

  --to FORMAT         the output format (repeat it for several; then -o is not allowed)
  -o, --output FILE   where to write (default: next to <file>, extension .pb.gz,
                      .folded, .svg, .txt or .html); -o replaces an existing FILE
  --force             replace existing default outputs (without it, convert stops
                      with exit 1 and names the file in the way)
  --interval N        pprof: the sampling interval (CPU µs, heap bytes); default for
                      CPU: the mean gap between samples, for heap: left out
  --include-collected pprof, heap: name the bytes alloc_space (the profile
                      includes objects GC collected) instead of inuse_space
  --lines             pprof: one Location per source line (V8's positionTicks), so
                      \`go tool pprof -lines\` and Pyroscope show lines (default: one
                      per function); txt: the "Self time by line" section
  --source-maps       map frames through the scripts' source maps (TypeScript,
                      bundles): original files, lines and names; the scripts and
                      maps must be at the paths the profile names
${STORE_USAGE}  In convert, --to names the format and, given a time, the range end too:
  cprof convert store/ --from -5m --to now --to pprof. With a store and no -o,
  outputs go to the current directory as <kind>-merged-<fromMs>-<toMs>.<ext>.
`

// --to is the output format here, and a store's range end too: a value
// that is not a format name but a time (they never look alike) is the latter.
const OPTIONS = {
  ...STORE_OPTIONS,
  to: { type: 'string', multiple: true },
  output: { type: 'string', short: 'o' },
  interval: { type: 'string' },
  'include-collected': { type: 'boolean' },
  force: { type: 'boolean' },
  lines: { type: 'boolean' },
  'source-maps': { type: 'boolean' }
}

async function run (argv) {
  const a = parseCommand('convert', joinTimeArgs(argv), USAGE, OPTIONS, ['file'])
  if (a.exit !== undefined) return a.exit
  const given = [...new Set(a.values.to || [])]
  const to = given.filter((f) => FORMATS.includes(f))
  const times = given.filter((f) => !FORMATS.includes(f) && !parseTime('to', f).error)
  const unknown = given.find((f) => !to.includes(f) && !times.includes(f))
  if (unknown) return usageError('convert', USAGE, `unknown format "${unknown}" for --to; known: ${FORMATS.join(', ')}`).exit
  if (to.length === 0) return usageError('convert', USAGE, `--to is required (${FORMATS.join(', ')})`).exit
  if (times.length > 1) return usageError('convert', USAGE, `one range end for --to, got ${times.join(' and ')}`).exit
  if (to.length > 1 && a.values.output !== undefined) {
    return usageError('convert', USAGE, '-o names one file: use it with a single --to').exit
  }
  const interval = intArg('convert', 'interval', a.values.interval, 1, 2 ** 40)
  if (interval.error) return usageError('convert', USAGE, interval.error).exit
  const [file] = a.positionals
  const src = commandInput('convert', USAGE, file, { ...a.values, to: times[0] })
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
  let r
  try {
    r = await profileJob(src.input, dir, 0, {
      ...(marks ? { viewerMarks: marks } : {}),
      outs,
      interval: interval.value,
      includeCollected: a.values['include-collected'] === true,
      title: store ? storeTitle(src.input) : path.basename(file),
      htmlTemplate: TEMPLATE_PATH,
      needSamples: true,
      keepExisting: claim.keepExisting,
      sourceMaps: a.values['source-maps'] === true,
      lines: a.values.lines === true,
      pprofLines: a.values.lines === true
    })
  } catch (err) {
    return refused('convert', err)
  }
  for (const f of to) process.stdout.write(`${r.outputs[f].path}\n`)
  return 0
}

module.exports = { run, USAGE }

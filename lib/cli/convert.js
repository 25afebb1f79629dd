'use strict'
// cprof convert <file> --to pprof|folded|svg|txt [-o out]: a .cpuprofile /
// .heapprofile in another format, written by the native core.
const path = require('node:path')
const native = require('../native')
const { FORMAT_EXT } = require('../options')
const { parseCommand, usageError, intArg, input, outputPath, claimOutputs, refused } = require('./profile-io')

const FORMATS = Object.keys(FORMAT_EXT)

const USAGE = `usage: cprof convert <file> --to ${FORMATS.join('|')} [-o out] [options]

Converts a .cpuprofile or .heapprofile to:
  pprof    gzip'd protobuf (pprof's profile.proto): go tool pprof, Pyroscope, Grafana
  folded   folded stacks, "a;b;c <count>" per line: flamegraph.pl, speedscope, inferno
           (count: self µs for CPU, bytes for heap)
  svg      an interactive SVG flame graph
  txt      the text report (as cprof report prints it)

  --to FORMAT         the output format (repeat it for several; then -o is not allowed)
  -o, --output FILE   where to write (default: next to <file>, extension .pb.gz,
                      .folded, .svg or .txt); -o replaces an existing FILE
  --force             replace existing default outputs (without it, convert stops
                      with exit 1 and names the file in the way)
  --interval N        pprof: the sampling interval (CPU µs, heap bytes); default for
                      CPU: the mean gap between samples, for heap: left out
  --include-collected pprof, heap: name the bytes alloc_space (the profile
                      includes objects GC collected) instead of inuse_space
`

const OPTIONS = {
  to: { type: 'string', multiple: true },
  output: { type: 'string', short: 'o' },
  interval: { type: 'string' },
  'include-collected': { type: 'boolean' },
  force: { type: 'boolean' }
}

async function run (argv) {
  const a = parseCommand('convert', argv, USAGE, OPTIONS, ['file'])
  if (a.exit !== undefined) return a.exit
  const to = [...new Set(a.values.to || [])]
  if (to.length === 0) return usageError('convert', USAGE, `--to is required (${FORMATS.join(', ')})`).exit
  const unknown = to.find((f) => !FORMATS.includes(f))
  if (unknown) return usageError('convert', USAGE, `unknown format "${unknown}" for --to; known: ${FORMATS.join(', ')}`).exit
  if (to.length > 1 && a.values.output !== undefined) {
    return usageError('convert', USAGE, '-o names one file: use it with a single --to').exit
  }
  const interval = intArg('convert', 'interval', a.values.interval, 1, 2 ** 40)
  if (interval.error) return usageError('convert', USAGE, interval.error).exit
  const [file] = a.positionals
  // Every output in the same directory: the input's, or -o's.
  const outs = {}
  const paths = []
  let dir
  for (const f of to) {
    const out = outputPath(file, a.values.output, FORMAT_EXT[f])
    dir = path.dirname(out)
    outs[f] = path.basename(out)
    paths.push(out)
  }
  const claim = claimOutputs('convert', paths, {
    explicit: a.values.output !== undefined, force: a.values.force, inputs: [input(file)]
  })
  if (claim.exit !== undefined) return claim.exit
  let r
  try {
    r = await native.convert(input(file), dir, 0, {
      outs,
      interval: interval.value,
      includeCollected: a.values['include-collected'] === true,
      title: path.basename(file),
      needSamples: true,
      keepExisting: claim.keepExisting
    })
  } catch (err) {
    return refused('convert', err)
  }
  for (const f of to) process.stdout.write(`${r.outputs[f].path}\n`)
  return 0
}

module.exports = { run, USAGE }

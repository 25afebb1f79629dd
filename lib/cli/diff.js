'use strict'
// cprof diff <before> <after> [-o diff.svg]: per-function changes between
// two profiles of the same kind, and a differential flame graph. Computed
// by the native core.
const path = require('node:path')
const native = require('../native')
const { parseCommand, intArg, input, claimOutputs, refused } = require('./profile-io')
const { usageError } = require('./usage')

const USAGE = `usage: cprof diff <before> <after> [--top N] [-o diff.svg] [--force] [--source-maps]

Compares two .cpuprofile files or two .heapprofile files. Each function's self and
total are compared as shares of their own profile's total (so profiles of different
lengths compare fairly); the table lists the functions whose self share changed most,
with the values before and after (ms or bytes) and the change in percentage points.

  --top N             rows in the table (default 30)
  -o, --output FILE   also write a differential flame graph (SVG): the frames of
                      <after>, red where the self share grew, blue where it shrank;
                      -o replaces an existing FILE, but never one of the inputs
  --force             let -o replace an input too
  --source-maps       map frames through the scripts' source maps (TypeScript,
                      bundles): original files, lines and names; the scripts and
                      maps must be at the paths the profile names
`

const OPTIONS = {
  top: { type: 'string' },
  output: { type: 'string', short: 'o' },
  force: { type: 'boolean' },
  'source-maps': { type: 'boolean' }
}

async function run (argv) {
  const a = parseCommand('diff', argv, USAGE, OPTIONS, ['before', 'after'])
  if (a.exit !== undefined) return a.exit
  const top = intArg('diff', 'top', a.values.top, 1, 100000)
  if (top.error) return usageError('diff', USAGE, top.error).exit
  const [before, after] = a.positionals
  const out = a.values.output !== undefined ? path.resolve(a.values.output) : null
  const claim = claimOutputs('diff', out ? [out] : [], {
    explicit: true, force: a.values.force, inputs: [input(before), input(after)]
  })
  if (claim.exit !== undefined) return claim.exit
  let r
  try {
    r = await native.diff(input(before), input(after), out && path.dirname(out), 0, {
      text: true,
      top: top.value,
      title: `${before} \u2192 ${after}`,
      outs: out ? { svg: path.basename(out) } : undefined,
      needSamples: true,
      keepExisting: claim.keepExisting,
      sourceMaps: a.values['source-maps'] === true
    })
  } catch (err) {
    return refused('diff', err)
  }
  process.stdout.write(r.text)
  if (out) process.stdout.write(`\ndifferential flame graph: ${r.outputs.svg.path}\n`)
  return 0
}

module.exports = { run, USAGE }

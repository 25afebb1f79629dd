'use strict'
// cprof flame <file> [-o out.svg]: an interactive SVG flame graph of a
// .cpuprofile / .heapprofile, laid out and written by the native core.
const path = require('node:path')
const native = require('../native')
const { parseCommand, input, outputPath, claimOutputs, refused } = require('./profile-io')

const USAGE = `usage: cprof flame <file> [-o out.svg] [--title TEXT] [--force]

Writes an SVG flame graph of a .cpuprofile or .heapprofile: one self-contained file
(no network) to open in a browser. Hover a frame for its numbers, click to zoom,
type in the search box to highlight matches, Escape to reset.

  -o, --output FILE   where to write (default: next to <file>, extension .svg);
                      -o replaces an existing FILE
  --force             replace an existing default output (without it, flame stops
                      with exit 1 and names the file in the way)
  --title TEXT        the graph's title (default: the file name)
`

const OPTIONS = {
  output: { type: 'string', short: 'o' },
  title: { type: 'string' },
  force: { type: 'boolean' }
}

async function run (argv) {
  const a = parseCommand('flame', argv, USAGE, OPTIONS, ['file'])
  if (a.exit !== undefined) return a.exit
  const [file] = a.positionals
  const out = outputPath(file, a.values.output, 'svg')
  const claim = claimOutputs('flame', [out], {
    explicit: a.values.output !== undefined, force: a.values.force, inputs: [input(file)]
  })
  if (claim.exit !== undefined) return claim.exit
  let r
  try {
    r = await native.convert(input(file), path.dirname(out), 0, {
      outs: { svg: path.basename(out) },
      title: a.values.title ?? path.basename(file),
      needSamples: true,
      keepExisting: claim.keepExisting
    })
  } catch (err) {
    return refused('flame', err)
  }
  process.stdout.write(`${r.outputs.svg.path}\n`)
  return 0
}

module.exports = { run, USAGE }

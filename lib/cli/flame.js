'use strict'
// cprof flame <file> [-o out.svg]: an interactive SVG flame graph of a
// .cpuprofile / .heapprofile, laid out and written by the native core.
const path = require('node:path')
const { parseCommand, outputPath } = require('./profile-io')
const { STORE_OPTIONS, STORE_USAGE, commandInput, joinTimeArgs, profileJob, storeOutputPath, storeTitle } = require('./store')

const USAGE = `usage: cprof flame <file> [-o out.svg] [--title TEXT]

Writes an SVG flame graph of a .cpuprofile or .heapprofile: one self-contained file
(no network) to open in a browser. Hover a frame for its numbers, click to zoom,
type in the search box to highlight matches, Escape to reset.

  -o, --output FILE   where to write (default: next to <file>, extension .svg)
  --title TEXT        the graph's title (default: the file name)
${STORE_USAGE}  With a store and no -o, the graph goes to the current directory as
  <kind>-merged-<fromMs>-<toMs>.svg.
`

const OPTIONS = {
  output: { type: 'string', short: 'o' },
  title: { type: 'string' },
  ...STORE_OPTIONS
}

async function run (argv) {
  const a = parseCommand('flame', joinTimeArgs(argv), USAGE, OPTIONS, ['file'])
  if (a.exit !== undefined) return a.exit
  const [file] = a.positionals
  const src = commandInput('flame', USAGE, file, a.values)
  if (src.exit !== undefined) return src.exit
  const store = src.input.store
  const out = store && a.values.output === undefined ? storeOutputPath(src.input, 'svg') : outputPath(file, a.values.output, 'svg')
  const r = await profileJob(src.input, path.dirname(out), 0, {
    outs: { svg: path.basename(out) },
    title: a.values.title ?? (store ? storeTitle(src.input) : path.basename(file)),
    needSamples: true
  })
  process.stdout.write(`${r.outputs.svg.path}\n`)
  return 0
}

module.exports = { run, USAGE }

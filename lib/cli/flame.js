'use strict'
// cprof flame <file> [-o out.svg]: an interactive SVG flame graph of a
// .cpuprofile / .heapprofile, laid out and written by the native core.
const path = require('node:path')
const { parseCommand, input, outputPath, claimOutputs, refused, OUTPUT_OPTION, FORCE_OPTION, SOURCE_MAPS_OPTION } = require('./profile-io')
const { command } = require('./kit')
const { STORE_OPTIONS, STORE_USAGE, commandInput, joinTimeArgs, profileJob, storeOutputPath, storeTitle } = require('./store')

const flame = command({
  name: 'flame',
  usage: ['<file> [-o out.svg] [--title TEXT] [--force] [--source-maps]'],
  about: `Writes an SVG flame graph of a .cpuprofile or .heapprofile: one self-contained file
(no network) to open in a browser. Hover a frame for its numbers, click to zoom,
type in the search box to highlight matches, Escape to reset.`,
  options: [
    OUTPUT_OPTION('svg'),
    FORCE_OPTION,
    { name: 'title', arg: 'TEXT', type: 'text', shown: 'the file name', help: "the graph's title" },
    SOURCE_MAPS_OPTION,
    ...STORE_OPTIONS
  ],
  notes: `${STORE_USAGE} With a store and no -o, the graph goes to the current
directory as <kind>-merged-<fromMs>-<toMs>.svg.`
})

async function run (argv) {
  const a = parseCommand(flame, joinTimeArgs(argv), ['file'])
  if (a.exit !== undefined) return a.exit
  const [file] = a.positionals
  const src = commandInput(flame, file, a.values)
  if (src.exit !== undefined) return src.exit
  const store = src.input.store
  const out = store && a.values.output === undefined ? storeOutputPath(src.input, 'svg') : outputPath(file, a.values.output, 'svg')
  const claim = claimOutputs('flame', [out], {
    explicit: a.values.output !== undefined, force: a.values.force, inputs: src.input.paths ?? [input(file)]
  })
  if (claim.exit !== undefined) return claim.exit
  let r
  try {
    r = await profileJob(src.input, path.dirname(out), 0, {
      outs: { svg: path.basename(out) },
      title: a.values.title ?? (store ? storeTitle(src.input) : path.basename(file)),
      needSamples: true,
      keepExisting: claim.keepExisting,
      sourceMaps: a.values['source-maps'] === true
    })
  } catch (err) {
    return refused('flame', err)
  }
  process.stdout.write(`${r.outputs.svg.path}\n`)
  return 0
}

module.exports = { run, command: flame }

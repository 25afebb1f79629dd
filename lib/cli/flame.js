'use strict'
// cprof flame <file> [-o out.svg]: an interactive SVG flame graph of a
// .cpuprofile / .heapprofile, laid out and written by the native core.
const path = require('node:path')
const { parseCommand, input, outputPath, claimOutputs, refused } = require('./profile-io')
const { STORE_OPTIONS, STORE_USAGE, commandInput, joinTimeArgs, profileJob, storeOutputPath, storeTitle } = require('./store')

const USAGE = `usage: cprof flame <file> [-o out.svg] [--title TEXT] [--force] [--source-maps]

Writes an SVG flame graph of a .cpuprofile or .heapprofile: one self-contained file
(no network) to open in a browser. Hover a frame for its numbers, click to zoom,
type in the search box to highlight matches, Escape to reset.

  -o, --output FILE   where to write (default: next to <file>, extension .svg);
                      -o replaces an existing FILE
  --force             replace an existing default output (without it, flame stops
                      with exit 1 and names the file in the way)
  --title TEXT        the graph's title (default: the file name)
  --source-maps       map frames through the scripts' source maps (TypeScript,
                      bundles): original files, lines and names; the scripts and
                      maps must be at the paths the profile names
${STORE_USAGE}  With a store and no -o, the graph goes to the current directory as
  <kind>-merged-<fromMs>-<toMs>.svg.
`

const OPTIONS = {
  output: { type: 'string', short: 'o' },
  title: { type: 'string' },
  force: { type: 'boolean' },
  ...STORE_OPTIONS,
  'source-maps': { type: 'boolean' }
}

async function run (argv) {
  const a = parseCommand('flame', joinTimeArgs(argv), USAGE, OPTIONS, ['file'])
  if (a.exit !== undefined) return a.exit
  const [file] = a.positionals
  const src = commandInput('flame', USAGE, file, a.values)
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

module.exports = { run, USAGE }

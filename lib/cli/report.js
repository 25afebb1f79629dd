'use strict'
// cprof report <file>: the text report of a .cpuprofile / .heapprofile
// (top functions by self and by total, the top-down tree, callers of one
// function), or the summary object as JSON. Rendered by the native core.
const native = require('../native')
const { TOP_DEFAULT } = require('../options')
const { parseCommand, usageError, intArg, percentArg, input } = require('./profile-io')

const USAGE = `usage: cprof report <file> [--top N] [--cut PCT] [--bottom-up NAME] [--json] [--source-maps]

Reports on a .cpuprofile or .heapprofile (cprof's, Chrome DevTools', node --cpu-prof's,
node --heap-prof's): the top functions by self and by total, the top-down call tree,
and with --bottom-up the callers of one function. CPU values are in ms, heap values
in bytes (B, KiB, MiB); percentages are of the profile's total.

  --top N             functions per table (default ${TOP_DEFAULT})
  --cut PCT           leave out tree nodes under PCT % of the total (default 1)
  --bottom-up NAME    also the callers of the function NAME (its exact name, or a
                      part of "name (file:line)")
  --json              print the summary object (kind, samples, durationMs, summary)
                      as JSON instead of the text
  --source-maps       map frames through the scripts' source maps (TypeScript,
                      bundles): original files, lines and names; the scripts and
                      maps must be at the paths the profile names
`

const OPTIONS = {
  top: { type: 'string' },
  cut: { type: 'string' },
  'bottom-up': { type: 'string' },
  json: { type: 'boolean' },
  'source-maps': { type: 'boolean' }
}

async function run (argv) {
  const a = parseCommand('report', argv, USAGE, OPTIONS, ['file'])
  if (a.exit !== undefined) return a.exit
  const top = intArg('report', 'top', a.values.top, 1, 100000)
  const cut = percentArg('cut', a.values.cut)
  const bad = top.error || cut.error
  if (bad) return usageError('report', USAGE, bad).exit
  const [file] = a.positionals
  const focus = a.values['bottom-up']
  const r = await native.convert(input(file), null, top.value ?? TOP_DEFAULT, {
    text: !a.values.json,
    top: top.value,
    cut: cut.value,
    focus: a.values.json ? undefined : focus,
    title: file,
    needSamples: true,
    sourceMaps: a.values['source-maps'] === true
  })
  if (a.values.json) {
    const { kind, samples, durationMs, summary, sourceMaps } = r
    process.stdout.write(JSON.stringify({ file, kind, samples, durationMs, summary, sourceMaps }, null, 2) + '\n')
  } else {
    process.stdout.write(r.text)
  }
  return 0
}

module.exports = { run, USAGE }

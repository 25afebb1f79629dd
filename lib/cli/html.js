'use strict'
// cprof html <file> [<after>] [-o report.html]: the self-contained HTML
// viewer of a profile, or of the diff of two. The native core aggregates
// and writes it off the main thread (src/core/export_html.c) into the page
// template of lib/viewer. A heap snapshot's page: lib/viewer/snapshot-page.js.
const fs = require('node:fs')
const path = require('node:path')
const native = require('../native')
const { TEMPLATE_PATH } = require('../viewer')
const { readMarks, writeWhole } = require('../viewer/marks-file')
const { withLabels } = require('../viewer/labels-file')
const { snapshotPage } = require('../viewer/snapshot-page')
const { isHeapSnapshot } = require('../snapshot-report')
const { termSafe } = require('../term')
const { input, outputPath, claimOutputs, refused, OUTPUT_OPTION, SOURCE_MAPS_OPTION } = require('./profile-io')
const { command, UsageError } = require('./kit')

const html = command({
  name: 'html',
  usage: ['<file> [-o report.html] [--title TEXT] [--force] [--source-maps]',
    '<before> <after> [-o diff.html] [--title TEXT] [--force] [--source-maps]',
    '<file.heapsnapshot> [-o out.html] [--title TEXT] [--force]'],
  positionals: [1, 2],
  about: `Writes one self-contained HTML file (no network; it opens from disk and can be
attached to a ticket) to read a .cpuprofile or .heapprofile in a browser: the flame
graph (zoom, search, hover; icicle and left-heavy orderings), the top-down call
tree, the bottom-up view (callers) and the flat profile, with self and total per
function. With two profiles of the same kind, the same views of the diff: widths
from <after>, each frame and function coloured by the change of its share (of busy
time, the total without (idle), by default: cprof diff's rule).
A .heapsnapshot: its classes (count, shallow and retained size), their largest
objects and the retainer tree of a selected object (docs/viewer.md).`,
  options: [
    { ...OUTPUT_OPTION('html'), shown: 'next to <file> with extension .html; a diff: next to <after> as <after>.diff.html', help: 'where to write; replaced if it exists' },
    { name: 'title', arg: 'TEXT', type: 'text', shown: 'the file name(s)', help: "the page's title" },
    { name: 'force', type: 'flag', help: 'replace the default output file if it exists (without -o, cprof html refuses to)' },
    SOURCE_MAPS_OPTION
  ]
})

function parse (argv) {
  try {
    const a = html.parse(argv)
    if (!a.help) return a
    process.stdout.write(html.help())
    return { exit: 0 }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    return html.fail(err.message)
  }
}

// The default output, beside the (after) profile.
function defaultOutput (files) {
  if (files.length === 1) return outputPath(files[0], undefined, 'html')
  return outputPath(files[1], undefined, 'diff.html')
}

async function run (argv) {
  const a = parse(argv)
  if (a.exit !== undefined) return a.exit
  const files = a.positionals
  const snapshots = await Promise.all(files.map((f) => isHeapSnapshot(input(f))))
  if (files.length === 2 && snapshots.some(Boolean)) {
    return html.fail('a heap snapshot opens alone: compare two with cprof snapshot diff').exit
  }
  const out = a.values.output !== undefined ? path.resolve(a.values.output) : defaultOutput(files)
  const claim = claimOutputs('html', [out], {
    explicit: a.values.output !== undefined, force: a.values.force, inputs: files.map(input)
  })
  if (claim.exit !== undefined) return claim.exit
  if (snapshots[0]) {
    return writeSnapshotPage(input(files[0]), out, a.values.title ?? path.basename(files[0]), claim.keepExisting)
  }
  const opts = {
    outs: { html: path.basename(out) },
    title: a.values.title ?? files.map((f) => path.basename(f)).join(' \u2192 '),
    htmlTemplate: TEMPLATE_PATH,
    needSamples: true,
    keepExisting: claim.keepExisting,
    sourceMaps: a.values['source-maps'] === true
  }
  // A recorder dump's marks beside its profile: the page opens as the
  // dump's own page did (docs/formats.md, "Viewer marks").
  const marks = files.length === 1 ? readMarks(input(files[0]), (m) => process.stderr.write(`cprof html: ${termSafe(m)}\n`)) : undefined
  if (marks) opts.viewerMarks = marks
  // Its labels beside it (<stem>.labels.json): the page filters by them.
  const warn = (m) => process.stderr.write(`cprof html: ${termSafe(m)}\n`)
  let r
  try {
    r = files.length === 1
      ? await withLabels(input(files[0]), warn, (extra) => native.convert(input(files[0]), path.dirname(out), 0, { ...opts, ...extra }))
      : await native.diff(input(files[0]), input(files[1]), path.dirname(out), 0, opts)
  } catch (err) {
    return refused('html', err)
  }
  process.stdout.write(`${r.outputs.html.path}\n`)
  return 0
}

// The snapshot's page at out (0600, as every file cprof writes): a new file
// when keepExisting (it must not exist), else replaced whole (writeWhole).
async function writeSnapshotPage (file, out, title, keepExisting) {
  let html
  try {
    html = await snapshotPage(file, title)
  } catch (err) {
    process.stderr.write(`cprof html: ${termSafe(err.message)}\n`)
    return 1
  }
  try {
    if (keepExisting) await fs.promises.writeFile(out, html, { mode: 0o600, flag: 'wx' })
    else await writeWhole(out, html)
  } catch (err) {
    process.stderr.write(`cprof html: cannot write ${termSafe(out)}: ${termSafe(err.message)}\n`)
    return 1
  }
  process.stdout.write(`${out}\n`)
  return 0
}

module.exports = { run, command: html }

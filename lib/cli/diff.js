'use strict'
// cprof diff <before> <after> [-o diff.svg] [--html diff.html] [--format md]
// [--fail-above PTS]: per-function changes between two profiles (or two sets
// of runs, merged) of the same kind, a differential flame graph and page,
// and a regression gate for CI. Computed by the native core; the gate's rule
// and the markdown summary are lib/cli/diff-gate.js.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const native = require('../native')
const { cprofError } = require('../errors')
const { TEMPLATE_PATH } = require('../viewer')
const { input, claimOutputs, refused, OUTPUT_OPTION, SOURCE_MAPS_OPTION } = require('./profile-io')
const { command, UsageError } = require('./kit')
const { DEFAULTS, pointsArg, judge, gateText, markdown } = require('./diff-gate')

const diff = command({
  name: 'diff',
  usage: ['<before> <after> [options]', '--base FILE|DIR [--base …] --head FILE|DIR [--head …] [options]'],
  about: `Compares two .cpuprofile files or two .heapprofile files (or two sets of runs:
a directory stands for every profile in it, and several profiles on one side
are merged first, which averages out run-to-run noise). Each function's self
and total are compared as shares of their own side's busy time: a CPU
profile's total without (idle), which is waiting, not code; a heap profile's
total. (idle) is not ranked. The table lists the functions whose self share
changed most, with the values before and after (ms or bytes) and the change
in percentage points (pts).`,
  options: [
    { name: 'top', arg: 'N', type: 'count', min: 1, max: 100000, shown: '30; 10 with --format md', help: 'rows in the table' },
    {
      name: 'format',
      arg: 'text|md',
      type: 'text',
      default: 'text',
      help: 'text: the table; md: a short markdown summary for a pull-request comment (verdict, top changes)'
    },
    {
      name: 'fail-above',
      arg: 'PTS',
      type: 'text',
      shown: 'no gate',
      help: "the regression gate: exit 1 when a function's share of the busy samples grew by more than PTS " +
        'percentage points ("5%", "5", "5pts"), with at least --min-samples in <after> and beyond --sigma ' +
        'standard errors; else exit 0 ([Regression gate](#regression-gate))'
    },
    {
      name: 'min-samples',
      arg: 'N',
      type: 'count',
      max: 1e9,
      default: DEFAULTS.minSamples,
      help: 'samples a function needs on the side it grew on to fail the gate'
    },
    {
      name: 'sigma',
      arg: 'K',
      type: 'number',
      max: 100,
      default: DEFAULTS.sigma,
      help: 'how many standard errors a change must exceed; the error is the binomial one of both shares'
    },
    {
      ...OUTPUT_OPTION('svg'),
      shown: 'none',
      help: 'also write a differential flame graph (SVG): the frames of <after>, red where the self share grew, ' +
        'blue where it shrank; replaces an existing FILE, never an input'
    },
    {
      name: 'html',
      arg: 'FILE',
      type: 'file',
      shown: 'none',
      help: "also write the differential HTML viewer (cprof html's page of the diff); replaces an existing FILE, never an input"
    },
    { name: 'base', arg: 'FILE|DIR', type: 'repeated', help: 'the before side: profiles, or directories of them (merged)' },
    { name: 'head', arg: 'FILE|DIR', type: 'repeated', help: 'the after side, as --base' },
    { name: 'force', type: 'flag', help: 'let -o or --html replace an input too' },
    SOURCE_MAPS_OPTION
  ],
  notes: `Exit status: 0 done (and the gate passed), 1 the gate failed or an input or
output failed (stderr says which), 2 usage errors.`
})

const PROFILE_RE = /\.(cpuprofile|heapprofile)$/i

function parse (argv) {
  let a
  try {
    a = diff.parse(argv)
  } catch (e) {
    if (!(e instanceof UsageError)) throw e
    return diff.fail(e.message)
  }
  if (a.help) {
    process.stdout.write(diff.help())
    return { exit: 0 }
  }
  const v = a.values
  const err = (m) => diff.fail(m)
  const pos = a.positionals
  let base, head
  if (v.base || v.head) {
    if (!v.base || !v.head) return err(`${v.base ? '--head' : '--base'} is missing: give both sides`)
    if (pos.length) return err(`give the profiles either as <before> <after> or with --base/--head, not both: ${pos.join(' ')}`)
    base = v.base
    head = v.head
  } else {
    if (pos.length < 2) return err('missing <before> <after>')
    if (pos.length > 2) return err(`too many arguments: ${pos.slice(2).join(' ')} (several runs per side: --base and --head, or a directory each)`)
    base = [pos[0]]
    head = [pos[1]]
  }
  const format = v.format
  if (format !== 'text' && format !== 'md') return err(`--format must be text or md, got "${format}"`)
  const threshold = pointsArg('fail-above', v['fail-above'])
  if (threshold.error) return err(threshold.error)
  return {
    base,
    head,
    format,
    top: v.top,
    gate: { threshold: threshold.value, minSamples: v['min-samples'], sigma: v.sigma },
    svg: v.output !== undefined ? path.resolve(v.output) : null,
    html: v.html !== undefined ? path.resolve(v.html) : null,
    force: v.force === true,
    sourceMaps: v['source-maps'] === true
  }
}

// The profile files one side names: a file as it is, a directory as every
// .cpuprofile or .heapprofile in it (by name: node --cpu-prof's names sort
// by time). Throws ERR_CPROF_IO for a directory without any.
function sideFiles (args) {
  const out = []
  for (const a of args) {
    const abs = input(a)
    let st = null
    try { st = fs.statSync(abs) } catch { /* a missing file: the native read says so */ }
    if (!st || !st.isDirectory()) {
      out.push(abs)
      continue
    }
    const files = fs.readdirSync(abs).filter((f) => PROFILE_RE.test(f)).sort().map((f) => path.join(abs, f))
    if (!files.length) {
      throw cprofError('ERR_CPROF_IO', `${abs} holds no .cpuprofile or .heapprofile file: give profile files, or the directory node --cpu-prof-dir wrote them to`)
    }
    out.push(...files)
  }
  return out
}

// One profile per side: the file itself, or the side's files merged into a
// temporary directory (removed by the caller).
// Source maps are applied once, by the diff, not by the merge.
async function oneProfile (files, tmp, name) {
  if (files.length === 1) return files[0]
  const ext = /\.heapprofile$/i.test(files[0]) ? '.heapprofile' : '.cpuprofile'
  const r = await native.merge(files, tmp, name + ext, 0, { needSamples: true })
  return r.file.path
}

async function run (argv) {
  const a = parse(argv)
  if (a.exit !== undefined) return a.exit
  const base = sideFiles(a.base)
  const head = sideFiles(a.head)
  const outs = [a.svg, a.html].filter(Boolean)
  if (a.svg && a.svg === a.html) return diff.fail('-o and --html name the same file').exit
  const claim = claimOutputs('diff', outs, { explicit: true, force: a.force, inputs: [...base, ...head] })
  if (claim.exit !== undefined) return claim.exit
  const short = (files) => files.length === 1 ? path.basename(files[0]) : `${files.length} profiles`
  const title = a.base.length === 1 && a.head.length === 1 && base.length === 1 && head.length === 1
    ? `${a.base[0]} \u2192 ${a.head[0]}`
    : `${short(base)} \u2192 ${short(head)}`
  const needsMerge = base.length > 1 || head.length > 1
  const tmp = needsMerge ? fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-diff-')) : null
  try {
    const before = await oneProfile(base, tmp, 'base')
    const after = await oneProfile(head, tmp, 'head')
    const common = { needSamples: true, sourceMaps: a.sourceMaps }
    const wantData = a.format === 'md' || a.gate.threshold !== undefined
    const data = wantData ? JSON.parse((await native.diff(before, after, null, 0, { ...common, text: true, diffJson: true })).text) : null
    const g = data ? judge(data, a.gate) : null
    // The files: one native call per directory written to.
    const written = []
    const byDir = new Map()
    if (a.svg) byDir.set(path.dirname(a.svg), { ...byDir.get(path.dirname(a.svg)), svg: path.basename(a.svg) })
    if (a.html) byDir.set(path.dirname(a.html), { ...byDir.get(path.dirname(a.html)), html: path.basename(a.html) })
    for (const [dir, o] of byDir) {
      const r = await native.diff(before, after, dir, 0, {
        ...common,
        title,
        outs: o,
        keepExisting: claim.keepExisting,
        ...(o.html ? { htmlTemplate: TEMPLATE_PATH } : {})
      })
      if (o.svg) written.push(`differential flame graph: ${r.outputs.svg.path}`)
      if (o.html) written.push(`differential page: ${r.outputs.html.path}`)
    }
    if (a.format === 'md') {
      process.stdout.write(markdown(data, g, { top: a.top ?? 10, base, head }))
    } else {
      const r = await native.diff(before, after, null, 0, { ...common, text: true, top: a.top, title })
      process.stdout.write(r.text)
      if (g && g.threshold !== undefined) process.stdout.write(gateText(g, data.kind))
      if (written.length) process.stdout.write(`\n${written.join('\n')}\n`)
    }
    return g && g.failed ? 1 : 0
  } catch (err) {
    return refused('diff', err)
  } finally {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true })
  }
}

module.exports = { run, command: diff }

'use strict'
// cprof diff <before> <after> [-o diff.svg] [--html diff.html] [--format md]
// [--fail-above PTS]: per-function changes between two profiles (or two sets
// of runs, merged) of the same kind, a differential flame graph and page,
// and a regression gate for CI. Computed by the native core; the gate's rule
// and the markdown summary are lib/cli/diff-gate.js.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')
const native = require('../native')
const { cprofError } = require('../errors')
const { TEMPLATE_PATH } = require('../viewer')
const { intArg, input, claimOutputs, refused } = require('./profile-io')
const { usageError } = require('./usage')
const { DEFAULTS, pointsArg, judge, gateText, markdown } = require('./diff-gate')

const USAGE = `usage: cprof diff <before> <after> [options]
       cprof diff --base FILE|DIR [--base …] --head FILE|DIR [--head …] [options]

Compares two .cpuprofile files or two .heapprofile files (or two sets of runs:
a directory stands for every profile in it, and several profiles on one side
are merged first, which averages out run-to-run noise). Each function's self
and total are compared as shares of their own side's busy time: a CPU
profile's total without (idle), which is waiting, not code; a heap profile's
total. (idle) is not ranked. The table lists the functions whose self share
changed most, with the values before and after (ms or bytes) and the change
in percentage points (pts).

  --top N             rows in the table (default 30; 10 with --format md)
  --format text|md    text: the table (default); md: a short markdown summary
                      for a pull-request comment (verdict, top changes)
  --fail-above PTS    the regression gate: exit 1 when a function's share of
                      the busy samples (its own samples / all but (idle)) grew
                      by more than PTS percentage points ("5%", "5" and "5pts"
                      are the same), with at least --min-samples of its samples
                      in <after>, and by more than --sigma standard errors of
                      sampling noise; exit 0 if not (docs/cli.md, "Regression
                      gate": the rule and how noise is handled)
  --min-samples N     samples a function needs on the side it grew on to fail
                      the gate (default ${DEFAULTS.minSamples})
  --sigma K           how many standard errors a change must exceed (default
                      ${DEFAULTS.sigma}); the error is the binomial one of both shares
  -o, --output FILE   also write a differential flame graph (SVG): the frames of
                      <after>, red where the self share grew, blue where it shrank
  --html FILE         also write the differential HTML viewer (cprof html's page
                      of the diff)
                      -o and --html replace an existing FILE, but never an input
  --force             let -o or --html replace an input too
  --source-maps       map frames through the scripts' source maps (TypeScript,
                      bundles): original files, lines and names; the scripts and
                      maps must be at the paths the profile names

Exit status: 0 done (and the gate passed), 1 the gate failed or an input or
output failed (stderr says which), 2 usage errors.
`

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  top: { type: 'string' },
  format: { type: 'string' },
  'fail-above': { type: 'string' },
  'min-samples': { type: 'string' },
  sigma: { type: 'string' },
  output: { type: 'string', short: 'o' },
  html: { type: 'string' },
  base: { type: 'string', multiple: true },
  head: { type: 'string', multiple: true },
  force: { type: 'boolean' },
  'source-maps': { type: 'boolean' }
}

const PROFILE_RE = /\.(cpuprofile|heapprofile)$/i

function parse (argv) {
  let a
  try {
    a = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    return usageError('diff', USAGE, err.message)
  }
  const v = a.values
  if (v.help) {
    process.stdout.write(USAGE)
    return { exit: 0 }
  }
  const err = (m) => usageError('diff', USAGE, m)
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
  const format = v.format ?? 'text'
  if (format !== 'text' && format !== 'md') return err(`--format must be text or md, got "${format}"`)
  const top = intArg('diff', 'top', v.top, 1, 100000)
  const minSamples = intArg('diff', 'min-samples', v['min-samples'], 0, 1e9)
  const threshold = pointsArg('fail-above', v['fail-above'])
  const sigma = v.sigma === undefined ? { value: undefined } : /^\s*\d+(\.\d+)?\s*$/.test(v.sigma) && Number(v.sigma) <= 100 ? { value: Number(v.sigma) } : { error: `--sigma must be a number from 0 to 100, got "${v.sigma}"` }
  for (const x of [top, minSamples, threshold, sigma]) if (x.error) return err(x.error)
  return {
    base,
    head,
    format,
    top: top.value,
    gate: { threshold: threshold.value, minSamples: minSamples.value ?? DEFAULTS.minSamples, sigma: sigma.value ?? DEFAULTS.sigma },
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
  if (a.svg && a.svg === a.html) return usageError('diff', USAGE, '-o and --html name the same file').exit
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

module.exports = { run, USAGE }

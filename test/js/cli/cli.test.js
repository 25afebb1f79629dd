'use strict'

// The profile commands of the CLI (report, flame, convert, diff) on profiles
// written by `node --cpu-prof` and `node --heap-prof`: output checked with
// parsers cprof did not write, totals against analyze(), bad input files,
// usage errors and exit codes.

const { test: nodeTest, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const cprof = require('../../..')
const { ROOT, makeTmpDir, removeTmpDirs, childEnv, printedMs } = require('../helpers/util.js')
const { runFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { decodePprof, readFolded, readSvg, assertMainMapping } = require('../helpers/formats.js')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 60000 }, fn)

const BIN = path.join(ROOT, 'bin', 'cprof.js')

function cli (...args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30000, env: childEnv() })
  if (r.error) throw r.error
  r.describe = () => `cprof ${args.join(' ')} → status ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`
  return r
}

function ok (...args) {
  const r = cli(...args)
  assert.equal(r.status, 0, r.describe())
  assert.equal(r.stderr, '', r.describe())
  return r
}

// One profile file written by node itself into a fresh directory.
function profileOf (flag, mode, ms) {
  const dir = makeTmpDir()
  const kind = flag === 'cpu' ? 'cpu' : 'heap'
  const execArgv = flag === 'cpu'
    ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${dir}`]
    : ['--heap-prof', '--heap-prof-interval=8192', `--heap-prof-dir=${dir}`]
  const r = runFixture('cli-workload.js', [mode, String(ms)], { execArgv })
  assert.equal(r.status, 0, r.describe())
  const [name] = fs.readdirSync(dir).filter((f) => f.endsWith(`.${kind}profile`))
  assert.ok(name, `node --${kind}-prof wrote a profile`)
  return path.join(dir, name)
}

const us = (summary) => Math.round(summary.total * 1000)

let fibFile, stringsFile, heapFile

before(() => {
  fibFile = profileOf('cpu', 'fib', 1000)
  stringsFile = profileOf('cpu', 'mixed', 1000)
  heapFile = profileOf('heap', 'alloc', 300)
})

test('report: sections, the hot function, --top, --cut, --bottom-up', async () => {
  const a = await cprof.analyze(fibFile, { top: 20 })
  const r = ok('report', fibFile)
  assert.ok(r.stdout.startsWith(`${fibFile}\nCPU profile: ${a.samples} samples, `), r.stdout.slice(0, 200))
  for (const s of ['Top 20 functions by self time', 'Top 20 functions by total time', 'Call tree (top-down)']) {
    assert.ok(r.stdout.includes(s), `report has "${s}"`)
  }
  assert.match(r.stdout, /fibonacci \(.*cli-workload\.js:\d+\)/)
  assert.equal(a.summary.top[0].functionName, 'fibonacci')

  const top3 = ok('report', fibFile, '--top', '3').stdout
  const table = top3.split('Top 3 functions by self time\n')[1].split('\n\n')[0].split('\n')
  assert.equal(table.length, 1 + 3, 'a header and 3 rows')

  // --cut 50: only nodes with half the total or more are in the tree.
  const cut = ok('report', fibFile, '--cut', '50').stdout.split('Call tree')[1]
  for (const line of cut.split('\n').slice(2).filter(Boolean)) {
    assert.ok(parseFloat(line) >= 50, `tree line at or above 50%: ${line}`)
  }

  const bu = ok('report', fibFile, '--bottom-up', 'fibonacci').stdout
  assert.match(bu, /Callers of fibonacci \(.*cli-workload\.js:\d+\) \(bottom-up\)/)
})

test('report --json: the summary object, as analyze() gives it', async () => {
  const r = ok('report', fibFile, '--json')
  const j = JSON.parse(r.stdout)
  const a = await cprof.analyze(fibFile)
  assert.equal(j.file, fibFile)
  assert.equal(j.kind, 'cpu')
  assert.equal(j.samples, a.samples)
  assert.equal(j.durationMs, a.durationMs)
  assert.deepEqual(j.summary, a.summary)
  const h = JSON.parse(ok('report', heapFile, '--json', '--top', '5').stdout)
  assert.equal(h.kind, 'heap')
  assert.equal(h.summary.unit, 'bytes')
  assert.equal(h.summary.top.length, 5)
})

test('flame: -o, and by default next to the input; valid, self-contained SVG', async () => {
  const dir = makeTmpDir()
  const out = path.join(dir, 'sub', 'out.svg') // missing directories are created
  const r = ok('flame', fibFile, '-o', out)
  assert.equal(r.stdout, `${out}\n`)
  const s = readSvg(out)
  assert.ok(s.frames.some((f) => f.title.startsWith('fibonacci (')))
  assert.ok(s.svg.text.some((t) => String(t['#text'] ?? t).startsWith(`CPU flame graph: ${path.basename(fibFile)}`)))
  const a = await cprof.analyze(fibFile)
  const root = s.frames.find((f) => f.title.startsWith('(root)'))
  assert.ok(printedMs(root.title, 'total', a.summary.total) && root.title.includes(' ms (100.00%)'), root.title)

  // Default: <input without .cpuprofile>.svg in the input's directory.
  const copy = path.join(dir, 'copy.cpuprofile')
  fs.copyFileSync(heapFile, path.join(dir, 'heap.heapprofile'))
  fs.copyFileSync(fibFile, copy)
  assert.equal(ok('flame', copy).stdout, `${path.join(dir, 'copy.svg')}\n`)
  assert.equal(ok('flame', path.join(dir, 'heap.heapprofile'), '--title', 'mine').stdout, `${path.join(dir, 'heap.svg')}\n`)
  assert.ok(fs.readFileSync(path.join(dir, 'heap.svg'), 'utf8').includes('Heap allocation flame graph: mine'))
  readSvg(path.join(dir, 'heap.svg'))
})

test('convert: pprof, folded, svg, txt; totals equal analyze()', async () => {
  const dir = makeTmpDir()
  const a = await cprof.analyze(fibFile)
  ok('convert', fibFile, '--to', 'pprof', '-o', path.join(dir, 'p.pb.gz'))
  const p = decodePprof(path.join(dir, 'p.pb.gz'))
  assert.deepEqual(p.types, ['samples/count', 'cpu/nanoseconds'])
  assert.equal(p.sums[0], BigInt(a.samples))
  assert.equal(p.sums[1], BigInt(us(a.summary)) * 1000n)
  assert.equal(p.durationNanos, BigInt(Math.round(a.durationMs * 1000)) * 1000n)
  assert.ok(p.period > 0n, 'a period, from the mean sample gap')
  assert.ok(p.functions.some((f) => f.name === 'fibonacci' && f.filename.endsWith('cli-workload.js') && f.startLine > 0))
  assertMainMapping(p, '') // a .cpuprofile does not say which script was main

  ok('convert', fibFile, '--to', 'pprof', '--interval', '250', '-o', path.join(dir, 'q.pb.gz'))
  assert.equal(decodePprof(path.join(dir, 'q.pb.gz')).period, 250000n)

  ok('convert', fibFile, '--to', 'folded', '-o', path.join(dir, 'f.folded'))
  const f = readFolded(path.join(dir, 'f.folded'))
  assert.equal(f.sum, us(a.summary))
  assert.ok(f.stacks.some((s) => /;fibonacci \([^;]*cli-workload\.js:\d+\)$/.test(s)))

  ok('convert', fibFile, '--to', 'svg', '-o', path.join(dir, 's.svg'))
  readSvg(path.join(dir, 's.svg'))
  ok('convert', fibFile, '--to', 'txt', '-o', path.join(dir, 't.txt'))
  assert.match(fs.readFileSync(path.join(dir, 't.txt'), 'utf8'), /Top 20 functions by self time/)

  // Several formats at once, named after the input.
  const copy = path.join(dir, 'x.cpuprofile')
  fs.copyFileSync(fibFile, copy)
  const r = ok('convert', copy, '--to', 'pprof', '--to', 'folded')
  assert.equal(r.stdout, `${path.join(dir, 'x.pb.gz')}\n${path.join(dir, 'x.folded')}\n`)
})

test('convert a node --heap-prof profile: pprof samples and inuse_space or alloc_space, totals in bytes', async () => {
  const dir = makeTmpDir()
  const a = await cprof.analyze(heapFile)
  ok('convert', heapFile, '--to', 'pprof', '-o', path.join(dir, 'h.pb.gz'))
  const p = decodePprof(path.join(dir, 'h.pb.gz'))
  assert.deepEqual(p.types, ['samples/count', 'inuse_space/bytes'])
  assert.equal(p.periodType, 'space/bytes')
  assert.equal(p.sums[0], BigInt(a.samples))
  assert.equal(p.sums[1], BigInt(a.summary.total))
  ok('convert', heapFile, '--to', 'pprof', '--include-collected', '--interval', '8192', '-o', path.join(dir, 'c.pb.gz'))
  const c = decodePprof(path.join(dir, 'c.pb.gz'))
  assert.deepEqual(c.types, ['samples/count', 'alloc_space/bytes'])
  assert.equal(c.period, 8192n)
  ok('convert', heapFile, '--to', 'folded', '-o', path.join(dir, 'h.folded'))
  assert.equal(readFolded(path.join(dir, 'h.folded')).sum, a.summary.total)
  // node --heap-prof names the function but, at exit, often not its script.
  assert.match(ok('report', heapFile, '--top', '3').stdout, /Top 3 functions by self size\n.*\n.*  allocate\b/)
})

test('diff: per-function table, differential flame graph in red and blue', () => {
  const dir = makeTmpDir()
  // --top 40: under a sanitizer on a loaded machine, start-up work (compiling, GC) can push
  // a 1 s workload's functions out of a top 10.
  const out = path.join(dir, 'diff.svg')
  const r = ok('diff', fibFile, stringsFile, '-o', out, '--top', '40')
  assert.ok(r.stdout.startsWith(`${fibFile} \u2192 ${stringsFile}\nbefore: `), r.stdout.slice(0, 200))
  assert.match(r.stdout, /Top \d+ functions by change of self share/)
  // buildStrings only runs after: a row with 0 before and a positive change.
  const row = r.stdout.split('\n').find((l) => l.includes('buildStrings ('))
  assert.ok(row, r.stdout)
  assert.match(row, /^\s+0\.00 ms\s+[\d.]+ ms\s+0\.00%\s+[\d.]+%\s+\+[\d.]+/)
  const fibRow = r.stdout.split('\n').find((l) => l.includes('fibonacci ('))
  assert.match(fibRow, /\s-[\d.]+\s/, 'fibonacci\'s share shrank')
  assert.ok(r.stdout.endsWith(`differential flame graph: ${out}\n`))
  const s = readSvg(out)
  assert.ok(s.svg.text.some((t) => String(t['#text'] ?? t).startsWith('Differential flame graph')))
  const fills = s.frames.map((f) => f.rect.fill)
  assert.ok(fills.some((c) => /^rgb\(255,\d+,\d+\)$/.test(c) && c !== 'rgb(255,255,255)'), 'something is red')
  assert.ok(fills.some((c) => /^rgb\(\d+,\d+,255\)$/.test(c)), 'something is blue')
  // Without -o: the table only.
  assert.doesNotMatch(ok('diff', fibFile, stringsFile).stdout, /differential flame graph/)
  // CPU against heap: an error that names both files.
  const bad = cli('diff', fibFile, heapFile)
  assert.equal(bad.status, 1, bad.describe())
  assert.match(bad.stderr, /cannot diff a CPU profile .* with a heap profile/)
})

// The counting rule the docs state, computed here from V8's file: a sample
// weighs the gap to the next one (the last: to endTime), a negative gap 0.
test('counting rule: the total is the sum of the gaps to the next sample, negative ones as 0', async () => {
  for (const file of [fibFile, stringsFile]) {
    const p = JSON.parse(fs.readFileSync(file, 'utf8'))
    let t = p.startTime
    const times = p.timeDeltas.map((d) => (t += d))
    let sum = 0
    for (let i = 0; i < times.length; i++) {
      const gap = (i + 1 < times.length ? times[i + 1] : p.endTime) - times[i]
      sum += Math.max(gap, 0)
    }
    const a = await cprof.analyze(file)
    assert.equal(us(a.summary), sum, file)
  }
})

// The overwrite rule: a command never replaces a file it did not just write
// unless asked (--force, or the file named with -o); otherwise exit 1, one
// line naming the file, and the file is left exactly as it was.
test('overwrite rule: convert, flame and diff -o never replace a file unasked', () => {
  const dir = makeTmpDir()
  const cpu = path.join(dir, 'app.cpuprofile')
  const heap = path.join(dir, 'app.heapprofile')
  fs.copyFileSync(fibFile, cpu)
  fs.copyFileSync(heapFile, heap)
  const pb = path.join(dir, 'app.pb.gz')
  const refused = (r, file) => {
    assert.equal(r.status, 1, r.describe())
    assert.equal(r.stdout, '', r.describe())
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.describe()}`)
    assert.ok(r.stderr.includes(`${file} exists`), r.describe())
    assert.match(r.stderr, /--force/, r.describe())
  }

  // The case: both conversions want app.pb.gz; the second is refused.
  ok('convert', cpu, '--to', 'pprof')
  const first = fs.readFileSync(pb)
  assert.deepEqual(decodePprof(pb).types, ['samples/count', 'cpu/nanoseconds'])
  refused(cli('convert', heap, '--to', 'pprof'), pb)
  assert.deepEqual(fs.readFileSync(pb), first, 'the CPU pprof is untouched')
  // With several formats nothing is written when one of them is in the way.
  refused(cli('convert', heap, '--to', 'folded', '--to', 'pprof'), pb)
  assert.equal(fs.existsSync(path.join(dir, 'app.folded')), false, 'no partial conversion')
  // --force replaces; so does naming the file with -o.
  ok('convert', heap, '--to', 'pprof', '--force')
  assert.equal(decodePprof(pb).types[1], 'inuse_space/bytes')
  ok('convert', cpu, '--to', 'pprof', '-o', pb)
  assert.equal(decodePprof(pb).types[1], 'cpu/nanoseconds')

  // flame: the same rule for app.svg.
  const svg = path.join(dir, 'app.svg')
  fs.writeFileSync(svg, 'mine')
  refused(cli('flame', cpu), svg)
  assert.equal(fs.readFileSync(svg, 'utf8'), 'mine')
  ok('flame', cpu, '--force')
  readSvg(svg)
  fs.writeFileSync(svg, 'mine')
  ok('flame', heap, '-o', svg)
  assert.ok(fs.readFileSync(svg, 'utf8').includes('Heap allocation flame graph'))

  // diff -o names its file, so it may replace it; never an input, unless --force.
  const d = path.join(dir, 'd.svg')
  fs.writeFileSync(d, 'mine')
  ok('diff', fibFile, stringsFile, '-o', d)
  readSvg(d)
  const self = path.join(dir, 'after.cpuprofile')
  fs.copyFileSync(stringsFile, self)
  const r = cli('diff', fibFile, self, '-o', self)
  assert.equal(r.status, 1, r.describe())
  assert.ok(r.stderr.includes(`${self} is also an input`), r.describe())
  assert.deepEqual(fs.readFileSync(self), fs.readFileSync(stringsFile), 'the input is untouched')
  // An input as convert's default output cannot happen (the extension
  // changes), but -o can name it: refused the same way.
  const again = cli('convert', cpu, '--to', 'txt', '-o', cpu)
  assert.equal(again.status, 1, again.describe())
  assert.ok(again.stderr.includes(`${cpu} is also an input`), again.describe())
})

// The native writer refuses by itself (link, not rename): a file that appears
// after the CLI's check is not replaced either; the error names it.
test('overwrite rule: the native writer never replaces a file with keepExisting', async () => {
  const native = require('../../../lib/native')
  const dir = makeTmpDir()
  const out = path.join(dir, 'x.svg')
  fs.writeFileSync(out, 'mine')
  await assert.rejects(native.convert(fibFile, dir, 0, { outs: { svg: 'x.svg' }, keepExisting: true }),
    (err) => err.code === 'ERR_CPROF_EXISTS' && err.message.includes(out))
  assert.equal(fs.readFileSync(out, 'utf8'), 'mine')
  assert.deepEqual(fs.readdirSync(dir), ['x.svg'], 'no temp file left behind')
  const r = await native.convert(fibFile, dir, 0, { outs: { svg: 'y.svg' }, keepExisting: true })
  assert.equal(r.outputs.svg.path, path.join(dir, 'y.svg'))
  readSvg(path.join(dir, 'y.svg'))
  assert.equal(fs.statSync(path.join(dir, 'y.svg')).nlink, 1, 'the temp name is gone')
  assert.equal(fs.statSync(path.join(dir, 'y.svg')).mode & 0o777, 0o600)
})

// Bad input files: each command fails with exit 1 and one line that names
// the file and the problem; nothing is written.
test('bad files: truncated, wrong schema, missing node, empty, not a file → exit 1, a clear message', () => {
  const dir = makeTmpDir()
  const good = fs.readFileSync(fibFile, 'utf8')
  const profile = JSON.parse(good)
  const files = {
    'truncated.cpuprofile': [good.slice(0, Math.floor(good.length / 2)), /invalid or truncated JSON/],
    'schema.cpuprofile': ['{"nodes": 3}', /nodes/],
    'other.cpuprofile': ['{"hello": "world"}', /neither a \.cpuprofile \(nodes\) nor a \.heapprofile \(head\)/],
    'missing-node.cpuprofile': [JSON.stringify({ ...profile, samples: [...profile.samples.slice(0, 5), 987654321] }),
      /sample 5 names node 987654321, which the profile does not have/],
    'empty.cpuprofile': [JSON.stringify({ ...profile, samples: [], timeDeltas: [] }), /empty profile: it holds no samples/],
    'zero.cpuprofile': ['', /empty input/],
    'binary.cpuprofile': [Buffer.from([0x1f, 0x8b, 0, 1, 2, 3]), /JSON/]
  }
  for (const [name, [content]] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content)
  fs.mkdirSync(path.join(dir, 'a-directory.cpuprofile'))
  files['a-directory.cpuprofile'] = [null, /it is a directory/]
  files['absent.cpuprofile'] = [null, /No such file or directory/]
  const out = path.join(dir, 'out')
  for (const [name, [, problem]] of Object.entries(files)) {
    const file = path.join(dir, name)
    for (const args of [['report', file], ['flame', file, '-o', `${out}.svg`],
      ['convert', file, '--to', 'pprof', '-o', `${out}.pb.gz`], ['diff', fibFile, file, '-o', `${out}.svg`]]) {
      const r = cli(...args)
      assert.equal(r.status, 1, r.describe())
      assert.equal(r.stdout, '', r.describe())
      const lines = r.stderr.trim().split('\n')
      assert.equal(lines.length, 1, `one line: ${r.describe()}`)
      assert.match(lines[0], /^cprof: ERR_CPROF_(BAD_PROFILE|IO): /, r.describe())
      assert.ok(lines[0].includes(file), `names ${file}: ${lines[0]}`)
      // diff takes a directory as the runs in it (several base or head runs).
      const expected = args[0] === 'diff' && name === 'a-directory.cpuprofile' ? /holds no \.cpuprofile or \.heapprofile file/ : problem
      assert.match(lines[0], expected, r.describe())
    }
  }
  assert.ok(!fs.readdirSync(dir).some((f) => f.startsWith('out') || f.startsWith('.out')), 'nothing was written')
  // A function the profile does not have.
  const r = cli('report', fibFile, '--bottom-up', 'noSuchFunction')
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, /no function named "noSuchFunction"/)
})

test('usage: --help, missing and unknown arguments (exit 2)', () => {
  for (const cmd of ['report', 'flame', 'convert', 'diff']) {
    const h = ok(cmd, '--help')
    assert.ok(h.stdout.startsWith(`usage: cprof ${cmd} `), h.stdout)
    const none = cli(cmd)
    assert.equal(none.status, 2, none.describe())
    assert.match(none.stderr, new RegExp(`^cprof ${cmd}: missing <`))
    const unknown = cli(cmd, fibFile, fibFile, '--frobnicate')
    assert.equal(unknown.status, 2, unknown.describe())
  }
  const cases = [
    [['convert', fibFile], /--to is required/],
    [['convert', fibFile, '--to', 'png'], /unknown format "png"/],
    [['convert', fibFile, '--to', 'svg', '--to', 'txt', '-o', 'x'], /-o names one file/],
    [['report', fibFile, '--top', 'abc'], /--top must be an integer/],
    [['report', fibFile, '--cut', '200'], /--cut must be a percentage/],
    [['report', fibFile, fibFile], /too many arguments/]
  ]
  for (const [args, msg] of cases) {
    const r = cli(...args)
    assert.equal(r.status, 2, r.describe())
    assert.match(r.stderr, msg, r.describe())
  }
})

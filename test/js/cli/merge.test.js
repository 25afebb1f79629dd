'use strict'

// cprof merge and the store input of report/flame/convert (--from/--to), on
// three real .cpuprofiles that cprof wrote in one process, one hot function
// per phase. Checked against an independent merge written here over the
// parsed files (self time per function, as DevTools computes it from
// samples and timeDeltas), and against the DevTools .cpuprofile shape.

const { test: nodeTest, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

const { ROOT, makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util.js')
const { runFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { assertCpuProfileSchema } = require('../helpers/schema.js')
const { decodePprof } = require('../helpers/formats.js')
const { devtoolsTimes, speedscopeTimes, slack, firstOnTop, assertViewerSums } = require('../helpers/viewer-rules.js')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 90000 }, fn)

const BIN = path.join(ROOT, 'bin', 'cprof.js')
const HOT = ['phaseAlpha', 'phaseBeta', 'phaseGamma']
const PID = 4242 // the store's windows are named for a process; any number does

function cli (args, { cwd } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60000, env: childEnv(), cwd })
  if (r.error) throw r.error
  r.describe = () => `cprof ${args.join(' ')} → status ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`
  return r
}

function ok (args, opts) {
  const r = cli(args, opts)
  assert.equal(r.status, 0, r.describe())
  assert.equal(r.stderr, '', r.describe())
  return r
}

// ---- the independent merge ----

function timestamps (p) {
  let t = p.startTime
  return p.timeDeltas.map((d) => (t += d))
}

const keyOf = (cf) => `${cf.functionName}|${cf.url}|${cf.lineNumber}|${cf.columnNumber}`

// Self µs per function: each sample lasts until the next one, the last
// until endTime; a negative gap counts 0 (DevTools' and speedscope's rule).
function selfByFunction (p, into = new Map()) {
  const ts = timestamps(p)
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  ts.forEach((t, i) => {
    const w = Math.max(0, (i + 1 < ts.length ? ts[i + 1] : p.endTime) - t)
    const key = keyOf(byId.get(p.samples[i]).callFrame)
    into.set(key, (into.get(key) ?? 0) + w)
  })
  return into
}

// Profiles laid end to end (what a merge does with profiles that do not
// continue one another): each one's first sample at the previous one's
// endTime (or last sample, if later). { timestamps, endTime }.
function endToEnd (profiles) {
  const out = []
  let end = profiles[0].startTime
  for (const [k, p] of profiles.entries()) {
    const ts = timestamps(p)
    const shift = k === 0 ? 0 : Math.max(end, out.at(-1) ?? end) - ts[0]
    out.push(...ts.map((t) => t + shift))
    end = p.endTime + shift
  }
  return { timestamps: out, endTime: end }
}

function independentMerge (profiles) {
  const self = new Map()
  for (const p of profiles) selfByFunction(p, self)
  let total = 0
  for (const v of self.values()) total += v
  return { self, total, samples: profiles.reduce((n, p) => n + p.samples.length, 0) }
}

// The summary's functions (all of them: --top is large) against the
// independent self times, in µs.
function assertSelfTimes (summary, expected, label) {
  const seen = new Set()
  for (const f of summary.top) {
    const key = `${f.functionName}|${f.url}|${f.line - 1}|${f.column - 1}`
    seen.add(key)
    assert.ok(Math.abs(f.self * 1000 - (expected.self.get(key) ?? 0)) < 0.01,
      `${label}: ${f.functionName} self ${f.self * 1000} µs, independent merge ${expected.self.get(key)} µs`)
  }
  for (const [key, v] of expected.self) {
    if (v > 0 && !key.startsWith('(root)|') && !key.startsWith('(idle)|')) {
      assert.ok(seen.has(key), `${label}: ${key} (${v} µs) is missing from the merged summary`)
    }
  }
  assert.ok(Math.abs(summary.total * 1000 - expected.total) < 0.01,
    `${label}: total ${summary.total * 1000} µs, independent merge ${expected.total} µs`)
}

function hotSelf (summary, name) {
  const f = summary.top.find((t) => t.functionName === name)
  return f ? f.self : 0
}

// ---- the profiles ----

let phases // [{ hot, file, from, to, profile }]
let store

before(() => {
  const dir = makeTmpDir()
  const r = runFixture('merge-phases.js', [dir, '400'], { timeout: 60000 })
  assert.equal(r.status, 0, r.describe())
  phases = r.json[0].phases
  for (const ph of phases) ph.profile = JSON.parse(fs.readFileSync(ph.file, 'utf8'))
  // A store as the recorder writes it: one file per window, named with the
  // pid and its wall-clock range; other formats and kinds beside them.
  store = makeTmpDir()
  for (const ph of phases) {
    fs.copyFileSync(ph.file, path.join(store, `cpu-${PID}-${ph.from}-${ph.to}.cpuprofile`))
    fs.writeFileSync(path.join(store, `cpu-${PID}-${ph.from}-${ph.to}.pb.gz`), 'not read: pprof is an export')
  }
  fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'small.heapprofile'),
    path.join(store, `heap-${PID}-${phases[0].from}-${phases[2].to}.heapprofile`))
  fs.writeFileSync(path.join(store, `.cpu-${PID}-1-2.cpuprofile.99.tmp`), '{')
})

test('the workload has one hot function per phase', () => {
  for (const ph of phases) {
    const self = selfByFunction(ph.profile)
    const hot = [...self].filter(([k]) => k.startsWith(`${ph.hot}|`)).reduce((s, [, v]) => s + v, 0)
    assert.ok(hot > 0, `${ph.hot} was not sampled in its own phase`)
    for (const other of HOT.filter((h) => h !== ph.hot)) {
      assert.ok(![...self.keys()].some((k) => k.startsWith(`${other}|`)), `${other} ran in ${ph.hot}'s phase`)
    }
  }
})

test('cprof merge: samples, self times, start and end, and a DevTools-shaped file', () => {
  const dir = makeTmpDir()
  const out = path.join(dir, 'all.cpuprofile')
  const r = ok(['merge', ...phases.map((p) => p.file), '-o', out, '--json', '--top', '100000'])
  const res = JSON.parse(r.stdout)
  const inputs = phases.map((p) => p.profile)
  const expected = independentMerge(inputs)
  assert.equal(res.kind, 'cpu')
  assert.equal(res.samples, expected.samples)
  assert.deepEqual(res.files, [out])
  assertSelfTimes(res.summary, expected, 'merge of 3')
  for (const h of HOT) assert.ok(hotSelf(res.summary, h) > 0, `${h} is in the merged profile`)

  const merged = JSON.parse(fs.readFileSync(out, 'utf8'))
  assertCpuProfileSchema(merged)
  // Parents before children: DevTools and speedscope build the tree in one pass.
  const index = new Map(merged.nodes.map((n, i) => [n.id, i]))
  merged.nodes.forEach((n, i) => {
    for (const c of n.children || []) assert.ok(index.get(c) > i, `child ${c} comes before its parent ${n.id}`)
  })
  assert.equal(merged.samples.length, expected.samples)
  assert.equal(merged.timeDeltas.length, expected.samples)
  // Each phase was stopped, then the next started: a few ms between them
  // that no profile covered. So each goes end to end: its first sample at
  // the previous one's endTime, its samples keeping their gaps; and each
  // sample still names the same function.
  const laid = endToEnd(inputs)
  assert.equal(merged.startTime, inputs[0].startTime)
  assert.equal(merged.endTime, laid.endTime)
  assert.deepEqual(timestamps(merged), laid.timestamps)
  const mergedById = new Map(merged.nodes.map((n) => [n.id, n]))
  const names = merged.samples.map((id) => mergedById.get(id).callFrame.functionName)
  const inputNames = inputs.flatMap((p) => {
    const byId = new Map(p.nodes.map((n) => [n.id, n]))
    return p.samples.map((id) => byId.get(id).callFrame.functionName)
  })
  assert.deepEqual(names, inputNames)
  // Call paths merged: no two siblings share a call frame.
  for (const n of merged.nodes) {
    const keys = (n.children || []).map((c) => keyOf(mergedById.get(c).callFrame))
    assert.equal(new Set(keys).size, keys.length, `node ${n.id} has two children with one frame`)
  }
})

test('the merged file read again gives what the merge said: no time between profiles is counted', () => {
  const dir = makeTmpDir()
  const out = path.join(dir, 'all.cpuprofile')
  ok(['merge', ...phases.map((p) => p.file), '-o', out, '--json'])
  const expected = independentMerge(phases.map((p) => p.profile))
  const again = JSON.parse(ok(['report', out, '--json', '--top', '100000']).stdout)
  assertSelfTimes(again.summary, expected, 're-read')
  assert.equal(again.samples, expected.samples)
})

test('cprof merge --formats writes the derived files beside the profile', () => {
  const dir = makeTmpDir()
  const out = path.join(dir, 'two.cpuprofile')
  const r = ok(['merge', phases[0].file, phases[1].file, '-o', out, '--formats', 'pprof,svg'])
  assert.match(r.stdout, /^merged 2 CPU profiles: \d+ samples/)
  assert.match(r.stdout, /phaseAlpha/)
  assert.match(r.stdout, /phaseBeta/)
  const pprof = decodePprof(path.join(dir, 'two.pb.gz'))
  const names = new Set(pprof.functions.map((f) => f.name))
  assert.ok(names.has('phaseAlpha') && names.has('phaseBeta') && !names.has('phaseGamma'))
  assert.ok(fs.statSync(path.join(dir, 'two.svg')).size > 0)
})

test('cprof merge of heap profiles: sizes add up, samples append', () => {
  const dir = makeTmpDir()
  const heap = path.join(ROOT, 'test', 'fixtures', 'small.heapprofile')
  const one = JSON.parse(ok(['report', heap, '--json']).stdout)
  const res = JSON.parse(ok(['merge', heap, heap, heap, '--json'], { cwd: dir }).stdout)
  assert.equal(res.kind, 'heap')
  assert.equal(res.samples, 3 * one.samples)
  assert.equal(res.summary.total, 3 * one.summary.total)
  const merged = JSON.parse(fs.readFileSync(path.join(dir, 'merged.heapprofile'), 'utf8'))
  assert.equal(merged.samples.length, 3 * one.samples)
  const ordinals = merged.samples.map((s) => s.ordinal)
  assert.equal(new Set(ordinals).size, ordinals.length, 'ordinals are unique')
  let sum = 0
  const walk = (n) => { sum += n.selfSize; n.children.forEach(walk) }
  walk(merged.head)
  assert.equal(sum, 3 * one.summary.total)
})

test('cprof merge refuses to replace a file it was not told to', () => {
  const dir = makeTmpDir()
  ok(['merge', phases[0].file, phases[1].file], { cwd: dir })
  const first = fs.readFileSync(path.join(dir, 'merged.cpuprofile'), 'utf8')
  const r = cli(['merge', phases[2].file], { cwd: dir })
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, /merged\.cpuprofile exists: pass --force to replace it, or -o FILE/)
  assert.equal(fs.readFileSync(path.join(dir, 'merged.cpuprofile'), 'utf8'), first)
  // Named with -o, or with --force, it is replaced.
  ok(['merge', phases[2].file, '-o', path.join(dir, 'merged.cpuprofile')])
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'merged.cpuprofile'), 'utf8')).startTime,
    phases[2].profile.startTime)
  ok(['merge', phases[1].file, '--force'], { cwd: dir })
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'merged.cpuprofile'), 'utf8')).startTime,
    phases[1].profile.startTime)
  // Never over an input, -o or not.
  const r2 = cli(['merge', phases[0].file, phases[1].file, '-o', phases[1].file])
  assert.equal(r2.status, 1, r2.describe())
  assert.match(r2.stderr, /is also an input/)
})

test('merge with keepExisting: the native writer never replaces the merged file', async () => {
  const native = require('../../../lib/native')
  const dir = makeTmpDir()
  const out = path.join(dir, 'taken.cpuprofile')
  fs.writeFileSync(out, 'mine')
  await assert.rejects(
    native.merge([phases[0].file, phases[1].file], dir, 'taken.cpuprofile', 0, { keepExisting: true }),
    (err) => err.code === 'ERR_CPROF_EXISTS' && err.message.includes('taken.cpuprofile'))
  assert.equal(fs.readFileSync(out, 'utf8'), 'mine')
  assert.deepEqual(fs.readdirSync(dir), ['taken.cpuprofile'], 'no temp file left behind')
  const r = await native.merge([phases[0].file, phases[1].file], dir, 'new.cpuprofile', 0, { keepExisting: true })
  assert.equal(r.file.path, path.join(dir, 'new.cpuprofile'))
})

// The CLI merges in steps of 128 files (a store may hold thousands of
// windows): more than two steps' worth must add up exactly as well.
test('cprof merge of 300 files: merged in steps, the same sums; a wrong kind in a later step', () => {
  const dir = makeTmpDir()
  const files = []
  for (let i = 0; i < 300; i++) {
    const f = path.join(dir, `w${String(i).padStart(3, '0')}.cpuprofile`)
    fs.copyFileSync(phases[i % 3].file, f)
    files.push(f)
  }
  const res = JSON.parse(ok(['merge', ...files, '-o', path.join(dir, 'all.cpuprofile'), '--json', '--top', '100000']).stdout)
  const inputs = files.map((_, i) => phases[i % 3].profile)
  assert.equal(res.samples, independentMerge(inputs).samples)
  assertSelfTimes(res.summary, independentMerge(inputs), '300 files')

  const heap = path.join(ROOT, 'test', 'fixtures', 'small.heapprofile')
  const mixed = [...files.slice(0, 200), heap, ...files.slice(200)]
  const r = cli(['merge', ...mixed, '-o', path.join(dir, 'mixed.cpuprofile')])
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, /cannot merge a CPU profile \(.*w000\.cpuprofile\) with a heap profile \(.*small\.heapprofile\)/)
  assert.ok(!fs.existsSync(path.join(dir, 'mixed.cpuprofile')))
})

test('cprof merge: mixed kinds, a bad file, usage errors', () => {
  const dir = makeTmpDir()
  const heap = path.join(ROOT, 'test', 'fixtures', 'small.heapprofile')
  let r = cli(['merge', phases[0].file, heap, '-o', path.join(dir, 'x.cpuprofile')])
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, /cannot merge a CPU profile \(.*phaseAlpha.*\) with a heap profile \(.*small\.heapprofile\)/)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.describe())
  assert.ok(!fs.existsSync(path.join(dir, 'x.cpuprofile')))

  const bad = path.join(dir, 'bad.cpuprofile')
  fs.writeFileSync(bad, '{"nodes":[')
  r = cli(['merge', phases[0].file, bad, '-o', path.join(dir, 'y.cpuprofile')])
  assert.equal(r.status, 1, r.describe())
  assert.equal(r.stderr.trim().split('\n').length, 1, r.describe())
  assert.ok(r.stderr.includes(bad), r.describe())

  r = cli(['merge', phases[0].file, path.join(dir, 'missing.cpuprofile'), '-o', path.join(dir, 'z.cpuprofile')])
  assert.equal(r.status, 1, r.describe())
  assert.ok(r.stderr.includes('missing.cpuprofile'), r.describe())

  assert.equal(cli(['merge']).status, 2)
  assert.equal(cli(['merge', phases[0].file, '--formats', 'png']).status, 2)
  assert.equal(cli(['merge', phases[0].file, '--from', '-5m']).status, 2) // a file, not a store
})

// ---- a store directory ----

function storeReport (...args) {
  return JSON.parse(ok(['report', store, '--json', '--top', '100000', ...args]).stdout)
}

test('report <store> --from/--to merges the windows in range, and only those', () => {
  const all = storeReport()
  assert.equal(all.kind, 'cpu') // a heap window is there too: cpu by default
  assertSelfTimes(all.summary, independentMerge(phases.map((p) => p.profile)), 'whole store')
  assert.equal(all.windows.length, 3)

  // The last two phases, by epoch ms.
  const late = storeReport('--from', String(phases[1].from), '--to', String(phases[2].to))
  assertSelfTimes(late.summary, independentMerge([phases[1].profile, phases[2].profile]), 'phases 2-3')
  assert.equal(hotSelf(late.summary, 'phaseAlpha'), 0)
  assert.ok(hotSelf(late.summary, 'phaseBeta') > 0 && hotSelf(late.summary, 'phaseGamma') > 0)

  // The first only, by ISO-8601 dates; a range inside one window finds it.
  const mid = new Date((phases[0].from + phases[0].to) / 2).toISOString()
  const first = storeReport('--from', mid, '--to', mid)
  assert.equal(first.samples, phases[0].profile.samples.length)
  assert.ok(hotSelf(first.summary, 'phaseAlpha') > 0 && hotSelf(first.summary, 'phaseGamma') === 0)

  // Relative to now: the windows were written in the last minute.
  assert.equal(storeReport('--from', '-10m').samples, all.samples)
  assert.equal(storeReport('--kind', 'heap').kind, 'heap')
  assert.equal(storeReport('--pid', String(PID)).samples, all.samples)
})

test('cprof list <store>: each window with its process, start and end', () => {
  const rows = ok(['list', store, '--json']).stdout.trim().split('\n').map((l) => JSON.parse(l))
  const windows = rows.filter((r) => r.format === 'cpuprofile')
  assert.equal(windows.length, 3)
  windows.forEach((w, i) => {
    assert.equal(w.kind, 'cpu')
    assert.equal(w.pid, PID)
    assert.equal(w.time, new Date(phases[i].from).toISOString())
    assert.equal(w.to, new Date(phases[i].to).toISOString())
  })
  const pprof = rows.filter((r) => r.format === 'pb.gz')
  assert.ok(pprof.length === 3 && pprof.every((r) => r.kind === 'cpu' && r.pid === PID))
  assert.ok(!rows.some((r) => path.basename(r.file).startsWith('.')), 'temp files are not listed')
})

test('report <store>: nothing in range, bad times', () => {
  let r = cli(['report', store, '--to', '-1h'])
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, /no cpu windows in .* up to \d{4}-.*Z: it holds 3 from \d{4}-.*Z to \d{4}-.*Z\n$/)
  r = cli(['report', store, '--pid', '1'])
  assert.equal(r.status, 1, r.describe())
  for (const bad of [['--from', 'yesterday'], ['--from', '5m'], ['--kind', 'wall'], ['--pid', 'x']]) {
    r = cli(['report', store, ...bad])
    assert.equal(r.status, 2, r.describe())
  }
  // A directory that is no store is an unreadable input, as before.
  r = cli(['report', makeTmpDir()])
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, /^cprof: ERR_CPROF_IO: cannot read .*: it is a directory, and not a recorder store/)
  r = cli(['report', store, '--from', String(phases[2].to), '--to', String(phases[0].from)])
  assert.equal(r.status, 2, r.describe())
  assert.match(r.stderr, /--from .* is after --to/)
})

test('cprof merge <store> --from: the windows in range, into the current directory', () => {
  const dir = makeTmpDir()
  const res = JSON.parse(ok(['merge', store, '--from', String(phases[1].from), '--json'], { cwd: dir }).stdout)
  const file = path.join(fs.realpathSync(dir), `cpu-merged-${phases[1].from}-${phases[2].to}.cpuprofile`)
  assert.deepEqual(res.files, [file])
  assert.equal(res.inputs.length, 2)
  const merged = JSON.parse(fs.readFileSync(file, 'utf8'))
  assertCpuProfileSchema(merged)
  assert.equal(merged.samples.length, phases[1].profile.samples.length + phases[2].profile.samples.length)
  assert.equal(merged.startTime, phases[1].profile.startTime)
  assert.equal(merged.endTime, endToEnd([phases[1].profile, phases[2].profile]).endTime)
  const r = cli(['merge', store, phases[0].file])
  assert.equal(r.status, 2, r.describe())
})

test('flame and convert take a store, and write into the current directory', () => {
  const dir = makeTmpDir()
  const f = ok(['flame', store, '--from', String(phases[1].from)], { cwd: dir })
  const svg = f.stdout.trim()
  assert.equal(path.dirname(svg), fs.realpathSync(dir))
  assert.equal(path.basename(svg), `cpu-merged-${phases[1].from}-${phases[2].to}.svg`)
  assert.match(fs.readFileSync(svg, 'utf8'), /phaseGamma/)

  // convert: --to is the format, and the range end when it is a time.
  const out = path.join(dir, 'early.pb.gz')
  ok(['convert', store, '--to', 'pprof', '--to', String(phases[1].to - 1), '-o', out])
  const names = new Set(decodePprof(out).functions.map((fn) => fn.name))
  assert.ok(names.has('phaseAlpha') && names.has('phaseBeta') && !names.has('phaseGamma'), [...names].join(', '))
  const r = cli(['convert', store, '--to', 'pprof', '--to', '-1m', '--to', 'now'])
  assert.equal(r.status, 2, r.describe())
})

// ---- node --cpu-prof files of separate processes, read as viewers read them ----

// One `node --cpu-prof` run of the fixture, into dir; resolves its profile's path.
// barrier: [dir, count] to start its work only once count runs are up.
function cpuProfRun (dir, name, barrier = []) {
  const script = path.join(ROOT, 'test', 'js', 'fixtures', 'cpu-prof-workload.js')
  const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`, script, ...barrier], {
    env: childEnv(), stdio: 'ignore'
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (status) => status === 0 ? resolve(path.join(dir, name)) : reject(new Error(`${name}: exit ${status}`)))
  })
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function checkMergedCpuProf (label, files, { gaps }) {
  const dir = makeTmpDir()
  const out = path.join(dir, 'm.cpuprofile')
  const res = JSON.parse(ok(['merge', ...files, '-o', out, '--json', '--top', '100000']).stdout)
  const inputs = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')))
  const merged = JSON.parse(fs.readFileSync(out, 'utf8'))
  assertCpuProfileSchema(merged)
  assert.equal(merged.samples.length, inputs.reduce((n, p) => n + p.samples.length, 0))
  const tol = slack(inputs)
  assertViewerSums(`${label}, DevTools' rule`, merged, inputs, devtoolsTimes, tol)
  assertViewerSums(`${label}, speedscope's rule`, merged, inputs, speedscopeTimes, tol, tol + firstOnTop(inputs))

  // The time no input covered is cut out: the merged timeline is each
  // input's own, from its first sample to its endTime, end to end.
  const covered = inputs.reduce((s, p, k) => s + p.endTime - (k === 0 ? p.startTime : timestamps(p)[0]), 0)
  assert.equal(merged.endTime - merged.startTime, covered)
  if (gaps) assert.ok(inputs.at(-1).endTime - inputs[0].startTime > covered + gaps, 'the runs left gaps')

  // cprof reading the merged file back says what cprof merge said.
  const again = JSON.parse(ok(['report', out, '--json', '--top', '100000']).stdout)
  assert.ok(Math.abs(again.summary.total - res.summary.total) < 0.002,
    `report total ${again.summary.total} ms, merge total ${res.summary.total} ms`)
  for (const f of res.summary.top) {
    const g = again.summary.top.find((x) => x.functionName === f.functionName && x.url === f.url && x.line === f.line && x.column === f.column)
    assert.ok(g && Math.abs(g.self - f.self) < 0.002 && Math.abs(g.total - f.total) < 0.002,
      `${f.functionName}: report ${g && g.self}/${g && g.total} ms, merge ${f.self}/${f.total} ms`)
  }
}

test('node --cpu-prof runs one after another, with gaps: viewers read the merged file as the sum of the runs', async () => {
  const dir = makeTmpDir()
  const files = []
  for (const name of ['a', 'b', 'c']) {
    files.push(await cpuProfRun(dir, `${name}.cpuprofile`))
    await sleep(300)
  }
  await checkMergedCpuProf('3 runs with gaps', files, { gaps: 2 * 300000 })
})

test('node --cpu-prof runs at the same time: the merged file is each run end to end, sums exact', async () => {
  const dir = makeTmpDir()
  const barrier = [makeTmpDir(), '3'] // the three sample at the same time, whatever the load
  const files = await Promise.all(['x', 'y', 'z'].map((n) => cpuProfRun(dir, `${n}.cpuprofile`, barrier)))
  await checkMergedCpuProf('3 concurrent runs', files, { gaps: 0 })
})

test('a store read with a gap (windows of two runs): the merged file read as DevTools reads it', () => {
  const dir = makeTmpDir()
  // merge-phases wrote each phase as its own profile, stopped and started
  // again: a few ms between them that no profile covered.
  const out = path.join(dir, 'store.cpuprofile')
  ok(['merge', store, '--kind', 'cpu', '-o', out])
  const merged = JSON.parse(fs.readFileSync(out, 'utf8'))
  const inputs = phases.map((p) => p.profile)
  assertViewerSums('store', merged, inputs, devtoolsTimes, slack(inputs))
})

// ---- labels (docs/labels.md): the inputs' sidecars merged ----

const haveGo = !spawnSync('go', ['version'], { encoding: 'utf8' }).error

// A process that profiles with labels: 150 ms of CPU under route=own, 100
// ms under route=/s (the set both processes have), 80 ms unlabelled.
const LABELLED = `
const cprof = require(${JSON.stringify(ROOT)})
const spin = (ms) => { const t = process.cpuUsage(); for (;;) { const u = process.cpuUsage(t); if (u.user + u.system >= ms * 1000) return; for (let i = 0; i < 1e4; i++) Math.sqrt(i) } }
;(async () => {
  await cprof.start({ dir: process.argv[1], labels: true, interval: 500 })
  spin(50) // the sampler running before the labelled work, however loaded the machine
  cprof.withLabels({ route: process.argv[2] }, spin, 150)
  cprof.withLabels({ route: '/s' }, spin, 100)
  spin(30)
  console.log(JSON.stringify((await cprof.stop()).files))
})()`

function labelled (dir, route) {
  const r = spawnSync(process.execPath, ['-e', LABELLED, dir, route], { encoding: 'utf8', timeout: 60000, env: childEnv() })
  assert.equal(r.status, 0, r.stderr)
  const files = JSON.parse(r.stdout.trim().split('\n').pop())
  assert.ok(files.labels, JSON.stringify(files))
  return { files, profile: JSON.parse(fs.readFileSync(files.cpuprofile, 'utf8')), side: JSON.parse(fs.readFileSync(files.labels, 'utf8')) }
}

const setKey = (side, i) => JSON.stringify(Object.entries(side.sets[side.samples[i]]).sort())
function countBySet (side) {
  const n = new Map()
  side.samples.forEach((_, i) => n.set(setKey(side, i), (n.get(setKey(side, i)) || 0) + 1))
  return n
}

test('cprof merge of two labelled processes: a merged sidecar (sets re-interned, counts summed, in sample order), pprof labels, report --by', async (t) => {
  const dir = makeTmpDir()
  const a = labelled(dir, '/a')
  const b = labelled(dir, '/b')
  const out = path.join(dir, 'merged.cpuprofile')
  const r = ok(['merge', a.files.cpuprofile, b.files.cpuprofile, '-o', out, '--formats', 'pprof', '--json'])
  const side = path.join(dir, 'merged.labels.json')
  assert.ok(JSON.parse(r.stdout).files.includes(side), r.stdout)
  const merged = JSON.parse(fs.readFileSync(out, 'utf8'))
  const ms = JSON.parse(fs.readFileSync(side, 'utf8'))
  assert.equal(ms.version, 1)
  assert.equal(ms.samples.length, merged.samples.length)
  assert.equal(merged.samples.length, a.profile.samples.length + b.profile.samples.length)
  // the same {route:'/s'} of two processes is one set; none is set 0
  assert.deepEqual(ms.sets[0], {})
  assert.equal(new Set(ms.sets.map((s) => JSON.stringify(Object.entries(s).sort()))).size, ms.sets.length, JSON.stringify(ms.sets))
  assert.equal(ms.sets.filter((s) => s.route === '/s').length, 1)
  // samples[k] follows the merged samples[k]: the first input's, then the second's
  const n1 = a.side.samples.length
  ms.samples.forEach((_, k) => assert.equal(setKey(ms, k), k < n1 ? setKey(a.side, k) : setKey(b.side, k - n1), `sample ${k}`))
  const want = countBySet(a.side)
  for (const [k, n] of countBySet(b.side)) want.set(k, (want.get(k) || 0) + n)
  assert.deepEqual(countBySet(ms), want)
  for (const route of ['/a', '/b', '/s']) assert.ok(want.get(JSON.stringify([['route', route]])) > 0, `${route} has samples`)

  // cprof report --by route: each route's samples and time are the inputs' sum
  const by = (file) => Object.fromEntries(JSON.parse(ok(['report', file, '--by', 'route', '--json']).stdout).values.map((v) => [v.value, v]))
  const m = by(out)
  const ia = by(a.files.cpuprofile)
  const ib = by(b.files.cpuprofile)
  for (const v of ['/a', '/b', '/s', '(none)']) {
    const samples = (ia[v]?.samples || 0) + (ib[v]?.samples || 0)
    const us = (ia[v]?.us || 0) + (ib[v]?.us || 0)
    assert.equal(m[v].samples, samples, `${v}'s samples`)
    assert.ok(Math.abs(m[v].us - us) <= 1000, `${v}: ${m[v].us} µs merged, ${us} µs in the inputs`)
  }
  assert.match(ok(['report', out, '--by', 'route']).stdout, /^ {2}\/b\s+\d+/m)

  // the merged pprof's sample labels, as go tool pprof reads them
  const pp = decodePprof(path.join(dir, 'merged.pb.gz'))
  const routeCount = {}
  for (const s of pp.profile.sample) {
    const l = s.label.find((x) => pp.strings[Number(x.key)] === 'route')
    const v = l ? pp.strings[Number(l.str)] : '(none)'
    routeCount[v] = (routeCount[v] || 0) + Number(s.value[0])
  }
  for (const v of ['/a', '/b', '/s']) assert.equal(routeCount[v], m[v].samples, `pprof ${v}`)
  if (!haveGo) return t.skip('go is not installed: go tool pprof -tags not run')
  const go = spawnSync('go', ['tool', 'pprof', '-tags', path.join(dir, 'merged.pb.gz')], { encoding: 'utf8', timeout: 60000 })
  assert.equal(go.status, 0, go.stderr)
  for (const v of ['/a', '/b', '/s']) assert.match(go.stdout, new RegExp(`\\s${v.replace('/', '\\/')}\\b`), go.stdout)
})

// A hand-made profile of n samples of one function, and its sidecar with
// one set per sample {route: /r<first + i>} (none when first is null).
function handmade (dir, name, n, first) {
  const file = path.join(dir, `${name}.cpuprofile`)
  fs.writeFileSync(file, JSON.stringify({
    nodes: [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, children: [2] },
      { id: 2, callFrame: { functionName: 'f', scriptId: '1', url: 'file:///f.js', lineNumber: 1, columnNumber: 1 } }],
    startTime: 0,
    endTime: n * 1000 + 1000,
    samples: new Array(n).fill(2),
    timeDeltas: new Array(n).fill(1000)
  }))
  if (first !== null) {
    const sets = [{}, ...Array.from({ length: n }, (_, i) => ({ route: `/r${first + i}` }))]
    fs.writeFileSync(path.join(dir, `${name}.labels.json`), JSON.stringify({ version: 1, sets, samples: sets.map((_, i) => i).slice(1), unknownSamples: 0 }))
  }
  return file
}

test('cprof merge: the union of sets past 1,000 carries the overflow set; an input without labels gives none; a sidecar not of its profile fails', () => {
  const dir = makeTmpDir()
  const a = handmade(dir, 'a', 600, 0) // /r0../r599
  const none = handmade(dir, 'none', 5, null)
  const b = handmade(dir, 'b', 600, 500) // /r500../r1099: 100 shared, 400 fit, 100 past the cap
  const out = path.join(dir, 'm.cpuprofile')
  ok(['merge', a, none, b, '-o', out])
  const side = JSON.parse(fs.readFileSync(path.join(dir, 'm.labels.json'), 'utf8'))
  assert.equal(side.samples.length, 1205)
  assert.equal(side.sets.length, 1002, 'none, 1,000 sets, the overflow set')
  assert.deepEqual(side.sets[1001], { cprof_overflow: 'true' })
  const route = (k) => side.sets[side.samples[k]].route
  assert.equal(route(0), '/r0')
  assert.deepEqual(side.samples.slice(600, 605), [0, 0, 0, 0, 0])
  assert.equal(route(605), '/r500')
  assert.equal(route(605 + 499), '/r999')
  assert.equal(side.samples.slice(605 + 500).filter((s) => s === 1001).length, 100)
  // a sidecar that is not its profile's: the merge fails and names it
  fs.writeFileSync(path.join(dir, 'none.labels.json'), JSON.stringify({ version: 1, sets: [{}], samples: [0] }))
  const bad = cli(['merge', a, none, '-o', path.join(dir, 'bad.cpuprofile')])
  assert.equal(bad.status, 1, bad.describe())
  assert.match(bad.stderr, /none\.labels\.json: 1 samples, the profile has 5/)
})

test('a fleet\'s merge (merge-set.js) keeps the instances\' labels: files.labels and the pprof\'s', async () => {
  const { mergeSet } = require('../../../lib/cluster/merge-set')
  const dir = makeTmpDir()
  const members = [handmade(dir, 'i0', 4, 0), handmade(dir, 'i1', 3, 2)]
    .map((file, i) => ({ pid: 100 + i, app: 'app', instance: i, role: 'worker', file }))
  const r = await mergeSet(members, { kind: 'cpu', app: 'app', dir, startTime: Date.now(), formats: ['pprof'] })
  assert.ok(r.files.labels, JSON.stringify(r.files))
  const side = JSON.parse(fs.readFileSync(r.files.labels, 'utf8'))
  assert.deepEqual(side.samples.map((k) => side.sets[k].route), ['/r0', '/r1', '/r2', '/r3', '/r2', '/r3', '/r4'])
  const pp = decodePprof(r.files.pprof)
  const labelled = pp.profile.sample.filter((s) => s.label.length > 0).reduce((n, s) => n + Number(s.value[0]), 0)
  assert.equal(labelled, 7)
})

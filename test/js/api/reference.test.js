'use strict'

// The native numbers equal an independent JS computation on the same file:
// per-node self/total (cprof.analyze with nodes: true), the flat top table,
// and the summary that stop() returns.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const cprof = require('../../..')
const ref = require('../helpers/reference.js')
const { assertCpuProfileSchema } = require('../helpers/schema.js')
const { handmadeProfile, HANDMADE } = require('../helpers/handmade.js')
const { makeTmpDir, removeTmpDirs, runFixture } = require('../helpers/util.js')

after(removeTmpDirs)

// No test may hang the suite: each has a time limit (a failure, not a timing check).
const test = (name, fn) => nodeTest(name, { timeout: 40000 }, fn)

const EPS = 1e-9

function near (actual, expected, what) {
  assert.equal(typeof actual, 'number', `${what}: a number`)
  assert.ok(Math.abs(actual - expected) <= EPS, `${what}: got ${actual}, expected ${expected}`)
}

// Compares a native summary with the JS reference summary.
function assertSummaryMatches (actual, expected, { top = 20 } = {}) {
  assert.equal(actual.unit, 'ms')
  near(actual.total, expected.total, 'summary.total')
  for (const k of ['gc', 'idle', 'program']) {
    near(actual[k].self, expected[k].self, `summary.${k}.self`)
    near(actual[k].percent, expected[k].percent, `summary.${k}.percent`)
  }
  assert.equal(actual.top.length, Math.min(top, expected.ranked.length), 'top length')
  // Ties in self may be ordered differently at the cut: compare the self
  // values position by position, and each entry with its reference row.
  actual.top.forEach((e, i) => near(e.self, expected.ranked[i].self, `top[${i}].self (rank order)`))
  const byKey = new Map(expected.ranked.map((e) => [ref.entryKey(e), e]))
  for (const e of actual.top) {
    const key = ref.entryKey(e)
    const r = byKey.get(key)
    assert.ok(r, `top entry ${key} exists in the reference flat profile`)
    near(e.self, r.self, `${key} self`)
    near(e.total, r.total, `${key} total`)
    near(e.selfPercent, r.selfPercent, `${key} selfPercent`)
    near(e.totalPercent, r.totalPercent, `${key} totalPercent`)
  }
  assert.equal(new Set(actual.top.map(ref.entryKey)).size, actual.top.length, 'top entries are distinct functions')
}

// Compares cprof.analyze(file, { nodes: true }) with the reference.
function assertAnalyzeMatches (a, profile, opts) {
  const expected = ref.reference(profile, opts)
  assert.equal(a.kind, 'cpu')
  assert.equal(a.samples, expected.samples, 'samples')
  assert.equal(typeof a.durationMs, 'number')
  assert.ok(Math.abs(a.durationMs - expected.durationMs) <= Math.max(1, 0.01 * expected.durationMs),
    `durationMs ${a.durationMs} is endTime - startTime (${expected.durationMs})`)
  assert.ok(Array.isArray(a.nodes), 'nodes is an array')
  assert.equal(a.nodes.length, expected.nodes.length, 'one entry per node')
  const want = new Map(expected.nodes.map((n) => [n.id, n]))
  const seen = new Set()
  for (const n of a.nodes) {
    const w = want.get(n.id)
    assert.ok(w, `node id ${n.id} is a node of the file`)
    assert.ok(!seen.has(n.id), `node id ${n.id} is listed once`)
    seen.add(n.id)
    near(n.self, w.self, `node ${n.id} self`)
    near(n.total, w.total, `node ${n.id} total`)
  }
  assertSummaryMatches(a.summary, expected.summary, opts)
}

// A workload with recursion, a deep-ish stack and several functions.
function fib (n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2)
}
function parseLines (n) {
  let c = 0
  for (let i = 0; i < n; i++) if (/^(\d+)-(\w+)$/.test(`${i}-line${i}`)) c++
  return c
}
function mixedWork (ms) {
  const end = Date.now() + ms
  let s = 0
  const garbage = []
  while (Date.now() < end) {
    s += fib(16)
    s += parseLines(200)
    garbage.push(new Array(100).fill(s))
    if (garbage.length > 50) garbage.length = 0
  }
  return s
}

test('stop() summary and analyze() equal the JS reference on the same file', async () => {
  const dir = makeTmpDir()
  await cprof.start({ dir, interval: 1000 })
  mixedWork(400)
  const result = await cprof.stop()
  const file = result.files.cpuprofile
  const profile = ref.loadProfile(file)
  assertCpuProfileSchema(profile)

  const expected = ref.reference(profile)
  assert.equal(result.samples, expected.samples)
  assertSummaryMatches(result.summary, expected.summary)

  const a = await cprof.analyze(file, { top: 20, nodes: true })
  assertAnalyzeMatches(a, profile)
  // analyze of our own file reports the same summary as stop() did.
  assert.deepEqual(a.summary, result.summary)
})

test('analyze() on a profile written by node --cpu-prof', async () => {
  const dir = makeTmpDir()
  const r = runFixture('cpu-prof-workload.js', [], { execArgv: ['--cpu-prof', '--cpu-prof-interval=500', `--cpu-prof-dir=${dir}`] })
  assert.equal(r.status, 0, r.describe())
  const [name] = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
  const file = path.join(dir, name)
  const profile = ref.loadProfile(file)

  assertAnalyzeMatches(await cprof.analyze(file, { top: 20, nodes: true }), profile)
  // A smaller top.
  const a5 = await cprof.analyze(file, { top: 5, nodes: true })
  assertAnalyzeMatches(a5, profile, { top: 5 })
  // nodes are only listed when asked for.
  const plain = await cprof.analyze(file)
  assert.equal(plain.nodes, undefined)
  assertSummaryMatches(plain.summary, ref.summarize(profile))
})

test('analyze() on a hand-made profile: negative delta, last sample, recursion', async () => {
  const dir = makeTmpDir()
  const file = path.join(dir, 'handmade.cpuprofile')
  const profile = handmadeProfile()
  fs.writeFileSync(file, JSON.stringify(profile))
  const a = await cprof.analyze(file, { top: 20, nodes: true })
  assertAnalyzeMatches(a, profile)
  // The hand-computed numbers, independently of the JS reference.
  const nodes = Object.fromEntries(a.nodes.map((n) => [n.id, [n.self * 1000, n.total * 1000].map(Math.round)]))
  assert.deepEqual(nodes, HANDMADE.nodes)
  assert.deepEqual(a.summary.top.map((e) => [e.functionName, e.self, e.total, e.line, e.column]), HANDMADE.top)
  near(a.summary.total, 0.76, 'total')
  near(a.summary.idle.self, 0.3, 'idle')
  near(a.summary.gc.self, 0.07, 'gc')
})

test('analyze() of a last sample after endTime clamps its weight at 0', async () => {
  const dir = makeTmpDir()
  const file = path.join(dir, 'clamped.cpuprofile')
  const profile = handmadeProfile()
  profile.endTime = profile.startTime + 700 // before the last sample (725)
  fs.writeFileSync(file, JSON.stringify(profile))
  const a = await cprof.analyze(file, { nodes: true })
  assertAnalyzeMatches(a, profile)
  near(a.summary.total, 0.72, 'total without the last sample')
})

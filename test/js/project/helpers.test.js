'use strict'

// The test helpers themselves: the JS reference computation on a hand-made
// profile whose numbers are worked out by hand, and the schema checks on a
// real `node --cpu-prof` file and on broken profiles. Needs no addon.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const ref = require('../helpers/reference.js')
const { assertCpuProfileSchema } = require('../helpers/schema.js')
const { makeTmpDir, removeTmpDirs, runFixture } = require('../helpers/util.js')
const { handmadeProfile, HANDMADE } = require('../helpers/handmade.js')

after(removeTmpDirs)

// No test may hang the suite: each has a time limit (a failure, not a timing check).
const test = (name, fn) => nodeTest(name, { timeout: 40000 }, fn)

test('reference: sample weights follow the timing rule', () => {
  const p = handmadeProfile()
  // timeDeltas [10, 100, 200, -5, 300, 50, 70]; last = endTime - (startTime + 725)
  assert.deepEqual(ref.sampleWeights(p), [100, 200, 0, 300, 50, 70, 40])
  // The last sample's weight is clamped at 0.
  assert.deepEqual(ref.sampleWeights({ ...p, endTime: p.startTime + 700 }), [100, 200, 0, 300, 50, 70, 0])
})

test('reference: per-node self and total', () => {
  const times = ref.nodeTimes(handmadeProfile())
  const got = Object.fromEntries([...times].map(([id, t]) => [id, [t.self, t.total]]))
  assert.deepEqual(got, HANDMADE.nodes)
})

test('reference: flat profile counts a recursive sample once in total', () => {
  const funcs = ref.flatFunctions(handmadeProfile())
  const byName = Object.fromEntries(funcs.map((f) => [f.functionName, [f.self, f.total]]))
  assert.deepEqual(byName, HANDMADE.functions)
})

test('reference: summary (top skips (root) and (idle); percents of the total)', () => {
  const s = ref.summarize(handmadeProfile())
  assert.equal(s.unit, 'ms')
  assert.equal(s.total, HANDMADE.totalUs / 1000)
  assert.deepEqual(
    s.top.map((e) => [e.functionName, e.self, e.total, e.line, e.column]),
    HANDMADE.top
  )
  const a = s.top[0]
  assert.equal(a.selfPercent, (340 * 100) / 760)
  assert.equal(a.totalPercent, (390 * 100) / 760)
  assert.equal(s.gc.self, 0.07)
  assert.equal(s.idle.self, 0.3)
  assert.equal(s.program.self, 0)
  assert.equal(s.program.percent, 0)
})

test('schema: a hand-made profile passes, broken ones fail', () => {
  assertCpuProfileSchema(handmadeProfile())
  const broken = [
    ['dangling child', (p) => { p.nodes[0].children.push(99) }],
    ['duplicate id', (p) => { p.nodes[1].id = 1 }],
    ['two roots', (p) => { p.nodes[0].children = [2] }],
    ['unknown sample', (p) => { p.samples[0] = 42 }],
    ['deltas length', (p) => { p.timeDeltas.pop() }],
    ['start after end', (p) => { p.startTime = p.endTime + 1 }],
    ['non-integer delta', (p) => { p.timeDeltas[1] = 1.5 }],
    ['scriptId type', (p) => { p.nodes[1].callFrame.scriptId = 3 }],
    ['missing callFrame.url', (p) => { delete p.nodes[1].callFrame.url }],
    ['cycle', (p) => { p.nodes.find((n) => n.id === 5).children = [2] }]
  ]
  for (const [what, breakIt] of broken) {
    const p = handmadeProfile()
    breakIt(p)
    assert.throws(() => assertCpuProfileSchema(p), assert.AssertionError, what)
  }
})

test('schema and reference on a real node --cpu-prof file', () => {
  const dir = makeTmpDir()
  const r = runFixture('cpu-prof-workload.js', [], { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`] })
  assert.equal(r.status, 0, r.describe())
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
  assert.equal(files.length, 1)
  const p = ref.loadProfile(path.join(dir, files[0]))
  assertCpuProfileSchema(p)
  const out = ref.reference(p)
  // Node totals add up: the root's total is the sum of all self values.
  const rootId = ref.tree(p).root
  const root = out.nodes.find((n) => n.id === rootId)
  assert.ok(Math.abs(root.total - out.summary.total) < 1e-9)
  assert.ok(out.summary.total > 0)
  // The fixture's recursive fib dominates; its total counts each sample once.
  const fib = out.summary.top.find((e) => e.functionName === 'fib')
  assert.ok(fib, 'fib is in the top table')
  assert.ok(fib.total <= out.summary.total + 1e-9)
  assert.ok(fib.totalPercent <= 100 + 1e-9)
})

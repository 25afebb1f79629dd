'use strict'

const assert = require('node:assert/strict')

// How external viewers read a .cpuprofile's samples, written here from
// their documented rules (not from cprof), so tests can check what a user
// sees in them. Both give per function (functionName, url, line, column)
// self and total µs; total counts a sample once however often its function
// recurses on the stack.
//
// - DevTools (the Performance panel, CPUProfileDataModel): a sample lasts
//   until the next one; the last one lasts the mean gap between samples
//   (DevTools adds one timestamp that far after the last). The stack is the
//   sampled node's path to the root.
// - speedscope (src/import/chrome.ts, importFromChromeCPUProfile): a sample
//   lasts until the next one, the last one 0; a negative gap counts 0.
//   (root) and (idle) open no frame (nothing is charged); (program) and
//   (garbage collector) are placed on top of the stack that was open before
//   them, so the functions below count their time in total.

const keyOf = (cf) => `${cf.functionName}|${cf.url}|${cf.lineNumber}|${cf.columnNumber}`

function timestamps (p) {
  let t = p.startTime
  return p.timeDeltas.map((d) => (t += d))
}

function tree (p) {
  const byId = new Map(p.nodes.map((n) => [n.id, { id: n.id, key: keyOf(n.callFrame), name: n.callFrame.functionName, parent: null }]))
  for (const n of p.nodes) for (const c of n.children || []) byId.get(c).parent = byId.get(n.id)
  return byId
}

function add (map, key, v) {
  map.set(key, (map.get(key) ?? 0) + v)
}

// Charges d µs to a stack (outermost first): self to its top, total once
// to every function on it.
function charge (out, stack, d) {
  if (stack.length === 0 || d === 0) return
  add(out.self, stack.at(-1).key, d)
  for (const key of new Set(stack.map((n) => n.key))) add(out.total, key, d)
}

function pathOf (node) {
  const stack = []
  for (let n = node; n; n = n.parent) stack.unshift(n)
  return stack
}

/** { self: Map<key, µs>, total: Map<key, µs> } as DevTools counts them. */
function devtoolsTimes (p) {
  const out = { self: new Map(), total: new Map() }
  const ts = timestamps(p)
  const byId = tree(p)
  const mean = ts.length > 1 ? (ts.at(-1) - ts[0]) / (ts.length - 1) : 0
  ts.forEach((t, i) => {
    const d = i + 1 < ts.length ? ts[i + 1] - t : mean
    charge(out, pathOf(byId.get(p.samples[i])), Math.max(0, d))
  })
  return out
}

const IGNORED = new Set(['(root)', '(idle)'])
const ON_TOP = new Set(['(program)', '(garbage collector)'])

/** { self, total } as speedscope counts them (see the rules above). */
function speedscopeTimes (p) {
  const out = { self: new Map(), total: new Map() }
  const byId = tree(p)
  let open = []
  p.samples.forEach((id, i) => {
    const d = i + 1 < p.samples.length ? Math.max(0, p.timeDeltas[i + 1]) : 0
    const node = byId.get(id)
    // The deepest frame still open that this sample shares (program and GC
    // share the whole open stack).
    let lca = node
    while (lca && !open.includes(lca)) lca = ON_TOP.has(lca.name) ? open.at(-1) : lca.parent
    open = lca ? open.slice(0, open.indexOf(lca) + 1) : []
    const opened = []
    for (let n = node; n && n !== lca && !IGNORED.has(n.name); n = ON_TOP.has(n.name) ? open.at(-1) : n.parent) {
      opened.unshift(n)
    }
    open = open.concat(opened)
    charge(out, open, d)
  })
  return out
}

/** Sums { self, total } maps over several readings. */
function sumTimes (readings) {
  const out = { self: new Map(), total: new Map() }
  for (const r of readings) {
    for (const [k, v] of r.self) add(out.self, k, v)
    for (const [k, v] of r.total) add(out.total, k, v)
  }
  return out
}

// What a viewer's reading of a merged file may differ by from the sum of
// its readings of the inputs: the last sample of each input (the viewer
// gives it the mean gap, or 0; the merge what its own file gave it, up to
// endTime), so one sampling interval per input, plus the merged file's own
// last sample. Where inputs touch (a recorder's windows), the merged file
// keeps true timestamps, so the previous input's last sample also lasts
// through the next input's lead-in (its start to its first sample), which
// that input alone counts nowhere: the boundary's one interval is the tail
// of one and the lead-in of the next, and a loaded machine stretches both.
function slack (inputs) {
  const one = inputs.map((p) => {
    const ts = timestamps(p)
    if (ts.length === 0) return 0
    const lead = Math.max(0, ts[0] - p.startTime)
    return Math.max(ts.length > 1 ? (ts.at(-1) - ts[0]) / (ts.length - 1) : 0, p.endTime - ts.at(-1)) + lead
  })
  return one.reduce((a, b) => a + b, 0) + Math.max(...one)
}

// speedscope puts a (program) or (garbage collector) sample on top of the
// stack open before it: an input's leading run of such samples, alone, sits
// on no stack; merged, on the previous input's last. Their duration may go
// to those functions' totals (self is not touched). Under load that run can
// be several samples long, so all of it is counted, not only the first.
function firstOnTop (inputs) {
  const name = (p, i) => p.nodes.find((n) => n.id === p.samples[i]).callFrame.functionName
  return inputs.slice(1).reduce((s, p) => {
    let run = 0
    for (let i = 0; i < p.samples.length && ON_TOP.has(name(p, i)); i++) run += Math.max(0, p.timeDeltas[i + 1] ?? 0)
    return s + run
  }, 0)
}

// Each function's self and total in the merged file, read by `read`, against
// the sum of the inputs' own readings.
function assertViewerSums (label, merged, inputs, read, tol, totalTol = tol) {
  const got = read(merged)
  const want = sumTimes(inputs.map(read))
  for (const what of ['self', 'total']) {
    const t = what === 'self' ? tol : totalTol
    for (const key of new Set([...got[what].keys(), ...want[what].keys()])) {
      if (key.startsWith('(root)|') || key.startsWith('(idle)|')) continue
      const g = got[what].get(key) ?? 0
      const w = want[what].get(key) ?? 0
      assert.ok(Math.abs(g - w) <= t,
        `${label}: ${key.split('|')[0] || '(anonymous)'} ${what} ${(g / 1000).toFixed(3)} ms in the merged file, ` +
        `${(w / 1000).toFixed(3)} ms summed over the inputs (allowed ±${(t / 1000).toFixed(3)} ms)`)
    }
  }
}

module.exports = { keyOf, timestamps, devtoolsTimes, speedscopeTimes, sumTimes, slack, firstOnTop, assertViewerSums }

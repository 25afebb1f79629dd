'use strict'

// An independent JavaScript computation of what cprof's native core reports
// for a .cpuprofile: per-node self/total, the flat profile by function, and
// the summary. Deliberately simple and literal, so the tests can check the
// native numbers against it.
//
// Timing rule: sample i weighs timeDeltas[i + 1] µs for i < n - 1; the last
// sample weighs endTime - (startTime + sum of all timeDeltas), clamped at 0;
// negative weights count 0. Node self = sum of the weights of the samples
// naming it; node total = self + the totals of its children. A function is
// (functionName, url, lineNumber, columnNumber); its self is the sum of its
// nodes' self, its total the sum of the totals of its nodes that have no
// ancestor of the same function (a recursive sample counts once).

const fs = require('node:fs')

function loadProfile (file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'))
}

function sampleWeights (profile) {
  const { samples, timeDeltas, startTime, endTime } = profile
  const n = samples.length
  const w = new Array(n)
  let sum = 0
  for (const d of timeDeltas) sum += d
  for (let i = 0; i < n; i++) {
    const v = i < n - 1 ? timeDeltas[i + 1] : endTime - (startTime + sum)
    w[i] = v > 0 ? v : 0
  }
  return w
}

// Returns the tree as { byId: Map(id -> node), parent: Map(id -> parent id),
// root: id, order: ids in DFS preorder (parents before children) }.
function tree (profile) {
  const byId = new Map()
  for (const node of profile.nodes) byId.set(node.id, node)
  const parent = new Map()
  for (const node of profile.nodes) {
    for (const c of node.children || []) parent.set(c, node.id)
  }
  const roots = profile.nodes.filter((n) => !parent.has(n.id))
  if (roots.length !== 1) throw new Error(`expected exactly one root, found ${roots.length}`)
  const root = roots[0].id
  const order = []
  const stack = [root]
  while (stack.length > 0) {
    const id = stack.pop()
    order.push(id)
    const children = byId.get(id).children || []
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i])
  }
  return { byId, parent, root, order }
}

// Map id -> { self, total } in µs.
function nodeTimes (profile) {
  const t = tree(profile)
  const times = new Map()
  for (const node of profile.nodes) times.set(node.id, { self: 0, total: 0 })
  const w = sampleWeights(profile)
  profile.samples.forEach((id, i) => {
    times.get(id).self += w[i]
  })
  for (let i = t.order.length - 1; i >= 0; i--) {
    const id = t.order[i]
    const rec = times.get(id)
    rec.total += rec.self
    if (t.parent.has(id)) times.get(t.parent.get(id)).total += rec.total
  }
  return times
}

function functionKey (callFrame) {
  return JSON.stringify([callFrame.functionName, callFrame.url, callFrame.lineNumber, callFrame.columnNumber])
}

// The flat profile of a tree walked depth-first from root (without
// recursion): kids(node) → its children, frame(node) → its callFrame,
// value(node) → its { self, total }. Per function: self = the sum of its
// nodes' self, total = the sum of the totals of its nodes that have no
// ancestor of the same function. The CPU and heap references share it.
function flatByFunction (root, kids, frame, value) {
  const funcs = new Map()
  const onPath = new Map() // function key -> how many nodes of it are on the current path
  const stack = [[root, false]]
  while (stack.length > 0) {
    const [node, leaving] = stack.pop()
    const cf = frame(node)
    const k = functionKey(cf)
    if (leaving) {
      onPath.set(k, onPath.get(k) - 1)
      continue
    }
    let f = funcs.get(k)
    if (f === undefined) {
      f = {
        functionName: cf.functionName,
        url: cf.url,
        lineNumber: cf.lineNumber,
        columnNumber: cf.columnNumber,
        self: 0,
        total: 0
      }
      funcs.set(k, f)
    }
    const rec = value(node)
    f.self += rec.self
    const depth = onPath.get(k) || 0
    if (depth === 0) f.total += rec.total
    onPath.set(k, depth + 1)
    stack.push([node, true])
    const children = kids(node)
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i], false])
  }
  return [...funcs.values()]
}

// Array of { functionName, url, lineNumber, columnNumber, self, total } in µs.
function flatFunctions (profile, times = nodeTimes(profile)) {
  const t = tree(profile)
  return flatByFunction(
    t.root,
    (id) => t.byId.get(id).children || [],
    (id) => t.byId.get(id).callFrame,
    (id) => times.get(id)
  )
}

const SKIP_IN_TOP = new Set(['(root)', '(idle)'])

function isPseudo (f, name) {
  return f.functionName === name && f.url === ''
}

// Sorting used for the top table: self desc, then total desc, then name.
function compareTop (a, b) {
  if (b.self !== a.self) return b.self - a.self
  if (b.total !== a.total) return b.total - a.total
  return a.functionName < b.functionName ? -1 : a.functionName > b.functionName ? 1 : 0
}

// The summary in the public API's shape (ms, percents of the total).
function summarize (profile, { top = 20 } = {}) {
  const times = nodeTimes(profile)
  const funcs = flatFunctions(profile, times)
  let totalUs = 0
  for (const rec of times.values()) totalUs += rec.self
  const pct = (us) => (totalUs > 0 ? (us * 100) / totalUs : 0)
  const special = (name) => {
    let us = 0
    for (const f of funcs) if (isPseudo(f, name)) us += f.self
    return { self: us / 1000, percent: pct(us), selfUs: us }
  }
  const ranked = funcs
    .filter((f) => !(f.url === '' && SKIP_IN_TOP.has(f.functionName)))
    .sort(compareTop)
  return {
    unit: 'ms',
    total: totalUs / 1000,
    totalUs,
    // All ranked functions; `top` is the first `top` of them.
    ranked: ranked.map((f) => toEntry(f, pct)),
    top: ranked.slice(0, top).map((f) => toEntry(f, pct)),
    gc: special('(garbage collector)'),
    idle: special('(idle)'),
    program: special('(program)')
  }
}

function toEntry (f, pct) {
  return {
    functionName: f.functionName,
    url: f.url,
    line: f.lineNumber + 1, // -1 (unknown) becomes 0
    column: f.columnNumber + 1,
    self: f.self / 1000,
    selfPercent: pct(f.self),
    total: f.total / 1000,
    totalPercent: pct(f.total),
    selfUs: f.self,
    totalUs: f.total
  }
}

// Everything cprof.analyze(file, { nodes: true }) reports, computed in JS.
function reference (profile, opts) {
  const times = nodeTimes(profile)
  return {
    kind: 'cpu',
    samples: profile.samples.length,
    durationMs: (profile.endTime - profile.startTime) / 1000,
    summary: summarize(profile, opts),
    nodes: [...times].map(([id, t]) => ({ id, self: t.self / 1000, total: t.total / 1000 }))
  }
}

// A key that identifies a top entry the same way the flat profile does.
function entryKey (e) {
  return JSON.stringify([e.functionName, e.url, e.line, e.column])
}

module.exports = {
  loadProfile,
  functionKey,
  flatByFunction,
  sampleWeights,
  tree,
  nodeTimes,
  flatFunctions,
  summarize,
  reference,
  entryKey,
  compareTop
}

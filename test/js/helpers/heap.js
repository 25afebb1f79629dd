'use strict'

// .heapprofile (V8's SamplingHeapProfile) helpers for the tests: a schema
// check, and an independent JavaScript computation of what cprof's native
// core reports for one, kept deliberately literal.
//
// Numbers rule: node self = the node's selfSize; node total = self + the
// totals of its children. A function is (functionName, url, lineNumber,
// columnNumber); its self is the sum of its nodes' self, its total the sum of
// the totals of its nodes that have no ancestor of the same function. The
// summary total is the sum of every selfSize; the top table ranks functions
// by self, then total, then name, url, line, column (byte order, as C's
// strcmp), leaving out (root) (and (idle), as for CPU). Samples play no part
// in the numbers (V8 already folded them into selfSize).

const assert = require('node:assert/strict')

const { loadProfile: loadHeapProfile, flatByFunction } = require('./reference.js')
const { assertCallFrame, assertInt } = require('./schema.js')

// Nodes in preorder (parents first), without recursion: [{ node, parent, depth }]
// where depth counts frames below (root) (the head has depth 0).
function walk (profile) {
  const out = []
  const stack = [{ node: profile.head, parent: null, depth: 0 }]
  while (stack.length > 0) {
    const item = stack.pop()
    out.push(item)
    const children = item.node.children || []
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ node: children[i], parent: item.node, depth: item.depth + 1 })
    }
  }
  return out
}

function maxDepth (profile) {
  let d = 0
  for (const item of walk(profile)) if (item.depth > d) d = item.depth
  return d
}

/**
 * Asserts that `profile` is a SamplingHeapProfile as Chrome DevTools reads it.
 * With { missingNodes: n }, exactly n samples name a node the tree lacks:
 * V8's replies can hold such samples, cprof's own exports never do (it
 * leaves them out and counts them as droppedSamples).
 */
function assertHeapProfileSchema (profile, { missingNodes } = {}) {
  assert.equal(typeof profile, 'object', 'profile must be an object')
  assert.ok(profile !== null, 'profile must not be null')
  assert.equal(typeof profile.head, 'object', 'profile.head must be an object')
  assert.ok(profile.head !== null, 'profile.head must not be null')
  assert.ok(Array.isArray(profile.samples), 'profile.samples must be an array')
  assert.equal(profile.head.callFrame && profile.head.callFrame.functionName, '(root)',
    'the head must be the (root) frame')

  const ids = new Set()
  for (const { node, depth } of walk(profile)) {
    const where = `node ${node && node.id} (depth ${depth})`
    assert.equal(typeof node, 'object', `${where} must be an object`)
    assert.ok(node !== null, `${where} must not be null`)
    assertInt(node.id, `${where}.id`, 0)
    assert.ok(!ids.has(node.id), `${where}: id ${node.id} is not unique`)
    ids.add(node.id)
    assertCallFrame(node.callFrame, where)
    assertInt(node.selfSize, `${where}.selfSize`, 0)
    assert.ok(Array.isArray(node.children), `${where}.children must be an array`)
  }

  profile.samples.forEach((s, i) => {
    assert.equal(typeof s, 'object', `samples[${i}] must be an object`)
    assert.ok(s !== null, `samples[${i}] must not be null`)
    assertInt(s.size, `samples[${i}].size`, 0)
    assertInt(s.nodeId, `samples[${i}].nodeId`, 0)
    assertInt(s.ordinal, `samples[${i}].ordinal`, 0)
  })
  if (missingNodes !== undefined) {
    const missing = profile.samples.filter((s) => !ids.has(s.nodeId)).map((s) => s.nodeId)
    assert.equal(missing.length, missingNodes, `samples naming nodes not in the tree: ${missing.slice(0, 10)}`)
  }
  return ids
}

// Map id -> { self, total } in bytes.
function heapNodeSizes (profile) {
  const items = walk(profile)
  const sizes = new Map()
  for (const { node } of items) {
    assert.ok(!sizes.has(node.id), `duplicate node id ${node.id}`)
    sizes.set(node.id, { self: node.selfSize, total: node.selfSize })
  }
  for (let i = items.length - 1; i >= 0; i--) {
    const { node, parent } = items[i]
    if (parent) sizes.get(parent.id).total += sizes.get(node.id).total
  }
  return sizes
}

// [{ functionName, url, lineNumber, columnNumber, self, total }] in bytes.
function heapFlatFunctions (profile, sizes = heapNodeSizes(profile)) {
  return flatByFunction(
    profile.head,
    (node) => node.children || [],
    (node) => node.callFrame,
    (node) => sizes.get(node.id)
  )
}

// C's strcmp on the UTF-8 bytes.
function byteCompare (a, b) {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

function compareRank (a, b) {
  if (b.self !== a.self) return b.self - a.self
  if (b.total !== a.total) return b.total - a.total
  return byteCompare(a.functionName, b.functionName) ||
    byteCompare(a.url, b.url) ||
    a.lineNumber - b.lineNumber ||
    a.columnNumber - b.columnNumber
}

const SKIP_IN_TOP = new Set(['(root)', '(idle)'])

// The summary as cprof reports it: { unit, total, top } (top = the first
// `top` ranked functions) plus `ranked`, all of them.
function heapSummary (profile, { top = 20 } = {}) {
  const sizes = heapNodeSizes(profile)
  let total = 0
  for (const rec of sizes.values()) total += rec.self
  const pct = (v) => (total > 0 ? (100 * v) / total : 0)
  const ranked = heapFlatFunctions(profile, sizes)
    .filter((f) => !(f.url === '' && SKIP_IN_TOP.has(f.functionName)))
    .sort(compareRank)
    .map((f) => ({
      functionName: f.functionName,
      url: f.url,
      line: f.lineNumber + 1, // -1 (unknown) becomes 0
      column: f.columnNumber + 1,
      self: f.self,
      selfPercent: pct(f.self),
      total: f.total,
      totalPercent: pct(f.total)
    }))
  return { unit: 'bytes', total, top: ranked.slice(0, top), ranked }
}

module.exports = {
  loadHeapProfile,
  walk,
  maxDepth,
  assertHeapProfileSchema,
  heapNodeSizes,
  heapFlatFunctions,
  heapSummary
}

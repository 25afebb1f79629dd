'use strict'

// Assertions that an object is a V8 Profiler.Profile (.cpuprofile) as Chrome
// DevTools, VS Code and speedscope read it.

const assert = require('node:assert/strict')

function isInt (v) {
  return typeof v === 'number' && Number.isInteger(v)
}

function assertInt (v, what, min = -Infinity) {
  assert.ok(isInt(v), `${what} must be an integer, got ${JSON.stringify(v)}`)
  assert.ok(v >= min, `${what} must be >= ${min}, got ${v}`)
}

function assertCallFrame (cf, where) {
  assert.equal(typeof cf, 'object', `${where}.callFrame must be an object`)
  assert.ok(cf !== null, `${where}.callFrame must not be null`)
  assert.equal(typeof cf.functionName, 'string', `${where}.callFrame.functionName must be a string`)
  assert.equal(typeof cf.scriptId, 'string', `${where}.callFrame.scriptId must be a string`)
  assert.equal(typeof cf.url, 'string', `${where}.callFrame.url must be a string`)
  assertInt(cf.lineNumber, `${where}.callFrame.lineNumber`, -1)
  assertInt(cf.columnNumber, `${where}.callFrame.columnNumber`, -1)
}

function assertCpuProfileSchema (profile) {
  assert.equal(typeof profile, 'object', 'profile must be an object')
  assert.ok(profile !== null, 'profile must not be null')
  assert.ok(Array.isArray(profile.nodes), 'profile.nodes must be an array')
  assert.ok(profile.nodes.length > 0, 'profile.nodes must not be empty')
  assert.ok(Array.isArray(profile.samples), 'profile.samples must be an array')
  assert.ok(Array.isArray(profile.timeDeltas), 'profile.timeDeltas must be an array')
  assertInt(profile.startTime, 'profile.startTime')
  assertInt(profile.endTime, 'profile.endTime')
  assert.ok(profile.startTime <= profile.endTime,
    `startTime (${profile.startTime}) must be <= endTime (${profile.endTime})`)

  const ids = new Set()
  profile.nodes.forEach((node, i) => {
    const where = `nodes[${i}]`
    assert.equal(typeof node, 'object', `${where} must be an object`)
    assertInt(node.id, `${where}.id`, 0)
    assert.ok(!ids.has(node.id), `${where}.id ${node.id} is not unique`)
    ids.add(node.id)
    assertCallFrame(node.callFrame, where)
    if (node.hitCount !== undefined) assertInt(node.hitCount, `${where}.hitCount`, 0)
    if (node.children !== undefined) {
      assert.ok(Array.isArray(node.children), `${where}.children must be an array`)
      node.children.forEach((c, j) => assertInt(c, `${where}.children[${j}]`))
    }
    if (node.positionTicks !== undefined) {
      assert.ok(Array.isArray(node.positionTicks), `${where}.positionTicks must be an array`)
      node.positionTicks.forEach((t, j) => {
        assertInt(t.line, `${where}.positionTicks[${j}].line`, 1)
        assertInt(t.ticks, `${where}.positionTicks[${j}].ticks`, 0)
      })
    }
  })

  // Children exist, and each node has at most one parent.
  const parent = new Map()
  for (const node of profile.nodes) {
    for (const c of node.children || []) {
      assert.ok(ids.has(c), `node ${node.id} names child ${c}, which does not exist`)
      assert.ok(!parent.has(c), `node ${c} is a child of both ${parent.get(c)} and ${node.id}`)
      parent.set(c, node.id)
    }
  }
  const roots = profile.nodes.filter((n) => !parent.has(n.id))
  assert.equal(roots.length, 1, `expected exactly one root, found ${roots.length}`)
  assert.equal(roots[0].callFrame.functionName, '(root)', 'the root must be the (root) frame')

  // Every node is reachable from the root (no cycles, no detached parts).
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const seen = new Set()
  const stack = [roots[0].id]
  while (stack.length > 0) {
    const id = stack.pop()
    assert.ok(!seen.has(id), `node ${id} is reached twice (cycle)`)
    seen.add(id)
    for (const c of byId.get(id).children || []) stack.push(c)
  }
  assert.equal(seen.size, profile.nodes.length, 'every node must be reachable from the root')

  assert.equal(profile.timeDeltas.length, profile.samples.length,
    'timeDeltas.length must equal samples.length')
  profile.samples.forEach((s, i) => {
    assertInt(s, `samples[${i}]`)
    assert.ok(ids.has(s), `samples[${i}] names node ${s}, which does not exist`)
  })
  profile.timeDeltas.forEach((d, i) => assertInt(d, `timeDeltas[${i}]`))
}

module.exports = { assertCpuProfileSchema, assertCallFrame, assertInt, isInt }

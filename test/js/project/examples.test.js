'use strict'

// The example app and the demo: the server's routes, the table formatter,
// and `npm run demo` end to end (shortened), which must find hashPayload as
// the hottest function.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')

const { removeTmpDirs, ROOT } = require('../helpers/util.js')
const { EXAMPLES, withServer, skipWithoutAutocannon, runDemo } = require('../helpers/examples.js')
const { hashPayload, parseLog, renderJson, LOG_LINES } = require('../../../examples/server.js')
const { formatTop } = require('../../../examples/table.js')

after(removeTmpDirs)

// No test may hang the suite: each has a time limit (a failure, not a timing check).
const test = (name, fn) => nodeTest(name, { timeout: 40000 }, fn)

test('example server: every route answers', () => withServer(async (base) => {
  const get = async (p) => {
    const res = await fetch(base + p)
    return { status: res.status, body: await res.text() }
  }
  assert.deepEqual(await get('/'), { status: 200, body: 'ok\n' })
  const hash = await get('/hash')
  assert.equal(hash.status, 200)
  assert.match(hash.body, /^[0-9a-f]{8}\n$/)
  const log = JSON.parse((await get('/regex')).body)
  assert.equal(log.parsed, LOG_LINES.length)
  const json = JSON.parse((await get('/json')).body)
  assert.equal(json.items.length, 200)
  assert.equal((await get('/nope')).status, 404)
}))

test('example server: the work functions are deterministic', () => {
  const buf = Buffer.from('hello world')
  assert.equal(hashPayload(buf, 1), hashPayload(buf, 1))
  assert.notEqual(hashPayload(buf, 1), hashPayload(buf, 2))
  assert.equal(parseLog(['garbage']).parsed, 0)
  assert.equal(JSON.parse(renderJson(3)).items.length, 3)
})

test('formatTop: columns, relative paths, shares', () => {
  const summary = {
    unit: 'ms',
    total: 1000,
    top: [
      { functionName: 'hashPayload', url: `file://${path.join(EXAMPLES, 'server.js')}`, line: 24, column: 22, self: 612.5, selfPercent: 61.25, total: 612.5, totalPercent: 61.25 },
      { functionName: '', url: path.join(EXAMPLES, 'server.js'), line: 0, column: 0, self: 10, selfPercent: 1, total: 700, totalPercent: 70 },
      { functionName: 'writev', url: '', line: 0, column: 0, self: 5, selfPercent: 0.5, total: 5, totalPercent: 0.5 },
      { functionName: 'parserOnHeadersComplete', url: 'node:_http_common', line: 82, column: 34, self: 2, selfPercent: 0.2, total: 3, totalPercent: 0.3 },
      { functionName: `RegExp: ${'x'.repeat(200)}`, url: '', line: 0, column: 0, self: 1, selfPercent: 0.1, total: 1, totalPercent: 0.1 }
    ],
    gc: { self: 20, percent: 2 },
    idle: { self: 300, percent: 30 },
    program: { self: 15, percent: 1.5 }
  }
  const text = formatTop(summary, { cwd: ROOT })
  const lines = text.split('\n')
  assert.match(lines[0], /^#\s+self ms\s+self %\s+total ms\s+total %\s+function\s+file:line$/)
  assert.match(lines[1], /^1\s+612\.5\s+61\.3%\s+612\.5\s+61\.3%\s+hashPayload\s+examples\/server\.js:24$/)
  assert.match(lines[2], /^2\s+10\.0\s+1\.0%\s+700\.0\s+70\.0%\s+\(anonymous\)\s+examples\/server\.js$/)
  assert.match(lines[3], /^3 .*writev$/)
  assert.match(lines[4], /parserOnHeadersComplete\s+node:_http_common:82$/)
  assert.match(lines[5], /RegExp: x+…$/, 'long names are cut')
  assert.ok(lines[5].length < 120, 'long names are cut')
  assert.match(text, /total 1000\.0 ms, program 15\.0 ms \(1\.5%\), garbage collector 20\.0 ms \(2\.0%\), idle 300\.0 ms \(30\.0%\)/)
  // Columns line up: every data row has the function column at the same offset.
  const col = lines[0].indexOf('function')
  for (const l of lines.slice(1, 5)) assert.ok(/\S/.test(l[col]) && l[col - 1] === ' ', `aligned: ${l}`)
})

test('demo: profiles the server under load and finds hashPayload on top', (t) => {
  if (skipWithoutAutocannon(t)) return
  const { top, describe } = runDemo('demo.js', { headerRe: /^\s*#\s+self ms/, ext: 'cpuprofile' })
  // The costliest route's work tops the table: hashPayload itself, or its
  // caller handleRequest when V8 charges an already-optimised callee to the
  // caller, as it may when profiling starts mid-run (docs/api.md, "What you see
  // in profiles"; DESIGN: tests must not depend on it either way).
  assert.match(top, /^\s*1\s.*\b(hashPayload|handleRequest)\s+examples\/server\.js:\d+$/, describe)
})

'use strict'

// The heap example: examples/leak.js and the server's /leak route, the byte
// formatting of examples/table.js, and `npm run demo:heap` end to end
// (shortened), which must find retainSessions on top of the leak view.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')

const { removeTmpDirs, ROOT } = require('../helpers/util.js')
const { EXAMPLES, withServer, skipWithoutAutocannon, runDemo } = require('../helpers/examples.js')
const { retainSessions, churnBuffers, sessionCount, SESSIONS_PER_REQUEST } = require('../../../examples/leak.js')
const { formatTop, formatBytes } = require('../../../examples/table.js')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 40000 }, fn)

test('leak.js: retainSessions keeps what it makes, churnBuffers does not', () => {
  const before = sessionCount()
  assert.equal(retainSessions(5), before + 5)
  assert.equal(sessionCount(), before + 5)
  assert.equal(typeof churnBuffers(50), 'number')
  assert.equal(sessionCount(), before + 5, 'churnBuffers leaves nothing behind')
})

test('example server: /leak answers and leaks', () => withServer(async (base) => {
  const res = await fetch(base + '/leak')
  assert.equal(res.status, 200)
  const first = await res.json()
  const second = await (await fetch(base + '/leak')).json()
  assert.equal(second.sessions - first.sessions, SESSIONS_PER_REQUEST)
  assert.equal(typeof second.checksum, 'number')
}))

test('formatTop: heap summaries in bytes', () => {
  assert.equal(formatBytes(0), '0 B')
  assert.equal(formatBytes(1023), '1023 B')
  assert.equal(formatBytes(1536), '1.5 KiB')
  assert.equal(formatBytes(5 * 1024 * 1024), '5.0 MiB')
  assert.equal(formatBytes(3 * 1024 ** 3), '3.0 GiB')
  const summary = {
    unit: 'bytes',
    total: 10 * 1024 * 1024,
    top: [
      { functionName: 'retainSessions', url: path.join(EXAMPLES, 'leak.js'), line: 29, column: 25, self: 9.5 * 1024 * 1024, selfPercent: 95, total: 9.5 * 1024 * 1024, totalPercent: 95 },
      { functionName: 'set', url: '', line: 0, column: 0, self: 512 * 1024, selfPercent: 5, total: 512 * 1024, totalPercent: 5 }
    ]
  }
  const lines = formatTop(summary, { cwd: ROOT }).split('\n')
  assert.match(lines[0], /^#\s+self\s+self %\s+total\s+total %\s+function\s+file:line$/)
  assert.match(lines[1], /^1\s+9\.5 MiB\s+95\.0%\s+9\.5 MiB\s+95\.0%\s+retainSessions\s+examples\/leak\.js:29$/)
  assert.match(lines[2], /^2\s+512\.0 KiB\s+5\.0%\s+512\.0 KiB\s+5\.0%\s+set$/)
  assert.equal(lines[lines.length - 1], 'total 10.0 MiB')
})

test('demo:heap: heap-profiles the server under load and finds retainSessions on top', (t) => {
  if (skipWithoutAutocannon(t)) return
  const { stdout, top, describe } = runDemo('demo-heap.js', { headerRe: /^\s*#\s+self\s+self %\s+total/, ext: 'heapprofile' })
  // The leak on top: retainSessions itself, or the caller V8 charges it to
  // once it has inlined it (handleLeak, or handleRequest with both inlined),
  // as the CPU demo's test allows for hashPayload (docs/api.md).
  assert.match(top, /^\s*1\s.*\b(retainSessions\s+examples\/leak\.js|handleLeak\s+examples\/leak\.js|handleRequest\s+examples\/server\.js):\d+$/, describe)
  assert.match(stdout, /(KiB|MiB)/)
})

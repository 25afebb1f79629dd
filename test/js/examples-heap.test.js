'use strict'

// The heap example: examples/leak.js and the server's /leak route, the byte
// formatting of examples/table.js, and `npm run demo:heap` end to end
// (shortened), which must find retainSessions on top of the leak view.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')
const { spawnSync } = require('node:child_process')

const { makeTmpDir, removeTmpDirs, ROOT } = require('./helpers/util.js')
const { createServer } = require('../../examples/server.js')
const { retainSessions, churnBuffers, sessionCount, SESSIONS_PER_REQUEST } = require('../../examples/leak.js')
const { formatTop, formatBytes } = require('../../examples/table.js')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 40000 }, fn)

const EXAMPLES = path.join(ROOT, 'examples')

test('leak.js: retainSessions keeps what it makes, churnBuffers does not', () => {
  const before = sessionCount()
  assert.equal(retainSessions(5), before + 5)
  assert.equal(sessionCount(), before + 5)
  assert.equal(typeof churnBuffers(50), 'number')
  assert.equal(sessionCount(), before + 5, 'churnBuffers leaves nothing behind')
})

test('example server: /leak answers and leaks', async () => {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const base = `http://127.0.0.1:${server.address().port}`
  try {
    const res = await fetch(base + '/leak')
    assert.equal(res.status, 200)
    const first = await res.json()
    const second = await (await fetch(base + '/leak')).json()
    assert.equal(second.sessions - first.sessions, SESSIONS_PER_REQUEST)
    assert.equal(typeof second.checksum, 'number')
  } finally {
    server.close()
    server.closeAllConnections()
  }
})

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

function autocannonAvailable () {
  try {
    require.resolve('autocannon', { paths: [EXAMPLES] })
    return true
  } catch {
    return false
  }
}

test('demo:heap: heap-profiles the server under load and finds retainSessions on top', (t) => {
  if (!autocannonAvailable()) {
    t.skip('autocannon is not installed (npm install)')
    return
  }
  const dir = makeTmpDir()
  const r = spawnSync(process.execPath, [path.join(EXAMPLES, 'demo-heap.js')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30000,
    env: {
      ...process.env,
      CPROF_DIR: dir,
      CPROF_DEMO_LOAD_MS: '3000',
      CPROF_DEMO_PROFILE_MS: '1500',
      CPROF_DEMO_DELAY_MS: '500'
    }
  })
  const describe = `status=${r.status} signal=${r.signal}\n${r.stdout}\n${r.stderr}`
  assert.equal(r.status, 0, describe)
  assert.match(r.stdout, /load: \d+ requests .* requests\/s/)
  const lines = r.stdout.split('\n')
  const header = lines.findIndex((l) => /^\s*#\s+self\s+self %\s+total/.test(l))
  assert.ok(header >= 0, describe)
  assert.match(lines[header + 1], /^\s*1\s.*\bretainSessions\s+examples\/leak\.js:\d+$/, describe)
  assert.match(r.stdout, /(KiB|MiB)/)
  const m = /profile written to (\S+\.heapprofile)/.exec(r.stdout)
  assert.ok(m, describe)
  assert.equal(path.dirname(m[1]), dir)
  assert.ok(fs.existsSync(m[1]))
})

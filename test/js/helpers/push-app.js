'use strict'
// What the push tests (push/push.test.js, push/push-outage.test.js) share:
// receivers on 127.0.0.1 that read the ingest API as grafana/pyroscope does
// (pyroscope-receiver.js), push/fixtures/push-app.js run under the preload,
// and the checks every run and every series of windows gets.

const assert = require('node:assert/strict')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { startReceiver } = require('./pyroscope-receiver.js')
const { childEnv, UNDER_ASAN } = require('./util.js')

const ROOT = path.join(__dirname, '..', '..', '..')
const APP = path.join(ROOT, 'test', 'js', 'push', 'fixtures', 'push-app.js')

// Receivers started here; the test file closes them in its after().
const receivers = []
async function receiver (opts) {
  const r = await startReceiver(opts)
  receivers.push(r)
  return r
}
const closeReceivers = () => Promise.all(receivers.map((r) => r.close().catch(() => {})))

// Runs the app under the preload; resolves { status, signal, out, stderr, ms }.
function runApp (env, { timeout = 120_000 } = {}) {
  const t0 = Date.now()
  const child = spawn(process.execPath, ['-r', path.join(ROOT, 'register.js'), APP], {
    env: childEnv({ CPROF_RECORDER_WINDOW: '1000', CPROF_PUSH_APP: 'push-test', ...env }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const killer = setTimeout(() => child.kill('SIGKILL'), timeout)
  return new Promise((resolve) => child.on('close', (status, signal) => {
    clearTimeout(killer)
    const line = stdout.split('\n').find((l) => l.startsWith('{'))
    resolve({ status, signal, out: line ? JSON.parse(line) : null, stdout, stderr, ms: Date.now() - t0, pid: child.pid })
  }))
}

function assertClean (r, what) {
  const why = `${what}: status=${r.status} signal=${r.signal}\n${r.stdout}\n${r.stderr}`
  assert.equal(r.signal, null, why)
  assert.equal(r.status, 0, why)
  assert.ok(r.out && !r.out.error, why)
  // Under ASan freed memory waits in its quarantine (up to 256 MB) and counts in RSS.
  if (!UNDER_ASAN) assert.ok(r.out.peakRss < 300 * 1024 * 1024, `${what}: peak RSS ${r.out.peakRss}`)
  assert.doesNotMatch(r.stderr, /secret/, `${what}: a secret reached stderr`)
}

const typeNames = (p) => p.profile.sampleType.map((t) => `${p.profile.stringTable.strings[Number(t.type)]}/${p.profile.stringTable.strings[Number(t.unit)]}`).join(',')
const isCpu = (p) => typeNames(p) === 'samples/count,cpu/nanoseconds'

// Consecutive CPU windows: ranges touch (until of one is from of the next,
// in seconds), profile times strictly increase (nothing pushed twice).
function assertContiguous (cpu, what) {
  for (let i = 1; i < cpu.length; i++) {
    assert.equal(cpu[i].from, cpu[i - 1].until, `${what}: window ${i} does not start where ${i - 1} ended`)
    assert.ok(BigInt(cpu[i].profile.timeNanos) > BigInt(cpu[i - 1].profile.timeNanos), `${what}: window ${i} pushed twice or out of order`)
  }
}

module.exports = { receiver, closeReceivers, runApp, assertClean, typeNames, isCpu, assertContiguous }

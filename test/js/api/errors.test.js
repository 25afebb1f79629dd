'use strict'

// Every error a user can get, with its stable code and a message, and that
// the profiler is usable again afterwards.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const cprof = require('../../..')
const {
  makeTmpDir,
  removeTmpDirs,
  burnCpu,
  assertCprofError,
  assertCprofErrorInfo
} = require('../helpers/util.js')
const { runFixture } = require('../helpers/util.js').fixturesIn(__dirname)

after(removeTmpDirs)

// No test may hang the suite: each has a time limit (a failure, not a timing check).
const test = (name, fn) => nodeTest(name, { timeout: 40000 }, fn)

// Calls fn, which must reject (or throw) with `code`; returns the error.
async function rejectsWith (fn, code) {
  let err
  try {
    const r = await fn()
    err = new assert.AssertionError({ message: `expected ${code}, but it resolved with ${JSON.stringify(r)}` })
  } catch (e) {
    err = e
  }
  if (err instanceof assert.AssertionError) throw err
  assertCprofError(err, code)
  return err
}

// Makes sure nothing is left running if an assertion above failed midway.
async function ensureStopped () {
  try {
    await cprof.stop()
  } catch {}
}

test('stop() without start() rejects with ERR_CPROF_NOT_STARTED', async () => {
  await rejectsWith(() => cprof.stop(), 'ERR_CPROF_NOT_STARTED')
})

test('start() while running rejects with ERR_CPROF_BUSY; the first profile still stops fine', async () => {
  const dir = makeTmpDir()
  await cprof.start({ dir })
  try {
    await rejectsWith(() => cprof.start({ dir }), 'ERR_CPROF_BUSY')
    await rejectsWith(() => cprof.profile({ duration: 100, dir }), 'ERR_CPROF_BUSY')
    burnCpu(100)
  } catch (err) {
    await ensureStopped()
    throw err
  }
  const result = await cprof.stop()
  assert.ok(fs.existsSync(result.files.cpuprofile))
  assert.ok(result.samples > 0)
  // Stopped means stopped: a second stop() rejects.
  await rejectsWith(() => cprof.stop(), 'ERR_CPROF_NOT_STARTED')
})

const INVALID = [
  ['timeout: -1', { timeout: -1 }],
  ['timeout: NaN', { timeout: NaN }],
  ['timeout: Infinity', { timeout: Infinity }],
  ["timeout: '10'", { timeout: '10' }],
  ['interval: 0', { interval: 0 }],
  ['interval: 99', { interval: 99 }],
  ['interval: 1_000_001', { interval: 1_000_001 }],
  ['interval: 1.5', { interval: 1.5 }],
  ["interval: 'x'", { interval: 'x' }],
  ['unknown option foo', { foo: 1 }],
  ['dir: 42', { dir: 42 }],
  ["name: 'a/b'", { name: 'a/b' }],
  ["name: ''", { name: '' }]
]

for (const [what, opts] of INVALID) {
  test(`start({ ${what} }) rejects with ERR_CPROF_INVALID_ARG and starts nothing`, async () => {
    try {
      await rejectsWith(() => cprof.start(opts), 'ERR_CPROF_INVALID_ARG')
    } finally {
      await ensureStopped()
    }
  })
}

test('start(timeoutMs) with a bad number, or a string, rejects with ERR_CPROF_INVALID_ARG', async () => {
  try {
    await rejectsWith(() => cprof.start(-5), 'ERR_CPROF_INVALID_ARG')
    await rejectsWith(() => cprof.start(NaN), 'ERR_CPROF_INVALID_ARG')
    await rejectsWith(() => cprof.start('1000'), 'ERR_CPROF_INVALID_ARG')
  } finally {
    await ensureStopped()
  }
})

test('valid edge values are accepted: interval 100 and 1_000_000, timeout 0', async () => {
  const dir = makeTmpDir()
  for (const opts of [{ interval: 100 }, { interval: 1_000_000 }, { timeout: 0 }]) {
    await cprof.start({ dir, ...opts })
    burnCpu(20)
    const result = await cprof.stop()
    assert.equal(result.intervalUs, opts.interval || 10000)
  }
})

test('profile() with an invalid option rejects with ERR_CPROF_INVALID_ARG', async () => {
  try {
    await rejectsWith(() => cprof.profile({ duration: -5 }), 'ERR_CPROF_INVALID_ARG')
    await rejectsWith(() => cprof.profile({ duration: 100, foo: 1 }), 'ERR_CPROF_INVALID_ARG')
  } finally {
    await ensureStopped()
  }
})

test('issue 36: a NUL in any path, a duration past the timer limit, a timeout beside profile()\'s duration: ERR_CPROF_INVALID_ARG, nothing starts', async () => {
  const dir = makeTmpDir()
  const nul = /must not contain a NUL character \(\\0\): the path would end there/
  try {
    // Was: resolved and profiled into "a" (C read the path up to the NUL).
    for (const call of [
      () => cprof.start({ dir: path.join(dir, 'a\0b') }),
      () => cprof.heap.start({ dir: path.join(dir, 'a\0b') }),
      () => cprof.profile({ duration: 50, dir: path.join(dir, 'a\0b') }),
      () => cprof.heap.snapshot({ dir: path.join(dir, 'a\0b') }),
      () => cprof.recorder.dump({ dir: path.join(dir, 'a\0b') }),
      () => cprof.analyze(path.join(dir, 'x.cpuprofile\0.txt')),
      () => cprof.recorder.start({ store: { dir: path.join(dir, 'a\0b') } }),
      () => cprof.init({ dir: path.join(dir, 'a\0b') })
    ]) {
      const err = await rejectsWith(call, 'ERR_CPROF_INVALID_ARG')
      assert.match(err.message, nul)
    }
    assert.equal(cprof.recorder.status().running, false)
    // The C core's own check, for a path that reaches it by another way (the CLI's jobs).
    const native = require('../../../lib/native')
    assert.throws(() => native.convert(path.join(dir, 'x\0y'), null, 1, {}),
      { code: 'ERR_CPROF_INVALID_ARG', message: /path must be a string without NUL characters/ })
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing was written')
    // Was: accepted, and never settled (the native timer never came).
    const limit = /must be a finite number of milliseconds (>|>=) 0 and <= 2147483647 \(about 24\.8 days, the timer limit\)/
    for (const call of [
      () => cprof.profile({ duration: 2 ** 53 }),
      () => cprof.heap.profile({ duration: 2 ** 31 }),
      () => cprof.start({ timeout: 2 ** 53 }),
      () => cprof.start(2 ** 31),
      () => cprof.init({ maxDuration: 2 ** 53 })
    ]) {
      assert.match((await rejectsWith(call, 'ERR_CPROF_INVALID_ARG')).message, limit)
    }
    const push = await rejectsWith(() => cprof.recorder.start({ push: { url: 'http://127.0.0.1:9', timeout: 2 ** 40 } }), 'ERR_CPROF_INVALID_ARG')
    assert.match(push.message, /push\.timeout must be a number of milliseconds >= 1 and <= 2147483647/)
    // Was: the timeout was dropped silently.
    const both = await rejectsWith(() => cprof.profile({ duration: 100, timeout: 50 }), 'ERR_CPROF_INVALID_ARG')
    assert.match(both.message, /profile\(\) takes no timeout: its duration \(ms\) is when it stops; .*start\(\{ timeout \}\)/)
    await rejectsWith(() => cprof.stop(), 'ERR_CPROF_NOT_STARTED')
  } finally {
    await ensureStopped()
    cprof.destroy()
  }
})

test('after invalid arguments the profiler is idle and usable', async () => {
  await rejectsWith(() => cprof.stop(), 'ERR_CPROF_NOT_STARTED')
  const dir = makeTmpDir()
  await cprof.start({ dir })
  burnCpu(50)
  const result = await cprof.stop()
  assert.ok(fs.existsSync(result.files.cpuprofile))
})

test('stop() with a dir that cannot be created rejects with ERR_CPROF_IO, carrying the summary', async () => {
  const tmp = makeTmpDir()
  const regularFile = path.join(tmp, 'a-file')
  fs.writeFileSync(regularFile, 'not a directory\n')
  const dir = path.join(regularFile, 'x') // ENOTDIR
  await cprof.start({ dir })
  burnCpu(200)
  const err = await rejectsWith(() => cprof.stop(), 'ERR_CPROF_IO')
  assert.ok(err.result, 'err.result is set')
  assert.equal(err.result.kind, 'cpu')
  assert.ok(!err.result.files || err.result.files.cpuprofile === undefined, 'no file is reported')
  assert.ok(err.result.summary, 'err.result.summary is set')
  assert.ok(err.result.summary.total > 0)
  assert.ok(Array.isArray(err.result.summary.top) && err.result.summary.top.length > 0)
  assert.ok(err.result.samples > 0)
  assert.equal(fs.readFileSync(regularFile, 'utf8'), 'not a directory\n', 'the file is untouched')

  // The app keeps running and the profiler is idle again.
  await rejectsWith(() => cprof.stop(), 'ERR_CPROF_NOT_STARTED')
  const good = makeTmpDir()
  await cprof.start({ dir: good })
  burnCpu(50)
  const result = await cprof.stop()
  assert.ok(fs.existsSync(result.files.cpuprofile))
})

test('a write that fails midway (ulimit -f) rejects with ERR_CPROF_IO and leaves no file behind', () => {
  const dir = makeTmpDir()
  // The file-size limit makes write() fail with EFBIG (Node ignores SIGXFSZ).
  const r = runFixture('io-fail.js', [dir], { shell: 'ulimit -f 1' })
  assert.equal(r.status, 0, r.describe())
  const out = Object.assign({}, ...r.json)
  assert.equal(out.unexpectedResult, undefined, `the write should have failed: ${r.describe()}`)
  assertCprofErrorInfo(out.error, 'ERR_CPROF_IO')
  assert.ok(out.error.result && out.error.result.summary, 'err.result.summary is set')
  assert.ok(!out.error.result.files || out.error.result.files.cpuprofile === undefined)
  assert.equal(out.stopAgain.code, 'ERR_CPROF_NOT_STARTED')
  assert.equal(out.alive, true)
  // Neither a partial file under the final name nor a temp file is left.
  assert.deepEqual(fs.readdirSync(dir), [])
})

const PERMISSION_FLAGS = [
  '--experimental-permission',
  '--allow-fs-read=*',
  '--allow-fs-write=*',
  '--allow-addons',
  '--allow-worker',
  '--allow-child-process'
]

function permissionModelAvailable () {
  const r = runFixture('noop.js', [], { execArgv: PERMISSION_FLAGS, timeout: 10000 })
  return r.status === 0
}

test('start() when the inspector refuses a session rejects with ERR_CPROF_INSPECTOR', (t) => {
  // Node's permission model refuses inspector sessions (ERR_ACCESS_DENIED)
  // while still allowing addons: a real inspector refusal.
  if (!permissionModelAvailable()) {
    t.skip('this node has no permission model with --allow-addons')
    return
  }
  const dir = makeTmpDir()
  const r = runFixture('inspector-denied.js', [dir], { execArgv: PERMISSION_FLAGS })
  assert.equal(r.status, 0, r.describe())
  const out = Object.assign({}, ...r.json)
  assert.equal(out.started, undefined, `start() should have failed: ${r.describe()}`)
  assertCprofErrorInfo(out.error, 'ERR_CPROF_INSPECTOR')
  assert.equal(out.stopAfter.code, 'ERR_CPROF_NOT_STARTED', 'the profiler is idle after the failure')
  assert.deepEqual(fs.readdirSync(dir), [])
})

test('analyze() of a missing file or a non-profile rejects with a cprof error code', async () => {
  const dir = makeTmpDir()
  const missing = path.join(dir, 'missing.cpuprofile')
  const notJson = path.join(dir, 'not-json.cpuprofile')
  const notProfile = path.join(dir, 'not-profile.cpuprofile')
  fs.writeFileSync(notJson, '{"nodes": [')
  fs.writeFileSync(notProfile, JSON.stringify({ hello: 'world' }))
  for (const file of [missing, notJson, notProfile]) {
    let err
    try {
      await cprof.analyze(file)
    } catch (e) {
      err = e
    }
    assert.ok(err instanceof Error, `analyze(${path.basename(file)}) rejects`)
    assert.match(String(err.code), /^ERR_CPROF_/, `analyze(${path.basename(file)}): code ${err.code}`)
    assert.ok(err.message.length > 0)
  }
  await rejectsWith(() => cprof.analyze(42), 'ERR_CPROF_INVALID_ARG')
})

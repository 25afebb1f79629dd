'use strict'

// Profiling must never change how the app lives and dies: timed profiles
// deliver through events, never keep the process alive, never change its
// exit code, never throw into it; and the module works in worker threads.
// Every case runs in its own child process (test/js/api/fixtures/).

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { assertCpuProfileSchema } = require('../helpers/schema.js')
const {
  DEFAULT_NAME_RE,
  WORKER_NAME_RE,
  makeTmpDir,
  removeTmpDirs,
  assertCprofErrorInfo,
  fileMode
} = require('../helpers/util.js')
const { runFixture, startFixture } = require('../helpers/util.js').fixturesIn(__dirname)

after(removeTmpDirs)

// No test may hang the suite: each has a time limit (a failure, not a timing check).
const test = (name, fn) => nodeTest(name, { timeout: 40000 }, fn)

function merged (r) {
  return Object.assign({}, ...r.json)
}

function assertProfileFile (file, dir) {
  assert.equal(typeof file, 'string')
  assert.equal(fs.realpathSync(path.dirname(file)), fs.realpathSync(dir))
  assert.equal(fileMode(file), 0o600)
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(file, 'utf8')))
}

// A regular file, and a dir path under it that can never be created.
function impossibleDir () {
  const tmp = makeTmpDir()
  const file = path.join(tmp, 'regular-file')
  fs.writeFileSync(file, '')
  return { tmp, dir: path.join(file, 'profiles') }
}

for (const mode of ['object', 'number']) {
  const call = mode === 'object' ? 'start({ timeout: 400 })' : 'start(400)'
  test(`${call}: the profile stops itself and arrives as a 'profile' event`, () => {
    const dir = makeTmpDir()
    const r = runFixture('timeout.js', [mode, '400'], { env: { CPROF_DIR: dir } })
    assert.equal(r.status, 0, r.describe())
    const out = merged(r)
    assert.equal(out.fatal, undefined, r.describe())
    assert.equal(out.errorEvent, undefined, r.describe())
    assert.ok(out.event, `a profile event arrived: ${r.describe()}`)
    assert.equal(out.startResolvedFirst, true, 'start() resolved before the profile ended')
    const result = out.event
    assert.equal(result.kind, 'cpu')
    assert.ok(result.samples > 0)
    assert.ok(result.durationMs >= 300, `durationMs ${result.durationMs} is about the timeout`)
    assert.ok(result.summary && result.summary.top.length > 0)
    assertProfileFile(result.files.cpuprofile, dir)
    assert.match(path.basename(result.files.cpuprofile), DEFAULT_NAME_RE)
    // Once delivered, nothing is running: stop() rejects.
    assert.equal(out.stopAfter && out.stopAfter.code, 'ERR_CPROF_NOT_STARTED')
    assert.equal(r.stderr, '')
  })
}

for (const mode of ['timeout', 'none']) {
  const what = mode === 'timeout' ? 'start({ timeout: 60000 })' : 'start() without a timeout'
  test(`${what} with nothing else to do: the process exits on its own with code 0`, () => {
    const dir = makeTmpDir()
    // Not a timing test of cprof: 30 s (of the 60 s timeout) only tells
    // "exits" from "hangs", also under ASan on a loaded machine.
    const r = runFixture('idle-exit.js', [mode, dir], { timeout: 30000 })
    assert.equal(r.timedOut, false, `the process was kept alive: ${r.describe()}`)
    assert.equal(r.signal, null, r.describe())
    assert.equal(r.status, 0, r.describe())
    assert.equal(merged(r).started, true)
  })
}

test('process.exit(7) while profiling exits with code 7', () => {
  const dir = makeTmpDir()
  const r = runFixture('exit-code.js', ['exit', '7', dir], { timeout: 30000 })
  assert.equal(r.timedOut, false, r.describe())
  assert.equal(r.status, 7, r.describe())
  assert.equal(merged(r).started, true)
})

test('process.exitCode = 3 and a natural end while profiling exits with code 3', () => {
  const dir = makeTmpDir()
  const r = runFixture('exit-code.js', ['exitCode', '3', dir], { timeout: 30000 })
  assert.equal(r.timedOut, false, `the process was kept alive: ${r.describe()}`)
  assert.equal(r.status, 3, r.describe())
})

test('an uncaught exception while profiling still crashes the app as usual', () => {
  const dir = makeTmpDir()
  const r = runFixture('exit-code.js', ['throw', '0', dir], { timeout: 30000 })
  assert.equal(r.timedOut, false, r.describe())
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, /boom from the fixture/)
})

test('SIGTERM while profiling kills the app as usual', async () => {
  const dir = makeTmpDir()
  const f = startFixture('signal.js', [dir])
  await f.waitForLine((l) => l.includes('"ready"'))
  f.child.kill('SIGTERM')
  const { status, signal, stderr } = await f.exited
  assert.equal(signal, 'SIGTERM', `status=${status} stderr=${stderr}`)
})

test('a timed stop that fails with no error listener logs one stderr line and the app keeps running', () => {
  const { dir } = impossibleDir()
  const r = runFixture('timed-io.js', [dir, 'nolisten'])
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.unhandledRejection, undefined, r.describe())
  assert.equal(out.fatal, undefined, r.describe())
  assert.equal(out.alive, true, 'the app kept running')
  assert.equal(out.profileEvent, undefined, 'no profile event for a failed write')
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '')
  assert.equal(lines.length, 1, `exactly one stderr line, got:\n${r.stderr}`)
  assert.match(lines[0], /ERR_CPROF_IO/)
})

test("a timed stop that fails goes to the 'error' listener, not stderr", () => {
  const { dir } = impossibleDir()
  const r = runFixture('timed-io.js', [dir, 'listen'])
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.unhandledRejection, undefined, r.describe())
  assert.equal(out.alive, true)
  assertCprofErrorInfo(out.errorEvent, 'ERR_CPROF_IO')
  assert.ok(out.errorEvent.result && out.errorEvent.result.summary, 'the error carries the summary')
  assert.equal(r.stderr, '')
})

test('a Worker profiles itself: start/stop inside worker_threads writes the file', () => {
  const dir = makeTmpDir()
  const r = runFixture('worker.js', ['one', dir])
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.fatal, undefined, r.describe())
  const [w] = out.workers
  assert.equal(w.code, 0, JSON.stringify(w))
  const msg = w.messages.find((m) => m.result)
  assert.ok(msg, `the worker posted a result: ${JSON.stringify(w.messages)}`)
  assertProfileFile(msg.result.files.cpuprofile, dir)
  const m = WORKER_NAME_RE.exec(path.basename(msg.result.files.cpuprofile))
  assert.ok(m, `default file name: ${msg.result.files.cpuprofile}`)
  assert.equal(Number(m[1]), out.pid, 'the pid in the name is the process pid')
  assert.ok(msg.result.summary.top.some((e) => e.functionName === 'burnCpu'), 'the worker\'s own work is profiled')
})

test('two Workers profile at the same time, each into its own file', () => {
  const dir = makeTmpDir()
  const r = runFixture('worker.js', ['two', dir])
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.fatal, undefined, r.describe())
  assert.equal(out.workers.length, 2)
  const files = out.workers.map((w) => {
    assert.equal(w.code, 0, JSON.stringify(w))
    const msg = w.messages.find((m) => m.result)
    assert.ok(msg, `each worker posted a result: ${JSON.stringify(w.messages)}`)
    assert.ok(msg.result.summary.top.some((e) => e.functionName === 'burnCpu'))
    return msg.result.files.cpuprofile
  })
  assert.notEqual(files[0], files[1], 'two profiles started in the same millisecond get two files')
  for (const f of files) assertProfileFile(f, dir)
  assert.equal(fs.readdirSync(dir).length, 2)
})

test('a Worker terminated while profiling does not hurt the process; the main thread still profiles', () => {
  const dir = makeTmpDir()
  const r = runFixture('worker.js', ['terminate', dir], { timeout: 15000 })
  assert.equal(r.timedOut, false, `the process was kept alive: ${r.describe()}`)
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.fatal, undefined, r.describe())
  assert.ok(out.terminated.messages.some((m) => m.started), JSON.stringify(out.terminated))
  assertProfileFile(out.mainResult.files.cpuprofile, dir)
})

test('a Worker calling process.exit(3) while profiling ends with code 3; the process goes on', () => {
  const dir = makeTmpDir()
  const r = runFixture('worker.js', ['exit', dir], { timeout: 15000 })
  assert.equal(r.timedOut, false, `the process was kept alive: ${r.describe()}`)
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.fatal, undefined, r.describe())
  assert.equal(out.workerExit.code, 3)
  assertProfileFile(out.mainResult.files.cpuprofile, dir)
})

'use strict'

// The recorder from outside: the preload (CPROF_RECORDER=1), the dump signal
// through `cprof trigger <pid> --dump --last S`, a worker thread, and a
// process that exits on its own while recording.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

const { assertCpuProfileSchema } = require('../helpers/schema.js')
const { ROOT, makeTmpDir, removeTmpDirs } = require('../helpers/util.js')
const { signalPending, waitUntil } = require('../helpers/procs.js')
const { runFixture, startFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { envConfig } = require('../../../lib/triggers/env.js')

after(removeTmpDirs)

const CLI = path.join(ROOT, 'bin', 'cprof.js')

test('the process exits on its own with the recorder running', () => {
  const r = runFixture('recorder-app.js', ['exit'], { timeout: 20000 })
  assert.equal(r.timedOut, false, r.describe())
  assert.equal(r.status, 0, r.describe())
  assert.deepEqual(r.json.at(-1), { exit: 0, status: true }, r.describe())
})

for (const transport of ['connection', 'session']) {
  test(`the recorder over the ${transport} transport: CPU and heap dumps`, () => {
    const dir = makeTmpDir()
    const r = runFixture('recorder-app.js', ['dump', dir], { env: { CPROF_TRANSPORT: transport }, timeout: 20000 })
    assert.equal(r.status, 0, r.describe())
    const m = r.json[0]
    assert.ok(m, r.describe())
    assert.equal(m.transport, transport)
    assert.ok(m.cpu[0] >= 3 && m.cpu[1] > 0, r.describe())
    assert.equal(m.heap[0], 1, 'a heap dump is the newest window: the live heap')
    assert.ok(m.status.heap.windows >= 3, r.describe())
    assertCpuProfileSchema(JSON.parse(fs.readFileSync(m.cpu[2], 'utf8')))
    assert.equal(JSON.parse(fs.readFileSync(m.heap[2], 'utf8')).head.callFrame.functionName, '(root)')
    assert.equal(m.status.lost, 0)
    assert.equal(m.status.failed, 0)
  })
}

test('the recorder in a worker thread', () => {
  const dir = makeTmpDir()
  const r = runFixture('recorder-app.js', ['worker', dir], { timeout: 20000 })
  assert.equal(r.status, 0, r.describe())
  const m = r.json[0]
  assert.ok(m && !m.error, r.describe())
  assert.ok(m.windows >= 3, r.describe())
  assert.ok(m.samples > 0)
  assert.equal(path.dirname(m.file), dir)
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(m.file, 'utf8')))
})

test('CPROF_RECORDER=1 under the preload; cprof trigger <pid> --dump --last S writes the last seconds', async () => {
  const dir = makeTmpDir()
  const store = makeTmpDir()
  const app = startFixture('recorder-app.js', ['preload'], {
    env: {
      NODE_OPTIONS: `-r ${path.join(ROOT, 'register.js')}`,
      CPROF_RECORDER: '1',
      CPROF_RECORDER_WINDOW: '250',
      CPROF_RECORDER_STORE: store,
      CPROF_DUMP_SIGNAL: 'SIGURG',
      CPROF_DIR: dir
    }
  })
  try {
    const line = await app.waitForLine((l) => l.startsWith('{"ready"'), 15000)
    const pid = JSON.parse(line).ready
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const t = spawnSync(process.execPath, [CLI, 'trigger', String(pid), '--dump', '--last', '0.5'], { encoding: 'utf8' })
    assert.equal(t.status, 0, `${t.stdout}${t.stderr}`)
    // It waits for the dump and prints what was written (issue 32: no claim it cannot back).
    const said = /sent SIGURG to \d+: its flight recorder wrote the last 0.5 s \([\d.]+ s of recording in whole windows\): (\S+)$/m.exec(t.stdout)
    assert.ok(said, t.stdout)
    const end = Date.now() + 15000
    let files = []
    while (Date.now() < end) {
      files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
      if (files.length) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(files.length, 1, `no dump in ${dir}; stderr: ${app.stderr?.() || ''}`)
    assert.equal(said[1], path.join(dir, files[0]))
    const prof = JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'))
    assertCpuProfileSchema(prof)
    const spanMs = (prof.endTime - prof.startTime) / 1000
    // The last 0.5 s: whole windows of 250 ms covering it, not the 1.5 s recorded.
    assert.ok(spanMs >= 500 && spanMs < 1200, `spans ${spanMs} ms`)
    const runDir = require('../../../lib/identity/rundir.js').ofProcess(pid).dir
    assert.deepEqual(fs.readdirSync(runDir).filter((n) => n.includes(`dump-${pid}`)), [], 'the request is taken')
    // Continuous mode from the environment too.
    assert.ok(fs.readdirSync(store).some((f) => /^cpu-\d+-\d+-\d+\.cpuprofile$/.test(f)))
  } finally {
    app.child.kill('SIGKILL')
    await app.exited
  }
})

test('cprof trigger <pid> --dump --last S whose process never dumps: the failure names the dump directory', async () => {
  const dir = makeTmpDir()
  const app = startFixture('recorder-app.js', ['preload'], {
    env: {
      NODE_OPTIONS: `-r ${path.join(ROOT, 'register.js')}`,
      CPROF_RECORDER: '1',
      CPROF_DUMP_SIGNAL: 'SIGURG',
      CPROF_DIR: dir,
      CPROF_RUN_DIR: makeTmpDir()
    }
  })
  let cli
  try {
    const pid = JSON.parse(await app.waitForLine((l) => l.startsWith('{"ready"'), 15000)).ready
    await new Promise((resolve) => setTimeout(resolve, 1500)) // its run-directory entry is written
    process.kill(pid, 'SIGSTOP') // it cannot take the request: the signal waits
    const child = spawn(process.execPath, [CLI, 'trigger', String(pid), '--dump', '--last', '0.5'], { stdio: ['ignore', 'pipe', 'pipe'] })
    cli = { stderr: '', done: new Promise((resolve) => child.on('close', resolve)) }
    child.stderr.on('data', (d) => { cli.stderr += d })
    // The CLI has sent its signal (it waits in the stopped process) before
    // the process goes: else the CLI would find no process to signal.
    await waitUntil(() => signalPending(pid, os.constants.signals.SIGURG), 30000)
    app.child.kill('SIGKILL') // it exits without a dump: the CLI stops waiting
    const status = await cli.done
    assert.equal(status, 1, cli.stderr)
    assert.match(cli.stderr, /^cprof trigger: sent SIGURG to \d+, but it reported no dump within 30 s.*, or exited; its dumps go into (\S+) \(`cprof list (\S+)` shows one once written\)\n$/)
    const [, into, list] = /its dumps go into (\S+) \(`cprof list (\S+)`/.exec(cli.stderr)
    assert.equal(into, dir)
    assert.equal(list, dir)
  } finally {
    app.child.kill('SIGKILL')
    await app.exited
  }
})

test('envConfig: CPROF_RECORDER and its options; bad values name the variable', () => {
  const c = envConfig({ CPROF_RECORDER: '1', CPROF_RECORDER_WINDOW: '5000', CPROF_RECORDER_KEEP: '30000', CPROF_RECORDER_STORE: '/tmp/s', CPROF_RECORDER_STORE_FORMATS: 'cpuprofile,pprof' })
  assert.deepEqual(c.recorder, { window: 5000, keep: 30000, store: { dir: '/tmp/s', formats: ['cpuprofile', 'pprof'] } })
  assert.equal(envConfig({ CPROF_RECORDER: '0' }), null)
  assert.throws(() => envConfig({ CPROF_RECORDER: '1', CPROF_RECORDER_WINDOW: 'soon' }), /CPROF_RECORDER_WINDOW/)
  assert.throws(() => envConfig({ CPROF_RECORDER: '1', CPROF_RECORDER_WINDOW: '5' }), /CPROF_RECORDER_WINDOW: window must be/)
  assert.throws(() => envConfig({ CPROF_RECORDER: '1', CPROF_RECORDER_STORE_MAX_AGE: '5' }), /CPROF_RECORDER_STORE/)
  assert.throws(() => envConfig({ CPROF_RECORDER: 'maybe' }), /CPROF_RECORDER=/)
  assert.throws(() => envConfig({ CPROF_PROFILING: '1', CPROF_DUMP_SIGNAL: 'SIGURG' }), /dumpSignal is set but the recorder is off/)
})

test('CPROF_PROFILING=1 beside the recorder or incidents keeps the CPU toggle; the dump keeps the shared signal', () => {
  const { initConfig } = require('../../../lib/triggers/config')
  for (const env of [{ CPROF_RECORDER: '1' }, { CPROF_ON_EVENT_LOOP_DELAY: '200' }]) {
    const c = initConfig(envConfig({ CPROF_PROFILING: '1', ...env }))
    assert.equal(c.cpu, true, JSON.stringify(env))
    assert.equal(c.signal, null, 'SIGUSR2 is the dump signal')
    assert.equal(c.dumpSignal.name, 'SIGUSR2')
  }
  const apart = initConfig(envConfig({ CPROF_PROFILING: 'cpu', CPROF_RECORDER: '1', CPROF_DUMP_SIGNAL: 'SIGURG' }))
  assert.equal(apart.signal.name, 'SIGUSR2')
  assert.equal(apart.dumpSignal.name, 'SIGURG')
  const off = initConfig(envConfig({ CPROF_RECORDER: '1' }))
  assert.equal(off.cpu, false, 'profiling still defaults to off with the recorder')
})

test('CPROF_PROFILING=1 beside the recorder under the preload: one stderr line says the CPU toggle has no signal and how to get one; none with CPROF_DUMP_SIGNAL set apart', () => {
  const REGISTER = path.join(ROOT, 'register.js')
  const run = (extra) => runFixture(path.join(__dirname, '..', 'triggers', 'fixtures', 'trigger-plain.js'), ['300'], {
    env: { NODE_OPTIONS: `-r ${REGISTER}`, CPROF_PROFILING: '1', CPROF_RECORDER: '1', CPROF_DIR: makeTmpDir(), ...extra },
    timeout: 30000
  })
  const r = run({})
  assert.equal(r.status, 0, r.describe())
  assert.ok(r.json.some((m) => m.done), 'the app ran')
  const lines = r.stderr.trim().split('\n')
  assert.equal(lines.length, 1, r.describe())
  assert.match(lines[0], /^cprof: CPROF_PROFILING: the CPU profile toggle has no signal \(SIGUSR2 dumps the recorder\); set CPROF_DUMP_SIGNAL to another signal .*cprof\.start\(\).*pm2 trigger <app> cprof:cpu:start\)$/)
  const apart = run({ CPROF_DUMP_SIGNAL: 'SIGURG' })
  assert.equal(apart.status, 0, apart.describe())
  assert.equal(apart.stderr, '', 'SIGUSR2 toggles CPU profiles, SIGURG dumps: nothing to say')
  const off = run({ CPROF_PROFILING: '0' })
  assert.equal(off.stderr, '', 'no CPU toggle asked for: nothing to say')
})

test('cprof trigger --dump: usage errors', () => {
  const r = spawnSync(process.execPath, [CLI, 'trigger', '1', '--last', '3'], { encoding: 'utf8' })
  assert.equal(r.status, 2)
  assert.match(r.stderr, /--last goes with --dump/)
  const h = spawnSync(process.execPath, [CLI, 'trigger', '1', '--dump', '--heap'], { encoding: 'utf8' })
  assert.equal(h.status, 2)
})

// Node's process.kill(process.pid, sig) runs the at-exit hooks when no JS
// listener watches sig (src/node_process_methods.cc: it expects the process
// to die); the inspector's hook then tells V8 the main context is gone, and
// console profiles (the recorder's windows) stop reaching any session.
for (const signal of ['SIGUSR2', 'SIGURG']) {
  test(`a dump signal the app sends itself after a 1.5 s block (${signal}): the dump holds the block, recording goes on`, () => {
    const dir = makeTmpDir()
    const r = runFixture('recorder-self-signal.js', [signal, dir], { timeout: 40000 })
    assert.equal(r.status, 0, r.describe())
    const requested = r.json.find((o) => o.requested)?.requested
    const dump = r.json.find((o) => o.dump)?.dump
    const status = r.json.find((o) => o.status)?.status
    assert.ok(requested && dump && status, r.describe())
    assert.ok(!r.json.some((o) => o.dumpError), r.describe())
    // The running window ends at the request and is in the dump: the block is there.
    assert.ok(dump.to >= requested, `the dump ends at ${dump.to}, before the request at ${requested}`)
    assert.ok(dump.to - dump.from >= 1400, `the dump covers ${dump.to - dump.from} ms, not the 1.5 s block`)
    assert.ok(dump.samples > 0)
    // Recording goes on after the signal: windows keep arriving, none lost.
    assert.equal(status.lost, 0, r.describe())
    assert.equal(status.failed, 0, r.describe())
    assert.ok(status.to > dump.to, `no window after the dump: ${JSON.stringify(status)}`)
  })
}

test('a signal trigger holds one no-op process.on() listener while installed', async () => {
  const cprof = require('../../..')
  const before = process.listenerCount('SIGURG')
  cprof.init({ recorder: { window: 1000 }, dumpSignal: 'SIGURG' })
  try {
    assert.equal(process.listenerCount('SIGURG'), before + 1)
    assert.equal(process.listeners('SIGURG').at(-1).name, 'cprofSignalGuard')
  } finally {
    cprof.destroy()
  }
  assert.equal(process.listenerCount('SIGURG'), before)
  // destroy() stops the recorder on its own time; wait so the test process exits clean.
  const end = Date.now() + 10000
  while (cprof.recorder.status().running && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20))
})

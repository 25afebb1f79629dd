'use strict'

// Incident triggers (init({ incidents })), end to end in child processes:
// an event-loop stall, a CPU spike, a leak up to the out-of-memory crash,
// and thresholds given wrongly (init() and the preload).

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { assertCpuProfileSchema } = require('../helpers/schema.js')
const { assertHeapProfileSchema } = require('../helpers/heap.js')
const { ROOT, makeTmpDir, removeTmpDirs, assertCprofError } = require('../helpers/util.js')
const { runFixture, startFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { envConfig } = require('../../../lib/triggers/env.js')
const { cpuQuota, oldGenerationLimit } = require('../../../lib/incidents/limits.js')

after(removeTmpDirs)

const CLI = path.join(ROOT, 'bin', 'cprof.js')
const REGISTER = path.join(ROOT, 'register.js')
const MiB = 1024 * 1024

// JavaScript functions by self time (µs) in a .cpuprofile, most first;
// V8's own entries ((idle), (program), (garbage collector), ...) left out.
function cpuTop (profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map()
  profile.samples.forEach((id, i) => {
    const name = byId.get(id).callFrame.functionName
    if (name.startsWith('(')) return
    self.set(name, (self.get(name) || 0) + profile.timeDeltas[i])
  })
  return [...self].sort((a, b) => b[1] - a[1]).map(([name]) => name)
}

// Functions by self size (bytes) in a .heapprofile, most first.
function heapTop (profile) {
  const self = new Map()
  const walk = (n) => {
    const name = n.callFrame.functionName
    if (!name.startsWith('(')) self.set(name, (self.get(name) || 0) + n.selfSize)
    n.children.forEach(walk)
  }
  walk(profile.head)
  return [...self].sort((a, b) => b[1] - a[1]).map(([name]) => name)
}

function files (dir, ext) {
  return fs.readdirSync(dir).filter((f) => f.endsWith(`.${ext}`)).map((f) => path.join(dir, f))
}

function listJson (dir) {
  const r = spawnSync(process.execPath, [CLI, 'list', dir, '--json'], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l))
}

// Runs a stall fixture (build(dir) → [args, opts], a new dir each time)
// until no incident fired before its first stall, at most 3 times: a process
// descheduled for 200 ms on a loaded machine (or a long GC under ASan) is a
// real gap in the event loop, but not the case under test.
// firedAt(r, dir) → the ms of the first firing, or undefined.
function runStall (build, firedAt) {
  let r, dir
  for (let attempt = 0; attempt < 3; attempt++) {
    dir = makeTmpDir()
    r = runFixture('incident-app.js', ...build(dir))
    const at = firedAt(r, dir)
    const stallAt = (r.json.find((m) => m.stallAt) || {}).stallAt
    if (!(at !== undefined && stallAt !== undefined && at < stallAt)) return { r, dir }
  }
  assert.fail(`3 runs fired before the stall (the machine stalls the process itself): ${r.describe()}`)
}

function assertReason (reason, trigger, threshold) {
  assert.equal(reason.trigger, trigger)
  assert.equal(reason.threshold, threshold)
  assert.ok(reason.value >= threshold, `value ${reason.value} >= threshold ${threshold}`)
  assert.ok(Number.isInteger(reason.at) && reason.at > Date.now() - 3600_000)
}

test('a 500 ms stall with eventLoopDelay: 200 writes one profile, the stalling function on top; a second stall in the cooldown is counted, not written', () => {
  const { r, dir } = runStall((d) => [['stall', d], { timeout: 120000 }], (run) => {
    const p = run.json.find((m) => m.profile)
    return p ? p.profile.reason.at : undefined
  })
  assert.equal(r.status, 0, r.describe())
  const profiles = r.json.filter((m) => m.profile)
  assert.equal(profiles.length, 1, r.describe())
  const { reason, files: written, kind } = profiles[0].profile
  assert.equal(kind, 'cpu')
  assertReason(reason, 'eventLoopDelay', 200)
  assert.match(path.basename(written.cpuprofile), /^cpu-incident-eventLoopDelay-\d+-\d{8}T\d{6}\.\d{3}Z\.cpuprofile$/)
  assert.deepEqual(files(dir, 'cpuprofile'), [written.cpuprofile], 'the second stall wrote nothing')
  const profile = JSON.parse(fs.readFileSync(written.cpuprofile, 'utf8'))
  assertCpuProfileSchema(profile)
  assert.equal(cpuTop(profile)[0], 'stallingFunction', r.describe())
  // The second stall is suppressed (the cooldown); a gap of the machine's
  // own in the cooldown would be one more suppressed, never one more fired.
  const { incidents: { suppressedBy, ...incidents } } = r.json.find((m) => m.status).status
  assert.deepEqual({ ...incidents, suppressed: Math.min(incidents.suppressed, 1) }, { fired: 1, suppressed: 1, failed: 0, last: reason })
  assert.equal(suppressedBy.eventLoopDelay.count, incidents.suppressed)
  assert.ok(suppressedBy.eventLoopDelay.largest >= 500, 'the second stall, or larger')
  // cprof list says why the file exists.
  const rows = listJson(dir)
  assert.equal(rows.length, 1)
  assert.equal(rows[0].why, 'incident')
  assert.equal(rows[0].incident, 'eventLoopDelay')
  assert.equal(rows[0].pid, Number(/-(\d+)-\d{8}T/.exec(written.cpuprofile)[1]))
  const text = spawnSync(process.execPath, [CLI, 'list', dir], { encoding: 'utf8' }).stdout
  assert.match(text, /^cpu\s+\d+\s+\S+ \S+\s+[\d.]+ KiB\s+incident eventLoopDelay\s+cpu-incident-eventLoopDelay-/m)
})

test('a busy loop of several seconds crosses cpu: 80; the profile shows the busy function', (t) => {
  const dir = makeTmpDir()
  const r = runFixture('incident-app.js', ['cpu', dir], { timeout: 120000 })
  assert.equal(r.status, 0, r.describe())
  assert.deepEqual(r.json.find((m) => m.idleStatus).idleStatus, { fired: 0, suppressed: 0, failed: 0, last: null },
    'idle: under 80 %')
  const profiles = r.json.filter((m) => m.profile)
  const { maxCpu } = r.json.find((m) => m.maxCpu !== undefined)
  if (profiles.length === 0 && maxCpu < 95) {
    // Two busy threads got less than 80 % of one core in 30 s: other jobs
    // hold the cores, and not firing is right. Nothing to check here. (The
    // fixture's own reading counts cprof's time and looks every 20 ms, the
    // trigger leaves cprof out and looks every 200 ms: near 80 % they can
    // differ, so a miss is only a failure well above it.)
    t.skip(`the machine gave the process at most ${maxCpu} % of one core`)
    return
  }
  assert.equal(profiles.length, 1, r.describe())
  const { reason, files: written } = profiles[0].profile
  assertReason(reason, 'cpu', 80)
  assert.match(path.basename(written.cpuprofile), /^cpu-incident-cpu-/)
  const profile = JSON.parse(fs.readFileSync(written.cpuprofile, 'utf8'))
  assertCpuProfileSchema(profile)
  assert.equal(cpuTop(profile)[0], 'busyFunction', r.describe())
  assert.equal(r.json.find((m) => m.status).status.incidents.fired, 1)
})

test('a leak under --max-old-space-size=96: a complete .heapprofile with the leaking function on top is on disk before the out-of-memory crash, which is the same without cprof', () => {
  const dir = makeTmpDir()
  const opts = { timeout: 120000, execArgv: ['--max-old-space-size=96'] }
  const plain = runFixture('incident-app.js', ['leak', makeTmpDir(), 'plain'], opts)
  const r = runFixture('incident-app.js', ['leak', dir], opts)
  for (const run of [plain, r]) {
    assert.equal(run.timedOut, false, run.describe())
    assert.match(run.stderr, /FATAL ERROR: .*JavaScript heap out of memory/, run.describe())
  }
  assert.equal(r.status, plain.status, r.describe())
  assert.equal(r.signal, plain.signal, r.describe())
  assert.equal(r.signal, 'SIGABRT', 'V8 aborts on out-of-memory')
  // The 'profile' event came before the crash, and the file is whole.
  const profiles = r.json.filter((m) => m.profile)
  assert.equal(profiles.length, 1, r.describe())
  const { reason, files: written, kind } = profiles[0].profile
  assert.equal(kind, 'heap')
  assertReason(reason, 'heapNearLimit', 75)
  assert.deepEqual(files(dir, 'heapprofile'), [written.heapprofile], r.describe())
  assert.match(path.basename(written.heapprofile), /^heap-incident-heapNearLimit-\d+-/)
  const profile = JSON.parse(fs.readFileSync(written.heapprofile, 'utf8'))
  assertHeapProfileSchema(profile)
  assert.equal(heapTop(profile)[0], 'leakingFunction', `top: ${heapTop(profile).slice(0, 5)}; ${r.describe()}`)
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith('.')), [], 'no temporary file left')
})

test('thresholds given wrongly: ERR_CPROF_INVALID_ARG from init(); under the preload one stderr line and the app runs', () => {
  const cprof = require('../../../lib/index.js')
  const bad = [
    [{ eventLoopDelay: -5 }, /incidents\.eventLoopDelay must be a number of milliseconds > 0/],
    [{ cpu: '80' }, /incidents\.cpu must be a number .* got string "80"/],
    [{ rss: 0 }, /incidents\.rss must be/],
    [{ heapNearLimit: 150 }, /incidents\.heapNearLimit must be a number of percent > 0 and <= 100/],
    [{ heapNearLimit: 80, heapLowMark: 85 }, /heapLowMark \(85\) must be below/],
    [{ cpu: 80, cooldown: -1 }, /incidents\.cooldown/],
    [{ cpu: 80, maxPerHour: 1.5 }, /incidents\.maxPerHour must be an integer/],
    [{ diskFull: 90 }, /unknown option "diskFull" in incidents; known options: eventLoopDelay, cpu, rss, heapNearLimit/],
    [{}, /incidents sets no trigger/],
    [80, /incidents must be an object/]
  ]
  for (const [incidents, message] of bad) {
    assert.throws(() => cprof.init({ incidents }), (err) => {
      assertCprofError(err, 'ERR_CPROF_INVALID_ARG')
      assert.match(err.message, message)
      return true
    }, JSON.stringify(incidents))
  }
  assert.throws(() => cprof.init({ recorder: false, incidents: { cpu: 80 } }), /incidents need the flight recorder/)
  assert.equal(cprof.recorder.status().running, false, 'nothing was started')

  for (const [name, value, message] of [
    ['CPROF_ON_EVENT_LOOP_DELAY', '-200', /CPROF_ON_EVENT_LOOP_DELAY: incidents\.eventLoopDelay must be/],
    ['CPROF_ON_CPU', 'high', /CPROF_ON_CPU="high": must be a number/],
    ['CPROF_ON_RSS', '12X', /CPROF_ON_RSS="12X": must be a number of bytes/]
  ]) {
    const r = runFixture('incident-app.js', ['preload'], {
      env: { NODE_OPTIONS: `-r ${REGISTER}`, [name]: value },
      timeout: 60000
    })
    assert.equal(r.status, 0, r.describe())
    const lines = r.stderr.trim().split('\n')
    assert.equal(lines.length, 1, r.describe())
    assert.match(lines[0], /^cprof: not profiling: ERR_CPROF_INVALID_ARG: /)
    assert.match(lines[0], message)
    assert.equal(r.json.filter((m) => m.served > 0).length, 2, 'the app ran')
  }
})

test('CPROF_ON_EVENT_LOOP_DELAY under the preload starts the recorder and writes the stall', () => {
  const env = (dir) => ({ NODE_OPTIONS: `-r ${REGISTER}`, CPROF_ON_EVENT_LOOP_DELAY: '200', CPROF_RECORDER_WINDOW: '1000', CPROF_DIR: dir })
  // The firing's time is the file name's stamp.
  const stampOf = (dir) => {
    const [file] = files(dir, 'cpuprofile')
    const m = file && /-(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)\.(\d{3})Z\.cpuprofile$/.exec(file)
    return m ? Date.UTC(m[1], m[2] - 1, m[3], m[4], m[5], m[6], m[7]) : undefined
  }
  const { r, dir } = runStall((d) => [['preload'], { env: env(d), timeout: 60000 }], (run, d) => stampOf(d))
  assert.equal(r.status, 0, r.describe())
  assert.match(r.stderr, /^cprof: wrote \S+cpu-incident-eventLoopDelay-\S+\.cpuprofile \(cpu, [\d.]+ s, \d+ samples, incident eventLoopDelay: \d+ >= 200\)$/m)
  const [file] = files(dir, 'cpuprofile')
  assert.equal(cpuTop(JSON.parse(fs.readFileSync(file, 'utf8')))[0], 'stallingFunction', r.describe())
})

test('the configuration from CPROF_ON_* and PM2\'s io object', () => {
  const c = envConfig({
    CPROF_ON_CPU: '80',
    CPROF_ON_RSS: '512M',
    CPROF_ON_COOLDOWN: '60000',
    io: JSON.stringify({ incidents: { heapNearLimit: 85, cpu: 50 } })
  })
  assert.deepEqual(c.incidents, { heapNearLimit: 85, cpu: 80, rss: 512 * MiB, cooldown: 60000 })
  assert.equal(envConfig({ io: JSON.stringify({ incidents: { eventLoopDelay: 100 } }) }).incidents.eventLoopDelay, 100)
  assert.equal(envConfig({}), null)
  assert.throws(() => envConfig({ CPROF_RECORDER: '0', CPROF_ON_CPU: '80' }), /incidents need the flight recorder/)
})

test('limits: the cgroup CPU quota and the old generation\'s limit', () => {
  const root = makeTmpDir()
  const put = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  put('proc/self/cgroup', '0::/app.slice\n')
  put('sys/fs/cgroup/app.slice/cpu.max', '50000 100000\n')
  assert.equal(cpuQuota(root), 0.5)
  put('sys/fs/cgroup/app.slice/cpu.max', 'max 100000\n')
  assert.equal(cpuQuota(root), null)
  put('proc/self/cgroup', '5:cpu,cpuacct:/docker/x\n')
  put('sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_quota_us', '150000')
  put('sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_period_us', '100000')
  assert.equal(cpuQuota(root), 1.5)
  assert.equal(cpuQuota(path.join(root, 'none')), null)

  // heap_size_limit = old generation + 3 semi-spaces (measured per Node major).
  assert.equal(oldGenerationLimit({ argv: ['--max-old-space-size=96'], major: 20, heapSizeLimit: 144 * MiB }), 96 * MiB)
  assert.equal(oldGenerationLimit({ argv: [], nodeOptions: '--max_old_space_size 96', major: 24, heapSizeLimit: 288 * MiB }), 96 * MiB)
  assert.equal(oldGenerationLimit({ argv: [], major: 26, heapSizeLimit: 4192 * MiB }), 4096 * MiB)
  assert.equal(oldGenerationLimit({ argv: ['--max-semi-space-size=64'], major: 20, heapSizeLimit: 1192 * MiB }), 1000 * MiB)
  assert.equal(oldGenerationLimit({ argv: [], major: 99, heapSizeLimit: 4288 * MiB }), 4096 * MiB, 'unknown: the largest reserve')
})

test('cooldown 0 and maxPerHour 2: three stalls fire twice, the third is counted as suppressed', async () => {
  const { createIncidents } = require('../../../lib/incidents/index.js')
  const { incidentsOption } = require('../../../lib/incidents/options.js')
  const dumps = []
  const errors = []
  const inc = createIncidents({
    recorder: { dump: async (o, extra) => { dumps.push({ o, extra }) }, recordsHeap: () => false },
    heap: {},
    report: (err) => errors.push(err)
  })
  const dir = makeTmpDir()
  // Stalls far over the threshold, and a threshold far over the pauses a
  // loaded machine (or a GC under ASan) gives this process.
  inc.start(incidentsOption({ eventLoopDelay: 250, cooldown: 0, maxPerHour: 2, last: 5000 }), { dir, formats: ['pprof'] })
  try {
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 150))
      const end = Date.now() + 500
      while (Date.now() < end); // a stall of 500 ms
      await new Promise((resolve) => setTimeout(resolve, 150))
    }
  } finally {
    inc.stop()
  }
  assert.deepEqual(errors, [])
  assert.equal(dumps.length, 2)
  for (const { o, extra } of dumps) {
    assert.equal(o.dir, dir)
    assert.deepEqual(o.formats, ['pprof'])
    assert.equal(o.last, 5000)
    assert.match(o.name, /^cpu-incident-eventLoopDelay-\d+-/)
    assertReason(extra.reason, 'eventLoopDelay', 250)
  }
  const s = inc.status()
  assert.equal(s.fired, 2)
  assert.equal(s.suppressed, 1)
})

test('heapNearLimit: heap windows are dumped; else its own sampling is stopped with the reason; a heap.start() profile makes it fail with ERR_CPROF_BUSY, counted', async () => {
  const { createIncidents } = require('../../../lib/incidents/index.js')
  const { incidentsOption } = require('../../../lib/incidents/options.js')
  // Any process's old generation is above 0.05 % of its limit: fires at the first check.
  const o = incidentsOption({ heapNearLimit: 0.05, heapLowMark: 0.01 })
  const wait = () => new Promise((resolve) => setTimeout(resolve, 500))
  async function run ({ recordsHeap, userHeapProfile }) {
    const calls = []
    const errors = []
    let running = userHeapProfile
    const inc = createIncidents({
      recorder: { recordsHeap: () => recordsHeap, dump: async (opts, extra) => { calls.push(['dump', opts, extra]) } },
      heap: {
        isRunning: () => running,
        start: async (opts) => { calls.push(['start', opts]); running = true },
        stop: async (extra) => { calls.push(['stop', extra]); running = false }
      },
      report: (err) => errors.push(err)
    })
    inc.start(o, { heapInterval: 65536 })
    await wait()
    inc.stop()
    return { calls, errors, status: inc.status() }
  }
  let r = await run({ recordsHeap: true, userHeapProfile: false })
  assert.deepEqual(r.calls.map((c) => c[0]), ['dump'])
  assert.equal(r.calls[0][1].kind, 'heap')
  assert.match(r.calls[0][1].name, /^heap-incident-heapNearLimit-\d+-/)
  assertReason(r.calls[0][2].reason, 'heapNearLimit', 0.05)

  r = await run({ recordsHeap: false, userHeapProfile: false })
  assert.deepEqual(r.calls.map((c) => c[0]), ['start', 'stop'], 'jumped past both marks: starts, then writes')
  assert.equal(r.calls[0][1].interval, 65536)
  assertReason(r.calls[1][1].reason, 'heapNearLimit', 0.05)
  assert.deepEqual([r.status.fired, r.status.failed], [1, 0])

  r = await run({ recordsHeap: false, userHeapProfile: true })
  assert.deepEqual(r.calls, [], "the app's own heap profile is left alone")
  assert.equal(r.errors.length, 1)
  assertCprofError(r.errors[0], 'ERR_CPROF_BUSY')
  assert.deepEqual([r.status.fired, r.status.failed], [1, 1])
})

test('heap.stop() on a ~640 MiB heap pauses the app well over eventLoopDelay and fires nothing; a stall right after a stop fires with the stall\'s own length', () => {
  const { r } = runStall((d) => [['heapstop', d], { timeout: 180000 }], (run) => {
    const p = run.json.find((m) => m.profile && m.profile.reason)
    return p ? p.profile.reason.at : undefined
  })
  assert.equal(r.status, 0, r.describe())
  const [first, second] = r.json.filter((m) => m.stopMs !== undefined)
  // The case under test: the stop holds the event loop far longer than the threshold.
  // (eventLoopDelay: 100: a fast quiet machine's full GC of this heap: 262–374 ms)
  assert.ok(first.stopMs >= 150, `heap.stop() paused ${first.stopMs} ms: the heap is too small for this test`)
  assert.deepEqual(r.json.find((m) => m.afterStop).afterStop, { fired: 0, suppressed: 0, failed: 0, last: null },
    `cprof's own ${first.stopMs} ms pause is not the app's stall, and consumes no cooldown`)
  const profiles = r.json.filter((m) => m.profile && m.profile.reason)
  assert.equal(profiles.length, 1, r.describe())
  const { reason } = profiles[0].profile
  assertReason(reason, 'eventLoopDelay', 100)
  // 500 ms of app stall in the same gap as a stop of second.stopMs: the
  // value is the stall's, measured whole, without the stop's pause.
  assert.ok(reason.value >= 490 && reason.value < 500 + second.stopMs / 2,
    `value ${reason.value} for a 500 ms stall right after a ${second.stopMs} ms stop`)
  // The profile holds the stall (and the stop, under cprof's own frames):
  // stallingFunction's self time, or its caller's where V8 inlined it.
  const profile = JSON.parse(fs.readFileSync(profiles[0].profile.files.cpuprofile, 'utf8'))
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const stallUs = profile.samples.reduce((sum, id, i) =>
    ['stallingFunction', 'heapstop'].includes(byId.get(id).callFrame.functionName) ? sum + profile.timeDeltas[i] : sum, 0)
  assert.ok(stallUs >= 300_000, `stallingFunction: ${stallUs / 1000} ms self in ${profiles[0].profile.files.cpuprofile}`)
})

test('heap.snapshot() and a recorder dump hold the event loop longer than eventLoopDelay and fire nothing', () => {
  // Up to 3 runs: a gap of the machine's own (the process descheduled, a
  // GC under ASan) can cross 200 ms in one; cprof counting its own pauses
  // would fire in every run.
  let r, snapshotMs, afterPauses
  for (let attempt = 0; attempt < 3; attempt++) {
    r = runFixture('incident-app.js', ['snapshot', makeTmpDir()], { timeout: 120000 })
    assert.equal(r.status, 0, r.describe())
    snapshotMs = r.json.find((m) => m.snapshotMs !== undefined).snapshotMs
    afterPauses = r.json.find((m) => m.afterPauses).afterPauses
    if (afterPauses.fired === 0 && afterPauses.suppressed === 0) break
  }
  assert.ok(snapshotMs >= 300, `the snapshot took ${snapshotMs} ms: too short for this test`)
  assert.deepEqual(afterPauses, { fired: 0, suppressed: 0, failed: 0, last: null },
    `cprof's own ${snapshotMs} ms snapshot is not the app's stall`)
})

// One run of the heapwindows fixture, for the two tests after it.
let heapWindowsRun = null
function runHeapWindows () {
  if (!heapWindowsRun) heapWindowsRun = runFixture('incident-app.js', ['heapwindows', makeTmpDir()], { timeout: 120000 })
  return heapWindowsRun
}

test('heap windows over a ~320 MiB heap: each rotation\'s full GC holds the event loop over eventLoopDelay and fires nothing', (t) => {
  const r = runHeapWindows()
  assert.equal(r.status, 0, r.describe())
  const idleAt = r.json.findIndex((m) => m.idle)
  const idle = r.json[idleAt]
  // The case under test: a rotation paused the app over the threshold (200
  // ms). A fast, quiet machine can GC this heap quicker (Node 26: 231 ms
  // longest gap, over it; seen under 200 nowhere yet): then there is no case.
  if (idle.maxGap < 200) return t.skip(`the longest gap was ${idle.maxGap} ms: under the threshold, no case here`)
  const stalls = r.json.slice(0, idleAt).filter((m) => m.profile && m.profile.reason.trigger === 'eventLoopDelay')
  assert.deepEqual(stalls, [], `cprof's own rotations (${idle.ownMs} ms in 7 s) are not the app's stalls: ${r.describe()}`)
})

test('heap windows\' full GCs are cprof\'s CPU, not the app\'s: an idle app does not cross cpu: 25; a busy one still does', (t) => {
  const r = runHeapWindows()
  assert.equal(r.status, 0, r.describe())
  const idle = r.json.find((m) => m.idle)
  assert.deepEqual(idle.idle, { fired: 0, suppressed: 0, failed: 0, last: null },
    `cprof's own ${idle.ownMs} ms of rotations in 7 s idle fired: ${r.describe()}`)
  // What the trigger measured for the idle app (its timers, the recorder's
  // windows): all of cprof's own CPU taken out, the GCs' helper threads
  // after each call too (left in before: ~13 % of a core), and never more
  // than the process used (counting a call's wall time, as before, read a
  // loaded machine's idle app at -7 to -43 %).
  const { wallMs, processMs, ownMs } = idle.idleCpu
  const appPct = (processMs - ownMs) / wallMs * 100
  assert.ok(appPct >= -1 && appPct <= 8, `the idle app read ${appPct.toFixed(1)} % of a core: ` +
    `the process used ${Math.round(processMs)} ms in ${Math.round(wallMs)} ms, cprof's own ${Math.round(ownMs)} ms`)
  const cpu = r.json.filter((m) => m.profile && m.profile.reason.trigger === 'cpu')
  const { maxAppCpu } = r.json.find((m) => m.maxAppCpu !== undefined)
  if (cpu.length === 0 && maxAppCpu < 30) {
    // The rotations and other jobs left the app's threads under 30 % of a core.
    t.skip(`the app got at most ${maxAppCpu} % of one core beside cprof's rotations`)
    return
  }
  assert.equal(cpu.length, 1, r.describe())
  assertReason(cpu[0].profile.reason, 'cpu', 25)
  assert.equal(cpuTop(JSON.parse(fs.readFileSync(cpu[0].profile.files.cpuprofile, 'utf8')))[0], 'busyFunction', r.describe())
})

test('own time: a full GC in a timed call is cprof\'s CPU with its helper threads\' work after the call, never more than the process used; the helpers are V8\'s pool, not the app\'s threads', () => {
  const r = runFixture('incident-app.js', ['owntime'], { execArgv: ['--expose-gc', '--v8-pool-size=2'], timeout: 60000 })
  assert.equal(r.status, 0, r.describe())
  const o = r.json.find((m) => m.helpers)
  assert.ok(!o.helpers.includes(o.main) && !o.helpers.includes(o.worker), r.describe())
  // Node 24+ names the pool's threads; Node 20 names none and Node 22.23
  // only the platform's delayed-task thread: there it, started just before
  // the pool, comes too.
  if (o.names.every((n) => /V8Worker$/.test(n))) assert.equal(o.helpers.length, 2, r.describe())
  else assert.deepEqual(o.names.map((n) => n === 'DelayedTaskSche' ? 'node' : n), ['node', 'node', 'node'], r.describe())
  // The process did nothing else in that second but its timers.
  assert.ok(o.ownMs <= o.processMs + 1 && o.ownMs >= 0.85 * o.processMs,
    `cprof's own ${o.ownMs} ms of the process's ${o.processMs} ms`)
})

test('a crossing the cooldown suppresses is told: in the next firing\'s reason and stderr line, and in cprof ps', async () => {
  const runDir = makeTmpDir()
  let c, out, lines, said, dir
  for (let attempt = 0; attempt < 3; attempt++) {
    dir = makeTmpDir()
    c = startFixture('incident-app.js', ['suppressed'], {
      env: {
        NODE_OPTIONS: `-r ${REGISTER}`,
        CPROF_ON_EVENT_LOOP_DELAY: '200',
        CPROF_ON_COOLDOWN: '3000',
        CPROF_RECORDER_WINDOW: '1000',
        CPROF_DIR: dir,
        CPROF_RUN_DIR: runDir
      }
    })
    try {
      await c.waitForLine((l) => l.includes('"stalled"'), 90000)
      const cli = (args) => spawnSync(process.execPath, [CLI, 'ps', ...args], {
        encoding: 'utf8', env: { ...process.env, CPROF_RUN_DIR: runDir }
      })
      out = { json: cli(['--json']), text: cli([]) }
    } finally {
      c.child.kill()
    }
    const done = await c.exited
    lines = done.stderr.split('\n').filter((l) => l.startsWith('cprof: wrote'))
    said = done.stderr.split('\n').filter((l) => / suppressed by the cooldown /.test(l))
    const stalls = done.json.filter((m) => m.stallAt)
    // The machine stalled the process itself before the first stall: again.
    if (lines.length === 2 && stalls.length === 4) break
  }
  assert.equal(lines.length, 2, lines.join('\n'))
  assert.match(lines[0], /incident eventLoopDelay: \d+ >= 200\)$/, 'nothing suppressed before the first')
  assert.match(lines[1], /incident eventLoopDelay: \d+ >= 200; 1 earlier crossing suppressed \(cooldown, maxPerHour\)\)$/)
  assert.equal(out.json.status, 0, out.json.stderr)
  const entry = JSON.parse(out.json.stdout.trim().split('\n').find((l) => l.includes(`"pid":${c.child.pid}`)))
  const by = entry.recorder.incidents.suppressedBy.eventLoopDelay
  assert.deepEqual(entry.recorder.incidents, { fired: 2, suppressed: 2, failed: 0, suppressedBy: { eventLoopDelay: by } })
  assert.deepEqual({ count: by.count, cooldown: by.cooldown, maxPerHour: by.maxPerHour, warmup: by.warmup }, { count: 2, cooldown: 2, maxPerHour: 0, warmup: 0 })
  assert.ok(by.largest >= 500 && by.largest < 1000, `largest suppressed ${by.largest} ms`)
  const clock = new Date(by.at).toISOString().slice(11, 19)
  assert.match(out.text.stdout, new RegExp(`^\\s*${c.child.pid}\\s.*recorder\\(\\d+w\\),incidents\\(2 fired, 2 suppressed, largest eventLoopDelay ${by.largest} ms at ${clock} UTC\\)`, 'm'), out.text.stdout)
  // One line per cooldown, when its first crossing is suppressed.
  assert.equal(said.length, 2, said.join('\n'))
  for (const l of said) assert.match(l, /^cprof: incident eventLoopDelay \d+ ms suppressed by the cooldown of the one at \d\d:\d\d:\d\d UTC \(\d+ ms\) until \d\d:\d\d:\d\d UTC; \d+ ms or more fires anyway/)
})

// The escalate fixture's run, again when the machine stalled the process
// before its first stall (up to 3 times).
function runEscalate () {
  return runStall((d) => [['escalate', d], { timeout: 120000 }], (run) => {
    const p = run.json.find((m) => m.profile)
    return p ? p.profile.reason.at : undefined
  })
}

test('a crossing escalate (2) times the one that fired goes through the cooldown; a smaller one is counted with its largest value and said once', () => {
  const { r, dir } = runEscalate()
  assert.equal(r.status, 0, r.describe())
  const reasons = r.json.filter((m) => m.profile).map((m) => m.profile.reason)
  assert.equal(reasons.length, 2, r.describe())
  assert.equal(reasons[0].escalated, undefined)
  assert.equal(reasons[1].escalated, true)
  assert.ok(reasons[1].value >= 2 * reasons[0].value, `${reasons[1].value} >= 2 x ${reasons[0].value}`)
  assert.ok(reasons[1].value >= 1500, 'the 1500 ms stall fired')
  assert.equal(files(dir, 'cpuprofile').length, 2)
  const { incidents } = r.json.find((m) => m.status).status
  const by = incidents.suppressedBy.eventLoopDelay
  assert.ok(by.cooldown >= 1 && by.largest >= 400 && by.largest < 2 * reasons[1].value, JSON.stringify(by))
  const said = r.stderr.split('\n').filter((l) => / suppressed by the cooldown /.test(l))
  assert.equal(said.length, 1, r.stderr)
  assert.match(said[0], new RegExp(`\\(${reasons[1].value} ms\\) until .*; ${2 * reasons[1].value} ms or more fires anyway`))
})

test('warm-up: a stall under 2x the threshold in the first warmup ms is counted, not written; the same stall after it fires', () => {
  const { r } = runStall((d) => [['warmup', d], { timeout: 120000 }], (run) => {
    const p = run.json.find((m) => m.profile)
    return p ? p.profile.reason.at : undefined
  })
  assert.equal(r.status, 0, r.describe())
  const stalls = r.json.filter((m) => m.stallAt)
  const { warmupMs } = r.json.find((m) => m.warmupMs)
  assert.ok(stalls[0].uptime < warmupMs && stalls[1].uptime >= warmupMs, JSON.stringify({ warmupMs, stalls }))
  const profiles = r.json.filter((m) => m.profile)
  assert.equal(profiles.length, 1, r.describe())
  assert.ok(profiles[0].profile.reason.at >= stalls[1].stallAt, 'the stall after the warm-up fired')
  const { incidents } = r.json.find((m) => m.status).status
  assert.ok(incidents.suppressedBy.eventLoopDelay.warmup >= 1, JSON.stringify(incidents))
  assert.equal(profiles[0].profile.reason.suppressed, 0, 'the reason counts what the cooldown or the cap hid, not the warm-up')
  assert.doesNotMatch(r.stderr, /suppressed/, 'the warm-up is counted, not said')
})

test('settings that can never fire are refused at start: heapGrowth longer than the heap trend spans', () => {
  const { initConfig } = require('../../../lib/triggers/config')
  assert.throws(() => envConfig({ CPROF_RECORDER: '1', CPROF_ON_HEAP_GROWTH: '1,1', CPROF_RECORDER_HEAP_WINDOW: '4000', CPROF_RECORDER_WINDOW: '4000' }),
    (err) => err.code === 'ERR_CPROF_INVALID_ARG' && /minutes \(1\) can never be reached: .* 14 heap windows of 4 s .*trendWindows to 16 or more/.test(err.message))
  assert.throws(() => initConfig({ incidents: { heapGrowth: { minutes: 15 } } }), /can never be reached/, '15 min > 14 windows of 60 s')
  assert.equal(initConfig({ incidents: { heapGrowth: { minutes: 14 } } }).incidents.heapGrowth.minutes, 14)
  assert.equal(initConfig({ incidents: { heapGrowth: { minutes: 15 } }, recorder: { trendWindows: 16 } }).incidents.heapGrowth.minutes, 15)
  const d = initConfig({ incidents: { eventLoopDelay: 200 } }).incidents
  assert.deepEqual([d.escalate, d.warmup], [2, 5000], 'the documented defaults')
  assert.throws(() => initConfig({ incidents: { eventLoopDelay: 200, escalate: 0.5 } }), /incidents.escalate must be/)
  assert.equal(initConfig({ incidents: { eventLoopDelay: 200, escalate: false } }).incidents.escalate, 0)
})

'use strict'

// CPU profiles end to end: what a user gets back from start/stop and
// profile(), the file on disk, and whether the hot functions are found.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')

const cprof = require('../../..')
const { assertCpuProfileSchema } = require('../helpers/schema.js')
const {
  DEFAULT_NAME_RE,
  makeTmpDir,
  removeTmpDirs,
  burnCpu,
  fileMode
} = require('../helpers/util.js')
const { FIXTURES, runFixture } = require('../helpers/util.js').fixturesIn(__dirname)

after(removeTmpDirs)

// No test may hang the suite: each has a time limit (a failure, not a timing check).
const test = (name, fn) => nodeTest(name, { timeout: 40000 }, fn)

const WORKLOAD = path.join(FIXTURES, 'workload.js')

// The 1-based line of `function <name>` in a source file.
function declarationLine (file, name) {
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  const i = lines.findIndex((l) => l.startsWith(`function ${name} `))
  assert.ok(i >= 0, `${name} is declared in ${file}`)
  return i + 1
}

function assertSpecial (s, what) {
  assert.equal(typeof s, 'object', `summary.${what} is an object`)
  assert.equal(typeof s.self, 'number')
  assert.ok(s.self >= 0, `summary.${what}.self >= 0`)
  assert.equal(typeof s.percent, 'number')
  assert.ok(s.percent >= 0 && s.percent <= 100, `summary.${what}.percent in 0..100`)
}

// Checks the summary's shape and internal consistency.
function assertSummaryShape (summary) {
  assert.equal(summary.unit, 'ms')
  assert.equal(typeof summary.total, 'number')
  assert.ok(Number.isFinite(summary.total) && summary.total > 0, 'summary.total > 0')
  assert.ok(Array.isArray(summary.top), 'summary.top is an array')
  assert.ok(summary.top.length > 0 && summary.top.length <= 20, `top has 1..20 entries, got ${summary.top.length}`)
  let prev = Infinity
  for (const e of summary.top) {
    const where = `top entry ${JSON.stringify(e)}`
    assert.equal(typeof e.functionName, 'string', where)
    assert.equal(typeof e.url, 'string', where)
    assert.ok(Number.isInteger(e.line) && e.line >= 0, `${where}: line is a 1-based integer or 0`)
    assert.ok(Number.isInteger(e.column) && e.column >= 0, `${where}: column is a 1-based integer or 0`)
    for (const k of ['self', 'total', 'selfPercent', 'totalPercent']) {
      assert.equal(typeof e[k], 'number', `${where}: ${k} is a number`)
      assert.ok(Number.isFinite(e[k]) && e[k] >= 0, `${where}: ${k} >= 0`)
    }
    assert.ok(e.selfPercent <= 100 + 1e-9 && e.totalPercent <= 100 + 1e-9, `${where}: percents <= 100`)
    assert.ok(e.self <= e.total + 1e-9, `${where}: self <= total`)
    assert.ok(e.total <= summary.total + 1e-9, `${where}: total <= summary.total`)
    assert.ok(Math.abs(e.selfPercent - (e.self * 100) / summary.total) < 1e-6, `${where}: selfPercent`)
    assert.ok(Math.abs(e.totalPercent - (e.total * 100) / summary.total) < 1e-6, `${where}: totalPercent`)
    assert.ok(e.self <= prev, 'top is sorted by self, descending')
    prev = e.self
    assert.ok(!(e.url === '' && (e.functionName === '(root)' || e.functionName === '(idle)')),
      'top excludes (root) and (idle)')
  }
  assertSpecial(summary.gc, 'gc')
  assertSpecial(summary.idle, 'idle')
  assertSpecial(summary.program, 'program')
}

// Checks a stop()/profile() result and its file; returns the parsed file.
function assertResult (result, { dir, intervalUs = 10000, name } = {}) {
  assert.equal(result.kind, 'cpu')
  assert.equal(typeof result.files, 'object')
  const file = result.files.cpuprofile
  assert.equal(typeof file, 'string')
  assert.ok(path.isAbsolute(file), `files.cpuprofile is absolute: ${file}`)
  if (dir !== undefined) assert.equal(fs.realpathSync(path.dirname(file)), fs.realpathSync(dir), 'the file is in dir')
  const base = path.basename(file)
  if (name !== undefined) {
    assert.equal(base, `${name}.cpuprofile`)
  } else {
    const m = DEFAULT_NAME_RE.exec(base)
    assert.ok(m, `file name ${base} matches cpu-<pid>-<YYYYMMDDTHHMMSS.mmmZ>.cpuprofile`)
    assert.equal(Number(m[1]), process.pid)
  }
  assert.ok(fs.statSync(file).isFile())
  assert.equal(fileMode(file), 0o600, `file mode is 0600, got 0${fileMode(file).toString(8)}`)

  assert.equal(typeof result.startTime, 'number')
  assert.equal(typeof result.durationMs, 'number')
  assert.ok(result.durationMs > 0)
  assert.ok(Number.isInteger(result.samples) && result.samples > 0, `samples > 0, got ${result.samples}`)
  assert.equal(result.intervalUs, intervalUs)
  assertSummaryShape(result.summary)
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'))
  assertCpuProfileSchema(profile)
  assert.equal(profile.samples.length, result.samples, 'samples counts the samples in the file')

  // durationMs is the profile's span; summary.total is that span less the
  // time before the first sample, which no sample stands for (timing rule;
  // V8's sampler can take tens of ms to take it on a loaded machine).
  const spanMs = (profile.endTime - profile.startTime) / 1000
  assert.ok(Math.abs(result.durationMs - spanMs) <= 0.1 * spanMs,
    `durationMs ${result.durationMs} is within 10% of the file's span ${spanMs}`)
  const sampledMs = spanMs - Math.max(0, profile.timeDeltas[0]) / 1000
  const { total } = result.summary
  assert.ok(Math.abs(total - sampledMs) <= 0.1 * sampledMs,
    `summary.total ${total} ms is within 10% of the sampled time ${sampledMs} ms`)
  assert.ok(total <= result.durationMs + 1e-6, 'summary.total <= durationMs')
  return profile
}

test('start/stop: result shape, file name, modes, schema', async () => {
  const parent = makeTmpDir()
  const dir = path.join(parent, 'profiles', 'nested') // absent: cprof creates it
  const before = Date.now()
  await cprof.start({ dir })
  const started = Date.now()
  burnCpu(500)
  const result = await cprof.stop()

  assertResult(result, { dir })
  assert.equal(fileMode(dir), 0o700, `created dir mode is 0700, got 0${fileMode(dir).toString(8)}`)
  assert.ok(result.startTime >= before - 1000 && result.startTime <= started + 1000,
    `startTime ${result.startTime} is when start() ran (${before}..${started})`)
  assert.ok(result.durationMs >= 400, `durationMs ${result.durationMs} covers the 500 ms workload`)
  // The timestamp in the default name is close to the profile's time.
  const stamp = DEFAULT_NAME_RE.exec(path.basename(result.files.cpuprofile))[2]
  const iso = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13)}`
  const t = Date.parse(iso)
  assert.ok(Number.isFinite(t), `timestamp ${stamp} parses`)
  assert.ok(t >= result.startTime - 2000 && t <= result.startTime + result.durationMs + 2000,
    `timestamp ${stamp} is within the profile's time`)
  // The workload function shows up.
  assert.ok(result.summary.top.some((e) => e.functionName === 'burnCpu'), 'burnCpu is in the top table')
})

// V8 samples while Profiler.start runs (it takes milliseconds), so without
// care a profile's first samples are cprof's own start call (dispatch <-
// nativeStart <- start). Those are dropped, from the file and the summary
// alike; at a 100 µs interval V8 always takes some there.
test("cprof's own start call is not in the profile", async () => {
  const dir = makeTmpDir()
  const lib = pathToFileURL(path.join(__dirname, '..', '..', '..', 'lib')).href + '/'
  await cprof.start({ dir, interval: 100 })
  burnCpu(600)
  const result = await cprof.stop()
  const p = JSON.parse(fs.readFileSync(result.files.cpuprofile, 'utf8'))
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id)
  const stack = (id) => {
    const frames = []
    for (let i = id; i !== undefined; i = parent.get(i)) frames.push(byId.get(i).callFrame)
    return frames
  }
  const own = (id) => stack(id).some((f) => f.url.startsWith(lib))
  assert.ok(p.samples.length > 10)
  assert.equal(own(p.samples[0]), false,
    `the first sample is not cprof's: ${stack(p.samples[0]).map((f) => f.functionName).join(' <- ')}`)
  // The file and the result agree: same samples, same total.
  assert.equal(p.samples.length, result.samples)
  assert.equal(p.timeDeltas.length, result.samples)
  const again = await cprof.analyze(result.files.cpuprofile)
  assert.equal(again.summary.total, result.summary.total)
  assert.equal(again.durationMs, result.durationMs, 'startTime and endTime are V8\'s')
  // Samples keep their times: the first kept one is still after startTime.
  assert.ok(p.timeDeltas[0] > 0)
  // positionTicks and the rest of V8's text come through.
  assert.ok(p.nodes.some((n) => Array.isArray(n.positionTicks)), 'positionTicks kept')
})

test('an existing dir is used as it is', async () => {
  const dir = makeTmpDir()
  fs.chmodSync(dir, 0o755)
  await cprof.start({ dir })
  burnCpu(200)
  const result = await cprof.stop()
  assertResult(result, { dir })
  assert.equal(fileMode(dir), 0o755, 'an existing dir keeps its mode')
})

test('stop({ dir }) and heap.stop({ dir }) write into dir, not where start() would have', async () => {
  const first = makeTmpDir()
  const dir = makeTmpDir()
  await cprof.start({ dir: first })
  burnCpu(200)
  const result = await cprof.stop({ dir })
  assertResult(result, { dir })
  await cprof.heap.start({ dir: first })
  const heap = await cprof.heap.stop({ dir })
  assert.equal(path.dirname(heap.files.heapprofile), dir)
  assert.deepEqual(fs.readdirSync(first), [], 'nothing in the start() directory')
  await assert.rejects(cprof.stop({ dir: 3 }), { code: 'ERR_CPROF_INVALID_ARG' })
})

test('interval option is used and reported', async () => {
  const dir = makeTmpDir()
  await cprof.start({ dir, interval: 1000 })
  burnCpu(1000)
  const result = await cprof.stop()
  assertResult(result, { dir, intervalUs: 1000 })
  // The gaps between samples show the interval V8 used: the shortest
  // quarter are near 1 ms, where the default 10 ms could never go. (Counting
  // samples, or their median gap, would measure the machine: a starved
  // sampler thread on a loaded CI box takes one every 10-20 ms whatever the
  // interval, for much of a second.)
  const deltas = JSON.parse(fs.readFileSync(result.files.cpuprofile, 'utf8')).timeDeltas.slice(1).sort((a, b) => a - b)
  assert.ok(deltas.length >= 20, `${deltas.length} samples in 1 s of busy CPU`)
  const quartile = deltas[deltas.length >> 2]
  assert.ok(quartile < 5000, `first quartile of the gaps ${quartile} µs < 5000 µs at a 1 ms interval`)
})

test('name option sets the file stem', async () => {
  const dir = makeTmpDir()
  await cprof.start({ dir, name: 'checkout-slow' })
  burnCpu(200)
  const result = await cprof.stop()
  assertResult(result, { dir, name: 'checkout-slow' })
})

test("'profile' event receives the same result as stop()", async () => {
  const dir = makeTmpDir()
  const events = []
  const onProfile = (r) => events.push(r)
  cprof.on('profile', onProfile)
  try {
    await cprof.start({ dir })
    burnCpu(200)
    const result = await cprof.stop()
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(events.length, 1, 'one profile event')
    assert.deepEqual(events[0], result)
  } finally {
    cprof.off('profile', onProfile)
  }
})

test('profile({ duration }) starts, waits and stops', async (t) => {
  const dir = makeTmpDir()
  // Keeps the process alive and busy while profile() waits on its timer; a
  // hung profile() must not hang the file (the test's time limit aborts it).
  const busy = setInterval(() => burnCpu(20), 25)
  t.signal.addEventListener('abort', () => clearInterval(busy))
  let result
  try {
    result = await cprof.profile({ duration: 500, dir })
  } finally {
    clearInterval(busy)
  }
  assertResult(result, { dir })
  assert.ok(result.durationMs >= 400, `durationMs ${result.durationMs} covers the 500 ms duration`)
  // profile() leaves the profiler idle: start works again.
  await cprof.start({ dir })
  await cprof.stop()
})

test('default dir: $CPROF_DIR', () => {
  const tmp = makeTmpDir()
  const dir = path.join(tmp, 'from-env')
  const r = runFixture('default-dir.js', [], { env: { CPROF_DIR: dir } })
  assert.equal(r.status, 0, r.describe())
  const { result } = r.json.find((o) => o.result)
  assert.equal(fs.realpathSync(path.dirname(result.files.cpuprofile)), fs.realpathSync(dir))
  assert.equal(fileMode(dir), 0o700)
  assert.equal(fileMode(result.files.cpuprofile), 0o600)
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(result.files.cpuprofile, 'utf8')))
})

test('default dir: <os.tmpdir()>/cprof-<uid> when $CPROF_DIR is unset', () => {
  const tmp = makeTmpDir()
  const r = runFixture('default-dir.js', [], { env: { CPROF_DIR: undefined, TMPDIR: tmp } })
  assert.equal(r.status, 0, r.describe())
  const { result, tmpdir } = r.json.find((o) => o.result)
  assert.equal(tmpdir, tmp)
  const dir = path.join(tmp, `cprof-${process.geteuid()}`)
  assert.equal(path.dirname(result.files.cpuprofile), dir)
  assert.equal(fileMode(dir), 0o700)
  assert.ok(fs.existsSync(result.files.cpuprofile))
})

// hotLoop runs ~70% of the time and warmLoop ~30% (fixtures/workload.js).
function assertHotFunctions (result) {
  const top = result.summary.top
  const names = top.map((e) => e.functionName)
  const hot = top.find((e) => e.functionName === 'hotLoop')
  const warm = top.find((e) => e.functionName === 'warmLoop')
  assert.ok(hot, `hotLoop is in the top table: ${names.join(', ')}`)
  assert.ok(warm, `warmLoop is in the top table: ${names.join(', ')}`)
  assert.ok(names.indexOf('hotLoop') < 3, `hotLoop is in the top 3: ${names.join(', ')}`)
  assert.ok(hot.self > warm.self, `hotLoop self ${hot.self} > warmLoop self ${warm.self}`)
  assert.ok(hot.selfPercent > 30, `hotLoop has a large share: ${hot.selfPercent}%`)
  for (const [e, name] of [[hot, 'hotLoop'], [warm, 'warmLoop']]) {
    assert.ok(e.url.endsWith('workload.js'), `${name} url ${e.url}`)
    assert.equal(e.line, declarationLine(WORKLOAD, name), `${name} line is 1-based`)
    assert.ok(e.column > 0)
  }
}

test('hot functions: profiling from the start of the workload', () => {
  const dir = makeTmpDir()
  const r = runFixture('hot.js', [dir, '0', '1500'])
  assert.equal(r.status, 0, r.describe())
  const { result } = r.json.find((o) => o.result)
  assertHotFunctions(result)
})

test('hot functions: profiling a workload that is already running', () => {
  const dir = makeTmpDir()
  const r = runFixture('hot.js', [dir, '700', '1500'])
  assert.equal(r.status, 0, r.describe())
  const { result } = r.json.find((o) => o.result)
  assertHotFunctions(result)
})

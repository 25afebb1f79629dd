'use strict'

// The heap profiler: the leak view against the GC-pressure view, the native
// numbers against an independent JS computation on the same .heapprofile,
// the written file, every error code, CPU and heap at once, timeout delivery,
// stackDepth, and heap.snapshot().

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFile } = require('node:child_process')

const cprof = require('../../..')
const {
  ROOT,
  makeTmpDir,
  removeTmpDirs,
  burnCpu,
  jsonLines,
  assertCprofError,
  assertCprofErrorInfo,
  fileMode
} = require('../helpers/util.js')
const { FIXTURES, runFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const {
  loadHeapProfile,
  walk,
  maxDepth,
  assertHeapProfileSchema,
  heapNodeSizes,
  heapSummary
} = require('../helpers/heap.js')

after(removeTmpDirs)

// No test may hang the file: each has a time limit (a failure, not a timing
// check), room for the heaviest (two profiled children and the analyses)
// under ASan on a loaded machine.
const test = (name, fn) => nodeTest(name, { timeout: 120000 }, fn)

// heap-<pid>-<YYYYMMDDTHHMMSS.mmmZ>.heapprofile
const HEAP_NAME_RE = /^heap-(\d+)-(\d{8}T\d{6}\.\d{3}Z)\.heapprofile$/
const SNAPSHOT_NAME_RE = /^heap-(\d+)-(\d{8}T\d{6}\.\d{3}Z)\.heapsnapshot$/
const SMALL_HEAPPROFILE = path.join(ROOT, 'test', 'fixtures', 'small.heapprofile')

async function rejectsWith (fn, code) {
  let err
  try {
    await fn()
  } catch (e) {
    err = e
  }
  assert.ok(err, `expected a rejection with ${code}`)
  assertCprofError(err, code)
  return err
}

// Runs a fixture without blocking this process (so several run at once).
function runFixtureAsync (name, args, { execArgv = [], env = {}, timeout = 25000 } = {}) {
  return new Promise((resolve) => {
    const childEnv = { ...process.env, ...env }
    delete childEnv.NODE_TEST_CONTEXT
    execFile(process.execPath, [...execArgv, path.join(FIXTURES, name), ...args],
      { encoding: 'utf8', timeout, env: childEnv, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const r = { status: error ? error.code : 0, signal: error ? error.signal : null, stdout, stderr }
        r.json = jsonLines(stdout || '')
        r.describe = () => `status=${r.status} signal=${r.signal}\n--- stdout\n${stdout.slice(0, 4000)}\n--- stderr\n${stderr}`
        resolve(r)
      })
  })
}

const merged = (r) => Object.assign({}, ...r.json)

// Allocations in a named function, kept for a moment so the leak view has
// something to show; returns what it made.
function allocateSome (n) {
  const out = []
  for (let i = 0; i < n; i++) out.push({ i, label: 'obj-' + i, vals: [i, i + 1, i + 2] })
  return out
}

// Keeps the process alive and allocating while a timer-driven profile waits.
function allocateWhileWaiting (t) {
  const kept = []
  const timer = setInterval(() => { kept[0] = allocateSome(2000) }, 10)
  const stop = () => { clearInterval(timer); kept.length = 0 }
  t.signal.addEventListener('abort', stop)
  return stop
}

// Native numbers (analyze with nodes: true, and a result's summary) against
// the JS computation on the same file.
async function assertNumbersMatch (file, result) {
  const profile = loadHeapProfile(file)
  const sizes = heapNodeSizes(profile)
  const ref = heapSummary(profile)

  const a = await cprof.analyze(file, { nodes: true })
  assert.equal(a.kind, 'heap')
  assert.equal(a.summary.unit, 'bytes')
  assert.equal(a.nodes.length, sizes.size, 'one entry per node of the tree')
  assert.equal(a.nodes[0].id, profile.head.id, 'nodes come in tree order, root first')
  const seen = new Set()
  for (const n of a.nodes) {
    const want = sizes.get(n.id)
    assert.ok(want, `analyze() reports node ${n.id}, which is not in the file`)
    assert.ok(!seen.has(n.id), `node ${n.id} is reported twice`)
    seen.add(n.id)
    assert.deepEqual({ id: n.id, self: n.self, total: n.total }, { id: n.id, ...want }, `node ${n.id}`)
  }
  let selfSum = 0
  for (const { node } of walk(profile)) selfSum += node.selfSize
  assert.equal(a.summary.total, selfSum, 'summary.total is the sum of every selfSize')
  assert.equal(ref.total, selfSum)
  assert.deepEqual(a.summary.top, ref.top, 'summary.top (default 20) equals the JS flat profile')

  // Every function, not just the first 20.
  const all = await cprof.analyze(file, { top: 100000 })
  assert.deepEqual(all.summary.top, ref.ranked, 'the whole flat profile equals the JS one')

  if (result) {
    assert.equal(result.summary.unit, 'bytes')
    assert.equal(result.summary.total, selfSum, 'the result total is the file\'s sum of selfSize')
    const inFile = new Set(ref.ranked.map(topKey))
    const strays = result.summary.top.filter((f) => !inFile.has(topKey(f)))
    assert.deepEqual(strays, [], 'every function of the result summary is in the written file')
    assert.deepEqual(result.summary.top, ref.top, 'the result summary matches its own file')
    // The file is cprof's export of what it parsed: V8's samples naming a
    // node it pruned are left out of it as of every count (droppedSamples).
    assertHeapProfileSchema(profile, { missingNodes: 0 })
    assert.equal(result.samples, profile.samples.length, 'result.samples counts the file\'s samples')
    assert.ok(Number.isInteger(result.droppedSamples) && result.droppedSamples >= 0, `droppedSamples ${result.droppedSamples}`)
  }
  return { profile, ref, analyzed: all }
}

function topKey (f) {
  return JSON.stringify([f.functionName, f.url, f.line, f.column])
}

function funcSelf (ranked, name) {
  return ranked.filter((f) => f.functionName === name).reduce((s, f) => s + f.self, 0)
}

// --- the two views -----------------------------------------------------------

test('leak view puts the retainer on top; includeCollected shows the churner as much', async () => {
  const liveDir = makeTmpDir()
  const allDir = makeTmpDir()
  // A small young generation leaves little uncollected garbage at stop.
  const execArgv = ['--max-semi-space-size=1']
  const [live, all] = await Promise.all([
    runFixtureAsync('heap-views.js', [liveDir, 'live'], { execArgv }),
    runFixtureAsync('heap-views.js', [allDir, 'all'], { execArgv })
  ])
  for (const [r, dir, includeCollected] of [[live, liveDir, false], [all, allDir, true]]) {
    assert.equal(r.status, 0, r.describe())
    const { result } = merged(r)
    assert.ok(result, r.describe())
    assert.equal(result.kind, 'heap')
    assert.equal(result.includeCollected, includeCollected)
    assert.equal(result.intervalBytes, 4096)
    assert.ok(result.samples > 1000, `enough samples at a 4 KiB interval: ${result.samples}`)
    assert.equal(path.dirname(result.files.heapprofile), dir)
    // The numbers of a real, large profile check out too.
    await assertNumbersMatch(result.files.heapprofile, result)
  }

  const liveResult = merged(live).result
  const liveRanked = (await cprof.analyze(liveResult.files.heapprofile, { top: 100000 })).summary.top
  assert.equal(liveResult.summary.top[0].functionName, 'retainer',
    `the leak view puts retainer on top: ${JSON.stringify(liveResult.summary.top.slice(0, 3))}`)
  const liveRetainer = funcSelf(liveRanked, 'retainer')
  const liveChurner = funcSelf(liveRanked, 'churner')
  assert.ok(liveChurner < 0.1 * liveRetainer,
    `churner is nearly absent from the leak view: churner ${liveChurner} B, retainer ${liveRetainer} B`)

  const allResult = merged(all).result
  const allRanked = (await cprof.analyze(allResult.files.heapprofile, { top: 100000 })).summary.top
  const allRetainer = funcSelf(allRanked, 'retainer')
  const allChurner = funcSelf(allRanked, 'churner')
  assert.ok(allRetainer > 0 && allChurner > 0, `both show: retainer ${allRetainer} B, churner ${allChurner} B`)
  assert.ok(allChurner >= 0.25 * allRetainer && allRetainer >= 0.25 * allChurner,
    `comparable self with includeCollected: retainer ${allRetainer} B, churner ${allChurner} B`)
  const topTwo = allResult.summary.top.slice(0, 2).map((f) => f.functionName).sort()
  assert.deepEqual(topTwo, ['churner', 'retainer'])
})

// --- the written file and the numbers ---------------------------------------

test('heap.stop(): result shape, file name, mode 0600, dir created 0700, schema, numbers', async () => {
  const base = makeTmpDir()
  const dir = path.join(base, 'nested', 'heap')
  await cprof.heap.start({ dir, interval: 1024 })
  const kept = allocateSome(20000)
  const r = await cprof.heap.stop()
  assert.ok(kept.length === 20000)

  assert.equal(r.kind, 'heap')
  assert.deepEqual(Object.keys(r.files), ['heapprofile'])
  assert.ok(path.isAbsolute(r.files.heapprofile))
  assert.equal(path.dirname(r.files.heapprofile), dir)
  const m = HEAP_NAME_RE.exec(path.basename(r.files.heapprofile))
  assert.ok(m, `default file name: ${path.basename(r.files.heapprofile)}`)
  assert.equal(Number(m[1]), process.pid)
  assert.equal(m[2], new Date(r.startTime).toISOString().replace(/[-:]/g, ''), 'the stamp is startTime')
  assert.ok(Math.abs(r.startTime - Date.now()) < 60000)
  assert.equal(typeof r.durationMs, 'number')
  assert.ok(r.durationMs >= 0)
  assert.equal(r.intervalBytes, 1024)
  assert.equal(r.includeCollected, false)
  assert.ok(Number.isInteger(r.samples) && r.samples > 0)
  assert.equal(r.summary.unit, 'bytes')
  assert.ok(r.summary.total > 0)
  assert.ok(r.summary.top.length > 0 && r.summary.top.length <= 20)
  for (const f of r.summary.top) {
    assert.notEqual(f.functionName, '(root)', '(root) is not in the top table')
    for (const k of ['line', 'column', 'self', 'selfPercent', 'total', 'totalPercent']) {
      assert.equal(typeof f[k], 'number', `${k} is a number`)
    }
    assert.ok(f.self <= f.total)
  }
  const names = r.summary.top.map((f) => f.functionName)
  assert.ok(names.includes('allocateSome'), `allocateSome is in the top table: ${names.join(', ')}`)

  assert.equal(fileMode(r.files.heapprofile), 0o600)
  assert.equal(fileMode(dir), 0o700, 'the dir is created 0700')
  assert.equal(fileMode(path.dirname(dir)), 0o700, 'and so are its missing parents')
  assert.deepEqual(fs.readdirSync(dir), [path.basename(r.files.heapprofile)], 'no temp file is left')

  const profile = loadHeapProfile(r.files.heapprofile)
  assert.ok(maxDepth(profile) > 3, 'the default stackDepth keeps deep stacks')
  await assertNumbersMatch(r.files.heapprofile, r) // the schema, no missing node, the numbers
})

test('analyze() on a real V8 .heapprofile whose samples name nodes missing from the tree', async () => {
  const profile = loadHeapProfile(SMALL_HEAPPROFILE)
  const ids = assertHeapProfileSchema(profile)
  const missing = profile.samples.filter((s) => !ids.has(s.nodeId)).length
  assert.ok(missing > 0, 'the fixture has samples naming missing nodes')
  const { analyzed } = await assertNumbersMatch(SMALL_HEAPPROFILE)
  assert.equal(analyzed.kind, 'heap')
  assert.equal(analyzed.samples, profile.samples.length - missing,
    'samples counts those naming a node of the tree')
  assert.equal(analyzed.droppedSamples, missing, 'droppedSamples counts the others')
  assert.equal(analyzed.durationMs, undefined)
  assert.equal(analyzed.summary.top[0].functionName, 'makeObjects')
})

// --- errors -----------------------------------------------------------------

test('heap.stop() with no heap profile running: ERR_CPROF_NOT_STARTED, even while CPU runs', async () => {
  await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_NOT_STARTED')
  const dir = makeTmpDir()
  await cprof.start({ dir })
  try {
    await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_NOT_STARTED')
  } finally {
    await cprof.stop()
  }
})

test('bad options: ERR_CPROF_INVALID_ARG, and nothing starts', async () => {
  const bad = [
    'a string',
    [],
    -1,
    NaN,
    { interval: 0 },
    { interval: 1.5 },
    { interval: 2 ** 30 + 1 },
    { interval: '4096' },
    { stackDepth: 0 },
    { stackDepth: 481 },
    { stackDepth: 2.5 },
    { includeCollected: 'yes' },
    { includeCollected: 1 },
    { forceGC: 'yes' },
    { forceGC: 0 },
    { timeout: -5 },
    { timeout: Infinity },
    { dir: '' },
    { dir: 42 },
    { name: 'a/b' },
    { name: '' },
    { bogus: true },
    { duration: 100 } // a profile() option, not a start() one
  ]
  for (const opts of bad) {
    const err = await rejectsWith(() => cprof.heap.start(opts), 'ERR_CPROF_INVALID_ARG')
    assert.ok(err.message.length > 10, `a useful message for ${JSON.stringify(opts)}: ${err.message}`)
    await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_NOT_STARTED')
  }
  for (const opts of [undefined, {}, { duration: 0 }, { duration: -1 }, { duration: 100, bogus: 1 },
    { duration: 100, interval: 0 }, 100]) {
    await rejectsWith(() => cprof.heap.profile(opts), 'ERR_CPROF_INVALID_ARG')
  }
  for (const opts of [{ bogus: 1 }, { name: '..' }, { dir: '' }, 'x']) {
    await rejectsWith(() => cprof.heap.snapshot(opts), 'ERR_CPROF_INVALID_ARG')
  }
  await rejectsWith(() => cprof.analyze(SMALL_HEAPPROFILE, { nodes: 'yes' }), 'ERR_CPROF_INVALID_ARG')
  await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_NOT_STARTED')

  // The edges of the ranges are accepted.
  const dir = makeTmpDir()
  await cprof.heap.start({ dir, interval: 2 ** 30, stackDepth: 480, includeCollected: true, timeout: 0 })
  const r = await cprof.heap.stop()
  assert.equal(r.intervalBytes, 2 ** 30)
  assert.equal(r.includeCollected, true)
  await cprof.heap.start({ dir, interval: 1, stackDepth: 1 })
  const r1 = await cprof.heap.stop()
  assert.equal(r1.intervalBytes, 1)
  assert.ok(maxDepth(loadHeapProfile(r1.files.heapprofile)) <= 1)
})

// Node >= 26 has v8.startHeapProfile: cprof samples through it, and its
// stop runs a full GC only on request. The inspector's stop always runs one.
// CPROF_TRANSPORT (test:asan's inspector pass on Node >= 26) keeps the inspector.
const V8_HEAP_API = typeof require('node:v8').startHeapProfile === 'function' && !process.env.CPROF_TRANSPORT

test('forceGC: the result says whether stop ran a full GC (gcAtStop)', async () => {
  const dir = makeTmpDir()
  for (const forceGC of [undefined, false, true]) {
    await cprof.heap.start({ dir, interval: 1024, forceGC })
    const kept = allocateSome(20000)
    const r = await cprof.heap.stop()
    assert.ok(kept.length === 20000)
    assert.equal(r.gcAtStop, forceGC === true || !V8_HEAP_API, `forceGC ${forceGC} on ${process.version}`)
    assert.ok(r.samples > 0)
    const names = r.summary.top.map((f) => f.functionName)
    assert.ok(names.includes('allocateSome'), `allocateSome is in the top table: ${names.join(', ')}`)
    assertHeapProfileSchema(loadHeapProfile(r.files.heapprofile), { missingNodes: 0 })
  }
})

test('CPROF_TRANSPORT set: heap sampling goes through the inspector, whose stop runs a full GC', async () => {
  const dir = makeTmpDir()
  const script = `const c = require(${JSON.stringify(ROOT)});
    c.heap.start({ dir: ${JSON.stringify(dir)}, interval: 1024 }).then(async () => {
      const kept = []; for (let i = 0; i < 20000; i++) kept.push({ i })
      const r = await c.heap.stop(); console.log(JSON.stringify({ gc: r.gcAtStop, samples: r.samples, n: kept.length }))
    })`
  for (const transport of ['session', 'connection']) {
    const out = await new Promise((resolve, reject) => execFile(process.execPath, ['-e', script],
      { env: { ...process.env, CPROF_TRANSPORT: transport } },
      (err, stdout, stderr) => err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)))
    const r = JSON.parse(out)
    assert.equal(r.gc, true, transport)
    assert.ok(r.samples > 0, transport)
  }
})

nodeTest('Node >= 26: another heap sampler running: ERR_CPROF_INSPECTOR, and the other keeps its profile',
  { skip: !V8_HEAP_API && 'needs v8.startHeapProfile (Node >= 26)', timeout: 30000 }, async () => {
    const inspector = require('node:inspector')
    const session = new inspector.Session()
    session.connect()
    const post = (method, params) => new Promise((resolve, reject) =>
      session.post(method, params, (err, res) => err ? reject(err) : resolve(res)))
    try {
      await post('HeapProfiler.startSampling', { samplingInterval: 1024 })
      const err = await rejectsWith(() => cprof.heap.start({ dir: makeTmpDir() }), 'ERR_CPROF_INSPECTOR')
      assert.match(err.message, /another heap profiler/)
      const kept = allocateSome(5000)
      const { profile } = await post('HeapProfiler.stopSampling')
      assert.ok(kept.length === 5000 && profile.samples.length > 0, 'the other profiler still has its samples')
      await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_NOT_STARTED')
    } finally {
      session.disconnect()
    }
  })

test('heap.start() twice: ERR_CPROF_BUSY, and the first still stops fine', async () => {
  const dir = makeTmpDir()
  await cprof.heap.start({ dir, interval: 2048 })
  let r
  try {
    await rejectsWith(() => cprof.heap.start({ dir }), 'ERR_CPROF_BUSY')
    await rejectsWith(() => cprof.heap.start(1000), 'ERR_CPROF_BUSY')
    await rejectsWith(() => cprof.heap.profile({ duration: 100, dir }), 'ERR_CPROF_BUSY')
    allocateSome(5000)
  } finally {
    r = await cprof.heap.stop()
  }
  assert.equal(r.kind, 'heap')
  assert.equal(r.intervalBytes, 2048, 'the result is the first profile\'s')
  assert.ok(fs.existsSync(r.files.heapprofile))
  assertHeapProfileSchema(loadHeapProfile(r.files.heapprofile))
  await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_NOT_STARTED')
})

test('a dir that cannot be created: heap.stop() rejects with ERR_CPROF_IO carrying the summary', async () => {
  const tmp = makeTmpDir()
  const regularFile = path.join(tmp, 'a-file')
  fs.writeFileSync(regularFile, 'not a directory\n')
  const dir = path.join(regularFile, 'x') // ENOTDIR
  await cprof.heap.start({ dir, interval: 1024 })
  const kept = allocateSome(10000)
  const err = await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_IO')
  assert.equal(kept.length, 10000)
  assert.ok(err.result, 'err.result is set')
  assert.equal(err.result.kind, 'heap')
  assert.ok(!err.result.files || err.result.files.heapprofile === undefined, 'no file is reported')
  assert.equal(err.result.summary.unit, 'bytes')
  assert.ok(err.result.summary.total > 0)
  assert.ok(err.result.summary.top.length > 0)
  assert.ok(err.result.samples > 0)
  assert.equal(fs.readFileSync(regularFile, 'utf8'), 'not a directory\n', 'the file is untouched')
  await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_NOT_STARTED')
})

test('a write that fails midway (ulimit -f): ERR_CPROF_IO and no file left under the final name', () => {
  const dir = makeTmpDir()
  const r = runFixture('heap-io.js', [dir], { shell: 'ulimit -f 1' })
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.unexpectedResult, undefined, `the write should have failed: ${r.describe()}`)
  assertCprofErrorInfo(out.error, 'ERR_CPROF_IO')
  assert.ok(out.error.result && out.error.result.summary, 'err.result.summary is set')
  assert.equal(out.error.result.kind, 'heap')
  assert.ok(!out.error.result.files || out.error.result.files.heapprofile === undefined)
  assert.equal(out.stopAgain.code, 'ERR_CPROF_NOT_STARTED')
  assert.equal(out.alive, 20000)
  assert.deepEqual(fs.readdirSync(dir), [], 'neither a partial file nor a temp file is left')
})

// --- running with CPU, profile(), timeouts ----------------------------------

test('CPU and heap profiles run at the same time, each into its own file', async () => {
  const dir = makeTmpDir()
  await cprof.start({ dir, interval: 1000 })
  await cprof.heap.start({ dir, interval: 2048 })
  await rejectsWith(() => cprof.start({ dir }), 'ERR_CPROF_BUSY')
  await rejectsWith(() => cprof.heap.start({ dir }), 'ERR_CPROF_BUSY')
  let kept
  for (let i = 0; i < 5; i++) {
    burnCpu(40)
    kept = allocateSome(5000)
  }
  const [cpu, heap] = await Promise.all([cprof.stop(), cprof.heap.stop()])
  assert.equal(kept.length, 5000)
  assert.equal(cpu.kind, 'cpu')
  assert.equal(heap.kind, 'heap')
  assert.ok(cpu.files.cpuprofile.endsWith('.cpuprofile'))
  assert.ok(heap.files.heapprofile.endsWith('.heapprofile'))
  assert.ok(fs.existsSync(cpu.files.cpuprofile))
  assert.ok(fs.existsSync(heap.files.heapprofile))
  assert.equal(cpu.summary.unit, 'ms')
  assert.equal(heap.summary.unit, 'bytes')
  assert.ok(cpu.summary.top.some((f) => f.functionName === 'burnCpu'), 'the CPU profile sees burnCpu')
  assert.ok(heap.summary.top.some((f) => f.functionName === 'allocateSome'), 'the heap profile sees allocateSome')
  assert.ok(Array.isArray(loadHeapProfile(heap.files.heapprofile).samples))
  assert.ok(Array.isArray(JSON.parse(fs.readFileSync(cpu.files.cpuprofile, 'utf8')).nodes))
  await rejectsWith(() => cprof.stop(), 'ERR_CPROF_NOT_STARTED')
  await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_NOT_STARTED')
})

test('heap.profile({ duration, ...options }) starts, waits and stops, emitting \'profile\'', async (t) => {
  const dir = makeTmpDir()
  const events = []
  const onProfile = (r) => events.push(r)
  cprof.on('profile', onProfile)
  const stopAllocating = allocateWhileWaiting(t)
  let r
  try {
    r = await cprof.heap.profile({ duration: 400, dir, name: 'named', interval: 4096, includeCollected: true })
  } finally {
    stopAllocating()
    cprof.off('profile', onProfile)
  }
  assert.equal(r.kind, 'heap')
  assert.equal(r.files.heapprofile, path.join(dir, 'named.heapprofile'))
  assert.equal(fileMode(r.files.heapprofile), 0o600)
  assert.equal(r.includeCollected, true)
  assert.equal(r.intervalBytes, 4096)
  assert.ok(r.durationMs >= 350, `about the duration: ${r.durationMs} ms`)
  assert.ok(r.summary.top.some((f) => f.functionName === 'allocateSome'))
  assert.equal(events.length, 1, 'one \'profile\' event')
  assert.deepEqual(events[0], r)
  await rejectsWith(() => cprof.heap.stop(), 'ERR_CPROF_NOT_STARTED')
})

test('a timed heap profile is delivered through the \'profile\' event (kind heap)', async () => {
  const dir = makeTmpDir()
  const envDir = makeTmpDir()
  const [obj, num] = await Promise.all([
    runFixtureAsync('heap-timeout.js', ['object', '300', dir]),
    runFixtureAsync('heap-timeout.js', ['number', '300'], { env: { CPROF_DIR: envDir } })
  ])
  for (const [r, where] of [[obj, dir], [num, envDir]]) {
    assert.equal(r.status, 0, r.describe())
    const out = merged(r)
    assert.equal(out.fatal, undefined, r.describe())
    assert.equal(out.errorEvent, undefined, r.describe())
    assert.equal(out.started, true)
    const ev = out.event
    assert.ok(ev, r.describe())
    assert.equal(ev.kind, 'heap')
    assert.equal(path.dirname(ev.files.heapprofile), where, 'start(timeoutMs) writes to $CPROF_DIR')
    assert.match(path.basename(ev.files.heapprofile), HEAP_NAME_RE)
    assert.ok(ev.durationMs >= 250, `stopped after about the timeout: ${ev.durationMs} ms`)
    assert.equal(ev.summary.unit, 'bytes')
    assert.ok(ev.summary.top.some((f) => f.functionName === 'allocateSome'), r.describe())
    assertCprofErrorInfo(out.stopAfter, 'ERR_CPROF_NOT_STARTED')
    assertHeapProfileSchema(loadHeapProfile(ev.files.heapprofile))
  }
})

test('a process with a pending timed heap profile exits on its own with code 0', async () => {
  const dir = makeTmpDir()
  const profDir = makeTmpDir()
  const t0 = Date.now()
  const [start, profile] = await Promise.all([
    runFixtureAsync('heap-pending.js', ['start', dir], { timeout: 15000 }),
    runFixtureAsync('heap-pending.js', ['profile', profDir], { timeout: 15000 })
  ])
  const elapsed = Date.now() - t0
  for (const r of [start, profile]) {
    assert.equal(r.status, 0, r.describe())
    assert.equal(r.signal, null, r.describe())
    assert.equal(merged(r).fatal, undefined, r.describe())
  }
  assert.ok(elapsed < 14000, `did not wait for the 60 s timeout (${elapsed} ms)`)
  // heap.start({ timeout }): the timer does not hold the process; nothing is written.
  assert.equal(merged(start).pending, 'start', start.describe())
  assert.deepEqual(fs.readdirSync(dir), [])
  // An un-awaited heap.profile() holds it until the profile is written.
  const out = merged(profile)
  assert.equal(out.pending, 'profile', profile.describe())
  assert.equal(out.profileError, undefined, profile.describe())
  assert.ok(out.profiled, `the profile was written before exit: ${profile.describe()}`)
  assert.equal(path.dirname(out.profiled), profDir)
  assert.ok(fs.existsSync(out.profiled))
})

// --- stackDepth ---------------------------------------------------------------

// A call chain whose innermost function allocates.
function leafAlloc (n) {
  const out = []
  for (let i = 0; i < n; i++) out.push({ i, s: 'leaf-' + i, a: [i, i] })
  return out
}
function chainF (n) { return leafAlloc(n) }
function chainE (n) { return chainF(n) }
function chainD (n) { return chainE(n) }
function chainC (n) { return chainD(n) }
function chainB (n) { return chainC(n) }
function chainA (n) { return chainB(n) }

test('stackDepth: 3 keeps at most 3 frames below (root), the innermost ones', async () => {
  const dir = makeTmpDir()
  await cprof.heap.start({ dir, stackDepth: 3, interval: 1024 })
  const kept = []
  for (let i = 0; i < 10; i++) kept.push(chainA(3000))
  const r = await cprof.heap.stop()
  assert.equal(kept.length, 10)
  const profile = loadHeapProfile(r.files.heapprofile)
  assertHeapProfileSchema(profile, { missingNodes: 0 })
  const depth = maxDepth(profile)
  assert.ok(depth <= 3, `no stack deeper than 3 frames below (root): ${depth}`)

  // leafAlloc's allocations sit under the innermost frames chainE → chainF → leafAlloc.
  const paths = []
  for (const item of walk(profile)) {
    if (item.node.callFrame.functionName === 'leafAlloc' && item.node.selfSize > 0) paths.push(item)
  }
  assert.ok(paths.length > 0, 'leafAlloc keeps its allocations')
  const byId = new Map(walk(profile).map((it) => [it.node.id, it]))
  const chainOf = (it) => {
    const names = []
    for (let cur = it; cur && cur.parent; cur = byId.get(cur.parent.id)) names.unshift(cur.node.callFrame.functionName)
    return names
  }
  // Every stack through leafAlloc was ...chainA > ... > chainF > leafAlloc:
  // only its 3 innermost frames stay, under (root).
  const chains = paths.map((it) => chainOf(it).join(' > '))
  assert.deepEqual([...new Set(chains)], ['chainE > chainF > leafAlloc'],
    'leafAlloc\'s allocations keep their innermost frames')
  await assertNumbersMatch(r.files.heapprofile, r)
})

// --- heap.snapshot ------------------------------------------------------------

test('heap.snapshot() writes a parseable .heapsnapshot, mode 0600, through a temp name', async () => {
  const base = makeTmpDir()
  const dir = path.join(base, 'snaps')
  const file = await cprof.heap.snapshot({ dir })
  assert.equal(path.dirname(file), dir)
  const m = SNAPSHOT_NAME_RE.exec(path.basename(file))
  assert.ok(m, `default name: ${path.basename(file)}`)
  assert.equal(Number(m[1]), process.pid)
  assert.equal(fileMode(file), 0o600)
  assert.equal(fileMode(dir), 0o700)
  assert.deepEqual(fs.readdirSync(dir), [path.basename(file)], 'no temp file is left')
  const snap = JSON.parse(fs.readFileSync(file, 'utf8'))
  assert.ok(snap.snapshot && snap.snapshot.meta, 'snapshot.meta is there')
  assert.ok(Array.isArray(snap.snapshot.meta.node_fields))
  assert.ok(Array.isArray(snap.nodes) && snap.nodes.length > 0, 'nodes is a non-empty array')
  assert.ok(Array.isArray(snap.strings))

  const named = await cprof.heap.snapshot({ dir, name: 'mine' })
  assert.equal(named, path.join(dir, 'mine.heapsnapshot'))
  assert.equal(fileMode(named), 0o600)
})

test('heap.snapshot() into a dir that cannot be created: ERR_CPROF_IO', async () => {
  const tmp = makeTmpDir()
  const regularFile = path.join(tmp, 'a-file')
  fs.writeFileSync(regularFile, 'x')
  await rejectsWith(() => cprof.heap.snapshot({ dir: path.join(regularFile, 'sub') }), 'ERR_CPROF_IO')
  assert.deepEqual(fs.readdirSync(tmp), ['a-file'])
})

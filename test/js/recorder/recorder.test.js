'use strict'

// The flight recorder (lib/recorder/, src/addon/recorder.c, src/core/window.c and ring.c):
// real V8 profiles in windows, dumps checked against an independent JS merge
// of the same windows' .cpuprofile files, ring limits, store retention.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const cprof = require('../../..')
const { assertCpuProfileSchema } = require('../helpers/schema.js')
const { flatFunctions } = require('../helpers/reference.js')
const { decodePprof } = require('../helpers/formats.js')
const { devtoolsTimes, speedscopeTimes, slack, firstOnTop, assertViewerSums } = require('../helpers/viewer-rules.js')
const { makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util.js')

after(removeTmpDirs)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// Hot for `ms` in slices that yield to the event loop, so the recorder's
// rotation timer fires on time while the phase runs.
async function phase (fn, ms) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    fn(15)
    await new Promise((resolve) => setImmediate(resolve))
  }
}
function phaseAlpha (ms) {
  const end = Date.now() + ms
  let x = 0
  while (Date.now() < end) for (let i = 0; i < 5000; i++) x = (x + i * 7) % 1000003
  return x
}
function phaseBravo (ms) {
  const end = Date.now() + ms
  let x = 1
  while (Date.now() < end) for (let i = 0; i < 5000; i++) x = (x * 31 + i) % 999983
  return x
}

// A function no other test ran: V8 has not optimised (and maybe inlined)
// it yet, so its samples are its own.
function phaseCharlie (ms) {
  const end = Date.now() + ms
  let x = 3
  while (Date.now() < end) for (let i = 0; i < 5000; i++) x = (x * 17 + i) % 999979
  return x
}

function selfMs (result, name) {
  const f = result.summary.top.find((t) => t.functionName === name)
  return f ? f.self : 0
}

// The windows' files in a store, oldest first.
function storeFiles (dir, ext = '.cpuprofile') {
  return fs.readdirSync(dir)
    .filter((f) => f.endsWith(ext) && /^cpu-\d+-\d+-\d+\./.test(f))
    .map((f) => {
      const [, pid, from, to] = /^cpu-(\d+)-(\d+)-(\d+)\./.exec(f)
      return { file: path.join(dir, f), pid: Number(pid), from: Number(from), to: Number(to) }
    })
    .sort((a, b) => a.from - b.from)
}

async function stopIfRunning () {
  if (cprof.recorder.status().running) await cprof.recorder.stop()
}

// First in this file: no recorder has run in this process yet.
test('status() before the recorder ever ran: not running, nothing held', () => {
  assert.deepEqual(cprof.recorder.status(), { running: false, windows: 0, bytes: 0, from: null, to: null })
})

test('two phases: dump({ last }) right after phase 2 holds phase 2 only; a longer last holds both', async () => {
  const dir = makeTmpDir()
  cprof.recorder.start({ window: 500, interval: 1000 })
  try {
    await phase(phaseAlpha, 2500)
    await phase(phaseBravo, 2500)
    const recent = await cprof.recorder.dump({ last: 1000, dir })
    const both = await cprof.recorder.dump({ last: 10000, dir })
    assert.equal(recent.kind, 'cpu')
    assert.ok(recent.windows >= 2, `windows: ${recent.windows}`)
    assert.ok(recent.to - recent.from >= 1000, `covers ${recent.to - recent.from} ms`)
    assert.ok(selfMs(recent, 'phaseBravo') > 400, JSON.stringify(recent.summary.top.slice(0, 4)))
    assert.equal(selfMs(recent, 'phaseAlpha'), 0, JSON.stringify(recent.summary.top.slice(0, 4)))
    assert.ok(selfMs(both, 'phaseAlpha') > 1000, JSON.stringify(both.summary.top.slice(0, 4)))
    assert.ok(selfMs(both, 'phaseBravo') > 1000, JSON.stringify(both.summary.top.slice(0, 4)))
    assert.ok(both.windows > recent.windows)
    // An ordinary .cpuprofile with its true time range (µs on V8's clock).
    const prof = JSON.parse(fs.readFileSync(both.files.cpuprofile, 'utf8'))
    assertCpuProfileSchema(prof)
    assert.equal(prof.samples.length, both.samples)
    const spanMs = (prof.endTime - prof.startTime) / 1000
    assert.ok(Math.abs(spanMs - (both.to - both.from)) < 50, `${spanMs} ms vs ${both.to - both.from} ms`)
    // Its marks end at its last window's end (the dump's rotation), the
    // same instant as the profile's endTime, whenever the dump's code ran.
    assert.equal(JSON.parse(fs.readFileSync(both.files.marks, 'utf8')).endAt, both.to)
    assert.equal(path.dirname(both.files.cpuprofile), dir)
    assert.match(path.basename(both.files.cpuprofile), /^cpu-recording-\d+-\d{8}T\d{6}\.\d{3}Z\.cpuprofile$/)
  } finally {
    await stopIfRunning()
  }
})

test("a dump equals an independent JS merge of the same windows' .cpuprofile files", async () => {
  const store = makeTmpDir()
  const out = makeTmpDir()
  cprof.recorder.start({ window: 400, interval: 1000, store: { dir: store } })
  try {
    await phase(phaseAlpha, 900)
    await phase(phaseBravo, 900)
    const d = await cprof.recorder.dump({ dir: out, formats: ['pprof'] })
    // (A window the rotation timer stored while the dump merged starts at
    // or after the dump's end: not in it.)
    const files = storeFiles(store).filter((f) => f.pid === process.pid && f.from < d.to)
    assert.equal(files.length, d.windows)
    assert.equal(files[0].from, d.from)
    assert.equal(files.at(-1).to, d.to)
    const windows = files.map((f) => JSON.parse(fs.readFileSync(f.file, 'utf8')))
    // Samples: concatenated.
    assert.equal(d.samples, windows.reduce((n, w) => n + w.samples.length, 0))
    // Self time per function: the sum over windows (µs → ms, as the summary).
    const sum = new Map()
    for (const w of windows) {
      for (const f of flatFunctions(w)) {
        const k = `${f.functionName}\0${f.url}\0${f.lineNumber}\0${f.columnNumber}`
        sum.set(k, (sum.get(k) || 0) + f.self)
      }
    }
    for (const f of d.summary.top) { // the summary's line and column are 1-based
      const k = `${f.functionName}\0${f.url}\0${f.line - 1}\0${f.column - 1}`
      assert.ok(sum.has(k), `${f.functionName} is in the windows`)
      assert.ok(Math.abs(sum.get(k) / 1000 - f.self) < 0.002, `${f.functionName}: ${f.self} ms vs ${sum.get(k) / 1000} ms`)
    }
    const totalUs = [...sum.values()].reduce((a, b) => a + b, 0)
    assert.ok(Math.abs(totalUs / 1000 - d.summary.total) < 0.01, `${d.summary.total} vs ${totalUs / 1000}`)
    // Consecutive windows touch, on the wall clock and on V8's: no gap, no overlap.
    for (let i = 1; i < files.length; i++) {
      assert.equal(files[i].from, files[i - 1].to, `window ${i} starts where ${i - 1} ended`)
      assert.equal(windows[i].startTime, windows[i - 1].endTime, `window ${i}'s startTime is ${i - 1}'s endTime`)
    }
    // The merged file spans the windows exactly.
    const merged = JSON.parse(fs.readFileSync(d.files.cpuprofile, 'utf8'))
    assert.equal(merged.startTime, windows[0].startTime)
    assert.equal(merged.endTime, windows.at(-1).endTime)
    // pprof, decoded by pprof-format: the same samples.
    const pp = decodePprof(d.files.pprof)
    assert.equal(pp.sums[pp.types.indexOf('samples/count')], BigInt(d.samples))
    assert.equal(pp.timeNanos, BigInt(d.from) * 1000000n)
  } finally {
    await stopIfRunning()
  }
})

// A window lost (the app ended V8's newest console profile, the recorder's
// window): the windows around it do not touch. The dump lays the next one
// end to end, so the lost window's time is charged to no function.
test('a lost window: the dump cuts its time out; DevTools and speedscope read each function as the windows\' sum', async (t) => {
  const store = makeTmpDir()
  const out = makeTmpDir()
  cprof.recorder.start({ window: 300, interval: 1000, store: { dir: store } })
  try {
    await phase(phaseAlpha, 700)
    require('node:inspector').console.profileEnd() // ends the recorder's current window
    await phase(phaseAlpha, 700)
    const d = await cprof.recorder.dump({ dir: out })
    // console.profileEnd() ends an inspector profile; where the recorder's
    // CPU windows are v8.startCpuProfile() profiles (Node 26) it ends none,
    // and there is no lost window to test.
    if (cprof.recorder.status().lost === 0) return t.skip('console.profileEnd() ended no recorder window on this Node')
    const files = storeFiles(store).filter((f) => f.pid === process.pid && f.from < d.to)
    assert.equal(files.length, d.windows)
    const windows = files.map((f) => JSON.parse(fs.readFileSync(f.file, 'utf8')))
    let gapUs = 0
    for (let i = 1; i < windows.length; i++) gapUs += Math.max(0, windows[i].startTime - windows[i - 1].endTime)
    assert.ok(gapUs > 100000, `the lost window left a gap: ${gapUs} µs`)
    const prof = JSON.parse(fs.readFileSync(d.files.cpuprofile, 'utf8'))
    assertCpuProfileSchema(prof)
    const wall = windows.at(-1).endTime - windows[0].startTime
    assert.ok(prof.endTime - prof.startTime <= wall - gapUs, `spans ${prof.endTime - prof.startTime} µs of ${wall} µs, ${gapUs} µs lost`)
    assertViewerSums('dump with a lost window, DevTools\' rule', prof, windows, devtoolsTimes, slack(windows))
    assertViewerSums('dump with a lost window, speedscope\'s rule', prof, windows, speedscopeTimes, slack(windows),
      slack(windows) + firstOnTop(windows))
  } finally {
    await stopIfRunning()
  }
})

test('the ring respects keep and maxBytes; status() reports it', async () => {
  const lengths = []
  const onWindow = (w) => { if (w.kind === 'cpu') lengths.push(w.to - w.from) }
  cprof.on('window', onWindow)
  cprof.recorder.start({ window: 200, keep: 500 })
  try {
    await phase(phaseAlpha, 1800)
    const s = cprof.recorder.status()
    assert.equal(s.running, true)
    // Windows that ended more than keep before the newest one are gone: what
    // is kept spans keep plus the oldest kept window at most (200 ms, or
    // more where the timer ran late).
    assert.ok(s.windows <= 4, `windows: ${s.windows}`)
    assert.ok(s.evicted >= 3, `evicted: ${s.evicted}`)
    assert.ok(s.to - s.from <= 500 + Math.max(...lengths) + 20, `${s.to - s.from} ms kept, windows of ${lengths} ms`)
    assert.ok(s.bytes > 0)
  } finally {
    cprof.off('window', onWindow)
    await stopIfRunning()
  }
  cprof.recorder.start({ window: 200, maxBytes: 1 })
  try {
    await phase(phaseAlpha, 1000)
    const s = cprof.recorder.status()
    assert.equal(s.windows, 1, 'a small maxBytes keeps only the newest window')
    assert.ok(s.evicted >= 2)
    const d = await cprof.recorder.dump({ dir: makeTmpDir() })
    assert.equal(d.windows, 1)
  } finally {
    await stopIfRunning()
  }
})

test('concurrent dumps, and dumping never stops recording', async () => {
  const dir = makeTmpDir()
  cprof.recorder.start({ window: 300 })
  try {
    await phase(phaseAlpha, 700)
    const all = await Promise.all([1, 2, 3].map(() => cprof.recorder.dump({ dir })))
    const names = new Set()
    for (const r of all) {
      assert.ok(fs.existsSync(r.files.cpuprofile))
      assertCpuProfileSchema(JSON.parse(fs.readFileSync(r.files.cpuprofile, 'utf8')))
      names.add(r.files.cpuprofile)
    }
    assert.equal(cprof.recorder.status().running, true)
    await phase(phaseAlpha, 400)
    const later = await cprof.recorder.dump({ dir, name: 'later' })
    assert.equal(path.basename(later.files.cpuprofile), 'later.cpuprofile')
    assert.ok(later.to > Math.max(...all.map((r) => r.to)))
  } finally {
    await stopIfRunning()
  }
})

test('store.dir is checked at start(): created 0700 if missing; a non-directory is refused with ERR_CPROF_IO; a symlink to your directory is used', async () => {
  // Missing (with parents): created, private.
  const fresh = path.join(makeTmpDir(), 'a', 'store')
  cprof.recorder.start({ window: 250, store: { dir: fresh } })
  await stopIfRunning()
  assert.ok(fs.statSync(fresh).isDirectory())
  assert.equal(fs.statSync(fresh).mode & 0o777, 0o700)

  // A file where the directory should be: refused at once, nothing recorded.
  const file = path.join(makeTmpDir(), 'not-a-dir')
  fs.writeFileSync(file, 'keep me\n')
  assert.throws(() => cprof.recorder.start({ store: { dir: file } }),
    { code: 'ERR_CPROF_IO', message: /cannot create directory .*not-a-dir: EEXIST/ })
  assert.equal(cprof.recorder.status().running, false)
  assert.equal(fs.readFileSync(file, 'utf8'), 'keep me\n')

  // A directory the user named is the user's choice (the relaxed rule, as
  // for dir): a symlink to one of mode 0777 is used, windows land in it.
  const target = makeTmpDir()
  fs.chmodSync(target, 0o777)
  const link = path.join(makeTmpDir(), 'link')
  fs.symlinkSync(target, link, 'dir')
  cprof.recorder.start({ window: 250, interval: 1000, store: { dir: link } })
  try {
    await phase(phaseAlpha, 700)
  } finally {
    await stopIfRunning()
  }
  const files = storeFiles(target).filter((f) => f.pid === process.pid)
  assert.ok(files.length >= 1, `windows in ${target}: ${fs.readdirSync(target)}`)
  for (const f of files) assert.equal(fs.lstatSync(f.file).mode & 0o777, 0o600, f.file)
})

// Functions only the side-by-side test runs (see phaseCharlie).
function phaseDelta (ms) {
  const end = Date.now() + ms
  let x = 5
  while (Date.now() < end) for (let i = 0; i < 5000; i++) x = (x * 13 + i) % 999961
  return x
}
function phaseEcho (ms) {
  const end = Date.now() + ms
  let x = 7
  while (Date.now() < end) for (let i = 0; i < 5000; i++) x = (x * 11 + i) % 999953
  return x
}

test('bad recorder options carry codes; recorder.start() twice is ERR_CPROF_BUSY', async () => {
  await assert.rejects(cprof.recorder.stop(), { code: 'ERR_CPROF_NOT_STARTED' })
  assert.throws(() => cprof.recorder.start({ window: 10 }), { code: 'ERR_CPROF_INVALID_ARG' })
  assert.throws(() => cprof.recorder.start({ keep: -1 }), { code: 'ERR_CPROF_INVALID_ARG' })
  assert.throws(() => cprof.recorder.start({ colour: 1 }), { code: 'ERR_CPROF_INVALID_ARG' })
  assert.throws(() => cprof.recorder.start({ store: { maxBytes: 1 } }), { code: 'ERR_CPROF_INVALID_ARG' })
  assert.throws(() => cprof.recorder.start({ store: { dir: '/x', formats: ['svg'] } }), { code: 'ERR_CPROF_INVALID_ARG' })
  await assert.rejects(cprof.recorder.dump({ last: -5 }), { code: 'ERR_CPROF_INVALID_ARG' })
  cprof.recorder.start()
  try {
    assert.throws(() => cprof.recorder.start(), { code: 'ERR_CPROF_BUSY' })
  } finally {
    await stopIfRunning()
  }
})

// V8 runs several CPU profiles at once: a start() profile beside the
// recorder holds its own span only; the recorder's dump holds everything.
test('the recorder and start() run side by side, in either order; stop({ dir }) writes into dir', async () => {
  const dir = makeTmpDir()
  cprof.recorder.start({ window: 300, interval: 1000 })
  let r, d
  try {
    await phase(phaseDelta, 600)
    await cprof.start({ interval: 1000 }) // no dir: stop({ dir }) says where
    await phase(phaseEcho, 800)
    r = await cprof.stop({ dir })
    d = await cprof.recorder.dump({ dir })
  } finally {
    await stopIfRunning()
  }
  assert.equal(path.dirname(r.files.cpuprofile), dir)
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(r.files.cpuprofile, 'utf8')))
  assert.ok(selfMs(r, 'phaseEcho') > 400, JSON.stringify(r.summary.top.slice(0, 4)))
  assert.equal(selfMs(r, 'phaseDelta'), 0, 'the start() profile began after phaseDelta')
  assert.ok(selfMs(d, 'phaseDelta') > 300, JSON.stringify(d.summary.top.slice(0, 4)))
  assert.ok(selfMs(d, 'phaseEcho') > 400, JSON.stringify(d.summary.top.slice(0, 4)))
  // The other order: the recorder starts while a start() profile runs.
  await cprof.start({ dir })
  try {
    cprof.recorder.start({ window: 300 })
    await phase(phaseEcho, 400)
    assert.equal(cprof.recorder.status().running, true)
  } finally {
    await stopIfRunning()
    const last = await cprof.stop()
    assert.equal(path.dirname(last.files.cpuprofile), dir)
  }
  await assert.rejects(cprof.stop({ dir: '' }), { code: 'ERR_CPROF_INVALID_ARG' })
  await assert.rejects(cprof.stop({ bogus: 1 }), { code: 'ERR_CPROF_INVALID_ARG' })
})

test('stop() keeps the ring for a last dump; the status says what is held', async () => {
  const dir = makeTmpDir()
  cprof.recorder.start({ window: 300 })
  await phase(phaseCharlie, 500)
  const s = await cprof.recorder.stop()
  assert.equal(s.running, false)
  assert.ok(s.windows >= 2)
  const d = await cprof.recorder.dump({ dir })
  assert.equal(d.windows, s.windows)
  assert.equal(d.to, s.to)
  assert.ok(selfMs(d, 'phaseCharlie') > 100, JSON.stringify(d.summary.top.slice(0, 4)))
  // The viewer's marks end where the profile does (the stop), not at the
  // dump: the page maps an incident's firing by this end.
  assert.equal(JSON.parse(fs.readFileSync(d.files.marks, 'utf8')).endAt, s.to)
})

test('store: every window is written; retention deletes by age and by bytes, never a file being written', async () => {
  const store = makeTmpDir()
  // Another process's files: an old finished one, a newer one, and a temp file mid-write.
  const now = Date.now()
  const oldName = `cpu-999999-${now - 3_600_000}-${now - 3_590_000}.cpuprofile`
  fs.writeFileSync(path.join(store, oldName), '{}')
  const tmpName = `.cpu-999999-${now - 3_600_000}-${now - 3_590_000}.cpuprofile.Ab12Cd`
  fs.writeFileSync(path.join(store, tmpName), 'x'.repeat(100000))
  const otherName = 'notes.txt'
  fs.writeFileSync(path.join(store, otherName), 'keep me')
  cprof.recorder.start({ window: 250, store: { dir: store, maxAge: 60_000, formats: ['cpuprofile', 'pprof'] } })
  try {
    await phase(phaseAlpha, 900)
    const d = await cprof.recorder.dump({ dir: makeTmpDir() }) // waits for the current window
    const names = fs.readdirSync(store)
    assert.ok(!names.includes(oldName), 'an hour old: deleted by maxAge')
    assert.ok(names.includes(tmpName), 'a temp file is never deleted')
    assert.ok(names.includes(otherName), 'other files are never deleted')
    // The windows the dump held are stored in both formats (a later one may
    // be half written).
    const held = (ext) => storeFiles(store, ext).filter((f) => f.pid === process.pid && f.from < d.to)
    const mine = held('.cpuprofile')
    assert.ok(mine.length >= 3)
    assert.equal(held('.pb.gz').length, mine.length)
    for (const f of mine) assertCpuProfileSchema(JSON.parse(fs.readFileSync(f.file, 'utf8')))
  } finally {
    await stopIfRunning()
  }
  // By bytes: room for about two windows' files.
  const small = makeTmpDir()
  let seen = 0
  const onWindow = (w) => { if (w.files.cpuprofile) seen++ }
  cprof.on('window', onWindow)
  cprof.recorder.start({ window: 200, store: { dir: small, maxBytes: 1 } })
  try {
    await phase(phaseAlpha, 1000)
    await cprof.recorder.dump({ dir: makeTmpDir() })
  } finally {
    await stopIfRunning()
    cprof.off('window', onWindow)
  }
  const left = storeFiles(small)
  assert.ok(seen >= 4, `windows written: ${seen}`)
  assert.equal(left.length, 1, 'maxBytes: only the newest window stays')
})

test('heap: true: each heap window is the live heap at its end (the sampler kept across windows); a dump is the newest', async () => {
  const { assertHeapProfileSchema } = require('../helpers/heap.js')
  const store = makeTmpDir()
  const kept = []
  function recorderRetains () {
    for (let i = 0; i < 500; i++) kept.push({ i, s: `item-${i}-${kept.length}` })
  }
  const started = cprof.recorder.start({ window: 300, heap: true, heapInterval: 4096, heapWindow: 300, store: { dir: store } })
  assert.equal(started.heap, true)
  try {
    await assert.rejects(cprof.heap.start(), { code: 'ERR_CPROF_BUSY' })
    const end = Date.now() + 1500
    while (Date.now() < end) {
      recorderRetains()
      await sleep(10)
    }
    const h = await cprof.recorder.dump({ kind: 'heap', formats: ['pprof'], dir: makeTmpDir() })
    assert.equal(h.kind, 'heap')
    assert.equal(h.windows, 1, 'the newest window: the live heap at its end')
    assert.equal(h.intervalBytes, 4096)
    assert.equal(h.durationMs, h.to - h.from)
    const prof = JSON.parse(fs.readFileSync(h.files.heapprofile, 'utf8'))
    assertHeapProfileSchema(prof)
    assert.equal(prof.samples.length, h.samples)
    assert.ok(h.summary.top.some((f) => f.functionName === 'recorderRetains'), JSON.stringify(h.summary.top.slice(0, 5)))
    // The store holds the same meaning: one live heap per window, so the
    // windows' retained bytes rise with kept, and the dump is the stored
    // window that ends where it ends. (File names are heap-<pid>-<from>-<to>.)
    const files = fs.readdirSync(store).filter((f) => /^heap-\d+-\d+-\d+\.heapprofile$/.test(f))
      .sort((a, b) => Number(a.split('-')[2]) - Number(b.split('-')[2]))
    const retains = files.map((f) => {
      const p = JSON.parse(fs.readFileSync(path.join(store, f), 'utf8'))
      let bytes = 0
      const walk = (n) => { if (n.callFrame.functionName === 'recorderRetains') bytes += n.selfSize; n.children.forEach(walk) }
      walk(p.head)
      return bytes
    })
    assert.ok(files.length >= 3, `${files.length} heap windows stored`)
    // Never down by more than a sampled allocation that was freed later
    // (kept's old backing store after the array grew: 8671704 then 8667192
    // bytes was seen); a window holding only its own allocations would drop
    // to nothing once the loop stops.
    for (let i = 1; i < retains.length; i++) assert.ok(retains[i] >= retains[i - 1] * 0.99, `recorderRetains' live bytes by window: ${retains}`)
    assert.ok(retains.at(-1) > retains[0], `recorderRetains' live bytes by window: ${retains}`)
    const same = files.find((f) => Number(f.split('-')[3].split('.')[0]) === h.to)
    assert.ok(same, `a stored window ends at ${h.to}: ${files}`)
    assert.equal(JSON.parse(fs.readFileSync(path.join(store, same), 'utf8')).samples.length, h.samples)
    // The CLI reads a store's heap range so too: the newest window, not a sum of live heaps.
    const cli = require('node:child_process').spawnSync(process.execPath, [path.join(__dirname, '..', '..', '..', 'bin', 'cprof.js'),
      'report', store, '--kind', 'heap', '--to', String(h.to - 1), '--json'], { encoding: 'utf8', env: childEnv() })
    assert.equal(cli.status, 0, cli.stderr)
    assert.equal(JSON.parse(cli.stdout).samples, h.samples, cli.stdout.slice(0, 300))
    const s = cprof.recorder.status()
    // (a window may have finished since the dump, its file written or not yet)
    assert.ok(Math.abs(s.heap.windows - files.length) <= 1, `${s.heap.windows} windows, ${files.length} files`)
    assert.equal(s.heap.intervalBytes, 4096)
    // CPU dumps still work alongside.
    assert.equal((await cprof.recorder.dump({ dir: makeTmpDir() })).kind, 'cpu')
  } finally {
    await stopIfRunning()
  }
  // The recorder gave V8's heap sampler back.
  await cprof.heap.start({ dir: makeTmpDir() })
  await cprof.heap.stop()
  // And kept its heap windows for a last dump.
  assert.equal((await cprof.recorder.dump({ kind: 'heap', dir: makeTmpDir() })).kind, 'heap')
})

test('heapWindow: a heap window (a full GC) ends with every third 300 ms window at 900 ms; a CPU dump leaves it running, a heap dump ends it; the defaults are 60 s and 15 trend windows', async () => {
  const defaults = cprof.recorder.start({ heap: true })
  await cprof.recorder.stop()
  assert.deepEqual([defaults.heapWindow, defaults.trendWindows, defaults.window], [60000, 15, 10000])
  assert.throws(() => cprof.recorder.start({ heap: true, heapWindow: 50 }), { code: 'ERR_CPROF_INVALID_ARG', message: /heapWindow/ })

  const seen = { cpu: 0, heap: 0 }
  const onWindow = (w) => { seen[w.kind]++ }
  cprof.on('window', onWindow)
  cprof.recorder.start({ window: 300, heap: true, heapWindow: 900 })
  try {
    await sleep(3100) // 10 rotations: heap windows end with the 3rd, 6th and 9th
    assert.ok(seen.cpu >= 8, `${seen.cpu} CPU windows`)
    assert.ok(seen.heap >= Math.floor(seen.cpu / 3) - 1 && seen.heap <= Math.ceil(seen.cpu / 3), `${seen.heap} heap windows for ${seen.cpu} CPU windows`)
    // The dumps' own windows, counted with no timer rotation in between: a
    // 300 ms timer running late on a loaded machine could end one during a
    // dump. Windows of 60 s leave only the dumps' rotations.
    await cprof.recorder.stop()
    cprof.recorder.start({ window: 60000, heap: true, heapWindow: 60000 })
    const before = { ...seen }
    await cprof.recorder.dump({ dir: makeTmpDir() })
    await sleep(50)
    assert.equal(seen.cpu, before.cpu + 1, 'the CPU dump ended the CPU window')
    assert.equal(seen.heap, before.heap, 'and not the heap window (no full GC for a CPU dump)')
    const h = await cprof.recorder.dump({ kind: 'heap', dir: makeTmpDir() })
    assert.equal(seen.heap, before.heap + 1, 'the heap dump ended the heap window: the live heap now')
    assert.ok(h.to >= Date.now() - 1000, `the heap dump's window ends now: ${h.to}`)
  } finally {
    cprof.off('window', onWindow)
    await stopIfRunning()
  }
})

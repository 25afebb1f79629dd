'use strict'

// Labels per request (issue 41, docs/labels.md): withLabels()/getLabels()
// semantics and bad input; the ground truth, an HTTP app whose /a runs only
// fnA and /b only fnB across awaits with many requests in flight: >= 95 % of
// each function's samples carry its route in the .labels.json sidecar and in
// the pprof as go tool pprof reads it (-tags, -tagfocus) and in the windows a
// recorder pushed to a Pyroscope receiver, and (idle) none.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const cprof = require('../../..')
const { ROOT, UNDER_ASAN, makeTmpDir, removeTmpDirs, assertCprofError } = require('../helpers/util.js')
const { runFixture, startFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { decodePprof } = require('../helpers/formats')
const { startReceiver, pushedSamples } = require('../helpers/pyroscope-receiver.js')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 180000 }, fn)
const invalid = (err) => { assertCprofError(err, 'ERR_CPROF_INVALID_ARG'); return true }
const BIN = path.join(ROOT, 'bin', 'cprof.js')
const haveGo = !spawnSync('go', ['version'], { encoding: 'utf8' }).error

test('withLabels: sync part and async continuations, nested merge (inner keys win), getLabels', async () => {
  await cprof.start({ dir: makeTmpDir(), labels: true })
  try {
    assert.deepEqual(cprof.getLabels(), {})
    const seen = await cprof.withLabels({ route: '/a', tenant: 't1' }, async (x) => {
      const first = cprof.getLabels()
      await new Promise((resolve) => setTimeout(resolve, 1))
      const inner = await cprof.withLabels({ tenant: 't2', step: 'x' }, async () => {
        await new Promise((resolve) => setImmediate(resolve))
        return cprof.getLabels()
      })
      await fs.promises.readFile(__filename)
      return { x, first, inner, back: cprof.getLabels() }
    }, 7)
    assert.equal(seen.x, 7, 'the arguments and the return value pass through')
    assert.deepEqual(seen.first, { route: '/a', tenant: 't1' })
    assert.deepEqual(seen.inner, { route: '/a', tenant: 't2', step: 'x' })
    assert.deepEqual(seen.back, { route: '/a', tenant: 't1' })
    assert.deepEqual(cprof.getLabels(), {}, 'none outside')
    assert.throws(() => { cprof.getLabels().route = 'x' }, TypeError, 'frozen')
  } finally {
    await cprof.stop()
  }
})

test('with labels off nothing is tracked: withLabels only runs fn, getLabels is {}', () => {
  assert.equal(require('../../../lib/labels').active(), false)
  const r = cprof.withLabels({ route: '/a' }, (a, b) => [a, b, cprof.getLabels()], 1, 2)
  assert.deepEqual(r, [1, 2, {}])
})

test('bad labels: ERR_CPROF_INVALID_ARG, on or off', async () => {
  const bad = [null, 'route', ['a'], { route: 1 }, { route: null }, { 'a-b': 'x' }, { '1a': 'x' },
    { route: 'x'.repeat(257) }, { route: 'a\0b' }, Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])),
    new Map([['a', 'b']])]
  const check = () => {
    for (const labels of bad) assert.throws(() => cprof.withLabels(labels, () => {}), invalid, JSON.stringify(labels))
    assert.throws(() => cprof.withLabels({ a: 'b' }), invalid)
  }
  check()
  await cprof.start({ dir: makeTmpDir(), labels: true })
  try {
    check()
    // Nested labels that add up to more than 16 keys.
    const eight = (p) => Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`${p}${i}`, 'v']))
    assert.throws(() => cprof.withLabels(eight('a'), () => cprof.withLabels(eight('b'), () => {})),
      invalid)
  } finally {
    await cprof.stop()
  }
  await assert.rejects(cprof.start({ labels: 'yes' }), invalid)
})

test('thousands of distinct sets: capped at 1000, the rest share the cprof_overflow set', async () => {
  const dir = makeTmpDir()
  await cprof.start({ dir, labels: true, interval: 100 })
  for (let i = 0; i < 3000; i++) cprof.withLabels({ user: `u${i}` }, () => { for (let k = 0; k < 2000; k++) Math.sqrt(k) })
  const r = await cprof.stop()
  const side = JSON.parse(fs.readFileSync(r.files.labels, 'utf8'))
  assert.equal(side.sets.length, 1002, 'none, 1000 sets, the overflow set')
  assert.deepEqual(side.sets[1001], { cprof_overflow: 'true' })
  assert.equal(side.samples.length, JSON.parse(fs.readFileSync(r.files.cpuprofile, 'utf8')).samples.length)
})

function hot () {
  let x = 0
  for (let i = 1; i < 20000; i++) x += Math.sqrt(i)
  return x
}

async function labelledWork () {
  for (let k = 0; k < 20; k++) hot()
  await new Promise((resolve) => setImmediate(resolve))
}

test('recorder.start({ labels: true }): each stored window\'s pprof carries the labels; a CPU hog in /a is /a\'s', async () => {
  const store = makeTmpDir()
  cprof.recorder.start({ window: 300, interval: 1000, labels: true, store: { dir: store, formats: ['pprof'] } })
  try {
    const from = process.cpuUsage()
    while (process.cpuUsage(from).user < 600000) await cprof.withLabels({ route: '/a' }, labelledWork)
  } finally {
    await cprof.recorder.stop()
  }
  assert.equal(require('../../../lib/labels').active(), false, 'labels off again')
  const files = fs.readdirSync(store).filter((f) => f.endsWith('.pb.gz') && f.startsWith(`cpu-${process.pid}-`))
  assert.ok(files.length >= 2, files.join(' '))
  let labelled = 0
  let hotSamples = 0
  for (const f of files) {
    const { profile: pp, strings } = decodePprof(path.join(store, f))
    const fnNames = new Map(pp.function.map((fn) => [Number(fn.id), strings[Number(fn.name)]]))
    const locFn = new Map(pp.location.map((l) => [Number(l.id), fnNames.get(Number(l.line[0].functionId))]))
    for (const s of pp.sample) {
      if (!s.locationId.some((id) => ['hot', 'labelledWork'].includes(locFn.get(Number(id))))) continue
      hotSamples += Number(s.value[0])
      if (s.label.some((l) => strings[Number(l.key)] === 'route' && strings[Number(l.str)] === '/a')) labelled += Number(s.value[0])
    }
  }
  assert.ok(hotSamples >= 100, `hot's samples: ${hotSamples}`)
  assert.ok(labelled >= 0.95 * hotSamples, `${labelled} of ${hotSamples} labelled route=/a`)
})

test('recorder.dump() with labels: the windows\' labels merged, a sidecar of the dump\'s samples, its pprof\'s labels', async () => {
  const dir = makeTmpDir()
  cprof.recorder.start({ window: 300, interval: 1000, labels: true })
  let r
  try {
    const from = process.cpuUsage()
    while (process.cpuUsage(from).user < 600000) await cprof.withLabels({ route: '/a' }, labelledWork)
    r = await cprof.recorder.dump({ dir, formats: ['pprof'] })
  } finally {
    await cprof.recorder.stop()
  }
  assert.ok(r.windows >= 2, `windows: ${r.windows}`)
  assert.ok(r.files.labels, JSON.stringify(r.files))
  assert.equal(r.files.labels, r.files.cpuprofile.replace(/\.cpuprofile$/, '.labels.json'))
  const profile = JSON.parse(fs.readFileSync(r.files.cpuprofile, 'utf8'))
  const side = JSON.parse(fs.readFileSync(r.files.labels, 'utf8'))
  assert.equal(side.samples.length, profile.samples.length, 'one set per sample of the dump')
  assert.equal(side.samples.length, r.samples)
  // the hog's samples (hot, or labelledWork once hot is inlined) are /a's,
  // in the sidecar and in the dump's pprof
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id)
  const inHog = (id) => id !== undefined && (['hot', 'labelledWork'].includes(byId.get(id).callFrame.functionName) || inHog(parent.get(id)))
  let hotSamples = 0
  let onA = 0
  profile.samples.forEach((id, i) => {
    if (!inHog(id)) return
    hotSamples++
    if (side.sets[side.samples[i]].route === '/a') onA++
  })
  assert.ok(hotSamples >= 100, `hot's samples: ${hotSamples}`)
  assert.ok(onA >= 0.95 * hotSamples, `${onA} of ${hotSamples} labelled route=/a`)
  const { profile: pp, strings } = decodePprof(r.files.pprof)
  const inPprof = pp.sample.filter((s) => s.label.some((l) => strings[Number(l.key)] === 'route' && strings[Number(l.str)] === '/a'))
    .reduce((n, s) => n + Number(s.value[0]), 0)
  assert.equal(inPprof, side.samples.filter((k) => side.sets[k].route === '/a').length, 'the pprof carries the sidecar\'s sets')
})

// ---- the ground truth ----

// Per sample of a .cpuprofile: whether fnA, fnB is on its stack; whether it is (idle).
function stacks (profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id)
  const memo = new Map()
  const has = (id) => {
    if (memo.has(id)) return memo.get(id)
    const name = byId.get(id).callFrame.functionName
    const up = parent.has(id) ? has(parent.get(id)) : { fnA: false, fnB: false }
    const v = { fnA: up.fnA || name === 'fnA', fnB: up.fnB || name === 'fnB', idle: name === '(idle)' }
    memo.set(id, v)
    return v
  }
  return profile.samples.map(has)
}

function share (count, route) {
  const total = count.a + count.b + count.none
  return { total, share: total ? count[route] / total : 0 }
}

function cli (...args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, `cprof ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

// cprof report --by route and --where route=/a on the ground truth's profile.
function checkReport (file) {
  const by = JSON.parse(cli('report', file, '--by', 'route', '--json'))
  const values = Object.fromEntries(by.values.map((v) => [v.value, v]))
  assert.ok(values['/a'] && values['/b'] && values['(none)'], JSON.stringify(by.values))
  assert.equal(by.values.reduce((n, v) => n + v.samples, 0), JSON.parse(fs.readFileSync(file, 'utf8')).samples.length)
  const fn = (name) => by.functions.find((f) => f.name.startsWith(`${name} (`))
  const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0)
  assert.ok(fn('fnA').self['/a'] >= 0.95 * sum(fn('fnA').self), JSON.stringify(fn('fnA')))
  assert.ok(fn('fnB').total['/b'] >= 0.95 * sum(fn('fnB').total), JSON.stringify(fn('fnB')))
  const text = cli('report', file, '--by', 'route')
  assert.match(text, /time by route/)
  assert.match(text, /^ {2}\/a\s+\d+/m)

  const where = JSON.parse(cli('report', file, '--where', 'route=/a', '--json'))
  const top = where.summary.top
  const self = (name) => (top.find((f) => f.functionName === name) || { self: 0 }).self
  assert.ok(self('fnA') > 0, JSON.stringify(top.slice(0, 5)))
  assert.ok(self('fnB') <= 0.05 * self('fnA'), `fnB where route=/a: ${JSON.stringify(top.slice(0, 5))}`)
  assert.match(cli('report', file, '--where', 'route=/a'), /where route=\/a: [\d.]+ ms of [\d.]+ ms/)
  const none = spawnSync(process.execPath, [BIN, 'report', file, '--where', 'route=/nope'], { encoding: 'utf8' })
  assert.equal(none.status, 1)
  assert.match(none.stderr, /no sample .* is labelled route=\/nope/)
}

// go tool pprof -top's cum time (ms) of fn, with args added.
function goCum (file, fn, args = []) {
  const go = spawnSync('go', ['tool', 'pprof', '-top', '-unit=ms', '-nodecount=100000', ...args, file], { encoding: 'utf8', timeout: 60000 })
  assert.equal(go.status, 0, go.stderr)
  const m = go.stdout.match(new RegExp(`^\\s*[\\d.]+ms\\s+[\\d.]+%\\s+[\\d.]+%\\s+([\\d.]+)ms\\s+[\\d.]+%\\s+${fn}\\b`, 'm'))
  return m ? Number(m[1]) : 0
}

test('ground truth: /a runs fnA, /b runs fnB; >= 95 % of their samples carry their route, (idle) none', async () => {
  const dir = makeTmpDir()
  // CPU time, not wall time: the sanitizer build runs the app's own code slower
  const run = runFixture('labels-app.js', [dir, UNDER_ASAN ? '6000' : '3000', '1000'], { timeout: 150000 })
  const out = run.json.find((o) => o.result || o.fatal)
  assert.ok(out && out.result, run.describe())
  const { files } = out.result
  assert.ok(files.labels && files.pprof, JSON.stringify(files))
  const profile = JSON.parse(fs.readFileSync(files.cpuprofile, 'utf8'))
  const side = JSON.parse(fs.readFileSync(files.labels, 'utf8'))
  assert.equal(side.version, 1)
  assert.equal(side.samples.length, profile.samples.length, 'one set per sample of the .cpuprofile')
  assert.equal(side.unknownSamples, 0)
  const route = (i) => side.sets[side.samples[i]].route
  const counts = { fnA: { a: 0, b: 0, none: 0 }, fnB: { a: 0, b: 0, none: 0 } }
  let idle = 0
  stacks(profile).forEach((s, i) => {
    const r = route(i) === '/a' ? 'a' : route(i) === '/b' ? 'b' : 'none'
    if (s.fnA) counts.fnA[r]++
    if (s.fnB) counts.fnB[r]++
    if (s.idle) {
      idle++
      assert.equal(side.samples[i], 0, 'an (idle) sample carries no labels')
    }
  })
  const a = share(counts.fnA, 'a')
  const b = share(counts.fnB, 'b')
  const msg = `sidecar: fnA ${JSON.stringify(counts.fnA)}, fnB ${JSON.stringify(counts.fnB)}, idle ${idle}`
  assert.ok(a.total >= 100 && b.total >= 100, `enough samples: ${msg}`)
  assert.ok(a.share >= 0.95 && b.share >= 0.95, msg)
  assert.ok(idle > 0, `some idle samples: ${msg}`)

  // The pprof, read with pprof-format: each Sample's labels.
  const { profile: pp, strings } = decodePprof(files.pprof)
  const fnNames = new Map(pp.function.map((f) => [Number(f.id), strings[Number(f.name)]]))
  const locFn = new Map(pp.location.map((l) => [Number(l.id), fnNames.get(Number(l.line[0].functionId))]))
  const pc = { fnA: { a: 0, b: 0, none: 0 }, fnB: { a: 0, b: 0, none: 0 } }
  for (const s of pp.sample) {
    const names = s.locationId.map((id) => locFn.get(Number(id)))
    const lab = s.label.find((l) => strings[Number(l.key)] === 'route')
    const r = !lab ? 'none' : strings[Number(lab.str)] === '/a' ? 'a' : 'b'
    for (const fn of ['fnA', 'fnB']) if (names.includes(fn)) pc[fn][r] += Number(s.value[0])
  }
  assert.deepEqual(pc, counts, 'the pprof carries the sidecar\'s labels, sample for sample')
  checkReport(files.cpuprofile)

  if (!haveGo) return
  const tags = spawnSync('go', ['tool', 'pprof', '-tags', files.pprof], { encoding: 'utf8', timeout: 60000 })
  assert.equal(tags.status, 0, tags.stderr)
  assert.match(tags.stdout, /route: Total/)
  assert.match(tags.stdout, /: \/a$/m)
  assert.match(tags.stdout, /: \/b$/m)
  const allA = goCum(files.pprof, 'fnA')
  const allB = goCum(files.pprof, 'fnB')
  const onA = goCum(files.pprof, 'fnA', ['-tagfocus=route=/a'])
  const onB = goCum(files.pprof, 'fnB', ['-tagfocus=route=/b'])
  const goMsg = `go tool pprof: fnA ${onA}/${allA} ms under route=/a, fnB ${onB}/${allB} ms under route=/b`
  assert.ok(allA > 0 && allB > 0, goMsg)
  assert.ok(onA / allA >= 0.95 && onB / allB >= 0.95, goMsg)
  assert.ok(goCum(files.pprof, 'fnB', ['-tagfocus=route=/a']) <= 0.05 * allB, `fnB under route=/a: ${goMsg}`)
})

// The same ground truth pushed: a recorder with labels: true beside the
// profile pushes its windows to a receiver that splits samples into series
// as the Pyroscope server does; route is a series label there.
test('ground truth in the Pyroscope push: >= 95 % of fnA\'s pushed samples are in route=/a\'s series, fnB\'s in /b\'s', async () => {
  const receiver = await startReceiver()
  let done
  try {
    done = await startFixture('labels-app.js', [makeTmpDir(), UNDER_ASAN ? '6000' : '3000', '1000', 'pprof', receiver.url]).exited
  } finally {
    await receiver.close()
  }
  const out = done.json.find((o) => o.result || o.fatal)
  assert.ok(out && out.result, `${done.stdout}\n${done.stderr}`)
  const counts = { fnA: { a: 0, b: 0, none: 0 }, fnB: { a: 0, b: 0, none: 0 } }
  const { windows, samples } = pushedSamples(receiver)
  for (const { names, col, value } of samples) {
    const r = col.labels.route === '/a' ? 'a' : col.labels.route === '/b' ? 'b' : 'none'
    for (const f of ['fnA', 'fnB']) if (names.includes(f)) counts[f][r] += value
  }
  const a = share(counts.fnA, 'a')
  const b = share(counts.fnB, 'b')
  const msg = `pushed (${windows} windows): fnA ${JSON.stringify(counts.fnA)}, fnB ${JSON.stringify(counts.fnB)}`
  assert.ok(windows >= 2 && a.total >= 100 && b.total >= 100, `enough: ${msg}`)
  assert.ok(a.share >= 0.95 && b.share >= 0.95, msg)
})

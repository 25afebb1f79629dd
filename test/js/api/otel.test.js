'use strict'

// OpenTelemetry span labels (issue 41, docs/labels.md "OpenTelemetry"):
// labels: { otel: true } labels each CPU sample with the active span's local
// root (span_id, span_name, trace_id) and sets pyroscope.profile.id on it.
// The ground truth: labels-app.js's app with each request in a span (and a
// child span), no withLabels(): >= 95 % of fnA's samples carry the span id
// of an /a request and of fnB's a /b one, in the sidecar, the pprof (read by
// pprof-format, and by go tool pprof -raw when go is here), cprof report
// --by span_id, and the windows the recorder pushed, as the Pyroscope
// receiver reads them (span_id decoded as the server's decodeSpanID);
// (idle) none. Also the option's bad input, the bound, and off = nothing.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const cprof = require('../../..')
const { ROOT, UNDER_ASAN, makeTmpDir, removeTmpDirs, assertCprofError } = require('../helpers/util.js')
const { startFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { decodePprof } = require('../helpers/formats')
const { startReceiver, spanHex, pushedSamples } = require('../helpers/pyroscope-receiver.js')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 180000 }, fn)
const BIN = path.join(ROOT, 'bin', 'cprof.js')
const haveGo = !spawnSync('go', ['version'], { encoding: 'utf8' }).error
const REGISTRY = Symbol.for('opentelemetry.js.api.1')

// Counts of fnA's and fnB's samples by the route of their span: { a, b, none }.
const zero = () => ({ fnA: { a: 0, b: 0, none: 0 }, fnB: { a: 0, b: 0, none: 0 } })
function tally (counts, names, route, n = 1) {
  const r = route === '/a' ? 'a' : route === '/b' ? 'b' : 'none'
  for (const fn of ['fnA', 'fnB']) if (names.includes(fn)) counts[fn][r] += n
}
function assertShares (counts, where) {
  const msg = `${where}: fnA ${JSON.stringify(counts.fnA)}, fnB ${JSON.stringify(counts.fnB)}`
  const share = (c, k) => c[k] / (c.a + c.b + c.none)
  assert.ok(counts.fnA.a + counts.fnA.b + counts.fnA.none >= 100 && counts.fnB.a + counts.fnB.b + counts.fnB.none >= 100, `enough samples: ${msg}`)
  assert.ok(share(counts.fnA, 'a') >= 0.95 && share(counts.fnB, 'b') >= 0.95, msg)
}

// Per sample of a .cpuprofile: the function names on its stack.
function stacks (profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id)
  const memo = new Map()
  const names = (id) => {
    if (!memo.has(id)) memo.set(id, [byId.get(id).callFrame.functionName, ...(parent.has(id) ? names(parent.get(id)) : [])])
    return memo.get(id)
  }
  return profile.samples.map(names)
}

// go tool pprof -raw: each sample's count, its functions and its span_id.
function goRaw (file) {
  const go = spawnSync('go', ['tool', 'pprof', '-raw', file], { encoding: 'utf8', timeout: 60000, maxBuffer: 64 << 20 })
  assert.equal(go.status, 0, go.stderr)
  const lines = go.stdout.split('\n')
  const fnOf = new Map()
  let at = lines.indexOf('Locations')
  for (let i = at + 1; i < lines.length && /^\s+\d+: /.test(lines[i]); i++) {
    const m = lines[i].match(/^\s+(\d+): \S+ M=\d+ (\S+)/)
    if (m) fnOf.set(m[1], m[2])
  }
  const samples = []
  at = lines.indexOf('Samples:')
  for (let i = at + 2; i < lines.length && (/^\s+\d/.test(lines[i]) || /^\s+\S+:\[/.test(lines[i])); i++) {
    const m = lines[i].match(/^\s+(\d+)\s+\d+: ([\d ]+)$/)
    if (m) samples.push({ count: Number(m[1]), names: m[2].trim().split(' ').map((l) => fnOf.get(l)), span: null })
    else {
      const s = lines[i].match(/span_id:\[([0-9a-f]+)\]/)
      if (s) samples[samples.length - 1].span = s[1]
    }
  }
  return samples
}

test('ground truth: each request in a span; >= 95 % of fnA\'s and fnB\'s samples carry their request\'s root span, everywhere', async () => {
  const dir = makeTmpDir()
  const receiver = await startReceiver()
  let out
  try {
    // CPU time, not wall time: the sanitizer build runs the app's own code slower
    const run = startFixture('otel-app.js', [dir, UNDER_ASAN ? '6000' : '3000', '1000', receiver.url])
    const done = await run.exited
    out = done.json.find((o) => o.result || o.fatal)
    assert.ok(out && out.result, `${done.stdout}\n${done.stderr}`)
  } finally {
    await receiver.close()
  }
  const { result: { files }, spans } = out
  const routes = Object.values(spans)
  assert.ok(routes.filter((r) => r === '/a').length >= 20 && routes.filter((r) => r === '/b').length >= 20, 'many requests of each')

  // The sidecar: one set per sample, span sets carry the root span's labels.
  const profile = JSON.parse(fs.readFileSync(files.cpuprofile, 'utf8'))
  const side = JSON.parse(fs.readFileSync(files.labels, 'utf8'))
  assert.equal(side.version, 1)
  assert.equal(side.samples.length, profile.samples.length)
  const counts = zero()
  let idle = 0
  stacks(profile).forEach((names, i) => {
    const set = side.sets[side.samples[i]]
    if (set.span_id) {
      assert.ok(spans[set.span_id], `span_id ${set.span_id} is a root span's`)
      assert.equal(set.span_name, `GET ${spans[set.span_id]}`)
      assert.match(set.trace_id, /^[0-9a-f]{32}$/)
    }
    tally(counts, names, spans[set.span_id])
    if (names[0] === '(idle)') {
      idle++
      assert.equal(side.samples[i], 0, 'an (idle) sample carries no labels')
    }
  })
  assertShares(counts, 'sidecar')
  assert.ok(idle > 0, 'some idle samples')

  // The pprof, read with pprof-format: the sidecar's counts, sample for sample.
  const { profile: pp, strings } = decodePprof(files.pprof)
  const fnNames = new Map(pp.function.map((f) => [Number(f.id), strings[Number(f.name)]]))
  const locFn = new Map(pp.location.map((l) => [Number(l.id), fnNames.get(Number(l.line[0].functionId))]))
  const spanOf = (labels) => { const l = labels.find((x) => strings[Number(x.key)] === 'span_id'); return l && strings[Number(l.str)] }
  const pc = zero()
  for (const s of pp.sample) tally(pc, s.locationId.map((id) => locFn.get(Number(id))), spans[spanOf(s.label)], Number(s.value[0]))
  assert.deepEqual(pc, counts, 'the pprof carries the sidecar\'s span ids')

  // cprof report --by span_id: a key like any other.
  const by = spawnSync(process.execPath, [BIN, 'report', files.cpuprofile, '--by', 'span_id', '--json'], { encoding: 'utf8', timeout: 60000 })
  assert.equal(by.status, 0, by.stderr)
  const values = JSON.parse(by.stdout).values
  assert.ok(values.filter((v) => spans[v.value]).length >= 10, JSON.stringify(values.slice(0, 5)))

  // The pushed windows, as the receiver (the server's span columns) reads them.
  const pushed = zero()
  const { windows, samples } = pushedSamples(receiver)
  for (const { names, col, value } of samples) {
    assert.equal(col.labels.span_id, undefined, 'span_id is a column, not a series label')
    tally(pushed, names, col.spanId ? spans[spanHex(col.spanId)] : undefined, value)
  }
  assert.ok(windows >= 2, `windows pushed: ${windows}`)
  assertShares(pushed, 'pushed')

  if (!haveGo) return
  const gc = zero()
  for (const s of goRaw(files.pprof)) tally(gc, s.names, spans[s.span], s.count)
  assert.deepEqual(gc, counts, 'go tool pprof -raw reads the same span ids')
})

test('labels: { otel } bad input: ERR_CPROF_INVALID_ARG', async () => {
  const invalid = (err) => { assertCprofError(err, 'ERR_CPROF_INVALID_ARG'); return true }
  for (const labels of [{ otel: 'yes' }, { otel: 1 }, { spans: true }, 'otel', 1, null]) {
    await assert.rejects(cprof.start({ dir: makeTmpDir(), labels }), invalid, JSON.stringify(labels))
    assert.throws(() => cprof.recorder.start({ labels }), invalid, JSON.stringify(labels))
  }
  assert.throws(() => cprof.init({ labels: { otel: 'x' } }), invalid)
})

// The app's @opentelemetry/api, its context manager and tracer, set up once.
function otel () {
  const api = require('@opentelemetry/api')
  if (!otel.tracer) {
    const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base')
    const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks')
    api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    api.trace.setGlobalTracerProvider(new BasicTracerProvider())
    otel.tracer = api.trace.getTracer('otel.test')
  }
  return { api, tracer: otel.tracer }
}

test('off: without the option nothing is wrapped and no span labels; with it, context.with is wrapped until stop', async () => {
  assert.equal(globalThis[REGISTRY], undefined, 'no OpenTelemetry before the test loads it')
  const dir = makeTmpDir()
  await cprof.start({ dir, labels: { otel: true } }) // OpenTelemetry absent: nothing to read
  cprof.withLabels({ route: '/x' }, () => { for (let i = 0; i < 1e5; i++) Math.sqrt(i) })
  const none = JSON.parse(fs.readFileSync((await cprof.stop()).files.labels, 'utf8'))
  assert.ok(none.sets.every((s) => !('span_id' in s)))

  const { tracer } = otel()
  const manager = globalThis[REGISTRY].context
  const own = manager.with
  await cprof.start({ dir, labels: true })
  assert.equal(manager.with, own, 'labels: true leaves OpenTelemetry alone')
  tracer.startActiveSpan('plain', (span) => { for (let i = 0; i < 1e6; i++) Math.sqrt(i); span.end() })
  const plain = JSON.parse(fs.readFileSync((await cprof.stop()).files.labels, 'utf8'))
  assert.ok(plain.sets.every((s) => !('span_id' in s)), JSON.stringify(plain.sets))

  await cprof.start({ dir, labels: { otel: true }, interval: 100 })
  assert.notEqual(manager.with, own, 'context.with is a switch point')
  let id
  tracer.startActiveSpan('root', (span) => {
    id = span.spanContext().spanId
    tracer.startActiveSpan('inner', (inner) => { for (let i = 0; i < 2e6; i++) Math.sqrt(i); inner.end() })
    assert.equal(span.attributes['pyroscope.profile.id'], id, 'the root span links to its profile')
    span.end()
  })
  const r = await cprof.stop()
  assert.equal(manager.with, own, 'unwrapped at stop')
  const side = JSON.parse(fs.readFileSync(r.files.labels, 'utf8'))
  const rootSets = side.sets.filter((s) => s.span_id === id)
  assert.ok(rootSets.length >= 1 && rootSets.every((s) => s.span_name === 'root'), JSON.stringify(side.sets))
  assert.ok(side.samples.some((k) => side.sets[k].span_id === id), 'the inner span\'s samples carry the root\'s id')
})

test('a huge or odd span name is cut to 256 characters, NULs dropped; a span not sampled carries none', async () => {
  const { api, tracer } = otel()
  const dir = makeTmpDir()
  await cprof.start({ dir, labels: { otel: true }, interval: 100 })
  const spin = () => { for (let i = 0; i < 2e6; i++) Math.sqrt(i) }
  tracer.startActiveSpan('\0' + 'n'.repeat(100000), (span) => { spin(); span.end() })
  const unsampled = api.trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 0 })
  api.context.with(api.trace.setSpan(api.context.active(), unsampled), spin)
  const side = JSON.parse(fs.readFileSync((await cprof.stop()).files.labels, 'utf8'))
  const named = side.sets.filter((s) => s.span_id)
  assert.equal(named.length, 1, JSON.stringify(side.sets).slice(0, 300))
  assert.equal(named[0].span_name, 'n'.repeat(256))
})

test('the bound: past 16,384 span sets per profile the oldest lose their span labels, never the label set; memory stays flat', async () => {
  const { tracer } = otel()
  const dir = makeTmpDir()
  await cprof.start({ dir, labels: { otel: true }, interval: 100 })
  // A full GC before each reading, so the heap's growth is what is still
  // reachable, not garbage a busy machine has not collected yet.
  require('node:v8').setFlagsFromString('--expose-gc')
  const gc = require('node:vm').runInNewContext('gc')
  gc()
  const heap0 = process.memoryUsage().heapUsed
  let atCap = 0
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 10000; i++) {
      cprof.withLabels({ route: '/r' }, () => tracer.startActiveSpan('s', (span) => { for (let k = 0; k < 200; k++) Math.sqrt(k); span.end() }))
    }
    if (round === 1) { // 20,000 spans: past the 16,384 kept
      gc()
      atCap = process.memoryUsage().heapUsed - heap0
    }
  }
  gc()
  const grown = process.memoryUsage().heapUsed - heap0
  const r = await cprof.stop()
  const side = JSON.parse(fs.readFileSync(r.files.labels, 'utf8'))
  const spanSets = side.sets.filter((s) => s.span_id)
  assert.equal(spanSets.length, 16384, 'the newest 16,384 span sets')
  assert.ok(spanSets.every((s) => s.route === '/r'), 'a span set keeps its labels')
  const labelled = side.samples.filter((k) => side.sets[k].route === '/r').length
  const withSpan = side.samples.filter((k) => side.sets[k].span_id).length
  assert.ok(labelled > withSpan && withSpan > 0, `${withSpan} of ${labelled} /r samples with a span id: the older ones keep route`)
  assert.ok(grown < 32 << 20, `heap grew ${grown} bytes over 40,000 spans`)
  assert.ok(grown - atCap < 4 << 20, `flat past the cap: ${atCap} bytes at 20,000 spans, ${grown} at 40,000`)
})

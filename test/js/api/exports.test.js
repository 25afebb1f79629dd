'use strict'

// The `formats` option: every derived format written by the stop job next to
// the profile, read back with parsers cprof did not write (pprof-format,
// fast-xml-parser, xmllint), and their totals against the summary.

const { test: nodeTest, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const cprof = require('../../..')
const native = require('../../../lib/native')
const { makeTmpDir, removeTmpDirs, burnCpu, assertCprofError, fileMode, printedMs } = require('../helpers/util.js')
const { decodePprof, readFolded, readSvg, assertMainMapping } = require('../helpers/formats.js')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 40000 }, fn)

const ALL = ['cpuprofile', 'pprof', 'folded', 'svg', 'txt']
const EXT = { cpuprofile: 'cpuprofile', pprof: 'pb.gz', folded: 'folded', svg: 'svg', txt: 'txt' }

// The profile's total in µs, exactly: summary.total is µs / 1000.
const totalUs = (summary) => Math.round(summary.total * 1000)

function hotLoop (ms) {
  return burnCpu(ms)
}

let cpu // { dir, result }

before(async () => {
  const dir = makeTmpDir()
  await cprof.start({ dir, name: 'all', interval: 500, formats: ALL })
  hotLoop(400)
  cpu = { dir, result: await cprof.stop() }
})

test('stop() writes every format asked for, with one stem, atomically, mode 0600', () => {
  const { dir, result } = cpu
  assert.deepEqual(Object.keys(result.files).sort(), [...ALL].sort())
  for (const f of ALL) {
    assert.equal(result.files[f], path.join(dir, `all.${EXT[f]}`), `files.${f}`)
    assert.equal(fileMode(result.files[f]), 0o600, `${f} is private`)
    assert.ok(fs.statSync(result.files[f]).size > 0, `${f} is not empty`)
  }
  // Nothing else: no temp file was left behind.
  assert.deepEqual(fs.readdirSync(dir).sort(), ALL.map((f) => `all.${EXT[f]}`).sort())
})

test('pprof: sample and period types, interval, times, and totals equal the summary', () => {
  const { result } = cpu
  const p = decodePprof(result.files.pprof)
  assert.equal(p.strings[0], '', 'string_table[0] is ""')
  assert.deepEqual(p.types, ['samples/count', 'cpu/nanoseconds'])
  assert.equal(p.periodType, 'cpu/nanoseconds')
  assert.equal(p.period, 500n * 1000n, 'period: the interval in ns')
  assert.equal(p.timeNanos, BigInt(result.startTime) * 1000000n, 'time_nanos: start() wall time')
  assert.equal(p.durationNanos, BigInt(Math.round(result.durationMs * 1000)) * 1000n)
  assert.equal(p.sums[0], BigInt(result.samples), 'every V8 sample counted once')
  assert.equal(p.sums[1], BigInt(totalUs(result.summary)) * 1000n, 'cpu ns = the total µs * 1000')
  // Functions carry names, files and 1-based lines; the hot one is there.
  const hot = p.functions.find((f) => f.name === 'burnCpu')
  assert.ok(hot, 'burnCpu is a pprof function')
  assert.equal(hot.filename, path.join(__dirname, '..', 'helpers', 'util.js'))
  const line = fs.readFileSync(hot.filename, 'utf8').split('\n').findIndex((l) => l.startsWith('function burnCpu')) + 1
  assert.equal(hot.startLine, line)
  assert.ok(!p.functions.some((f) => f.name === '(root)'), '(root) is not part of the stacks')
  assertMainMapping(p, process.argv[1])
})

test('folded: one line per stack, counts (µs) sum to the total', () => {
  const { result } = cpu
  const f = readFolded(result.files.folded)
  assert.equal(f.sum, totalUs(result.summary))
  assert.ok(f.stacks.some((s) => /;burnCpu \([^;]*util\.js:\d+\)$/.test(s)),
    'a stack ends in burnCpu (file:line)')
  assert.ok(f.stacks.every((s) => !s.startsWith('(root)')), '(root) is left out')
})

test('svg: well-formed, self-contained, interactive, totals in the root frame', () => {
  const { result } = cpu
  const s = readSvg(result.files.svg)
  assert.ok(s.frames.length > 3)
  const root = s.frames.find((f) => f.title.startsWith('(root)'))
  assert.ok(root, 'a root frame')
  assert.equal(root.rect.width, 1180, 'the root spans the graph')
  // "(root)\nself 0.00 ms (0.00%), total 401.23 ms (100.00%), ..."
  assert.ok(printedMs(root.title, 'total', result.summary.total) && root.title.includes(' ms (100.00%)'), root.title)
  const hot = s.frames.find((f) => f.title.startsWith('burnCpu ('))
  assert.ok(hot, 'burnCpu has a frame')
  for (const fn of ['zoom', 'search', 'mouseover', 'click']) assert.ok(s.text.includes(fn), `script handles ${fn}`)
  assert.ok(s.text.includes('id="search"'), 'a search box')
})

test('txt: the text report of the same profile', () => {
  const { result } = cpu
  const text = fs.readFileSync(result.files.txt, 'utf8')
  assert.ok(text.startsWith('all.cpuprofile\nCPU profile: '), text.slice(0, 80))
  assert.match(text, /Top \d+ functions by self time/)
  assert.match(text, /Call tree \(top-down\)/)
  // The top function's row: its self time in ms to 2 decimals.
  const top = result.summary.top[0]
  const table = text.slice(text.indexOf('functions by self time'))
  const row = table.split('\n').find((l) => l.includes(`  ${top.functionName} `))
  assert.ok(row, `a row for ${top.functionName}:\n${table.slice(0, 600)}`)
  assert.ok(printedMs(row, '^\\s*', top.self), `${row} vs self ${top.self} ms`)
})

test('formats default to the kind\'s own file only', async () => {
  const dir = makeTmpDir()
  await cprof.start({ dir, name: 'plain' })
  hotLoop(50)
  const r = await cprof.stop()
  assert.deepEqual(Object.keys(r.files), ['cpuprofile'])
  await cprof.start({ dir, name: 'own', formats: ['cpuprofile'] })
  const r2 = await cprof.stop()
  assert.deepEqual(Object.keys(r2.files), ['cpuprofile'])
  assert.deepEqual(fs.readdirSync(dir).sort(), ['own.cpuprofile', 'plain.cpuprofile'])
})

async function heapRun (includeCollected) {
  const dir = makeTmpDir()
  await cprof.heap.start({ dir, name: 'h', interval: 1024, includeCollected, formats: ['heapprofile', 'pprof', 'folded', 'svg', 'txt'] })
  const keep = []
  for (let i = 0; i < 20000; i++) keep.push({ i, s: `item ${i}` })
  const result = await cprof.heap.stop()
  keep.length = 0
  return result
}

test('heap: pprof samples/inuse_space, totals equal the summary; folded in bytes', async () => {
  const result = await heapRun(false)
  assert.deepEqual(Object.keys(result.files).sort(), ['folded', 'heapprofile', 'pprof', 'svg', 'txt'])
  const p = decodePprof(result.files.pprof)
  // The counts are V8 samples, so not named inuse_objects (Go's estimated
  // object count): `pprof -sample_index=inuse_objects` refuses them.
  assert.deepEqual(p.types, ['samples/count', 'inuse_space/bytes'])
  assert.equal(p.periodType, 'space/bytes')
  assert.equal(p.period, 1024n)
  assertMainMapping(p, process.argv[1])
  assert.equal(p.timeNanos, BigInt(result.startTime) * 1000000n)
  assert.ok(p.durationNanos > 0n)
  assert.equal(p.sums[0], BigInt(result.samples), 'samples: one per V8 sample')
  assert.equal(p.sums[1], BigInt(result.summary.total), 'space: the total bytes')
  assert.equal(readFolded(result.files.folded).sum, result.summary.total)
  const s = readSvg(result.files.svg)
  assert.ok(s.svg.text.some((t) => String(t['#text'] ?? t).startsWith('Heap allocation flame graph')))
  assert.match(fs.readFileSync(result.files.txt, 'utf8'), /^h\.heapprofile\nHeap profile: /)
})

test('heap with includeCollected: pprof samples/alloc_space', async () => {
  const result = await heapRun(true)
  const p = decodePprof(result.files.pprof)
  assert.deepEqual(p.types, ['samples/count', 'alloc_space/bytes'])
  assert.equal(p.sums[1], BigInt(result.summary.total))
})

test('invalid formats: ERR_CPROF_INVALID_ARG, nothing starts', async () => {
  const bad = [
    'svg',
    ['svg', 'png'],
    ['heapprofile'],
    [1],
    [null],
    {}
  ]
  for (const formats of bad) {
    await assert.rejects(cprof.start({ formats }), (err) => {
      assertCprofError(err, 'ERR_CPROF_INVALID_ARG')
      assert.match(err.message, /format/)
      return true
    }, `start({ formats: ${JSON.stringify(formats)} })`)
  }
  await assert.rejects(cprof.heap.start({ formats: ['cpuprofile'] }), { code: 'ERR_CPROF_INVALID_ARG' })
  await assert.rejects(cprof.profile({ duration: 10, formats: ['gif'] }), { code: 'ERR_CPROF_INVALID_ARG' })
  // Nothing was started by the failures.
  await assert.rejects(cprof.stop(), { code: 'ERR_CPROF_NOT_STARTED' })
})

test('a derived file that cannot be written: ERR_CPROF_IO, err.result keeps the files written', async () => {
  const dir = makeTmpDir()
  fs.mkdirSync(path.join(dir, 'x.svg')) // the SVG cannot be renamed over a directory
  await cprof.start({ dir, name: 'x', formats: ['pprof', 'svg', 'txt'] })
  hotLoop(30)
  await assert.rejects(cprof.stop(), (err) => {
    assertCprofError(err, 'ERR_CPROF_IO')
    assert.match(err.message, /x\.svg/)
    assert.ok(err.result, 'err.result')
    assert.equal(err.result.files.cpuprofile, path.join(dir, 'x.cpuprofile'))
    assert.equal(err.result.files.pprof, path.join(dir, 'x.pb.gz'))
    assert.equal(err.result.files.svg, undefined)
    assert.ok(err.result.summary.total >= 0)
    return true
  })
  // Only complete files, no temp file.
  assert.deepEqual(fs.readdirSync(dir).sort(), ['x.cpuprofile', 'x.pb.gz', 'x.svg'])
})

// A synthetic profile with ~50k nodes and 2k functions.
function bigProfile (nodeCount, sampleCount) {
  let seed = 7
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const frame = (functionName, url, lineNumber) => ({ functionName, scriptId: '1', url, lineNumber, columnNumber: 0 })
  const nodes = [{ id: 1, callFrame: frame('(root)', '', -1), hitCount: 0, children: [] }]
  const urls = ['file:///srv/app/a.js', 'file:///srv/app/node_modules/x/i.js', 'node:internal/y', '']
  for (let id = 2; id <= nodeCount; id++) {
    const parent = nodes[Math.floor(Math.pow(rnd(), 2) * nodes.length)]
    const fn = Math.floor(rnd() * 2000)
    nodes.push({ id, callFrame: frame(`f${fn}`, urls[fn % 4], fn), hitCount: 0, children: [] })
    parent.children.push(id)
  }
  const samples = []
  const timeDeltas = []
  for (let i = 0; i < sampleCount; i++) {
    samples.push(1 + Math.floor(rnd() * nodeCount))
    timeDeltas.push(100)
  }
  return { nodes, startTime: 0, endTime: sampleCount * 100 + 100, samples, timeDeltas }
}

test('a 50k-node profile: the SVG merges sub-pixel frames, and the job runs off the main thread', async () => {
  const dir = makeTmpDir()
  const file = path.join(dir, 'big.cpuprofile')
  fs.writeFileSync(file, JSON.stringify(bigProfile(50000, 100000)))
  let ticks = 0
  const timer = setInterval(() => { ticks++ }, 1)
  const r = await native.convert(file, dir, 20, {
    outs: { svg: 'big.svg', folded: 'big.folded', pprof: 'big.pb.gz' },
    needSamples: true
  })
  clearInterval(timer)
  assert.ok(ticks > 0, 'timers ran while the job worked')
  const s = readSvg(r.outputs.svg.path)
  assert.ok(s.frames.length < 10000, `${s.frames.length} frames drawn of 50000 nodes`)
  assert.ok(r.outputs.svg.size < 3 * 1024 * 1024, `svg is ${r.outputs.svg.size} bytes`)
  assert.ok(s.frames.some((f) => f.run), 'narrow siblings are merged into "(N frames)"')
  for (const f of s.frames) assert.ok(f.rect.width >= 1, `frame ${f.title.split('\n')[0]} is at least 1 px wide`)
  // Totals agree across formats.
  const us = Math.round(r.summary.total * 1000)
  assert.equal(readFolded(r.outputs.folded.path).sum, us)
  assert.equal(decodePprof(r.outputs.pprof.path).sums[1], BigInt(us) * 1000n)
})

'use strict'

// Source maps, end to end with real tools: a TypeScript project compiled by
// the real `typescript` (tsc --sourceMap and --inlineSourceMap), a minified
// esbuild bundle with an external map, and an index (sectioned) map. Every
// mapped frame is checked against @jridgewell/trace-mapping's
// originalPositionFor for the same position; missing, malformed, enormous
// and out-of-tree (../../etc/passwd) maps leave frames unmapped, counted,
// with every file still written.

const { test: nodeTest, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { pathToFileURL, fileURLToPath } = require('node:url')
const tm = require('@jridgewell/trace-mapping')

const cprof = require('../../..')
const { ROOT, makeTmpDir, removeTmpDirs, childEnv, assertCprofError } = require('../helpers/util.js')
const { runFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { decodePprof, readFolded, readSvg } = require('../helpers/formats.js')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 120000 }, fn)

const BIN = path.join(ROOT, 'bin', 'cprof.js')
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

// The TypeScript app: the hot function is written on HOT_TS_LINE.
const HOT_TS = `// A TypeScript module: types vanish in the JavaScript tsc writes,
// so every line below moves in the output.
export interface Totals {
  sum: number
  calls: number
}

const kept: number[][] = []

export function hotTypeScript(n: number): number {
  let s: number = 0
  for (let i: number = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i)
  return s
}

export function allocTypeScript(): void {
  kept.push(new Array<number>(512).fill(1))
  if (kept.length > 4000) kept.length = 0
}

export function run(ms: number): Totals {
  const end: number = Date.now() + ms
  const totals: Totals = { sum: 0, calls: 0 }
  while (Date.now() < end) {
    totals.sum += hotTypeScript(20000)
    allocTypeScript()
    totals.calls++
  }
  return totals
}
`
const HOT_TS_LINE = HOT_TS.split('\n').findIndex((l) => l.includes('function hotTypeScript')) + 1

// The bundled app: two modules, minified by esbuild into one line.
const COMPUTE_JS = `// Long names that minification replaces.
export function computeChecksumOfBuffer (n) {
  let s = 0
  for (let i = 0; i < n; i++) s += Math.sqrt(i) * Math.cos(i)
  return s
}

const retained = []
export function allocateRetainedChunks () {
  retained.push(new Array(512).fill(2))
  if (retained.length > 4000) retained.length = 0
}
`
const MAIN_JS = `import { computeChecksumOfBuffer, allocateRetainedChunks } from './lib/compute.js'

export function run (ms) {
  const end = Date.now() + ms
  let t = 0
  while (Date.now() < end) {
    t += computeChecksumOfBuffer(20000)
    allocateRetainedChunks()
  }
  return t
}
`
const COMPUTE_LINE = COMPUTE_JS.split('\n').findIndex((l) => l.includes('function computeChecksumOfBuffer')) + 1

let work // { ts: { ext, inline }, bundle, bundleMap }

function writeFiles (dir, files) {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
}

function tsc (dir, outDir, flag) {
  const r = spawnSync(process.execPath, [TSC, flag, '--outDir', outDir, '--module', 'commonjs',
    '--target', 'es2020', '--strict', path.join(dir, 'src', 'hot.ts')], { encoding: 'utf8', cwd: dir })
  assert.equal(r.status, 0, `tsc ${flag}: ${r.stdout}${r.stderr}`)
  return path.join(outDir, 'hot.js')
}

before(() => {
  const dir = makeTmpDir('cprof-sm-')
  writeFiles(dir, { 'src/hot.ts': HOT_TS, 'src/main.js': MAIN_JS, 'src/lib/compute.js': COMPUTE_JS })
  const ext = tsc(dir, path.join(dir, 'dist-ext'), '--sourceMap')
  const inline = tsc(dir, path.join(dir, 'dist-inline'), '--inlineSourceMap')
  assert.match(fs.readFileSync(ext, 'utf8'), /\/\/# sourceMappingURL=hot\.js\.map\s*$/)
  assert.match(fs.readFileSync(inline, 'utf8'), /\/\/# sourceMappingURL=data:application\/json;base64,/)
  const bundle = path.join(dir, 'dist-bundle', 'bundle.js')
  require('esbuild').buildSync({
    entryPoints: [path.join(dir, 'src', 'main.js')],
    bundle: true,
    minify: true,
    sourcemap: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    logLevel: 'silent'
  })
  assert.doesNotMatch(fs.readFileSync(bundle, 'utf8'), /computeChecksumOfBuffer/, 'the bundle is minified')
  work = { dir, ts: { ext, inline }, bundle, bundleMap: `${bundle}.map`, src: path.join(dir, 'src') }
})

function profileApp (mod, kind, opts, { execArgv = [] } = {}) {
  const out = makeTmpDir()
  const r = runFixture('sourcemaps-app.js', [out, mod, kind, JSON.stringify(opts)], { timeout: 60000, execArgv })
  assert.equal(r.status, 0, r.describe())
  const { result } = r.json.find((o) => o.result) || {}
  assert.ok(result, r.describe())
  return result
}

// The summary entry for a function name (the mapped or the V8 one).
function fn (result, name) {
  return result.summary.top.find((f) => f.functionName === name)
}

function urlPath (url) {
  return url.startsWith('file:') ? fileURLToPath(url) : url
}

function cli (...args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60000, env: childEnv() })
  if (r.error) throw r.error
  assert.equal(r.status, 0, `cprof ${args.join(' ')} → ${r.status}\n${r.stdout}\n${r.stderr}`)
  assert.equal(r.stderr, '')
  return r
}

for (const variant of ['ext', 'inline']) {
  test(`tsc --${variant === 'ext' ? 'sourceMap' : 'inlineSourceMap'}: the hot function is reported with its .ts file and line, in every derived file`, () => {
    const result = profileApp(work.ts[variant], 'cpu', { sourceMaps: true })
    const hot = fn(result, 'hotTypeScript')
    assert.ok(hot, `hotTypeScript is in the summary: ${JSON.stringify(result.summary.top.slice(0, 5))}`)
    assert.equal(urlPath(hot.url), path.join(work.src, 'hot.ts'))
    assert.equal(hot.line, HOT_TS_LINE)
    assert.ok(result.sourceMaps.mapped >= 2 && result.sourceMaps.scriptsWithMap === 1, JSON.stringify(result.sourceMaps))
    assert.equal(result.sourceMaps.mapErrors, 0)

    const pprof = decodePprof(result.files.pprof)
    const pf = pprof.functions.find((f) => f.name === 'hotTypeScript')
    assert.ok(pf, 'pprof names the function')
    assert.equal(urlPath(pf.filename), path.join(work.src, 'hot.ts'))
    assert.equal(pf.startLine, HOT_TS_LINE)
    assert.ok(!pprof.functions.some((f) => f.filename.endsWith('dist-ext/hot.js') || f.filename.endsWith('dist-inline/hot.js')),
      'no pprof function names the compiled file')
    const folded = readFolded(result.files.folded)
    assert.ok(folded.stacks.some((s) => s.includes(`hotTypeScript (${path.join(work.src, 'hot.ts')}:${HOT_TS_LINE})`)), folded.text.slice(0, 500))
    assert.match(fs.readFileSync(result.files.txt, 'utf8'), /hotTypeScript \(.*hot\.ts:\d+\)/)
    assert.match(readSvg(result.files.svg).text, /hot\.ts/)

    // The .cpuprofile keeps V8's own positions: the compiled file.
    const cpu = JSON.parse(fs.readFileSync(result.files.cpuprofile, 'utf8'))
    const frames = cpu.nodes.map((n) => n.callFrame).filter((c) => c.functionName === 'hotTypeScript')
    assert.ok(frames.length > 0 && frames.every((c) => urlPath(c.url) === work.ts[variant]), JSON.stringify(frames))
  })
}

test('an esbuild minified bundle with an external map: original names and files, CPU and heap', () => {
  const result = profileApp(work.bundle, 'cpu', { sourceMaps: true })
  const hot = fn(result, 'computeChecksumOfBuffer')
  assert.ok(hot, `the original name is reported: ${JSON.stringify(result.summary.top.slice(0, 5))}`)
  assert.equal(urlPath(hot.url), path.join(work.src, 'lib', 'compute.js'))
  assert.equal(hot.line, COMPUTE_LINE)
  const pprof = decodePprof(result.files.pprof)
  assert.ok(pprof.functions.some((f) => f.name === 'computeChecksumOfBuffer' && f.filename.endsWith('/src/lib/compute.js')))

  const heap = profileApp(work.bundle, 'heap', { sourceMaps: true })
  const alloc = fn(heap, 'allocateRetainedChunks')
  assert.ok(alloc, `the allocating function's original name: ${JSON.stringify(heap.summary.top.slice(0, 5))}`)
  assert.equal(urlPath(alloc.url), path.join(work.src, 'lib', 'compute.js'))
  const hp = JSON.parse(fs.readFileSync(heap.files.heapprofile, 'utf8'))
  assert.doesNotMatch(JSON.stringify(hp), /allocateRetainedChunks/, 'the .heapprofile keeps V8\'s (minified) frames')

  // Without source maps: the minified names, the bundle's file.
  const plain = profileApp(work.bundle, 'cpu', {})
  assert.equal(plain.sourceMaps, undefined)
  assert.ok(!fn(plain, 'computeChecksumOfBuffer'))
  assert.ok(plain.summary.top.some((f) => urlPath(f.url) === work.bundle))
})

test('sourceMaps defaults to on under --enable-source-maps, and is checked', async () => {
  const result = profileApp(work.bundle, 'cpu', {}, { execArgv: ['--enable-source-maps'] })
  assert.ok(result.sourceMaps && result.sourceMaps.mapped > 0, JSON.stringify(result.sourceMaps))
  assert.ok(fn(result, 'computeChecksumOfBuffer'))
  const off = profileApp(work.bundle, 'cpu', { sourceMaps: false }, { execArgv: ['--enable-source-maps'] })
  assert.equal(off.sourceMaps, undefined)
  const invalid = (err) => { assertCprofError(err, 'ERR_CPROF_INVALID_ARG'); return /sourceMaps must be a boolean/.test(err.message) }
  await assert.rejects(cprof.start({ sourceMaps: 'yes' }), invalid)
  await assert.rejects(cprof.heap.start({ sourceMaps: 1 }), invalid)
  assert.throws(() => cprof.init({ sourceMaps: 'on' }), invalid)
})

test('the preload with CPROF_SOURCE_MAPS=1 maps its profiles', () => {
  const dir = makeTmpDir()
  const r = runFixture('sourcemaps-preload.js', [work.bundle], {
    timeout: 60000,
    execArgv: ['-r', path.join(ROOT, 'register.js')],
    env: { CPROF_PROFILING: 'cpu', CPROF_SOURCE_MAPS: '1', CPROF_DIR: dir, CPROF_INTERVAL: '1000', CPROF_FORMATS: 'folded' }
  })
  assert.equal(r.status, 0, r.describe())
  const { result } = r.json.find((o) => o.result) || {}
  assert.ok(result && result.sourceMaps && result.sourceMaps.mapped > 0, r.describe())
  assert.match(fs.readFileSync(result.files.folded, 'utf8'), /computeChecksumOfBuffer \(.*compute\.js:\d+\)/)
})

test('the recorder\'s dumps map frames: recorder.start({ sourceMaps }), init({ sourceMaps }), --enable-source-maps, CPROF_SOURCE_MAPS', async () => {
  const ts = profileApp(work.ts.ext, 'recorder', { sourceMaps: true })
  const hot = fn(ts, 'hotTypeScript')
  assert.ok(hot, `hotTypeScript is in the dump's summary: ${JSON.stringify(ts.summary.top.slice(0, 5))}`)
  assert.equal(urlPath(hot.url), path.join(work.src, 'hot.ts'))
  assert.equal(hot.line, HOT_TS_LINE)
  assert.ok(ts.windows >= 1 && ts.sourceMaps.mapped >= 2 && ts.sourceMaps.scriptsWithMap === 1, JSON.stringify(ts.sourceMaps))
  const pf = decodePprof(ts.files.pprof).functions.find((f) => f.name === 'hotTypeScript')
  assert.ok(pf && urlPath(pf.filename) === path.join(work.src, 'hot.ts') && pf.startLine === HOT_TS_LINE, JSON.stringify(pf))
  assert.ok(readFolded(ts.files.folded).stacks.some((s) => s.includes(`hotTypeScript (${path.join(work.src, 'hot.ts')}:${HOT_TS_LINE})`)))
  assert.match(fs.readFileSync(ts.files.txt, 'utf8'), /hotTypeScript \(.*hot\.ts:\d+\)/)
  // The dump's .cpuprofile keeps V8's own positions, as start()'s does.
  const cpu = JSON.parse(fs.readFileSync(ts.files.cpuprofile, 'utf8'))
  const frames = cpu.nodes.map((n) => n.callFrame).filter((c) => c.functionName === 'hotTypeScript')
  assert.ok(frames.length > 0 && frames.every((c) => urlPath(c.url) === work.ts.ext), JSON.stringify(frames))

  // init's top-level sourceMaps applies to the recorder it starts; recorder: { sourceMaps } wins.
  const viaInit = profileApp(work.bundle, 'recorder', { init: { recorder: { interval: 1000 }, sourceMaps: true } })
  assert.ok(fn(viaInit, 'computeChecksumOfBuffer'), JSON.stringify(viaInit.summary.top.slice(0, 5)))
  const recOff = profileApp(work.bundle, 'recorder', { init: { recorder: { interval: 1000, sourceMaps: false }, sourceMaps: true } })
  assert.equal(recOff.sourceMaps, undefined)
  assert.ok(!fn(recOff, 'computeChecksumOfBuffer'))
  // The default follows start()'s: on under --enable-source-maps, off without.
  const byFlag = profileApp(work.bundle, 'recorder', {}, { execArgv: ['--enable-source-maps'] })
  assert.ok(byFlag.sourceMaps && byFlag.sourceMaps.mapped > 0 && fn(byFlag, 'computeChecksumOfBuffer'), JSON.stringify(byFlag.sourceMaps))
  const plain = profileApp(work.bundle, 'recorder', {})
  assert.equal(plain.sourceMaps, undefined)
  assert.ok(!fn(plain, 'computeChecksumOfBuffer'))

  // Under the preload: CPROF_RECORDER=1 with CPROF_SOURCE_MAPS=1, dumped by the signal.
  const dir = makeTmpDir()
  const r = runFixture('sourcemaps-preload.js', [work.bundle, 'dump'], {
    timeout: 60000,
    execArgv: ['-r', path.join(ROOT, 'register.js')],
    env: { CPROF_RECORDER: '1', CPROF_RECORDER_WINDOW: '250', CPROF_RECORDER_INTERVAL: '1000', CPROF_SOURCE_MAPS: '1', CPROF_DIR: dir, CPROF_FORMATS: 'folded' }
  })
  assert.equal(r.status, 0, r.describe())
  const { result } = r.json.find((o) => o.result) || {}
  assert.ok(result && result.windows >= 1 && result.sourceMaps && result.sourceMaps.mapped > 0, r.describe())
  assert.match(fs.readFileSync(result.files.folded, 'utf8'), /computeChecksumOfBuffer \(.*compute\.js:\d+\)/)

  const invalid = (err) => { assertCprofError(err, 'ERR_CPROF_INVALID_ARG'); return /sourceMaps must be a boolean/.test(err.message) }
  assert.throws(() => cprof.recorder.start({ sourceMaps: 'yes' }), invalid)
  await assert.rejects(cprof.recorder.dump({ sourceMaps: 1 }), invalid)
  assert.throws(() => cprof.init({ recorder: { sourceMaps: 'on' } }), invalid)
})

// ---- agreement with trace-mapping, on a heap profile made for it ----

// A .heapprofile whose root has one child per position, each with its own
// V8 name and a distinct selfSize, so the summary says what each maps to.
function positionsProfile (positions) {
  const children = positions.map((p, i) => ({
    callFrame: { functionName: `v8name${i}`, scriptId: '1', url: p.url, lineNumber: p.line, columnNumber: p.column },
    selfSize: (i + 1) * 64,
    id: i + 2,
    children: []
  }))
  return {
    head: { callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, selfSize: 0, id: 1, children },
    samples: children.map((c, i) => ({ size: c.selfSize, nodeId: c.id, ordinal: i + 1 }))
  }
}

// What trace-mapping says for one position, as cprof's summary shows a
// function: 1-based line and column; the V8 frame where nothing maps.
function expected (map, p, i) {
  const line = p.line + 1
  let pos = tm.originalPositionFor(map, { line, column: p.column })
  if (pos.source === null) {
    // Before the line's first mapping (V8's column 0): the nearest one after.
    const segs = tm.decodedMappings(map)[p.line] || []
    if (segs.length && p.column < segs[0][0]) pos = tm.originalPositionFor(map, { line, column: p.column, bias: tm.LEAST_UPPER_BOUND })
  }
  if (pos.source === null) return { functionName: `v8name${i}`, url: p.url, line: p.line + 1, column: p.column + 1 }
  const source = p.url.startsWith('file:') ? pos.source : fileURLToPath(pos.source)
  return { functionName: pos.name ?? `v8name${i}`, url: source, line: pos.line, column: pos.column + 1 }
}

function agree (script, map, positions) {
  const dir = makeTmpDir()
  const file = path.join(dir, 'positions.heapprofile')
  fs.writeFileSync(file, JSON.stringify(positionsProfile(positions)))
  const want = new Map()
  positions.forEach((p, i) => {
    const e = expected(map, p, i)
    const key = `${e.functionName}|${e.url}|${e.line}|${e.column}`
    want.set(key, (want.get(key) || 0) + (i + 1) * 64)
  })
  const r = cli('report', file, '--json', '--source-maps', '--top', '100000')
  const got = new Map()
  const out = JSON.parse(r.stdout)
  for (const f of out.summary.top) got.set(`${f.functionName}|${f.url}|${f.line}|${f.column}`, f.self)
  assert.deepEqual(got, want)
  return out.sourceMaps
}

// Every mapping's generated position, column 0 of every line, and columns
// between and past the mappings, in both url styles V8 uses.
function positionsOf (script, map, limit = 400) {
  const lines = tm.decodedMappings(map)
  const all = []
  lines.forEach((segs, line) => {
    all.push({ line, column: 0 })
    for (const s of segs) all.push({ line, column: s[0] }, { line, column: s[0] + 1 })
    if (segs.length) all.push({ line, column: segs[segs.length - 1][0] + 1000 })
  })
  all.push({ line: lines.length + 3, column: 0 }) // past the map's lines
  const step = Math.max(1, Math.floor(all.length / limit))
  return all.filter((_, i) => i % step === 0).map((p, i) => ({
    ...p, url: i % 2 ? script : pathToFileURL(script).href
  }))
}

test('agreement: every mapped frame equals trace-mapping\'s originalPositionFor (esbuild, tsc external and inline)', () => {
  const cases = [
    [work.bundle, fs.readFileSync(work.bundleMap, 'utf8'), pathToFileURL(work.bundleMap).href],
    [work.ts.ext, fs.readFileSync(`${work.ts.ext}.map`, 'utf8'), pathToFileURL(`${work.ts.ext}.map`).href],
    [work.ts.inline, Buffer.from(fs.readFileSync(work.ts.inline, 'utf8').split('base64,')[1].trim(), 'base64').toString(), pathToFileURL(work.ts.inline).href]
  ]
  for (const [script, text, mapUrl] of cases) {
    const map = new tm.TraceMap(text, mapUrl)
    const positions = positionsOf(script, map)
    // And every frame a real profile of the script has.
    const cpu = profileApp(script, 'cpu', {})
    const prof = JSON.parse(fs.readFileSync(cpu.files.cpuprofile, 'utf8'))
    for (const n of prof.nodes) {
      if (urlPath(n.callFrame.url) === script) positions.push({ url: n.callFrame.url, line: n.callFrame.lineNumber, column: n.callFrame.columnNumber })
    }
    const st = agree(script, map, positions)
    assert.equal(st.scriptsWithMap, 2, 'one script under two urls (file: URL and path)')
    assert.ok(st.mapped > positions.length / 2, JSON.stringify(st))
  }
})

test('agreement where paths need percent-encoding: a bundle under a directory with a space and a #', () => {
  const dir = path.join(makeTmpDir(), 'my app #1')
  const src = path.join(dir, 'src')
  writeFiles(dir, { 'src/main.js': MAIN_JS, 'src/lib/compute.js': COMPUTE_JS })
  const script = path.join(dir, 'out', 'bundle.js')
  require('esbuild').buildSync({
    entryPoints: [path.join(src, 'main.js')], bundle: true, minify: true, sourcemap: true, platform: 'node', format: 'cjs', outfile: script, logLevel: 'silent'
  })
  const map = new tm.TraceMap(fs.readFileSync(`${script}.map`, 'utf8'), pathToFileURL(`${script}.map`).href)
  const first = tm.decodedMappings(map)[0].find((seg) => seg.length >= 4)
  assert.match(tm.originalPositionFor(map, { line: 1, column: first[0] }).source, /my%20app%20%231/, 'trace-mapping resolves to an encoded file URL')
  const st = agree(script, map, positionsOf(script, map))
  assert.equal(st.mapErrors, 0)
  assert.ok(st.mapped > 0)
})

test('agreement on an index map (sections): a tsc output and the bundle concatenated', () => {
  const a = fs.readFileSync(work.ts.ext, 'utf8').replace(/\/\/# sourceMappingURL=.*\n?$/, '')
  const b = fs.readFileSync(work.bundle, 'utf8').replace(/\/\/# sourceMappingURL=.*\n?$/, '')
  const script = path.join(work.dir, 'dist-ext', 'joined.js') // the tsc map's sources resolve from here
  const aLines = a.split('\n').length - 1
  const mapA = JSON.parse(fs.readFileSync(`${work.ts.ext}.map`, 'utf8'))
  const mapB = JSON.parse(fs.readFileSync(work.bundleMap, 'utf8'))
  mapB.sources = mapB.sources.map((s) => path.relative(path.dirname(script), path.resolve(path.dirname(work.bundle), s)))
  const index = { version: 3, sections: [{ offset: { line: 0, column: 0 }, map: mapA }, { offset: { line: aLines, column: 0 }, map: mapB }] }
  fs.writeFileSync(script, `${a}${b}\n//# sourceMappingURL=joined.js.map\n`)
  fs.writeFileSync(`${script}.map`, JSON.stringify(index))
  const map = new tm.AnyMap(index, pathToFileURL(`${script}.map`).href)
  const st = agree(script, map, positionsOf(script, map))
  assert.equal(st.mapErrors, 0)
  assert.ok(st.mapped > 0)
})

// ---- maps that cannot be used ----

test('missing, malformed, enormous and ../../etc/passwd maps: frames stay unmapped and counted, every file written, nothing of the map copied', () => {
  const dir = makeTmpDir()
  const code = 'function f () { return 1 }\n'
  const depth = dir.split('/').length + 2
  const scripts = {
    'missing.js': `${code}//# sourceMappingURL=missing.js.map\n`,
    'notjson.js': `${code}//# sourceMappingURL=notjson.js.map\n`,
    'badvlq.js': `${code}//# sourceMappingURL=badvlq.js.map\n`,
    'huge.js': `${code}//# sourceMappingURL=huge.js.map\n`,
    'passwd.js': `${code}//# sourceMappingURL=${'../'.repeat(depth)}etc/passwd\n`,
    'nomap.js': code
  }
  writeFiles(dir, scripts)
  fs.writeFileSync(path.join(dir, 'notjson.js.map'), '{"version": 3, "mappings": ')
  fs.writeFileSync(path.join(dir, 'badvlq.js.map'), JSON.stringify({ version: 3, sources: ['a.ts'], names: [], mappings: 'AAAA,!!!!' }))
  const fd = fs.openSync(path.join(dir, 'huge.js.map'), 'w')
  fs.ftruncateSync(fd, 65 * 1024 * 1024 + 1) // sparse: over the 64 MiB bound without writing it
  fs.closeSync(fd)
  const positions = Object.keys(scripts).map((name) => ({ url: path.join(dir, name), line: 0, column: 9 }))
  const file = path.join(dir, 'bad.heapprofile')
  fs.writeFileSync(file, JSON.stringify(positionsProfile(positions)))

  const r = cli('report', file, '--json', '--source-maps', '--top', '100')
  const out = JSON.parse(r.stdout)
  assert.equal(out.sourceMaps.frames, 6)
  assert.equal(out.sourceMaps.mapped, 0)
  assert.equal(out.sourceMaps.unmapped, 6)
  assert.equal(out.sourceMaps.scripts, 6)
  assert.equal(out.sourceMaps.scriptsWithMap, 0)
  assert.equal(out.sourceMaps.mapErrors, 5, JSON.stringify(out.sourceMaps))
  assert.equal(out.sourceMaps.errors.length, 4)
  for (const [i, f] of out.summary.top.entries()) assert.equal(f.url, positions[Number(f.functionName.slice(6))].url, `${i}: unmapped frames stay as they were`)
  const errs = out.sourceMaps.errors.join('\n')
  assert.match(errs, /missing\.js.*No such file/)
  assert.match(errs, /notjson\.js.*not JSON/)

  // The passwd "map" is read as a map only: nothing of it in any output.
  const conv = cli('convert', file, '--to', 'pprof', '--to', 'folded', '--to', 'svg', '--to', 'txt', '--source-maps')
  const texts = [r.stdout, conv.stdout, ...conv.stdout.trim().split('\n').map((p) => p.endsWith('.gz') ? require('node:zlib').gunzipSync(fs.readFileSync(p)).toString('latin1') : fs.readFileSync(p, 'utf8'))]
  const passwd = fs.readFileSync('/etc/passwd', 'utf8').split('\n').filter((l) => l.length > 8)
  for (const t of texts) for (const l of passwd) assert.ok(!t.includes(l), 'no line of /etc/passwd is copied')
  const one = cli('report', path.join(dir, 'bad.heapprofile'), '--json', '--source-maps')
  assert.doesNotMatch(one.stdout, /root:/)
})

test('in-process: a malformed map costs nothing but the mapping; the profile and every format are written', () => {
  const dir = makeTmpDir()
  const app = path.join(dir, 'app.js')
  fs.writeFileSync(app, `function spin (n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); return s }
exports.run = (ms) => { const end = Date.now() + ms; let t = 0; while (Date.now() < end) t += spin(20000); return t }
//# sourceMappingURL=app.js.map
`)
  fs.writeFileSync(path.join(dir, 'app.js.map'), '{"version":3,"sources":["x.ts"],"mappings":"AAAA,,;;=="}')
  const result = profileApp(app, 'cpu', { sourceMaps: true })
  for (const f of ['cpuprofile', 'pprof', 'folded', 'svg', 'txt']) assert.ok(fs.statSync(result.files[f]).size > 0, f)
  assert.equal(result.sourceMaps.mapped, 0)
  assert.ok(result.sourceMaps.unmapped >= 1)
  assert.equal(result.sourceMaps.mapErrors, 1)
  assert.match(result.sourceMaps.errors[0], /app\.js.*mappings/)
  assert.ok(fn(result, 'spin') && urlPath(fn(result, 'spin').url) === app)
})

// ---- the CLI on files ----

test('cprof report|flame|convert|diff|html --source-maps on a profile of the bundle', () => {
  const a = profileApp(work.bundle, 'cpu', {})
  const b = profileApp(work.bundle, 'cpu', {})
  const file = a.files.cpuprofile
  const rep = cli('report', file, '--source-maps')
  assert.match(rep.stdout, /computeChecksumOfBuffer \(.*src\/lib\/compute\.js:\d+\)/)
  assert.doesNotMatch(cli('report', file).stdout, /computeChecksumOfBuffer/)
  const svg = path.join(makeTmpDir(), 'f.svg')
  cli('flame', file, '-o', svg, '--source-maps')
  assert.match(readSvg(svg).text, /computeChecksumOfBuffer/)
  const out = cli('convert', file, '--to', 'pprof', '--to', 'folded', '--source-maps', '--force').stdout.trim().split('\n')
  const pprof = decodePprof(out.find((p) => p.endsWith('.pb.gz')))
  assert.ok(pprof.functions.some((f) => f.name === 'computeChecksumOfBuffer' && f.filename.endsWith('src/lib/compute.js') && f.startLine === COMPUTE_LINE))
  assert.match(fs.readFileSync(out.find((p) => p.endsWith('.folded')), 'utf8'), /computeChecksumOfBuffer/)
  const diff = cli('diff', file, b.files.cpuprofile, '--source-maps', '-o', path.join(makeTmpDir(), 'd.svg'))
  assert.match(diff.stdout, /computeChecksumOfBuffer/)
  // The HTML viewer's embedded function table, of a profile and of a diff.
  const fnsOf = (html) => JSON.parse(fs.readFileSync(html, 'utf8').match(/<script type="application\/json" id="cprof-data">([^<]*)<\/script>/)[1]).fns
  for (const args of [[file], [file, b.files.cpuprofile]]) {
    const page = path.join(makeTmpDir(), 'v.html')
    const r = cli('html', ...args, '-o', page, '--source-maps')
    assert.equal(r.status, 0, r.stderr)
    const fns = fnsOf(page)
    const at = fns.name.indexOf('computeChecksumOfBuffer')
    assert.ok(at >= 0 && fns.url[at].endsWith('src/lib/compute.js'), `${args.length} file(s): ${fns.url[at]}`)
    assert.equal(cli('html', ...args, '-o', page).status, 0)
    assert.equal(fnsOf(page).name.indexOf('computeChecksumOfBuffer'), -1, 'without --source-maps, V8\'s frames')
  }
  // V8's own file is untouched by all of it.
  assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /computeChecksumOfBuffer/)
})

test('cprof merge --source-maps: the merged summary and derived files map frames, the merged profile keeps V8\'s', () => {
  const a = profileApp(work.ts.ext, 'cpu', {})
  const b = profileApp(work.ts.ext, 'cpu', {})
  const dir = makeTmpDir()
  const out = path.join(dir, 'merged.cpuprofile')
  const r = JSON.parse(cli('merge', a.files.cpuprofile, b.files.cpuprofile, '-o', out, '--formats', 'pprof,folded',
    '--source-maps', '--json').stdout)
  const hot = fn(r, 'hotTypeScript')
  assert.ok(hot, JSON.stringify(r.summary.top.slice(0, 5)))
  assert.equal(urlPath(hot.url), path.join(work.src, 'hot.ts'))
  assert.equal(hot.line, HOT_TS_LINE)
  assert.ok(r.sourceMaps && r.sourceMaps.mapped >= 2 && r.sourceMaps.scriptsWithMap === 1, JSON.stringify(r.sourceMaps))
  const pf = decodePprof(path.join(dir, 'merged.pb.gz')).functions.find((f) => f.name === 'hotTypeScript')
  assert.ok(pf && urlPath(pf.filename) === path.join(work.src, 'hot.ts') && pf.startLine === HOT_TS_LINE, JSON.stringify(pf))
  assert.match(fs.readFileSync(path.join(dir, 'merged.folded'), 'utf8'), new RegExp(`hotTypeScript \\(.*hot\\.ts:${HOT_TS_LINE}\\)`))
  const merged = JSON.parse(fs.readFileSync(out, 'utf8'))
  assert.ok(merged.nodes.filter((n) => n.callFrame.functionName === 'hotTypeScript').every((n) => urlPath(n.callFrame.url) === work.ts.ext))
  // The text summary too; without the flag, the compiled file.
  assert.match(cli('merge', a.files.cpuprofile, b.files.cpuprofile, '-o', out, '--source-maps').stdout, /hotTypeScript \(.*hot\.ts:\d+\)/)
  const plain = JSON.parse(cli('merge', a.files.cpuprofile, b.files.cpuprofile, '-o', out, '--json').stdout)
  assert.equal(plain.sourceMaps, undefined)
  assert.equal(urlPath(fn(plain, 'hotTypeScript').url), work.ts.ext)
})

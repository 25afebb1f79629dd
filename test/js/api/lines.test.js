'use strict'

// Self time per line (issue 28): a function with two loops on known lines,
// the second doing 3x the work of the first, reads 3:1 in the summary,
// analyze(), `cprof report --lines`, the pprof (`go tool pprof -lines`) and
// the HTML viewer's data; the same through a TypeScript source map, on the
// .ts lines. Each function's lines add up to its self time exactly.

const { test: nodeTest, describe, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const cprof = require('../../..')
const { ROOT, makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util.js')
const { runFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { haveChromium, launch, openPage } = require('../helpers/browser')
const { decodePprof } = require('../helpers/formats')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 120000 }, fn)
const BIN = path.join(ROOT, 'bin', 'cprof.js')
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

const TWO_JS = `'use strict'
// Two loops on known lines: the second does 3x the work of the first
// (the same loop three times, so Math.sin sees the same arguments).
function twoLoops (n) {
  let a = 0
  for (let i = 0; i < n; i++) a += Math.sqrt(i) * Math.sin(i) // LOOP_ONE
  let b = 0
  for (let k = 0; k < 3; k++) for (let i = 0; i < n; i++) b += Math.sqrt(i) * Math.sin(i) // LOOP_THREE
  return a + b
}

// Runs for ms of CPU time, not wall time: a loaded machine then takes as
// many samples as a quiet one (at most 10x ms of wall time).
exports.run = function run (ms) {
  const from = process.cpuUsage()
  const end = Date.now() + 10 * ms
  let t = 0
  for (let used = 0; used < ms * 1000 && Date.now() < end;) {
    t += twoLoops(20000)
    const u = process.cpuUsage(from)
    used = u.user + u.system
  }
  return t
}
`

// The same in TypeScript: types and an interface move every line in the
// JavaScript tsc writes, so only the source map gives the .ts lines.
const TWO_TS = `// A TypeScript module with the two loops.
export interface Totals {
  sum: number
  calls: number
  first?: number
  last?: number
  note?: string
  tags?: string[]
}

export function twoLoops(n: number): number {
  let a: number = 0
  for (let i: number = 0; i < n; i++) a += Math.sqrt(i) * Math.sin(i) // LOOP_ONE
  const unused: Totals = { sum: 0, calls: 0 }
  let b: number = unused.sum
  for (let k: number = 0; k < 3; k++) for (let i: number = 0; i < n; i++) b += Math.sqrt(i) * Math.sin(i) // LOOP_THREE
  return a + b
}

interface CpuUsage { user: number, system: number }
declare const process: { cpuUsage(from?: CpuUsage): CpuUsage }

export function run(ms: number): number {
  const from: CpuUsage = process.cpuUsage()
  const end: number = Date.now() + 10 * ms
  let t: number = 0
  for (let used: number = 0; used < ms * 1000 && Date.now() < end;) {
    t += twoLoops(20000)
    const u: CpuUsage = process.cpuUsage(from)
    used = u.user + u.system
  }
  return t
}
`

// The second loop's source line, as a report or the viewer shows it.
const THREE_JS = /for \(let k = 0; k < 3; k\+\+\) for \(let i = 0; i < n; i\+\+\)/
const THREE_TS = /for \(let k: number = 0; k < 3; k\+\+\) for \(let i: number = 0; i < n; i\+\+\)/

const lineOf = (text, mark) => text.split('\n').findIndex((l) => l.includes(mark)) + 1

let work // { js, ts, tsOut }
const taken = {} // the profiles the tests took: { js, ts }

before(() => {
  const dir = makeTmpDir('cprof-lines-')
  const js = path.join(dir, 'two.js')
  fs.writeFileSync(js, TWO_JS)
  fs.mkdirSync(path.join(dir, 'src'))
  const ts = path.join(dir, 'src', 'two.ts')
  fs.writeFileSync(ts, TWO_TS)
  const r = spawnSync(process.execPath, [TSC, '--sourceMap', '--outDir', path.join(dir, 'dist'), '--module', 'commonjs',
    '--target', 'es2020', '--strict', ts], { encoding: 'utf8', cwd: dir })
  assert.equal(r.status, 0, `tsc: ${r.stdout}${r.stderr}`)
  const tsOut = path.join(dir, 'dist', 'two.js')
  // The loops sit on other lines in tsc's output: the map is what moves them.
  assert.notEqual(lineOf(fs.readFileSync(tsOut, 'utf8'), 'LOOP_THREE'), lineOf(TWO_TS, 'LOOP_THREE'))
  // The same module built with its source inside the map (sourcesContent),
  // then the .ts deleted, as a deploy that ships dist/ alone.
  const gone = path.join(dir, 'shipped')
  fs.mkdirSync(path.join(gone, 'src'), { recursive: true })
  const goneTs = path.join(gone, 'src', 'two.ts')
  fs.writeFileSync(goneTs, TWO_TS)
  const r2 = spawnSync(process.execPath, [TSC, '--sourceMap', '--inlineSources', '--outDir', path.join(gone, 'dist'),
    '--module', 'commonjs', '--target', 'es2020', '--strict', goneTs], { encoding: 'utf8', cwd: gone })
  assert.equal(r2.status, 0, `tsc: ${r2.stdout}${r2.stderr}`)
  fs.rmSync(goneTs)
  const goneOut = path.join(gone, 'dist', 'two.js')
  assert.match(fs.readFileSync(goneOut + '.map', 'utf8'), /"sourcesContent"/)
  work = { js, ts, tsOut, goneOut }
})

function profile (mod, opts = {}) {
  const out = makeTmpDir()
  const r = runFixture('lines-app.js', [out, mod, JSON.stringify(opts)], { timeout: 60000 })
  assert.equal(r.status, 0, r.describe())
  const { result } = r.json.find((o) => o.result) || {}
  assert.ok(result, r.describe())
  return result
}

function cli (...args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60000, env: childEnv() })
  if (r.error) throw r.error
  assert.equal(r.status, 0, `cprof ${args.join(' ')} → ${r.status}\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

const us = (ms) => Math.round(ms * 1000)

// The function's lines: they add up to its self time exactly (in µs), and
// the two loops' lines read `expect`:1 (3:1, the work's ratio) within ±tol.
function assertLines (fn, one, three, url, expect = 3, tol = 0.15) {
  assert.ok(fn && Array.isArray(fn.lines), `lines of ${JSON.stringify(fn)}`)
  assert.equal(fn.lines.reduce((s, l) => s + us(l.self), 0), us(fn.self), 'the lines add up to the self time')
  const at = (line) => fn.lines.find((l) => l.line === line && l.url === url)
  assert.ok(at(one) && at(three), `lines ${one} and ${three} of ${url} in ${JSON.stringify(fn.lines)}`)
  const ratio = at(three).self / at(one).self
  assert.ok(ratio > expect * (1 - tol) && ratio < expect * (1 + tol),
    `${expect.toFixed(2)}:1 within ${tol * 100}%: ${ratio.toFixed(2)} (${JSON.stringify(fn.lines)})`)
  assert.ok(at(one).share + at(three).share > 90, 'the loops hold the time')
}

// `cprof report --lines` rows: "<self> ms <share>% <line>  <source>".
function reportRatio (text, one, three) {
  const row = (line) => {
    const m = text.match(new RegExp(`^\\s+([\\d.]+) ms\\s+[\\d.]+%\\s+${line}  (.*)$`, 'm'))
    assert.ok(m, `row for line ${line} in\n${text}`)
    return { ms: Number(m[1]), source: m[2] }
  }
  const a = row(one)
  const b = row(three)
  return { ratio: b.ms / a.ms, a, b }
}

function pprofRatio (file, one, three, name) {
  const go = spawnSync('go', ['tool', 'pprof', '-lines', '-top', file], { encoding: 'utf8', timeout: 60000 })
  if (go.error) return null // no Go here
  assert.equal(go.status, 0, go.stderr)
  const ms = (line) => {
    const m = go.stdout.match(new RegExp(`^\\s*([\\d.]+)(ms|s)\\s.*\\s${name} \\S+:${line}\\s*$`, 'm'))
    assert.ok(m, `line ${line} in\n${go.stdout}`)
    return Number(m[1]) * (m[2] === 's' ? 1000 : 1)
  }
  return ms(three) / ms(one)
}

const within = (r) => r > 3 * 0.85 && r < 3 * 1.15

test('JavaScript: two loops read 3:1 by line in the summary, analyze(), report --lines and go tool pprof -lines', async () => {
  const one = lineOf(TWO_JS, 'LOOP_ONE')
  const three = lineOf(TWO_JS, 'LOOP_THREE')
  const result = taken.js = profile(work.js)
  const url = `file://${work.js}`
  const fn = result.summary.top.find((f) => f.functionName === 'twoLoops')
  assertLines(fn, one, three, url)

  const analyzed = await cprof.analyze(result.files.cpuprofile, { lines: true })
  const again = analyzed.summary.top.find((f) => f.functionName === 'twoLoops')
  assert.deepEqual(again.lines, fn.lines, 'analyze() gives the stop summary\'s lines')
  const plain = await cprof.analyze(result.files.cpuprofile)
  assert.equal(plain.summary.top[0].lines, undefined, 'lines only when asked')

  const text = cli('report', result.files.cpuprofile, '--lines', 'twoLoops')
  assert.match(text, /Self time by line/)
  const rep = reportRatio(text, one, three)
  assert.ok(within(rep.ratio), `report --lines 3:1: ${rep.ratio}\n${text}`)
  assert.match(rep.b.source, THREE_JS, 'the source line beside its time')
  // Without a name: the top functions, twoLoops first.
  assert.match(cli('report', result.files.cpuprofile, '--lines'), new RegExp(`\ntwoLoops \\(.*two\\.js:${lineOf(TWO_JS, 'function twoLoops')}\\): `))
  // The txt file written at stop has the section too.
  assert.match(fs.readFileSync(result.files.txt, 'utf8'), /Self time by line/)

  const ratio = pprofRatio(result.files.pprof, one, three, 'twoLoops')
  if (ratio !== null) assert.ok(within(ratio), `go tool pprof -lines 3:1: ${ratio}`)
})

// Self time by leaf line of twoLoops in a pprof, read with pprof-format as
// go tool pprof -lines would: a sample's first Location, its Line's line.
function pprofLeafLines (file, name) {
  const { profile, strings, types } = decodePprof(file)
  const cpu = types.indexOf('cpu/nanoseconds')
  const fnName = new Map(profile.function.map((f) => [Number(f.id), strings[Number(f.name)]]))
  const loc = new Map(profile.location.map((l) => [Number(l.id), l]))
  const byLine = {}
  for (const smp of profile.sample) {
    const leaf = loc.get(Number(smp.locationId[0]))
    const line = leaf.line[0]
    if (!String(fnName.get(Number(line.functionId))).includes(name)) continue
    byLine[Number(line.line)] = (byLine[Number(line.line)] || 0) + Number(smp.value[cpu])
  }
  return byLine
}

test('cprof convert --to pprof --lines: one Location per line, 3:1 by pprof-format; without --lines one per function', async () => {
  const one = lineOf(TWO_JS, 'LOOP_ONE')
  const three = lineOf(TWO_JS, 'LOOP_THREE')
  const result = taken.js || (taken.js = profile(work.js))
  const dir = makeTmpDir()
  const withLines = path.join(dir, 'lines.pb.gz')
  const plain = path.join(dir, 'plain.pb.gz')
  cli('convert', result.files.cpuprofile, '--to', 'pprof', '--lines', '-o', withLines)
  cli('convert', result.files.cpuprofile, '--to', 'pprof', '-o', plain)
  const lines = pprofLeafLines(withLines, 'twoLoops')
  assert.ok(lines[one] > 0 && lines[three] > 0, `twoLoops by line: ${JSON.stringify(lines)}`)
  assert.ok(within(lines[three] / lines[one]), `convert --lines 3:1: ${JSON.stringify(lines)}`)
  const perFunction = Object.keys(pprofLeafLines(plain, 'twoLoops'))
  assert.equal(perFunction.length, 1, `without --lines, one line for twoLoops: ${perFunction}`)
  // Both carry the same CPU time for the function.
  const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0)
  assert.equal(sum(lines), sum(pprofLeafLines(plain, 'twoLoops')))
})

test('TypeScript through its source map: the .ts lines read 3:1', async () => {
  const one = lineOf(TWO_TS, 'LOOP_ONE')
  const three = lineOf(TWO_TS, 'LOOP_THREE')
  const result = taken.ts = profile(work.tsOut, { sourceMaps: true })
  const fn = result.summary.top.find((f) => f.functionName === 'twoLoops')
  assert.ok(fn && fn.url.endsWith('two.ts'), JSON.stringify(result.summary.top.slice(0, 3)))
  assertLines(fn, one, three, fn.url)

  const text = cli('report', result.files.cpuprofile, '--source-maps', '--lines', 'twoLoops')
  const rep = reportRatio(text, one, three)
  assert.ok(within(rep.ratio), `report --lines 3:1 on the .ts lines: ${rep.ratio}\n${text}`)
  assert.match(rep.b.source, THREE_TS, 'the .ts source beside its time')

  const ratio = pprofRatio(result.files.pprof, one, three, 'twoLoops')
  if (ratio !== null) assert.ok(within(ratio), `go tool pprof -lines on the .ts lines 3:1: ${ratio}`)
})

test('TypeScript whose .ts is gone: report --lines shows the .ts lines from the map\'s sourcesContent', async () => {
  const one = lineOf(TWO_TS, 'LOOP_ONE')
  const three = lineOf(TWO_TS, 'LOOP_THREE')
  const result = taken.gone = profile(work.goneOut, { sourceMaps: true })
  const fn = result.summary.top.find((f) => f.functionName === 'twoLoops')
  assert.ok(fn && fn.url.endsWith('two.ts'), JSON.stringify(result.summary.top.slice(0, 3)))
  assert.ok(!fs.existsSync(path.join(path.dirname(work.goneOut), '..', 'src', 'two.ts')), 'the .ts is not on disk')

  const text = cli('report', result.files.cpuprofile, '--source-maps', '--lines', 'twoLoops')
  assert.doesNotMatch(text, /source not readable/, text)
  const rep = reportRatio(text, one, three)
  assert.ok(within(rep.ratio), `report --lines 3:1 on the .ts lines: ${rep.ratio}\n${text}`)
  assert.match(rep.a.source, /for \(let i: number = 0; i < n; i\+\+\)/, 'the .ts source from sourcesContent')
  assert.match(rep.b.source, THREE_TS, 'the .ts source from sourcesContent')
  // The txt written at stop (mapped there) has it too.
  assert.match(fs.readFileSync(result.files.txt, 'utf8'), THREE_TS)
})

// positionTicks of the nodes of function name in a .cpuprofile: { line: ticks }.
function ticksOf (file, name) {
  const out = {}
  for (const n of JSON.parse(fs.readFileSync(file, 'utf8')).nodes) {
    if (n.callFrame.functionName !== name) continue
    for (const t of n.positionTicks || []) out[t.line] = (out[t.line] || 0) + t.ticks
  }
  return out
}

test('cprof merge keeps the lines: the merged file\'s positionTicks are the inputs\' summed; report --lines reads 3:1', async () => {
  const one = lineOf(TWO_JS, 'LOOP_ONE')
  const three = lineOf(TWO_JS, 'LOOP_THREE')
  const a = (taken.js || (taken.js = profile(work.js))).files.cpuprofile
  const b = profile(work.js).files.cpuprofile
  const merged = path.join(makeTmpDir(), 'm.cpuprofile')
  cli('merge', a, b, '-o', merged)
  const ta = ticksOf(a, 'twoLoops')
  const tb = ticksOf(b, 'twoLoops')
  const tm = ticksOf(merged, 'twoLoops')
  assert.ok(ta[three] > 0 && tb[three] > 0, `ticks in the inputs: ${JSON.stringify([ta, tb])}`)
  const sum = {}
  for (const t of [ta, tb]) for (const [line, n] of Object.entries(t)) sum[line] = (sum[line] || 0) + n
  assert.deepEqual(tm, sum, 'the merged file\'s positionTicks are the inputs\' summed')

  const [la, lb, lm] = await Promise.all([a, b, merged].map(async (f) =>
    (await cprof.analyze(f, { lines: true })).summary.top.find((fn) => fn.functionName === 'twoLoops')))
  // The merged lines read as the inputs' ticks summed (each input's own 3:1 is
  // the single-profile tests' to check: on a loaded machine one may read 4:1).
  assertLines(lm, one, three, `file://${work.js}`, sum[three] / sum[one], 0.05)
  // Read back from the file, a line's time is split again by ticks: within 2% of the inputs' sum.
  const at = (fn, line) => us(fn.lines.find((l) => l.line === line).self)
  for (const line of [one, three]) {
    const want = at(la, line) + at(lb, line)
    assert.ok(Math.abs(at(lm, line) - want) <= want * 0.02, `line ${line}: ${at(lm, line)} vs ${want}`)
  }
  const rep = reportRatio(cli('report', merged, '--lines', 'twoLoops'), one, three)
  const want = sum[three] / sum[one]
  assert.ok(Math.abs(rep.ratio / want - 1) < 0.05, `report --lines of the merged file ${want.toFixed(2)}:1: ${rep.ratio}`)
})

test('report --lines: a name that matches nothing, and heap profiles, say so', () => {
  const heap = path.join(ROOT, 'test', 'fixtures', 'small.heapprofile')
  assert.match(cli('report', heap, '--lines'), /not in heap profiles \(V8's sampling heap profiler records no position/)
  const cpu = path.join(ROOT, 'test', 'fixtures', 'small.cpuprofile')
  assert.match(cli('report', cpu, '--lines', 'noSuchFunctionAnywhere'), /No function matches "noSuchFunctionAnywhere"/)
})

test('report --lines: escape sequences in a source line or a function name print as visible escapes', () => {
  const dir = makeTmpDir()
  const src = path.join(dir, 'esc.js')
  fs.writeFileSync(src, 'function f () {\n  let x = 0 // \x1b[31mred\x1b[0m\n  for (let i = 0; i < 1e6; i++) x += i\n  return x\n}\n')
  const frame = (name, url, line) => ({ functionName: name, scriptId: '1', url, lineNumber: line, columnNumber: 0 })
  const file = path.join(dir, 'esc.cpuprofile')
  fs.writeFileSync(file, JSON.stringify({
    nodes: [{ id: 1, callFrame: frame('(root)', '', -1), children: [2] },
      { id: 2, callFrame: frame('f\x1b[2J', `file://${src}`, 0), positionTicks: [{ line: 2, ticks: 1 }, { line: 3, ticks: 3 }] }],
    startTime: 0, endTime: 400, samples: [2, 2, 2, 2], timeDeltas: [0, 100, 100, 100]
  }))
  const text = cli('report', file, '--lines')
  assert.doesNotMatch(text, /\x1b/, 'no raw ESC reaches the terminal')
  assert.match(text, /f\\x1b\[2J \(/)
  assert.match(text, /^\s+0\.10 ms\s+25\.0%\s+2 {4}let x = 0 \/\/ \\x1b\[31mred\\x1b\[0m$/m)
  assert.match(text, /^\s+0\.30 ms\s+75\.0%\s+3 {4}for \(let i = 0/m)
})

// The viewer: click the function in the flat table, read the source pane.
async function viewerRatio (browser, html, one, three) {
  const { page, problems, requests } = await openPage(browser, 'file://' + html)
  try {
    await page.click('#tabs button[data-view="flat"]')
    await page.evaluate(() => {
      const row = [...document.querySelectorAll('#view-flat tbody tr')].find((r) => r.querySelector('.name')?.textContent === 'twoLoops')
      row.querySelector('.name').click()
    })
    await page.waitForSelector('#lines-panel:not([hidden]) table.lines')
    const read = (line) => page.$eval(`#lines-panel tr[data-line="${line}"]`, (tr) => ({
      self: Number(tr.querySelector('td.self').dataset.self),
      src: tr.querySelector('td.src').textContent,
      bar: tr.querySelector('.bar.heat > span')?.style.width
    }))
    const a = await read(one)
    const b = await read(three)
    const all = await page.$$eval('#lines-panel td.self', (tds) => tds.reduce((s, td) => s + Number(td.dataset.self), 0))
    assert.deepEqual(problems, [])
    assert.deepEqual(requests, ['file://' + html], 'the page fetches nothing: the source is in it')
    return { ratio: b.self / a.self, a, b, all }
  } finally {
    await page.close()
  }
}

describe('the HTML viewer in Chromium', { skip: !haveChromium() && 'no chromium here' }, () => {
  let browser
  before(async () => { browser = await launch() })
  after(async () => { if (browser) await browser.close() })

  test('selecting twoLoops shows its source with a heat bar per line, 3:1, adding up to its self time', async () => {
    const result = taken.js || (taken.js = profile(work.js))
    const one = lineOf(TWO_JS, 'LOOP_ONE')
    const three = lineOf(TWO_JS, 'LOOP_THREE')
    const v = await viewerRatio(browser, result.files.html, one, three)
    assert.ok(within(v.ratio), `viewer 3:1: ${v.ratio}`)
    assert.match(v.b.src, THREE_JS)
    assert.equal(v.b.bar, '80px', 'the hottest line has the full bar')
    const fn = result.summary.top.find((f) => f.functionName === 'twoLoops')
    assert.equal(v.all, us(fn.self), 'the pane\'s lines add up to the self time')
  })

  test('TypeScript: the pane shows the .ts source and lines', async () => {
    const result = taken.ts || (taken.ts = profile(work.tsOut, { sourceMaps: true }))
    const v = await viewerRatio(browser, result.files.html, lineOf(TWO_TS, 'LOOP_ONE'), lineOf(TWO_TS, 'LOOP_THREE'))
    assert.ok(within(v.ratio), `viewer 3:1 on the .ts lines: ${v.ratio}`)
    assert.match(v.b.src, THREE_TS)
  })

  test('TypeScript whose .ts is gone: the pane shows the source from the map\'s sourcesContent', async () => {
    const result = taken.gone || (taken.gone = profile(work.goneOut, { sourceMaps: true }))
    const v = await viewerRatio(browser, result.files.html, lineOf(TWO_TS, 'LOOP_ONE'), lineOf(TWO_TS, 'LOOP_THREE'))
    assert.ok(within(v.ratio), `viewer 3:1 on the .ts lines: ${v.ratio}`)
    assert.match(v.b.src, THREE_TS)
  })
})

test('recorder.start({ lines: true }): the store\'s pprof windows carry one Location per line', async () => {
  const store = makeTmpDir()
  const app = require(work.js)
  let dumped
  cprof.recorder.start({ window: 400, interval: 100, lines: true, store: { dir: store, formats: ['pprof'] } })
  try {
    // 2.5 s of CPU time, as lines-app.js runs, in slices: the windows
    // rotate on the event loop.
    const from = process.cpuUsage()
    const end = Date.now() + 25000
    for (let used = 0; used < 2500e3 && Date.now() < end;) {
      app.run(100)
      await new Promise((resolve) => setImmediate(resolve))
      const u = process.cpuUsage(from)
      used = u.user + u.system
    }
    dumped = await cprof.recorder.dump({ dir: makeTmpDir() }) // waits for the current window
  } finally {
    cprof.recorder.stop()
  }
  // The dump merges the windows: its .cpuprofile keeps their lines, 3:1.
  const one = lineOf(TWO_JS, 'LOOP_ONE')
  const three = lineOf(TWO_JS, 'LOOP_THREE')
  const dt = ticksOf(dumped.files.cpuprofile, 'twoLoops')
  assert.ok(dt[one] > 0 && dt[three] > 0, `positionTicks in the dump: ${JSON.stringify(dt)}`)
  const fn = (await cprof.analyze(dumped.files.cpuprofile, { lines: true })).summary.top.find((f) => f.functionName === 'twoLoops')
  assertLines(fn, one, three, `file://${work.js}`)
  const files = fs.readdirSync(store).filter((f) => f.endsWith('.pb.gz')).map((f) => path.join(store, f))
  assert.ok(files.length >= 2, `windows stored: ${files}`)
  const go = spawnSync('go', ['tool', 'pprof', '-lines', '-top', ...files], { encoding: 'utf8', timeout: 60000 })
  if (go.error) return // no Go here
  assert.equal(go.status, 0, go.stderr)
  assert.match(go.stdout, new RegExp(`twoLoops \\S+two\\.js:${one}\\s*$`, 'm'))
  assert.match(go.stdout, new RegExp(`twoLoops \\S+two\\.js:${three}\\s*$`, 'm'))
})

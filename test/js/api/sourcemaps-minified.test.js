'use strict'

// A minified bundle (issue 38, item 4): two hot functions of one module,
// bundled and minified by esbuild into one generated line with a source
// map, profiled with lines. Without source maps, `cprof report --lines`,
// the txt written at stop and the HTML page say the script has a source
// map (a sourceMappingURL comment, inline or not, or <script>.map beside
// it; nothing said for a script without one). With them, V8's positionTicks
// (a line, no column) of each function land inside that function's own
// original lines, not on the line's first mapping (another function's).

const { test: nodeTest, describe, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { fileURLToPath } = require('node:url')

const { ROOT, makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util.js')
const { runFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { haveChromium, launch, openPage } = require('../helpers/browser')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 120000 }, fn)
const BIN = path.join(ROOT, 'bin', 'cprof.js')

// Two hot functions in one module; run(ms) spends ms of CPU time (not wall
// time) in them, so a loaded machine takes as many samples as a quiet one.
const HOT_JS = `// Two hot functions of one module: minified, they share one line.
export function sumOfRoots (n) {
  let s = 0
  for (let i = 0; i < n; i++) {
    s += Math.sqrt(i) * Math.sin(i)
  }
  return s
}

export function productOfCosines (n) {
  let p = 1
  for (let i = 0; i < n; i++) {
    p = (p + Math.cos(i) * Math.atan(i)) % 1000
  }
  return p
}

export function run (ms) {
  const from = process.cpuUsage()
  const end = Date.now() + 10 * ms
  let t = 0
  for (let used = 0; used < ms * 1000 && Date.now() < end;) {
    t += sumOfRoots(20000)
    t += productOfCosines(20000)
    const u = process.cpuUsage(from)
    used = u.user + u.system
  }
  return t
}
`

// Each function's original lines: from its declaration to its closing brace.
function rangeOf (name) {
  const lines = HOT_JS.split('\n')
  const from = lines.findIndex((l) => l.includes(`function ${name} `)) + 1
  const to = lines.findIndex((l, i) => i >= from && l === '}') + 1
  return [from, to]
}

const HINT = 'has a source map: --source-maps shows the original lines'

let work // { dir, src, bundle, text, result }

before(() => {
  const dir = makeTmpDir('cprof-min-')
  const src = path.join(dir, 'src', 'hot.js')
  fs.mkdirSync(path.dirname(src))
  fs.writeFileSync(src, HOT_JS)
  const bundle = path.join(dir, 'dist', 'hot.js')
  require('esbuild').buildSync({
    entryPoints: [src],
    bundle: true,
    minify: true,
    sourcemap: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    logLevel: 'silent'
  })
  const text = fs.readFileSync(bundle, 'utf8')
  const code = text.split('\n')
  assert.match(code[0], /function \w\(\w\)\{.*function \w\(\w\)\{/, 'both functions on the first line')
  assert.doesNotMatch(code[0], /sumOfRoots\(|productOfCosines\(/, 'minified')
  assert.equal(code[1], '//# sourceMappingURL=hot.js.map')
  const out = makeTmpDir()
  const r = runFixture('lines-app.js', [out, bundle, '{}'], { timeout: 90000 })
  assert.equal(r.status, 0, r.describe())
  const { result } = r.json.find((o) => o.result) || {}
  assert.ok(result, r.describe())
  work = { dir, src, bundle, text, result }
})

function cli (...args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60000, env: childEnv() })
  if (r.error) throw r.error
  assert.equal(r.status, 0, `cprof ${args.join(' ')} → ${r.status}\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

const hints = (text) => text.split('\n').filter((l) => l.includes(HINT))

// The bundle rewritten for one check, then put back.
function withBundle (text, map, fn) {
  const mapFile = work.bundle + '.map'
  const keptMap = fs.readFileSync(mapFile)
  try {
    fs.writeFileSync(work.bundle, text)
    if (!map) fs.rmSync(mapFile)
    fn()
  } finally {
    fs.writeFileSync(work.bundle, work.text)
    fs.writeFileSync(mapFile, keptMap)
  }
}

test('without --source-maps: report --lines and the txt written at stop say once that the bundle has a source map', () => {
  const text = cli('report', work.result.files.cpuprofile, '--lines')
  assert.match(text, /Self time by line/)
  assert.deepEqual(hints(text), [`  ${work.bundle} ${HINT}`], text)
  assert.deepEqual(hints(fs.readFileSync(work.result.files.txt, 'utf8')), [`  ${work.bundle} ${HINT}`])
  // A script without a map (the fixture's own frames, node's) is never named.
  assert.equal(text.split(HINT).length, 2)
  // With --source-maps the lines are the original ones: nothing to say.
  assert.deepEqual(hints(cli('report', work.result.files.cpuprofile, '--lines', '--source-maps')), [])
})

test('how the map is found: the comment (file or inline), <script>.map beside it, the last 64 KiB of a script too big to show; none: nothing said', () => {
  const code = work.text.split('\n')[0]
  const report = () => cli('report', work.result.files.cpuprofile, '--lines')
  withBundle(code + '\n', true, () => assert.equal(hints(report()).length, 1, '<script>.map beside it'))
  withBundle(code + '\n', false, () => assert.deepEqual(hints(report()), [], 'no map at all'))
  const inline = `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(fs.readFileSync(work.bundle + '.map')).toString('base64')}\n`
  withBundle(inline, false, () => assert.equal(hints(report()).length, 1, 'an inline map'))
  // A comment inside the code (a string), not at the end: not a link.
  withBundle(`var s = "\n//# sourceMappingURL=hot.js.map\n";${code}\n`, false, () => assert.deepEqual(hints(report()), []))
  // Over the line views' 8 MiB: the source is not shown; the tail is read.
  const pad = ('// ' + 'x'.repeat(1020) + '\n').repeat(9 * 1024)
  withBundle(`${code}\n${pad}//# sourceMappingURL=hot.js.map\n`, true, () => {
    const text = report()
    assert.match(text, /source not readable/)
    assert.equal(hints(text).length, 1, text.slice(0, 2000))
  })
  withBundle(`${code}\n${pad}`, false, () => assert.deepEqual(hints(report()), []))
})

// The viewer's data: the JSON the page carries.
function pageData (file) {
  const m = fs.readFileSync(file, 'utf8').match(/<script type="application\/json" id="cprof-data">([\s\S]*?)<\/script>/)
  assert.ok(m, 'the page carries its data')
  return JSON.parse(m[1])
}

test('without source maps the page flags the bundle (sources.map), and only it; with them no flag is carried', () => {
  const d = pageData(work.result.files.html)
  const i = d.sources.url.indexOf(work.bundle)
  assert.ok(i >= 0, JSON.stringify(d.sources.url))
  assert.equal(d.sources.map.length, d.sources.url.length)
  assert.equal(d.sources.map[i], 1)
  assert.equal(d.sources.map.reduce((a, b) => a + b, 0), 1, JSON.stringify(d.sources))
  const mapped = path.join(makeTmpDir(), 'mapped.html')
  cli('html', work.result.files.cpuprofile, '--source-maps', '-o', mapped)
  assert.equal(pageData(mapped).sources.map, undefined)
})

test('with --source-maps each function\'s line ticks land in its own original lines (>= 90%), not the other function\'s', () => {
  const out = JSON.parse(cli('report', work.result.files.cpuprofile, '--json', '--lines', '--source-maps'))
  for (const name of ['sumOfRoots', 'productOfCosines']) {
    const fn = out.summary.top.find((f) => f.functionName === name)
    assert.ok(fn, `${name} in ${JSON.stringify(out.summary.top.slice(0, 5).map((f) => f.functionName))}`)
    const [from, to] = rangeOf(name)
    const own = fn.lines.filter((l) => l.url && fileURLToPath(l.url) === work.src && l.line >= from && l.line <= to)
    const inOwn = own.reduce((s, l) => s + l.self, 0)
    const all = fn.lines.reduce((s, l) => s + l.self, 0)
    assert.ok(all > 0 && inOwn >= 0.9 * all, `${name}: ${inOwn} of ${all} in lines ${from}-${to}: ${JSON.stringify(fn.lines)}`)
  }
})

describe('the source pane in Chromium', { skip: !haveChromium() && 'no chromium here' }, () => {
  let browser
  before(async () => { browser = await launch() })
  after(async () => { if (browser) await browser.close() })

  test('a minified function\'s pane says its script has a source map', async () => {
    const d = pageData(work.result.files.html)
    const bundleFile = d.sources.url.indexOf(work.bundle)
    // The hottest function with lines in the bundle (a minified name).
    let best = -1
    for (let i = 0; i < d.lines.fn.length; i++) {
      if (d.lines.file[i] === bundleFile && (best < 0 || d.lines.self[i] > d.lines.self[best])) best = i
    }
    const name = d.fns.name[d.lines.fn[best]]
    const { page, problems } = await openPage(browser, 'file://' + work.result.files.html)
    try {
      await page.click('#tabs button[data-view="flat"]')
      await page.evaluate((name) => {
        const row = [...document.querySelectorAll('#view-flat tbody tr')].find((r) => r.querySelector('.name')?.textContent === name)
        row.querySelector('.name').click()
      }, name)
      await page.waitForSelector('#lines-panel:not([hidden]) table.lines')
      const notes = await page.$$eval('#lines-panel .map-hint', (els) => els.map((e) => e.textContent))
      assert.deepEqual(notes, [`${work.bundle} has a source map: --source-maps (sourceMaps: true) shows the original lines.`])
      assert.deepEqual(problems, [])
    } finally {
      await page.close()
    }
  })
})

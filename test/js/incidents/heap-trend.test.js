'use strict'

// The heap trend (docs/recorder.md, Heap trend): a server-like process with
// churn of short-lived allocations and 1 s heap windows
// (fixtures/heap-growth-app.js). A planted fast leak (a Map gaining objects
// from one function) is the top growing site within 30 s of windows; a
// cache filled once is not reported once it stopped growing; churn alone
// reports nothing over 30 s. Then the same through cprof ps / cprof leaks
// (the run-directory entry) and the heapGrowth incident trigger
// (CPROF_ON_HEAP_GROWTH). The runs go side by side to keep the file near a
// minute; every wait is on recorded windows (their times), not wall clock,
// so a loaded machine only makes it slower.

const { describe, test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { makeTmpDir, removeTmpDirs, childEnv, cprofAsync } = require('../helpers/util.js')
const { startFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { incidentsOption, envIncidents } = require('../../../lib/incidents/options')
const { initConfig } = require('../../../lib/triggers/config')
const { envConfig } = require('../../../lib/triggers/env')
const { startOptions } = require('../../../lib/recorder/options')
const { haveChromium, launch, openPage } = require('../helpers/browser')

const ROOT = path.join(__dirname, '..', '..', '..')
const REGISTER = path.join(ROOT, 'register.js')
const FIXTURE = path.join(__dirname, 'fixtures', 'heap-growth-app.js')
const children = []
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  removeTmpDirs()
})

const WAIT_MS = 150_000 // wall clock, for a loaded machine; the claims are on window times
const trendLine = (l) => l.startsWith('{"at"') && JSON.parse(l).trend
const trends = (f) => f.stdout().split('\n').map(trendLine).filter(Boolean)

function run (mode, how, env = {}) {
  const f = startFixture('heap-growth-app.js', [mode, how], { env: { HEAP_GROWTH_APP_MS: String(WAIT_MS), ...env } })
  children.push(f.child)
  return f
}

const cprof = (args, env) => cprofAsync(args, { env })

describe('heap trend', { concurrency: true, timeout: WAIT_MS + 30_000 }, () => {
  test('a planted leak is the top growing site within 30 s of 1 s windows, with its growth and share', async () => {
    const f = run('leak', 'recorder')
    const line = await f.waitForLine((l) => {
      const t = trendLine(l)
      return t && t.top.length > 0 && t.top[0].functionName === 'leakyRemember'
    }, WAIT_MS)
    f.child.kill()
    const t = trendLine(line)
    assert.ok(t.to - t.from <= 30_000, `found after ${t.to - t.from} ms of windows`)
    assert.equal(t.growing, true)
    const s = t.top[0]
    assert.match(s.url, /heap-growth-app\.js$/)
    assert.equal(s.line, 21) // function leakyRemember () {
    // ~64 KB every 100 ms, sampled: well above 5 MiB/min; most of the heap's growth
    assert.ok(s.perMinute > 5 * 1024 * 1024, `growth ${s.perMinute} B/min`)
    assert.ok(s.share > 0.5, `share ${s.share}`)
    assert.ok(s.live > 0 && s.live <= t.live)
    assert.ok(s.since >= t.from && s.since <= t.to)
    // No earlier line named another site as growing: the churn never was.
    for (const e of trends(f)) for (const g of e.top) assert.equal(g.functionName, 'leakyRemember')
  })

  test('a cache filled once is not reported after it stopped growing', async () => {
    const f = run('burst', 'recorder')
    const done = JSON.parse(await f.waitForLine((l) => l.startsWith('{"burstDone"'), WAIT_MS)).burstDone
    const line = await f.waitForLine((l) => {
      const t = trendLine(l)
      return t && t.to >= done + 15_000
    }, WAIT_MS)
    f.child.kill()
    const t = trendLine(line)
    // The cache is still held (churn alone keeps ~0.1 MB live)
    assert.ok(t.live > 2 * 1024 * 1024, `live heap ${t.live}`)
    assert.deepEqual(t.top.map((s) => s.functionName), [])
    assert.equal(t.growing, false)
  })

  test('churn alone reports no growing site over 30 s', async () => {
    const f = run('none', 'recorder')
    await f.waitForLine((l) => {
      const t = trendLine(l)
      return t && t.to - t.from >= 30_000
    }, WAIT_MS)
    f.child.kill()
    const all = trends(f).filter((t) => t.windows >= 8)
    assert.ok(all.length > 0)
    for (const t of all) assert.deepEqual(t.top, [], JSON.stringify(t))
  })

  test('cprof ps and cprof leaks show the growing site, across the instances of an app', async () => {
    const runDir = path.join(makeTmpDir('cprof-leaks-'), 'run')
    const env = { CPROF_RUN_DIR: runDir, CPROF_APP: 'leaky' }
    const leak = run('leak', 'init', env)
    const calm = run('none', 'init', env)
    await Promise.all([leak.waitForLine((l) => l === 'ready', WAIT_MS), calm.waitForLine((l) => l === 'ready', WAIT_MS)])
    let r
    for (const end = Date.now() + WAIT_MS; Date.now() < end;) {
      r = await cprof(['leaks', String(leak.child.pid), '--json'], env)
      const t = r.status === 0 && JSON.parse(r.stdout.split('\n')[0]).trend
      if (t && t.top.length && t.top[0].functionName === 'leakyRemember') break
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    assert.equal(r.status, 0, r.stderr)
    const text = await cprof(['leaks', String(leak.child.pid)], env)
    assert.equal(text.status, 0, text.stderr)
    assert.match(text.stdout, new RegExp(`^pid ${leak.child.pid} \\(leaky\\): live heap .* growing \\+[\\d.]+ MiB/min since \\d\\d:\\d\\d:\\d\\d`))
    assert.match(text.stdout, /LIVE +GROWTH +SINCE +SHARE +ALLOCATED AT\n +[\d.]+ [KM]iB +\+[\d.]+ MiB\/min +\d\d:\d\d:\d\d +\d+% +leakyRemember \S*heap-growth-app\.js:21\n/)
    assert.match(text.stdout, /\nallocated at: where V8 allocated the growing bytes, not what holds them \(cprof leaks --holders\)\n$/)
    assert.equal(JSON.parse(r.stdout.split('\n')[0]).measures, 'allocation site')
    const app = await cprof(['leaks', '--app', 'leaky'], env)
    assert.equal(app.status, 0, app.stderr)
    assert.match(app.stdout, new RegExp(`pid ${calm.child.pid} \\(leaky\\): live heap .*\\n  no growing allocation site\\n`))
    assert.match(app.stdout, /app leaky, 2 instances together:\n.*INST +ALLOCATED AT\n.* 1 +leakyRemember /)
    const ps = await cprof(['ps'], env)
    assert.match(ps.stdout, /HEAP TREND +SIGNAL\n/)
    assert.match(ps.stdout, new RegExp(`\\n *${leak.child.pid} .*\\+[\\d.]+ MiB/min allocated at leakyRemember \\S*heap-growth-app\\.js:21 +\\S+\\n`))
    // No site of the calm one (its whole heap may still be warming up)
    assert.match(ps.stdout, new RegExp(`\\n *${calm.child.pid} .* (steady|heap \\+[\\d.]+ [KM]iB/min, no growing site) +\\S+\\n`))
    leak.child.kill()
    calm.child.kill()
    const none = await cprof(['leaks', '999999999'], env)
    assert.equal(none.status, 1)
    assert.match(none.stderr, /process 999999999 does not run cprof/)
  })

  test('CPROF_ON_HEAP_GROWTH fires on the leak: the live heap and the growing sites are written', async () => {
    const dir = makeTmpDir('cprof-heap-growth-')
    const c = spawn(process.execPath, ['-r', REGISTER, FIXTURE, 'leak', 'preload'], {
      env: childEnv({
        CPROF_DIR: dir,
        CPROF_RUN_DIR: path.join(dir, 'run'),
        CPROF_RECORDER: '1',
        CPROF_RECORDER_WINDOW: '1000',
        CPROF_RECORDER_HEAP_WINDOW: '1000',
        CPROF_ON_HEAP_GROWTH: '1,0.2', // 1 MiB/min for 12 s
        HEAP_GROWTH_APP_MS: String(WAIT_MS)
      }),
      stdio: ['ignore', 'pipe', 'pipe']
    })
    children.push(c)
    let out = ''
    const profile = await new Promise((resolve, reject) => {
      c.stdout.on('data', (d) => {
        out += d
        const l = out.split('\n').find((x) => x.startsWith('{"at"'))
        if (l) resolve(JSON.parse(l).profile)
      })
      c.on('close', () => reject(new Error(`no profile event: ${out}`)))
    })
    const leaksFile = path.join(dir, path.basename(profile.files.heapprofile).replace(/\.heapprofile$/, '.leaks.json'))
    // The 'profile' event comes once the .leaks.json is written and the
    // trend is in the page; still waited for, as before.
    const html = profile.files.html
    const written = () => fs.existsSync(leaksFile) && fs.readFileSync(html, 'utf8').includes('"top":[')
    for (let i = 0; i < 600 && !written(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
    c.kill()
    assert.ok(written(), 'the .leaks.json and the page with its trend are written')
    assert.equal(profile.files.leaks, leaksFile)
    // No heap snapshot unless CPROF_ON_HEAP_GROWTH_SNAPSHOT asks for one.
    assert.equal(profile.files.heapsnapshot, undefined)
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot')), [])
    assert.equal(profile.kind, 'heap')
    assert.equal(profile.reason.trigger, 'heapGrowth')
    assert.equal(profile.reason.threshold, 1024 * 1024)
    assert.ok(profile.reason.value >= 1024 * 1024)
    assert.match(path.basename(profile.files.heapprofile), /^heap-incident-heapGrowth-\d+-.*\.heapprofile$/)
    const heap = JSON.parse(fs.readFileSync(profile.files.heapprofile, 'utf8'))
    assert.ok(heap.head && Array.isArray(heap.samples))
    const report = JSON.parse(fs.readFileSync(leaksFile, 'utf8'))
    assert.equal(report.reason.trigger, 'heapGrowth')
    assert.equal(report.trend.top[0].functionName, 'leakyRemember')
    assert.ok(report.trend.to - report.trend.since >= 12_000)
    assert.equal(fs.statSync(leaksFile).mode & 0o777, 0o600)
    // The viewer page of the live heap, with its "Heap trend" tab.
    assert.match(path.basename(html), /^heap-incident-heapGrowth-\d+-.*\.html$/)
    if (!haveChromium()) return
    const browser = await launch()
    try {
      const { page, problems } = await openPage(browser, 'file://' + html)
      await page.click('#tabs button[data-view="trend"]')
      const shown = await page.$eval('#view-trend', (v) => ({
        hidden: v.hidden,
        head: v.querySelector('.trend-head').textContent,
        titles: [...v.querySelectorAll('.trend-title')].map((t) => t.textContent),
        lines: v.querySelectorAll('polyline').length
      }))
      assert.deepEqual(problems, [])
      assert.equal(shown.hidden, false)
      assert.match(shown.head, /^\d+ windows, live heap .* growing \+[\d.]+ MiB\/min since .*growing allocation sites? of \d+: each chart is where V8 allocated the bytes, not what holds them/)
      assert.equal(shown.titles[0], 'Whole live heap')
      assert.match(shown.titles[1], /^leakyRemember \S*heap-growth-app\.js:21$/)
      assert.equal(shown.lines, shown.titles.length)
      // The header says why the file was written, and the overview is the
      // live heap per window: the trend's windows, as the trend has them,
      // up to the dumped window (the newest, the trend's or one after).
      assert.match(await page.$eval('#reason', (e) => e.textContent), /^Written by an incident: heapGrowth [\d.]+ MiB\/min \u2265 1\.00? MiB\/min at /)
      const bars = await page.$$eval('#heap-overview rect.hw-bar', (rs) => rs.map((b) => [Number(b.dataset.end), Number(b.dataset.live)]))
      const trendBars = report.trend.times.map((t, i) => [t, report.trend.heapSeries[i]])
      const kept = trendBars.filter(([t]) => t >= bars[0][0]) // the dump's window may push the oldest out
      assert.ok(trendBars.length - kept.length <= 1 && kept.length >= 8, JSON.stringify({ bars, trendBars }))
      assert.deepEqual(bars.slice(0, kept.length), kept)
      assert.ok(bars.length - kept.length <= 1, JSON.stringify({ bars, trendBars }))
      assert.ok(bars[bars.length - 1][1] > bars[0][1], JSON.stringify(bars))
      assert.equal((await page.$$('#heap-overview rect.hw-fired')).length, 1)
    } finally {
      await browser.close()
    }
  })
})

test('heapGrowth options: checked, from CPROF_ON_HEAP_GROWTH, and it switches the heap windows on', () => {
  assert.deepEqual(incidentsOption({ heapGrowth: { mbPerMinute: 2, minutes: 5 } }).heapGrowth, { mbPerMinute: 2, minutes: 5 })
  assert.deepEqual(incidentsOption({ heapGrowth: true }).heapGrowth, { mbPerMinute: 0, minutes: 10 })
  assert.throws(() => incidentsOption({ heapGrowth: { mbPerMinute: -1 } }), { code: 'ERR_CPROF_INVALID_ARG', message: /heapGrowth\.mbPerMinute must be a number > 0/ })
  assert.throws(() => incidentsOption({ heapGrowth: { mb: 1 } }), { code: 'ERR_CPROF_INVALID_ARG', message: /unknown option "mb" in incidents\.heapGrowth/ })
  assert.deepEqual(envIncidents({ CPROF_ON_HEAP_GROWTH: '2,10' }), { heapGrowth: { mbPerMinute: 2, minutes: 10 } })
  assert.throws(() => envIncidents({ CPROF_ON_HEAP_GROWTH: 'fast' }), { code: 'ERR_CPROF_INVALID_ARG', message: /CPROF_ON_HEAP_GROWTH="fast": must be <MiB per minute>\[,<minutes>\]/ })
  assert.equal(initConfig({ incidents: { heapGrowth: true } }).recorder.heap, true)
  assert.throws(() => initConfig({ recorder: { heap: false }, incidents: { heapGrowth: true } }), { code: 'ERR_CPROF_INVALID_ARG', message: /heapGrowth needs the recorder's heap windows/ })
  // The trend's length: 15 heap windows by default, 8 at least (the rule
  // needs 8); a heap window every 60 s by default
  assert.equal(startOptions({}).trendWindows, 15)
  assert.equal(startOptions({}).heapWindow, 60000)
  assert.equal(envConfig({ CPROF_RECORDER: '1', CPROF_RECORDER_HEAP_WINDOW: '30000' }).recorder.heapWindow, 30000)
  assert.equal(envConfig({ CPROF_RECORDER: '1', CPROF_RECORDER_TREND_WINDOWS: '120' }).recorder.trendWindows, 120)
  assert.throws(() => startOptions({ trendWindows: 7 }), { code: 'ERR_CPROF_INVALID_ARG', message: /trendWindows must be an integer from 8 to 10000/ })
})

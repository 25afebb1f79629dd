'use strict'
// The viewer's time: the top-down tree opens on the app's code, the
// time-order view (samples in order, an overview to select a range that
// every other view then shows), incident markers, merged instances. In
// headless Chromium through puppeteer-core, as test/js/viewer/viewer.test.js.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { pathToFileURL } = require('node:url')
const { makeTmpDir, removeTmpDirs } = require('../helpers/util')
const { haveChromium, launch, openPage, screenshot } = require('../helpers/browser')

const CLI = path.resolve(__dirname, '..', '..', '..', 'bin', 'cprof.js')
const skip = haveChromium() ? false : 'needs /usr/bin/chromium (apt-get install -y chromium)'

function cli (args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, r.stderr)
  return r
}

let browser
let dir
before(async () => {
  dir = makeTmpDir('cprof-viewer-time-')
  if (!skip) browser = await launch()
})
after(async () => {
  if (browser) await browser.close()
  removeTmpDirs()
})

// An app whose time is all in its own functions, under Node's module
// loader: `node --cpu-prof` writes the profile a new user would open.
const APP = `'use strict'
function leafWork (n) { let x = 0; for (let i = 0; i < n; i++) x += Math.sqrt(i ^ x); return x }
function handleJob () { return leafWork(2e5) }
function runApp () { const end = Date.now() + 400; let s = 0; while (Date.now() < end) s += handleJob(); return s }
runApp()
`

test('top-down of a node --cpu-prof file shows an app function without a click', { skip }, async () => {
  const app = path.join(dir, 'app.js')
  fs.writeFileSync(app, APP)
  const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', 'app.cpuprofile', app], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, r.stderr)
  const html = path.join(dir, 'app.html')
  cli(['html', path.join(dir, 'app.cpuprofile'), '-o', html])
  const { page, problems } = await openPage(browser, pathToFileURL(html).href)
  const rows = await page.$$eval('#view-topdown tbody tr', (trs) => trs.map((tr) => ({
    name: tr.querySelector('.name') && tr.querySelector('.name').textContent,
    url: tr.querySelector('.url') && tr.querySelector('.url').textContent
  })))
  const names = rows.map((r) => r.name)
  // runApp's row is on screen, and so is what it calls: the tree went past
  // Node's loader and into the app.
  assert.ok(names.includes('runApp'), names.join(' > '))
  assert.ok(names.includes('handleJob') || names.includes('leafWork'), names.join(' > '))
  assert.ok(rows.some((r) => r.name === 'runApp' && /app\.js:4$/.test(r.url)), JSON.stringify(rows))
  await screenshot(page, 'viewer-time-topdown.png')
  assert.deepEqual(problems, [])
  await page.close()
})

// Self time (µs) per function name of the samples starting in [a, b) µs
// from the profile's start, counted from the .cpuprofile on our own: a
// sample starts at startTime + its deltas so far and weighs the gap to
// the next one (the last: to endTime).
function rangeSelf (profile, a, b) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const { samples, timeDeltas } = profile
  const self = new Map()
  let t = 0
  let count = 0
  const starts = []
  for (let i = 0; i < samples.length; i++) { t += timeDeltas[i]; starts.push(t) }
  samples.forEach((id, i) => {
    if (starts[i] < a || starts[i] >= b) return
    const w = Math.max(0, i + 1 < samples.length ? timeDeltas[i + 1] : profile.endTime - profile.startTime - starts[i])
    const name = byId.get(id).callFrame.functionName || '(anonymous)'
    self.set(name, (self.get(name) || 0) + w)
    count++
  })
  return { self, count }
}

const flatRows = (page) => page.$$eval('#view-flat tbody tr', (trs) => trs.map((tr) => ({
  name: tr.querySelector('.name').textContent,
  self: tr.children[0].textContent
})))

const figure = (page, key) => page.$$eval('#figures div', (divs, k) => {
  const d = divs.find((x) => x.querySelector('dt').textContent === k)
  return d && d.querySelector('dd').textContent
}, key)

test('a range selected on the overview: the flat view counts only its samples, and the URL keeps it', { skip }, async () => {
  const src = path.join(__dirname, '..', '..', 'fixtures', 'small.cpuprofile')
  const profile = JSON.parse(fs.readFileSync(src, 'utf8'))
  const html = path.join(dir, 'small.html')
  cli(['html', src, '-o', html])
  const { page, problems } = await openPage(browser, pathToFileURL(html).href)
  const whole = await flatRows(page)
  // Drag across the middle of the overview, as a user would.
  const box = await (await page.$('#time-overview')).boundingBox()
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2, { steps: 4 })
  await Promise.all([page.waitForNavigation({ timeout: 60000 }), page.mouse.up()])
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 })
  const hash = await page.evaluate(() => location.hash)
  const m = /^#range=(\d+)-(\d+)$/.exec(hash)
  assert.ok(m, hash)
  const [a, b] = [Number(m[1]), Number(m[2])]
  const span = profile.endTime - profile.startTime
  assert.ok(Math.abs(a - 0.3 * span) < 0.02 * span && Math.abs(b - 0.45 * span) < 0.02 * span, `${a}-${b} of ${span}`)
  const want = rangeSelf(profile, a, b)
  assert.equal(await figure(page, 'Samples'), want.count.toLocaleString('en-US'))
  const rows = await flatRows(page)
  assert.notDeepEqual(rows.map((r) => r.self), whole.map((r) => r.self))
  // Every row whose name is one function: its self time is the range's.
  const names = rows.map((r) => r.name)
  let checked = 0
  for (const r of rows) {
    if (names.filter((n) => n === r.name).length > 1 || r.name === '(anonymous)') continue
    const us = want.self.get(r.name) || 0
    const shown = parseFloat(r.self) * (r.self.endsWith(' s') ? 1e6 : 1e3)
    assert.ok(Math.abs(shown - us) <= 0.051 * 1000 + 0.001 * us, `${r.name}: ${r.self} vs ${us} µs`)
    checked++
  }
  assert.ok(checked >= 3, `${checked} rows checked`)
  for (const [name, us] of want.self) if (us > 0 && name !== '(anonymous)') assert.ok(names.includes(name), `${name} (${us} µs in the range) listed`)
  await screenshot(page, 'viewer-time-range.png')
  // The same file opened with that URL opens the same way.
  const again = await openPage(browser, pathToFileURL(html).href + hash)
  assert.deepEqual(await flatRows(again.page), rows)
  assert.deepEqual(problems, [])
  assert.deepEqual(again.problems, [])
  await again.page.close()
  await page.close()
})

// An app with the recorder and an event-loop delay incident: quiet ticks,
// then a 450 ms stall in stallInIncident; prints the profile event.
const INCIDENT_APP = `'use strict'
const cprof = require(${JSON.stringify(path.resolve(__dirname, '..', '..', '..'))})
const dir = process.argv[2]
function stallInIncident (ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x = (x + 7) % 1000003; return x }
cprof.on('profile', (r) => { process.stdout.write(JSON.stringify({ files: r.files, reason: r.reason }) + '\\n'); clearInterval(t); setTimeout(() => cprof.destroy(), 50) })
cprof.init({ dir, formats: ['html'], recorder: { window: 1000 }, incidents: { eventLoopDelay: 200 } })
let ticks = 0
const t = setInterval(() => {
  if (++ticks !== 150) return
  process.stdout.write(JSON.stringify({ stallAt: Date.now() }) + '\\n')
  stallInIncident(450)
}, 10)
setTimeout(() => clearInterval(t), 20000).unref()
`

// The incident app's run, once: { out (its directory), ev (the profile
// event) }. A run whose incident fired before the stall (the machine
// stalled the process itself) is run again, up to 3 times.
let incidentRun
function incidentDump () {
  if (incidentRun) return incidentRun
  const app = path.join(dir, 'incident-app.js')
  fs.writeFileSync(app, INCIDENT_APP)
  for (let attempt = 0; attempt < 3; attempt++) {
    const out = path.join(dir, `incident-${attempt}`)
    fs.mkdirSync(out)
    const r = spawnSync(process.execPath, [app, out], { encoding: 'utf8', timeout: 60000 })
    assert.equal(r.status, 0, r.stderr)
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    const ev = lines.find((l) => l.reason)
    assert.ok(ev, r.stdout)
    assert.equal(ev.reason.trigger, 'eventLoopDelay')
    const stall = lines.find((l) => l.stallAt)
    if (stall && ev.reason.at >= stall.stallAt) return (incidentRun = { out, ev })
  }
  assert.fail('3 runs fired before the stall (the machine stalled the process itself)')
}

// What an incident page shows: the reason in the header, the range around
// the firing selected, the stall on top of it.
async function assertOpensOnStall (page, reason) {
  const shown = await page.$eval('#reason', (e) => e.textContent)
  assert.match(shown, new RegExp(`eventLoopDelay ${reason.value} ms \u2265 200 ms at \\d{4}-\\d\\d-\\d\\d `))
  const range = await page.evaluate(() => window.cprofViewer.time.range)
  assert.equal(range.from, 'incident')
  assert.ok(range.b - range.a < 2e6, JSON.stringify(range))
  // The whole file is mostly quiet; the selected range is the stall.
  const rows = await flatRows(page)
  assert.equal(rows[0].name, 'stallInIncident', JSON.stringify(rows.slice(0, 5)))
}

test('an incident page opens on the stall: the range around the firing selected, the stall on top, the reason in the header', { skip }, async () => {
  const { ev } = incidentDump()
  assert.ok(ev.files.html, JSON.stringify(ev.files))
  const { page, problems } = await openPage(browser, pathToFileURL(ev.files.html).href)
  await assertOpensOnStall(page, ev.reason)
  await screenshot(page, 'viewer-time-incident.png')
  assert.deepEqual(problems, [])
  await page.close()
})

test('cprof html of an incident\'s .cpuprofile alone opens as the dump\'s page did: its marks are kept beside it', { skip }, async () => {
  const { out, ev } = incidentDump()
  const stem = path.basename(ev.files.cpuprofile, '.cpuprofile')
  // <stem>.marks.json beside the profile, private, the event names it;
  // the .cpuprofile is V8's (no field added).
  assert.equal(ev.files.marks, path.join(out, `${stem}.marks.json`))
  assert.equal(fs.statSync(ev.files.marks).mode & 0o777, 0o600)
  const marks = JSON.parse(fs.readFileSync(ev.files.marks, 'utf8'))
  assert.deepEqual(marks.reason, ev.reason)
  assert.ok(Number.isFinite(marks.endAt) && Array.isArray(marks.windowEnds), JSON.stringify(marks))
  assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(ev.files.cpuprofile, 'utf8'))).sort(), ['endTime', 'nodes', 'samples', 'startTime', 'timeDeltas'])
  // Only the .cpuprofile, later, as a user would.
  const html = path.join(dir, 'incident-later.html')
  const r = cli(['html', ev.files.cpuprofile, '-o', html])
  assert.equal(r.stderr, '')
  const { page, problems } = await openPage(browser, pathToFileURL(html).href)
  await assertOpensOnStall(page, ev.reason)
  assert.deepEqual(problems, [])
  await page.close()
  // cprof list shows the profile, not the marks, as a profile.
  const listed = cli(['list', out, '--json']).stdout.trim().split('\n').map((l) => JSON.parse(l).file)
  assert.ok(listed.includes(ev.files.cpuprofile), listed.join(', '))
  assert.ok(!listed.some((f) => /marks/.test(f)), listed.join(', '))
})

test('cprof ui: an incident\'s profile opens on the stall, and its marks are not listed as a profile', { skip }, async () => {
  const { out, ev } = incidentDump()
  const runDir = path.join(makeTmpDir('cprof-viewer-time-run-'), 'run')
  const ui = spawn(process.execPath, [CLI, 'ui', out], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CPROF_RUN_DIR: runDir } })
  try {
    const url = await new Promise((resolve, reject) => {
      let text = ''
      const timer = setTimeout(() => reject(new Error(`cprof ui printed no URL: ${text}`)), 30000)
      ui.stdout.setEncoding('utf8').on('data', (d) => {
        text += d
        const m = /^(http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/)$/m.exec(text)
        if (m) { clearTimeout(timer); resolve(m[1]) }
      })
    })
    const page = await browser.newPage()
    await page.goto(url + 'api/files')
    const names = JSON.parse(await page.$eval('body', (b) => b.textContent)).files.map((f) => f.name)
    await page.close()
    assert.ok(names.includes(path.basename(ev.files.cpuprofile)), names.join(', '))
    assert.ok(!names.some((n) => /marks/.test(n)), names.join(', '))
    const view = await openPage(browser, url + 'view?file=' + encodeURIComponent(path.basename(ev.files.cpuprofile)))
    await assertOpensOnStall(view.page, ev.reason)
    assert.deepEqual(view.problems, [])
    await view.page.close()
  } finally {
    ui.kill('SIGINT')
  }
})

test('a malformed marks file beside a profile: cprof html says so on one line and the page opens without marks', { skip }, async () => {
  const { ev } = incidentDump()
  const bad = makeTmpDir('cprof-viewer-time-bad-')
  const profile = path.join(bad, 'incident.cpuprofile')
  fs.copyFileSync(ev.files.cpuprofile, profile)
  const cases = {
    'not JSON': '{"reason": {"trigger": "eventLoopDelay"',
    'not an object': '[1, 2, 3]',
    'a heap dump\'s marks': JSON.stringify({ endAt: 1, heapWindows: { ends: [1], live: [2] } }),
    // Under the 1 MiB cap; JSON.stringify of it overflowed the stack (issue 36).
    'nested 400,000 deep': '{"reason":' + '['.repeat(400000) + ']'.repeat(400000) + '}'
  }
  for (const [what, text] of Object.entries(cases)) {
    fs.writeFileSync(path.join(bad, 'incident.marks.json'), text)
    const html = path.join(bad, 'incident.html')
    const r = cli(['html', profile, '-o', html])
    const lines = r.stderr.trim().split('\n')
    assert.equal(lines.length, 1, `${what}: ${r.stderr}`)
    assert.match(lines[0], /^cprof html: ignoring .*incident\.marks\.json: .*the page opens without its marks$/, what)
    const { page, problems } = await openPage(browser, pathToFileURL(html).href)
    assert.equal(await page.$('#reason'), null, what)
    const range = await page.evaluate(() => window.cprofViewer.time.range)
    assert.ok(!range || range.from !== 'incident', `${what}: ${JSON.stringify(range)}`)
    assert.equal(await page.$('#heap-overview'), null, what)
    assert.deepEqual(problems, [], what)
    await page.close()
  }
  // cprof ui's page of it (was: 422): served, without marks, one stderr line.
  fs.writeFileSync(path.join(bad, 'incident.marks.json'), cases['nested 400,000 deep'])
  const ui = spawn(process.execPath, [CLI, 'ui', bad], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CPROF_RUN_DIR: path.join(bad, 'run') } })
  let uiErr = ''
  ui.stderr.setEncoding('utf8').on('data', (d) => { uiErr += d })
  try {
    const url = await new Promise((resolve, reject) => {
      let text = ''
      const timer = setTimeout(() => reject(new Error(`cprof ui printed no URL: ${text}`)), 30000)
      ui.stdout.setEncoding('utf8').on('data', (d) => {
        text += d
        const m = /^(http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/)$/m.exec(text)
        if (m) { clearTimeout(timer); resolve(m[1]) }
      })
    })
    const res = await fetch(url + 'view?file=incident.cpuprofile')
    const body = await res.text()
    assert.equal(res.status, 200, body)
    assert.match(body, /<html/i)
    assert.match(uiErr, /^cprof ui: ignoring .*incident\.marks\.json: nested deeper than 16 levels; the page opens without its marks$/m)
  } finally {
    ui.kill('SIGINT')
  }
  // A symbolic link in its place is not followed.
  fs.rmSync(path.join(bad, 'incident.marks.json'))
  fs.symlinkSync(ev.files.marks, path.join(bad, 'incident.marks.json'))
  const r = cli(['html', profile, '-o', path.join(bad, 'incident.html')])
  assert.match(r.stderr, /ignoring .*a symbolic link/)
})

test('a merged profile of two instances shows where each starts, each one\'s work on its side', { skip }, async () => {
  const files = []
  for (const who of ['alpha', 'beta']) {
    const app = path.join(dir, `${who}.js`)
    fs.writeFileSync(app, `'use strict'
function ${who}Work (ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x = (x + 3) % 1000003; return x }
${who}Work(300)
`)
    const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', `${who}.cpuprofile`, app], { encoding: 'utf8', timeout: 60000 })
    assert.equal(r.status, 0, r.stderr)
    files.push(path.join(dir, `${who}.cpuprofile`))
  }
  const merged = path.join(dir, 'fleet.cpuprofile')
  cli(['merge', ...files, '-o', merged, '--formats', 'html'])
  const { page, problems } = await openPage(browser, pathToFileURL(path.join(dir, 'fleet.html')).href)
  const alphaSamples = JSON.parse(fs.readFileSync(files[0], 'utf8')).samples.length
  const seen = await page.evaluate(() => {
    const { time, model: m } = window.cprofViewer
    // The functions on the stack at 400 points of each instance's part.
    const span = time.ts[time.ts.length - 1]
    const parts = time.instances.map((x, k) => ({ name: x.name, t: x.t, end: k + 1 < time.instances.length ? time.instances[k + 1].t : span, fns: new Set() }))
    for (const p of parts) {
      for (let q = 0; q < 400; q++) {
        for (const z of time.stackAt(p.t + (p.end - p.t) * (q + 0.5) / 400)) p.fns.add(m.fns.name[m.fn[z]])
      }
    }
    return { parts: parts.map((p) => ({ name: p.name, t: p.t, fns: [...p.fns] })), legend: document.getElementById('time-marks').textContent, first: time.instances.map((x) => x.firstSample) }
  })
  assert.deepEqual(seen.parts.map((p) => p.name), ['alpha.cpuprofile', 'beta.cpuprofile'])
  assert.deepEqual(seen.first, [0, alphaSamples])
  assert.ok(seen.parts[0].fns.includes('alphaWork') && !seen.parts[0].fns.includes('betaWork'), JSON.stringify(seen.parts[0]))
  assert.ok(seen.parts[1].fns.includes('betaWork') && !seen.parts[1].fns.includes('alphaWork'), JSON.stringify(seen.parts[1]))
  assert.match(seen.legend, /2 merged profiles, one after the other: alpha\.cpuprofile, beta\.cpuprofile/)
  await screenshot(page, 'viewer-time-merged.png')
  assert.deepEqual(problems, [])
  await page.close()
})

test('merged inputs with hostile names: the marks show the names as text, nothing runs', { skip }, async () => {
  const app = path.join(dir, 'plain.js')
  fs.writeFileSync(app, `'use strict'
function plainWork (ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x = (x + 3) % 1000003; return x }
plainWork(200)
`)
  const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', 'plain.cpuprofile', app], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, r.stderr)
  const names = ['"><img src=x onerror="window.pwned=1">.cpuprofile', '<svg onload=window.pwned=2>&amp;.cpuprofile']
  const files = names.map((n) => path.join(dir, n))
  for (const f of files) fs.copyFileSync(path.join(dir, 'plain.cpuprofile'), f)
  const merged = path.join(dir, 'hostile.cpuprofile')
  cli(['merge', ...files, '-o', merged, '--formats', 'html'])
  const { page, problems } = await openPage(browser, pathToFileURL(path.join(dir, 'hostile.html')).href)
  const seen = await page.evaluate(() => ({
    pwned: window.pwned,
    names: window.cprofViewer.time.instances.map((x) => x.name),
    legend: document.getElementById('time-marks').textContent,
    injected: document.querySelectorAll('#time-marks img, #time-marks svg').length
  }))
  assert.equal(seen.pwned, undefined)
  assert.equal(seen.injected, 0)
  assert.deepEqual(seen.names, names)
  for (const n of names) assert.ok(seen.legend.includes(n), `${n} in ${seen.legend}`)
  assert.deepEqual(problems, [])
  await page.close()
})

test('a recorder dump shows its windows\' edges on the time-order view', { skip }, async () => {
  const app = path.join(dir, 'recorder-app.js')
  fs.writeFileSync(app, `'use strict'
const cprof = require(${JSON.stringify(path.resolve(__dirname, '..', '..', '..'))})
function tickWork () { let x = 0; for (let i = 0; i < 3e4; i++) x += i; return x }
const ends = []
cprof.on('window', (w) => { if (w.kind === 'cpu') ends.push(w.to) })
cprof.recorder.start({ window: 300, interval: 1000 })
const t = setInterval(tickWork, 5)
setTimeout(async () => {
  const r = await cprof.recorder.dump({ dir: process.argv[2], formats: ['html'] })
  process.stdout.write(JSON.stringify({ html: r.files.html, windows: r.windows, from: r.from, to: r.to, ends }) + '\\n')
  clearInterval(t)
  await cprof.recorder.stop()
}, 1700)
`)
  const out = path.join(dir, 'recorder')
  fs.mkdirSync(out)
  const r = spawnSync(process.execPath, [app, out], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, r.stderr)
  const dump = JSON.parse(r.stdout.trim())
  assert.ok(dump.windows >= 4, r.stdout)
  const { page, problems } = await openPage(browser, pathToFileURL(dump.html).href)
  const edges = await page.evaluate(() => window.cprofViewer.time.windows)
  // One edge between each two windows, where the recorder said each ended
  // (its 'window' events; the last is the dump's own): as far apart as
  // those, about 300 ms, or more where the timer ran late.
  assert.equal(edges.length, dump.windows - 1, JSON.stringify({ edges, dump }))
  assert.equal(dump.ends.length, dump.windows, JSON.stringify(dump))
  for (let k = 1; k < edges.length; k++) {
    assert.ok(Math.abs(edges[k] - edges[k - 1] - (dump.ends[k] - dump.ends[k - 1]) * 1000) < 2000, JSON.stringify({ edges, ends: dump.ends }))
  }
  const gaps = edges.slice(1).map((e, k) => e - edges[k]).sort((a, b) => a - b)
  assert.ok(Math.abs(gaps[gaps.length >> 1] - 300000) < 60000, JSON.stringify(edges))
  assert.match(await page.$eval('#time-marks', (e) => e.textContent), /recorder window edges/)
  await screenshot(page, 'viewer-time-recorder.png')
  assert.deepEqual(problems, [])
  await page.close()
})

test('a recorder heap dump shows the live heap per window as its overview, as the recorder reported it', { skip }, async () => {
  const app = path.join(dir, 'heap-app.js')
  fs.writeFileSync(app, `'use strict'
const cprof = require(${JSON.stringify(path.resolve(__dirname, '..', '..', '..'))})
const kept = new Map()
let k = 0
function remember () { for (let i = 0; i < 2000; i++) kept.set(k++, { pad: 'x'.repeat(64) + k }) }
const t = setInterval(remember, 20)
const ends = []
cprof.on('window', (w) => { if (w.kind === 'heap') ends.push(w.to) })
cprof.recorder.start({ heap: true, window: 400, heapWindow: 400 })
setTimeout(async () => {
  const r = await cprof.recorder.dump({ kind: 'heap', dir: process.argv[2], formats: ['html'] })
  const trend = cprof.recorder.status().heap.trend
  process.stdout.write(JSON.stringify({ html: r.files.html, heapprofile: r.files.heapprofile, to: r.to, ends, times: trend.times, live: trend.heapSeries }) + '\\n')
  clearInterval(t)
  await cprof.recorder.stop()
}, 2600)
`)
  const out = path.join(dir, 'heap-recorder')
  fs.mkdirSync(out)
  const r = spawnSync(process.execPath, [app, out], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, r.stderr)
  const dump = JSON.parse(r.stdout.trim())
  const { page, problems } = await openPage(browser, pathToFileURL(dump.html).href)
  const bars = await page.$$eval('#heap-overview rect.hw-bar', (rs) => rs.map((b) => ({ end: Number(b.dataset.end), live: Number(b.dataset.live), h: Number(b.getAttribute('height')) })))
  // One bar per heap window up to the dumped one (the newest: r.to), each
  // the live bytes the recorder's trend holds for that window's end.
  const reported = dump.times.map((t, i) => ({ end: t, live: dump.live[i] })).filter((w) => w.end <= dump.to)
  assert.ok(bars.length >= 4, JSON.stringify({ bars, dump }))
  assert.deepEqual(bars.map((b) => ({ end: b.end, live: b.live })), reported)
  assert.equal(bars[bars.length - 1].end, dump.to)
  for (const b of bars) assert.ok(dump.ends.includes(b.end), `${b.end} is a heap window's end (the 'window' events: ${dump.ends})`)
  // The Map grows all along: so does the live heap, and the bars with it.
  for (let i = 1; i < bars.length; i++) {
    assert.ok(bars[i].live > bars[i - 1].live, JSON.stringify(bars))
    assert.ok(bars[i].h > bars[i - 1].h, JSON.stringify(bars))
  }
  const head = await page.$eval('#heap-overview .toolbar', (e) => e.textContent)
  assert.match(head, new RegExp(`Live heap per window${bars.length} heap windows from`))
  assert.equal(await page.$('#time-panel'), null) // no time order in a heap profile
  await screenshot(page, 'viewer-time-heap.png')
  assert.deepEqual(problems, [])
  await page.close()
  // cprof html of the .heapprofile alone, later: the same overview, from
  // the marks kept beside it.
  const later = path.join(dir, 'heap-later.html')
  cli(['html', dump.heapprofile, '-o', later])
  const again = await openPage(browser, pathToFileURL(later).href)
  const barsLater = await again.page.$$eval('#heap-overview rect.hw-bar', (rs) => rs.map((b) => ({ end: Number(b.dataset.end), live: Number(b.dataset.live), h: Number(b.getAttribute('height')) })))
  assert.deepEqual(barsLater, bars)
  assert.deepEqual(again.problems, [])
  await again.page.close()
})

test('cprof convert of a recorder store\'s heap windows: the page\'s overview is the live heap per window', { skip }, async () => {
  const store = path.join(dir, 'heap-store')
  const app = path.join(dir, 'heap-store-app.js')
  fs.writeFileSync(app, `'use strict'
const cprof = require(${JSON.stringify(path.resolve(__dirname, '..', '..', '..'))})
const kept = new Map()
let k = 0
function remember () { for (let i = 0; i < 2000; i++) kept.set(k++, { pad: 'x'.repeat(64) + k }) }
const t = setInterval(remember, 20)
cprof.recorder.start({ heap: true, window: 400, heapWindow: 400, store: { dir: process.argv[2] } })
setTimeout(async () => {
  clearInterval(t)
  const s = await cprof.recorder.stop()
  process.stdout.write(JSON.stringify({ times: s.heap.trend.times, live: s.heap.trend.heapSeries }) + '\\n')
}, 2600)
`)
  const r = spawnSync(process.execPath, [app, store], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, r.stderr)
  const trend = JSON.parse(r.stdout.trim())
  const html = path.join(dir, 'heap-store.html')
  cli(['convert', store, '--kind', 'heap', '--to', 'html', '-o', html])
  const { page, problems } = await openPage(browser, pathToFileURL(html).href)
  const bars = await page.$$eval('#heap-overview rect.hw-bar', (rs) => rs.map((b) => [Number(b.dataset.end), Number(b.dataset.live)]))
  // Every heap window the store holds, each the live bytes the recorder's
  // trend reported for it.
  assert.ok(bars.length >= 4, JSON.stringify({ bars, trend }))
  assert.deepEqual(bars, trend.times.map((t, i) => [t, trend.live[i]]))
  for (let i = 1; i < bars.length; i++) assert.ok(bars[i][1] > bars[i - 1][1], JSON.stringify(bars))
  assert.deepEqual(problems, [])
  await page.close()
})

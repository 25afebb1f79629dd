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
const { haveChromium, launch, openPage, reloadBy, screenshot } = require('../helpers/browser')

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
  await reloadBy(page, () => page.mouse.up())
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
// then a 450 ms stall in stallInIncident; prints the profile event. The stall
// reads the clock every 10,000 steps: Date.now() at each step allocated a
// heap number (190 scavenges in 450 ms by --trace-gc; now none), and beside
// two hogs the range read 300 ms of (garbage collector) over the stall.
const INCIDENT_APP = `'use strict'
const cprof = require(${JSON.stringify(path.resolve(__dirname, '..', '..', '..'))})
const dir = process.argv[2]
function stallInIncident (ms) {
  const end = Date.now() + ms; let x = 0
  while (Date.now() < end) for (let i = 0; i < 10000; i++) x = (x + 7) % 1000003
  return x
}
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
  // Its inputs are laid one after the other: seconds from the start, no time of day.
  assert.ok(labelled(await axisTicks(page, 'time-overview-axis', 'rel', 'time-overview')).ticks.length >= 3)
  assert.equal(await page.$('#time-overview-axis .axis-row.wall'), null)
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
  // A window that ends while the dump is written (a loaded machine) is
  // not the dump's: only the ends up to its own count.
  const ends = dump.ends.filter((t) => t <= dump.to)
  assert.equal(edges.length, dump.windows - 1, JSON.stringify({ edges, dump }))
  assert.equal(ends.length, dump.windows, JSON.stringify(dump))
  for (let k = 1; k < edges.length; k++) {
    assert.ok(Math.abs(edges[k] - edges[k - 1] - (ends[k] - ends[k - 1]) * 1000) < 2000, JSON.stringify({ edges, ends }))
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
  remember() // the dumped window grows too, however late the timers ran
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
  // (The app grows it right before the dump: beside two hogs the dump's
  // window ended 250 ms after the one before with no 20 ms tick in it.)
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
  remember() // the last window grows too, however late the timers ran
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

// ---- the time axis, blocking spans, the whole function in the source pane ----

// The ticks of an axis row as drawn: each tick's label (null when left
// off at the edge), its time as the label reads (µs), and where it sits in
// CSS px from the left of the canvas's drawing area.
const axisTicks = (page, axis, row, canvas) => page.evaluate((axis, row, canvas) => {
  const c = document.getElementById(canvas)
  const left = c.getBoundingClientRect().left + c.clientLeft
  return {
    width: c.clientWidth,
    ticks: [...document.querySelectorAll(`#${axis} .axis-row.${row} .tick`)].map((t) => ({
      label: t.querySelector('.lbl') ? t.querySelector('.lbl').textContent : null,
      x: t.getBoundingClientRect().left - left
    })),
    unit: (document.querySelector(`#${axis} .axis-row.${row} .axis-unit`) || {}).textContent
  }
}, axis, row, canvas)

// "250 ms", "1.5 s" in µs.
function relTime (label) {
  const m = /^(\d+(?:\.\d+)?) (ms|s)$/.exec(label)
  assert.ok(m, `a time label: ${label}`)
  return Number(m[1]) * (m[2] === 's' ? 1e6 : 1e3)
}

// The labelled ticks with their times; the step between them is one of
// 1, 2 or 5 × 10^k and the same all along.
function labelled (axis) {
  const ticks = axis.ticks.filter((t) => t.label !== null).map((t) => ({ ...t, t: relTime(t.label) }))
  assert.ok(ticks.length >= 3, JSON.stringify(axis))
  const step = ticks[1].t - ticks[0].t
  const k = step / 10 ** Math.floor(Math.log10(step) + 1e-9)
  assert.ok([1, 2, 5].some((x) => Math.abs(k - x) < 1e-6), `step ${step} µs`)
  for (let i = 1; i < ticks.length; i++) assert.ok(Math.abs(ticks[i].t - ticks[i - 1].t - step) < step * 1e-6, JSON.stringify(ticks))
  return { ticks, step }
}

// The time at x, read off two labelled ticks (the axis's own scale).
function timeAtX (ticks, x) {
  const a = ticks[0]; const b = ticks[ticks.length - 1]
  return a.t + (x - a.x) * (b.t - a.t) / (b.x - a.x)
}

const chartView = (page) => page.evaluate(() => ({ v0: window.cprofViewer.time.view.v0, v1: window.cprofViewer.time.view.v1 }))
const firstChartTick = (page) => page.$eval('#time-chart-axis .axis-row.rel .tick', (t) => t.textContent + '@' + t.style.left)

test('the time axis: ticks in ms on a short profile, each where its time maps, kept right after a zoom and a pan', { skip }, async () => {
  const src = path.join(__dirname, '..', '..', 'fixtures', 'small.cpuprofile')
  const profile = JSON.parse(fs.readFileSync(src, 'utf8'))
  const span = profile.endTime - profile.startTime // 358 ms
  const html = path.join(dir, 'axis.html')
  cli(['html', src, '-o', html])
  const { page, problems } = await openPage(browser, pathToFileURL(html).href)
  // The overview spans the whole profile: the tick labelled 100 ms sits
  // at 100 ms / span of its width.
  const ov = await axisTicks(page, 'time-overview-axis', 'rel', 'time-overview')
  const o = labelled(ov)
  assert.ok(o.ticks.every((t) => t.label.endsWith(' ms')), JSON.stringify(o.ticks))
  assert.equal(o.ticks[0].label, '0 ms')
  for (const t of o.ticks) assert.ok(Math.abs(t.x - t.t / span * ov.width) < 1, `${t.label} at ${t.x} px, ${t.t / span * ov.width} px wanted`)
  assert.ok(o.ticks[o.ticks.length - 1].t + o.step > span * 0.9, 'ticks to the end')
  assert.equal(ov.unit, undefined, 'no time of day: a file from node alone has no wall-clock start')
  // The chart shows the whole profile too, before any zoom.
  const ch0 = labelled(await axisTicks(page, 'time-chart-axis', 'rel', 'time-chart'))
  assert.deepEqual(ch0.ticks.map((t) => t.label), o.ticks.map((t) => t.label))

  // Zoom in with the wheel at 40% of the chart: the time under the
  // pointer stays where it was, read off the ticks before and after.
  const box = await (await page.$('#time-chart')).boundingBox()
  const px = box.width * 0.4
  const before = timeAtX(ch0.ticks, px)
  let prev = await firstChartTick(page)
  await page.mouse.move(box.x + px, box.y + 40)
  await page.mouse.wheel({ deltaY: -600 })
  await page.waitForFunction((p) => document.querySelector('#time-chart-axis .axis-row.rel .tick').textContent + '@' + document.querySelector('#time-chart-axis .axis-row.rel .tick').style.left !== p, { timeout: 60000 }, prev)
  let ch = await axisTicks(page, 'time-chart-axis', 'rel', 'time-chart')
  let z = labelled(ch)
  assert.ok(z.step < ch0.step, `finer ticks once zoomed: ${z.step} < ${ch0.step}`)
  const usPerPx = span / ch.width
  assert.ok(Math.abs(timeAtX(z.ticks, px) - before) < usPerPx, `${timeAtX(z.ticks, px)} vs ${before} µs under the pointer`)
  let v = await chartView(page)
  for (const t of z.ticks) assert.ok(Math.abs(t.x - (t.t - v.v0) / (v.v1 - v.v0) * ch.width) < 1, `${t.label} at ${t.x}`)
  // Deeper: under a few ms the labels carry decimals of a ms.
  prev = await firstChartTick(page)
  await page.mouse.wheel({ deltaY: -1500 })
  await page.waitForFunction((p) => document.querySelector('#time-chart-axis .axis-row.rel .tick').textContent + '@' + document.querySelector('#time-chart-axis .axis-row.rel .tick').style.left !== p, { timeout: 60000 }, prev)
  ch = await axisTicks(page, 'time-chart-axis', 'rel', 'time-chart')
  z = labelled(ch)
  v = await chartView(page)
  assert.ok(v.v1 - v.v0 < 20000, JSON.stringify(v))
  assert.ok(z.ticks.every((t) => /^\d+\.\d+ ms$/.test(t.label)), JSON.stringify(z.ticks.map((t) => t.label)))
  assert.ok(Math.abs(timeAtX(z.ticks, px) - before) < usPerPx, `${timeAtX(z.ticks, px)} vs ${before} µs under the pointer`)
  for (const t of z.ticks) assert.ok(Math.abs(t.x - (t.t - v.v0) / (v.v1 - v.v0) * ch.width) < 1, `${t.label} at ${t.x}`)

  // Pan: drag the chart 300 px to the left; every tick still shown moved
  // with it, its label unchanged.
  prev = await firstChartTick(page)
  await page.mouse.move(box.x + box.width * 0.6, box.y + 40)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width * 0.6 - 300, box.y + 40, { steps: 6 })
  await page.mouse.up()
  await page.waitForFunction((p) => document.querySelector('#time-chart-axis .axis-row.rel .tick').textContent + '@' + document.querySelector('#time-chart-axis .axis-row.rel .tick').style.left !== p, { timeout: 60000 }, prev)
  const panned = labelled(await axisTicks(page, 'time-chart-axis', 'rel', 'time-chart'))
  let moved = 0
  for (const t of panned.ticks) {
    const old = z.ticks.find((x) => x.label === t.label)
    if (!old) continue
    assert.ok(Math.abs(t.x - (old.x - 300)) < 1, `${t.label}: ${old.x} → ${t.x}`)
    moved++
  }
  assert.ok(moved >= 1, JSON.stringify({ panned, z }))
  v = await chartView(page)
  for (const t of panned.ticks) assert.ok(Math.abs(t.x - (t.t - v.v0) / (v.v1 - v.v0) * ch.width) < 1, `${t.label} at ${t.x}`)
  // The info line gives what is shown in the chart's units.
  assert.match(await page.$eval('#time-info', (e) => e.textContent), /Shown: \d+\.\d+ ms\u2013\d+\.\d+ ms\./)
  await screenshot(page, 'viewer-time-axis-zoomed.png')
  assert.deepEqual(problems, [])
  await page.close()
})

// The blocking app's run, once (test/js/viewer/fixtures/block-app.js).
let blockRun
function blockDump () {
  if (blockRun) return blockRun
  const out = path.join(dir, 'block')
  fs.mkdirSync(out)
  const r = spawnSync(process.execPath, ['--expose-gc', path.join(__dirname, 'fixtures', 'block-app.js'), out], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, r.stderr)
  blockRun = JSON.parse(r.stdout.trim())
  blockRun.profile = JSON.parse(fs.readFileSync(blockRun.files.cpuprofile, 'utf8'))
  return blockRun
}

// The runs of consecutive samples none of which is (idle), longer than
// minUs, from the .cpuprofile on our own: [start, end) µs from its
// startTime (a sample starts at the sum of the deltas so far and lasts
// until the next one starts; the last until endTime), with their GC
// sample counts.
function blockedRuns (profile, minUs) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]))
  const starts = []
  let t = 0
  for (const d of profile.timeDeltas) { t += d; starts.push(t) }
  starts.push(Math.max(t, profile.endTime - profile.startTime))
  const runs = []
  let cur = null
  profile.samples.forEach((id, i) => {
    const name = byId.get(id)
    if (name === '(idle)') { cur = null; return }
    if (!cur) runs.push((cur = { a: starts[i], b: 0, gc: 0, samples: 0 }))
    cur.b = starts[i + 1]
    cur.samples++
    if (name === '(garbage collector)') cur.gc++
  })
  return runs.filter((r) => r.b - r.a > minUs)
}

test('a recorder dump: the time of day (UTC) under the ticks, and one blocking span over a 1 s stall cut by GC', { skip }, async () => {
  const run = blockDump()
  const { page, problems } = await openPage(browser, pathToFileURL(run.files.html).href)
  const p = run.profile
  const span = Math.max(p.endTime - p.startTime, p.timeDeltas.reduce((s, d) => s + d, 0))
  // Seconds on the relative row (a 1.8 s profile), and the clock row.
  const rel = labelled(await axisTicks(page, 'time-overview-axis', 'rel', 'time-overview'))
  assert.ok(rel.ticks.every((t) => t.label.endsWith(' s')), JSON.stringify(rel.ticks))
  const wall = await axisTicks(page, 'time-overview-axis', 'wall', 'time-overview')
  assert.equal(wall.unit, 'UTC')
  const clock = wall.ticks.filter((t) => t.label !== null)
  assert.ok(clock.length >= 3, JSON.stringify(wall))
  // Each clock label is the time of day at its place: the dump starts at
  // run.from (ms since the epoch), so a label of HH:MM:SS.d sits at
  // (that time - from) of the profile.
  const day = run.from - (run.from % 86400000)
  for (const t of clock) {
    const m = /^(\d\d):(\d\d):(\d\d)(\.\d+)?$/.exec(t.label)
    assert.ok(m, t.label)
    let ms = day + ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Math.round(Number(m[4] || 0) * 1000)
    if (ms < run.from - 3600000) ms += 86400000 // past midnight
    const want = (ms - run.from) * 1000 / span * wall.width
    assert.ok(Math.abs(t.x - want) < 1, `${t.label} at ${t.x} px, ${want} px wanted`)
  }

  // Blocking spans: as counted from the samples on our own, one of them
  // over the app's stall, not split by its GC.
  const want = blockedRuns(p, 50000)
  const blocks = await page.evaluate(() => window.cprofViewer.time.blocks.map((b) => ({ a: b.a, b: b.b })))
  assert.equal(blocks.length, want.length, JSON.stringify({ blocks, want }))
  blocks.forEach((b, k) => {
    assert.ok(Math.abs(b.a - want[k].a) <= 1 && Math.abs(b.b - want[k].b) <= 1, JSON.stringify({ page: b, counted: want[k] }))
  })
  const mid = ((run.stall[0] + run.stall[1]) / 2 - run.from) * 1000
  const over = want.filter((r) => r.a <= mid && mid < r.b)
  assert.equal(over.length, 1, JSON.stringify({ want, mid }))
  const stall = over[0]
  assert.ok(stall.b - stall.a >= 0.9 * (run.stall[1] - run.stall[0]) * 1000, JSON.stringify({ stall, app: run.stall }))
  assert.ok(stall.gc >= 5, `GC cuts the stall: ${stall.gc} GC samples of ${stall.samples}`)
  // Its tooltip on the overview's band: how long, from when to when, in
  // the overview's units and the time of day.
  const ob = await (await page.$('#time-overview')).boundingBox()
  const cw = await page.$eval('#time-overview', (c) => c.clientWidth)
  await page.mouse.move(ob.x + 1 + (stall.a + stall.b) / 2 / span * cw, ob.y + ob.height - 5)
  await page.waitForFunction(() => !document.getElementById('tip').hidden, { timeout: 60000 })
  const tip = await page.$eval('#tip', (e) => e.firstChild.textContent)
  const m = /^blocked (\d+(?:\.\d+)?) (ms|s) from (\d+\.\d{3}) s to (\d+\.\d{3}) s \((\d\d:\d\d:\d\d\.\d{3}) to (\d\d:\d\d:\d\d\.\d{3}) UTC\)$/.exec(tip)
  assert.ok(m, tip)
  assert.ok(Math.abs(relTime(m[1] + ' ' + m[2]) - (stall.b - stall.a)) <= 1000, tip)
  assert.ok(Math.abs(Number(m[3]) * 1e6 - stall.a) <= 501 && Math.abs(Number(m[4]) * 1e6 - stall.b) <= 501, `${tip} vs ${JSON.stringify(stall)}`)
  assert.equal(m[5], new Date(Math.round(run.from + stall.a / 1000)).toISOString().slice(11, 23))
  assert.match(await page.$eval('#time-marks', (e) => e.textContent), new RegExp(`event loop blocked > 50 ms: ${want.length} spans?`))
  await page.mouse.move(0, 0)
  await page.$eval('#time-panel', (e) => e.scrollIntoView())
  await screenshot(page, 'viewer-time-blocking.png')
  assert.deepEqual(problems, [])
  await page.close()
})

test('the source pane shows the selected function whole: first to last line, cold stretches folded, the hot line highlighted', { skip }, async () => {
  const run = blockDump()
  const text = fs.readFileSync(path.join(__dirname, 'fixtures', 'block-app.js'), 'utf8').split('\n')
  const at = (mark) => text.findIndex((l) => l.includes(mark)) + 1
  const first = at('function blockWithGc')
  const last = at('FUNCTION_END')
  // Its self time per line, from the .cpuprofile's positionTicks.
  const ticks = new Map()
  for (const n of run.profile.nodes) {
    if (n.callFrame.functionName !== 'blockWithGc') continue
    for (const pt of n.positionTicks || []) ticks.set(pt.line, (ticks.get(pt.line) || 0) + pt.ticks)
  }
  const hottest = [...ticks].sort((a, b) => b[1] - a[1])[0][0]
  assert.ok(hottest > first && hottest < last, JSON.stringify([...ticks]))
  const { page, problems } = await openPage(browser, pathToFileURL(run.files.html).href)
  await page.click('#tabs button[data-view="flat"]')
  await page.evaluate(() => {
    const row = [...document.querySelectorAll('#view-flat tbody tr')].find((r) => r.querySelector('.name')?.textContent === 'blockWithGc')
    row.querySelector('.name').click()
  })
  await page.waitForSelector('#lines-panel:not([hidden]) table.lines', { timeout: 60000 })
  const read = () => page.$$eval('#lines-panel table.lines tbody tr', (trs) => trs.map((tr) => tr.classList.contains('fold')
    ? { from: Number(tr.dataset.from), to: Number(tr.dataset.to), fold: tr.textContent }
    : { line: Number(tr.dataset.line), cls: tr.className, self: Number(tr.querySelector('td.self').dataset.self), src: tr.querySelector('td.src').textContent, bg: getComputedStyle(tr.querySelector('td.src')).backgroundColor }))
  const rows = await read()
  // Every line of the function, in order, shown or inside a fold.
  const covered = []
  for (const r of rows) {
    if (r.fold) for (let k = r.from; k <= r.to; k++) covered.push(k)
    else covered.push(r.line)
  }
  assert.deepEqual(covered, Array.from({ length: last - first + 1 }, (_, k) => first + k))
  assert.match(await page.$eval('#lines-panel', (e) => e.textContent), new RegExp(`Lines ${first}\u2013${last}: the whole function\\.`))
  // The never-run branch is folded, its lines counted in the fold's text.
  const folds = rows.filter((r) => r.fold)
  // V8 may charge a tick of optimized code to a line of the branch (CI once
  // saw line 26 ticked, and the fold began after it): the fold is the one
  // inside the branch, not necessarily all of it.
  const cold = folds.find((f) => f.from <= at('COLD_TO') && at('COLD_FROM') <= f.to)
  assert.ok(cold, JSON.stringify({ folds, ticks: [...ticks] }))
  assert.equal(cold.fold, `\u2026 ${cold.to - cold.from + 1} lines \u2026`)
  assert.ok(cold.to - cold.from + 1 > 4, JSON.stringify(cold))
  // Lines with ticks have their self time; the hottest one is highlighted.
  const shown = rows.filter((r) => !r.fold)
  for (const r of shown) {
    assert.equal(r.src, text[r.line - 1], `line ${r.line}`)
    assert.equal(r.self > 0, ticks.has(r.line), `line ${r.line}: ${r.self} µs, ${ticks.get(r.line) || 0} ticks`)
  }
  const hot = shown.find((r) => r.line === hottest)
  assert.match(hot.cls, /\bhot\b/)
  assert.notEqual(hot.bg, 'rgba(0, 0, 0, 0)')
  for (const r of shown) if (!ticks.has(r.line)) assert.doesNotMatch(r.cls, /\bhot\b/, `line ${r.line}`)
  await (await page.$('#lines-panel')).screenshot({ path: path.join(require('../helpers/browser').ARTIFACTS, 'viewer-lines-whole.png') })
  // A click on the fold shows its lines, each with its text.
  await page.evaluate((from) => document.querySelector(`#lines-panel tr.fold[data-from="${from}"] button`).click(), cold.from)
  const opened = await read()
  assert.ok(!opened.some((r) => r.fold && r.from === cold.from), 'the fold is gone')
  for (let k = cold.from; k <= cold.to; k++) {
    const r = opened.find((x) => x.line === k)
    assert.ok(r, `line ${k} shown`)
    assert.equal(r.src, text[k - 1])
    assert.equal(r.self, 0)
  }
  assert.deepEqual(problems, [])
  await page.close()
})

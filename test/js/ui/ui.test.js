'use strict'
// cprof ui end to end: the server on loopback with its token, the
// dashboard in headless Chromium listing the directory, opening a profile
// in the viewer, comparing two, merging several, the recorder's windows on
// a timeline, the live cprof processes (cprof ps), and a timed profile of
// one of them started from the page (signal trigger) showing up in the list;
// the live table has cprof ps's cells (recorder, incidents, CPU %, RSS, heap
// trend), a job follows the file a process reports wherever it writes, a
// failing one is an error, and the list says why each file was written.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { makeTmpDir, removeTmpDirs, startFixture } = require('../helpers/util')
const { haveChromium, launch, openPage, reloadBy, screenshot } = require('../helpers/browser')

const CLI = path.resolve(__dirname, '..', '..', '..', 'bin', 'cprof.js')
const FIXTURES = path.resolve(__dirname, '..', '..', 'fixtures')
const skipBrowser = haveChromium() ? false : 'needs /usr/bin/chromium (apt-get install -y chromium)'

let dir
let runDir
let ui
let url
// Recorder windows (<kind>-<pid>-<fromMs>-<toMs>.<ext>): two CPU, one heap.
const T0 = Date.UTC(2026, 0, 3)
const WINDOWS = [`cpu-333-${T0}-${T0 + 60000}.cpuprofile`, `cpu-333-${T0 + 60000}-${T0 + 120000}.cpuprofile`, `heap-333-${T0}-${T0 + 120000}.heapprofile`]
const HOSTILE_APP = '<img src=x onerror="window.pwned=1">\u00e9\'app'
// An incident's dump: the list's WHY names its trigger.
const INCIDENT = 'cpu-incident-eventLoopDelay-999-20260101T000000.000Z.cpuprofile'

function get (target, { host, method = 'GET', headers = {}, body } = {}) {
  const u = new URL(target)
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: { host: host ?? u.host, ...headers } }, (res) => {
      let data = ''
      res.setEncoding('utf8').on('data', (d) => { data += d }).on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

before(async () => {
  dir = makeTmpDir('cprof-ui-')
  fs.copyFileSync(path.join(FIXTURES, 'small.cpuprofile'), path.join(dir, 'cpu-111-20260101T000000.000Z.cpuprofile'))
  fs.copyFileSync(path.join(FIXTURES, 'small.cpuprofile'), path.join(dir, 'cpu-222-20260102T000000.000Z.cpuprofile'))
  fs.copyFileSync(path.join(FIXTURES, 'small.heapprofile'), path.join(dir, 'heap-111-20260101T000000.000Z.heapprofile'))
  fs.copyFileSync(path.join(FIXTURES, 'small.cpuprofile'), path.join(dir, INCIDENT))
  for (const w of WINDOWS) fs.copyFileSync(path.join(FIXTURES, w.startsWith('cpu') ? 'small.cpuprofile' : 'small.heapprofile'), path.join(dir, w))
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a profile')
  // Labels beside two profiles (docs/labels.md): cpu-222's fit it, the
  // incident's are another profile's (3 samples, small.cpuprofile has 218).
  const n = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'small.cpuprofile'), 'utf8')).samples.length
  fs.writeFileSync(path.join(dir, 'cpu-222-20260102T000000.000Z.labels.json'), JSON.stringify({ version: 1, sets: [{}, { route: '/x' }], samples: Array.from({ length: n }, (_, i) => i % 2), unknownSamples: 0 }))
  fs.writeFileSync(path.join(dir, INCIDENT.replace('.cpuprofile', '.labels.json')), JSON.stringify({ version: 1, sets: [{}, { route: '/x' }], samples: [0, 1, 1], unknownSamples: 0 }))
  // A run directory of our own: the live processes are the test's only.
  runDir = path.join(makeTmpDir('cprof-ui-run-'), 'run')
  ui = spawn(process.execPath, [CLI, 'ui', dir], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CPROF_RUN_DIR: runDir } })
  url = await new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`cprof ui printed no URL: ${out}`)), 30000)
    ui.stdout.setEncoding('utf8').on('data', (d) => {
      out += d
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/)$/m.exec(out)
      if (m) { clearTimeout(timer); resolve(m[1]) }
    })
  })
})

after(async () => {
  if (ui && ui.exitCode === null) {
    const exited = new Promise((resolve) => ui.once('exit', resolve))
    ui.kill('SIGINT')
    await exited
  }
  removeTmpDirs()
})

test('a profile with its labels beside it opens with them (the viewer\'s label filter); labels of another profile are left out', async () => {
  const page = (name) => get(url + 'view?file=' + encodeURIComponent(name))
  const labelled = await page('cpu-222-20260102T000000.000Z.cpuprofile')
  assert.equal(labelled.status, 200)
  assert.match(labelled.body, /"labels":\{"sets":\[\[\],\["route","\/x"\]\],"setBits":8,"set":"/)
  for (const name of ['cpu-111-20260101T000000.000Z.cpuprofile', INCIDENT]) {
    const plain = await page(name)
    assert.equal(plain.status, 200, plain.body)
    assert.doesNotMatch(plain.body, /"labels":\{"sets"/, name)
  }
})

test('loopback only, and nothing without the token', async () => {
  const u = new URL(url)
  assert.equal(u.hostname, '127.0.0.1')
  const ok = await get(url + 'api/files')
  assert.equal(ok.status, 200)
  const files = JSON.parse(ok.body).files.map((f) => f.name).sort()
  assert.deepEqual(files, ['cpu-111-20260101T000000.000Z.cpuprofile', 'cpu-222-20260102T000000.000Z.cpuprofile', 'heap-111-20260101T000000.000Z.heapprofile', INCIDENT, ...WINDOWS].sort())
  assert.deepEqual(JSON.parse((await get(url + 'api/processes')).body), { processes: [] })
  const token = u.pathname.slice(1, -1)
  const flipped = (token[0] === 'A' ? 'B' : 'A') + token.slice(1)
  for (const bad of [`${u.origin}/`, `${u.origin}/api/files`, `${u.origin}/${flipped}/api/files`, `${u.origin}/${token.slice(0, -1)}/api/files`]) {
    const r = await get(bad)
    assert.equal(r.status, 403, bad)
    assert.doesNotMatch(r.body, /cpuprofile/)
  }
  // Another Host (DNS rebinding) is refused too, token or not.
  assert.equal((await get(url + 'api/files', { host: `evil.example:${u.port}` })).status, 403)
  // Paths outside the directory are not profiles of it.
  assert.equal((await get(url + 'view?file=' + encodeURIComponent('../' + path.basename(dir) + '/notes.txt'))).status, 404)
  assert.equal((await get(url + 'view?file=notes.txt')).status, 404)
  assert.equal((await get(url + 'merge?file=notes.txt&file=' + WINDOWS[0])).status, 404)
  // Merge takes two or more different profiles of one kind.
  assert.equal((await get(url + 'merge?file=' + WINDOWS[0])).status, 400)
  assert.equal((await get(url + `merge?file=${WINDOWS[0]}&file=${WINDOWS[0]}`)).status, 400)
  assert.match((await get(url + `merge?file=${WINDOWS[0]}&file=${WINDOWS[2]}`)).body, /one kind/)
  // Not reachable on other interfaces.
  const other = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)
  if (other) {
    await assert.rejects(get(`http://${other.address}:${u.port}${u.pathname}api/files`, { host: `127.0.0.1:${u.port}` }), /ECONNREFUSED/)
  }
  // A bad profile request is a 400 with a reason.
  const bad = await get(url + 'api/profile', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pid: 'x' }) })
  assert.equal(bad.status, 400)
  assert.match(JSON.parse(bad.body).error, /pid/)
})

// waitForFunction polls on a timer: its default, requestAnimationFrame, stops
// while another tab is in front, and the test opens several.
const POLL = { polling: 100 }

test('dashboard: list, open, compare, merge, timeline, live processes and a timed profile of one', { skip: skipBrowser }, async () => {
  const browser = await launch()
  const app = startFixture(path.join(__dirname, '..', 'triggers', 'fixtures', 'trigger-app.js'), [JSON.stringify({ dir }), '1', '60000'], { env: { CPROF_RUN_DIR: runDir, CPROF_APP: HOSTILE_APP } })
  try {
    const { page, problems } = await openPage2(browser, url)
    await page.waitForSelector('#files tr')
    const names = await page.$$eval('#files tr', (rows) => rows.map((r) => r.dataset.name))
    assert.equal(names.length, 7)
    // WHY: as cprof list says it.
    assert.equal(await page.$eval(`#files tr[data-name="${INCIDENT}"] td.why`, (e) => e.textContent), 'incident eventLoopDelay')
    assert.equal(await page.$eval(`#files tr[data-name="${WINDOWS[0]}"] td.why`, (e) => e.textContent), 'window')
    assert.equal(await page.$eval('#files tr[data-name^="cpu-111"] td.why', (e) => e.textContent), '-')

    // Open: the viewer of that file.
    const href = await page.$eval('#files tr[data-name^="cpu-111"] a.open', (a) => a.href)
    const v = await openPage(browser, href)
    assert.deepEqual(v.problems, [])
    assert.equal(await v.page.$eval('#title', (e) => e.textContent), 'cpu-111-20260101T000000.000Z.cpuprofile')
    const oneSamples = await v.page.evaluate(() => window.cprofViewer.model.d.samples[0])
    await v.page.close()

    // Timeline: the recorder's windows, one lane per kind and pid, in time order.
    const lanes = await page.$$eval('#timeline .lane', (ls) => ls.map((l) => ({
      lane: l.dataset.lane,
      blocks: [...l.querySelectorAll('a.block')].map((b) => ({ name: b.dataset.name, left: parseFloat(b.style.left), width: parseFloat(b.style.width) }))
    })))
    assert.deepEqual(lanes, [
      { lane: 'cpu 333', blocks: [{ name: WINDOWS[0], left: 0, width: 50 }, { name: WINDOWS[1], left: 50, width: 50 }] },
      { lane: 'heap 333', blocks: [{ name: WINDOWS[2], left: 0, width: 100 }] }
    ])
    assert.equal(await page.$eval('#timeline-box', (e) => e.hidden), false)
    const w = await openPage(browser, await page.$eval(`#timeline a[data-name="${WINDOWS[1]}"]`, (a) => a.href))
    assert.equal(await w.page.$eval('#title', (e) => e.textContent), WINDOWS[1])
    await w.page.close()

    // Compare: tick two CPU profiles, follow the link.
    await page.$eval('#files tr[data-name^="cpu-111"] input', (e) => e.click())
    await page.waitForFunction(() => document.querySelector('#files tr[data-name^="cpu-111"] input').checked, POLL).catch(async (err) => {
      // Once on Node 26 (a loaded CI run) the box never showed checked: say what the page held.
      const state = await page.evaluate(() => ({
        rows: [...document.querySelectorAll('#files tr')].map((r) => [r.dataset.name, r.querySelector('input').checked]),
        status: document.getElementById('status').textContent,
        merge: document.getElementById('merge-info').textContent
      }))
      throw new Error(`${err.message}: ${JSON.stringify(state)}`)
    })
    await page.$eval('#files tr[data-name^="cpu-222"] input', (e) => e.click())
    await page.waitForFunction(() => document.getElementById('compare').getAttribute('aria-disabled') === 'false', POLL)
    const diffHref = await page.$eval('#compare', (a) => a.href)
    const d = await openPage(browser, diffHref)
    assert.match(await d.page.$eval('#figures', (e) => e.textContent), /CPU diff/)
    await d.page.close()

    // Merge: the same two, plus a CPU window; the viewer of their merge.
    await page.$eval(`#files tr[data-name="${WINDOWS[0]}"] input`, (e) => e.click())
    await page.waitForFunction(() => document.getElementById('merge-info').textContent === '3 cpu profiles', POLL)
    assert.equal(await page.$eval('#compare', (a) => a.getAttribute('aria-disabled')), 'true')
    const m = await openPage(browser, await page.$eval('#merge', (a) => a.href))
    assert.deepEqual(m.problems, [])
    assert.equal(await m.page.$eval('#title', (e) => e.textContent), '3 merged profiles')
    assert.equal(await m.page.evaluate(() => window.cprofViewer.model.d.samples[0]), 3 * oneSamples)
    await m.page.close()
    // A heap profile in the selection: no merge.
    await page.$eval('#files tr[data-name^="heap-111"] input', (e) => e.click())
    await page.waitForFunction(() => document.getElementById('merge').getAttribute('aria-disabled') === 'true', POLL)
    assert.equal(await page.$eval('#merge-info', (e) => e.textContent), 'merge takes profiles of one kind')

    // The live app in the processes list (its hostile name as text); the
    // start form acts on the one chosen there.
    const line = await app.waitForLine((l) => l.includes('"init"'), 30000)
    const pid = app.child.pid
    assert.ok(JSON.parse(line).init.cpu)
    await page.waitForSelector(`#procs tr[data-pid="${pid}"]`, { timeout: 10000 })
    await page.waitForFunction((p) => document.querySelector(`#procs tr[data-pid="${p}"] td[data-col="signal"]`).textContent !== '', POLL, pid)
    assert.deepEqual(await page.$$eval(`#procs tr[data-pid="${pid}"] td`, (tds) => tds.slice(0, 6).map((t) => t.textContent)),
      [String(pid), HOSTILE_APP, '-', '-', '-', '-'])
    assert.equal(await page.$eval(`#procs tr[data-pid="${pid}"] td[data-col="signal"]`, (e) => e.textContent), 'cpu:SIGUSR2') // the default CPU signal
    assert.equal(await page.$$eval('#procs img', (x) => x.length), 0)
    assert.equal(await page.evaluate(() => window.pwned), undefined)
    await page.click(`#procs tr[data-pid="${pid}"] button.choose`)
    await page.waitForSelector(`#procs tr.chosen[data-pid="${pid}"]`)
    assert.equal(await page.$eval('#pid', (e) => e.value), String(pid))
    // Long enough for the list, polled every 1.5 s, to see the profile run.
    await page.$eval('#seconds', (e) => { e.value = '6' })
    await page.click('#start button[type=submit]')
    await page.waitForFunction(() => /^profiling process/.test(document.getElementById('start-info').textContent), { polling: 100, timeout: 10000 })
    // While it runs, the list says what runs.
    await page.waitForFunction((p) => (document.querySelector(`#procs tr[data-pid="${p}"] td:nth-child(6)`) || {}).textContent === 'cpu', { polling: 100, timeout: 10000 }, pid)
    await page.waitForSelector(`#files tr.new[data-name^="cpu-${pid}-"]`, { timeout: 60000 })
    // The trigger's job ends once the second signal went out (and, with
    // cprof trigger's own wait, once the file is there): the page says so.
    await page.waitForSelector(`#jobs .job[data-pid="${pid}"][data-state="done"]`, { timeout: 60000 })
    // It names the file, in this directory: Open, and it is green.
    const job = await page.$eval(`#jobs .job[data-pid="${pid}"]`, (d) => ({ cls: d.className, path: d.querySelector('.path').textContent, open: d.querySelector('a.open').getAttribute('href') }))
    assert.equal(job.cls, 'job ok')
    assert.equal(path.dirname(job.path), dir)
    assert.match(path.basename(job.path), new RegExp(`^cpu-${pid}-`))
    assert.equal(job.open, 'view?file=' + encodeURIComponent(path.basename(job.path)))
    // The list says why it was written: by signal, from here.
    await page.waitForFunction((n) => (document.querySelector(`#files tr[data-name="${n}"] td.why`) || {}).textContent === 'signal', { polling: 100, timeout: 15000 }, path.basename(job.path))
    await screenshot(page, 'ui-dashboard.png')
    // The app exits after its profile: it leaves the list.
    await page.waitForFunction((p) => !document.querySelector(`#procs tr[data-pid="${p}"]`), { polling: 100, timeout: 15000 }, pid)
    const newHref = await page.$eval(`#files tr[data-name^="cpu-${pid}-"] a.open`, (a) => a.href)
    const n = await openPage(browser, newHref)
    assert.deepEqual(n.problems, [])
    const samples = await n.page.evaluate(() => window.cprofViewer.model.d.samples[0])
    assert.ok(samples > 0)
    await screenshot(n.page, 'ui-viewer.png')
    await n.page.close()
    assert.deepEqual(problems, [])
  } finally {
    app.child.kill('SIGKILL')
    await browser.close()
  }
})

// Runs bin/cprof.js with the test's run directory: { status, stdout, stderr }.
function cprofCli (args) {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CPROF_RUN_DIR: runDir } })
    let stdout = ''
    let stderr = ''
    c.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
    c.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
    c.on('close', (status) => resolve({ status, stdout, stderr }))
  })
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

test('the live table shows what cprof ps shows: recorder, incidents, CPU %, RSS, heap trend, signals', { skip: skipBrowser }, async () => {
  const browser = await launch()
  // The recorder (a ring of few windows, so its count settles), heap windows
  // (the heap trend) and an incident trigger that does not fire.
  const config = { dir, recorder: { window: 1000, keep: 2000, heap: true, heapWindow: 1000 }, incidents: { eventLoopDelay: 60000 } }
  const app = startFixture(path.join(__dirname, '..', 'triggers', 'fixtures', 'trigger-app.js'), [JSON.stringify(config), '1', '120000'], { env: { CPROF_RUN_DIR: runDir, CPROF_APP: 'ui-rec' } })
  try {
    const line = await app.waitForLine((l) => l.includes('"init"'), 30000)
    assert.ok(JSON.parse(line).init, line)
    const pid = app.child.pid
    const { page, problems } = await openPage2(browser, url)
    const cells = () => page.$$eval(`#procs tr[data-pid="${pid}"] td[data-col]`, (tds) => Object.fromEntries(tds.map((t) => [t.dataset.col, t.textContent])))
    await page.waitForFunction((p) => /^recorder\(\d+w\),incidents\(0 fired, 0 suppressed\)$/.test((document.querySelector(`#procs tr[data-pid="${p}"] td[data-col="running"]`) || {}).textContent) &&
      document.querySelector(`#procs tr[data-pid="${p}"] td[data-col="heapTrend"]`).textContent !== '-', { polling: 100, timeout: 90000 }, pid)
    // The page against cprof ps --json and cprof ps for the same pid, read
    // again until they agree (a window, a trend step may come between reads).
    const { psRow } = require('../../../lib/fleet/ps-rows')
    let last
    for (const end = Date.now() + 90000; ;) {
      const ps = await cprofCli(['ps', '--json'])
      assert.equal(ps.status, 0, ps.stderr)
      const entry = ps.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.pid === pid)
      const shown = await cells()
      const want = psRow(entry)
      last = { shown, want, entry }
      if (['pid', 'app', 'running', 'heapTrend', 'signal'].every((k) => shown[k] === want[k])) break
      assert.ok(Date.now() < end, `the page never agreed with cprof ps --json: ${JSON.stringify(last)}`)
      await sleep(500)
    }
    const { shown, entry } = last
    assert.match(shown.running, /^recorder\(\d+w\),incidents\(0 fired, 0 suppressed\)$/)
    assert.ok(entry.recorder.heapTrend && entry.recorder.heapTrend.windows > 0, JSON.stringify(entry.recorder))
    assert.match(shown.heapTrend, /^(steady|[+-][\d.]+ (B|KiB|MiB)\/min .+|heap [+-][\d.]+ (B|KiB|MiB)\/min, no growing site)$/)
    assert.match(shown.signal, /dump:SIG/)
    // CPU % and RSS are measured at each read: the page's are of the same kind and size.
    assert.match(shown.cpu, /^\d+\.\d$/)
    assert.equal(typeof entry.cpuPercent, 'number')
    const rss = /^([\d.]+) MiB$/.exec(shown.rss)
    assert.ok(rss, shown.rss)
    const ratio = Number(rss[1]) * 1024 * 1024 / entry.rssBytes
    assert.ok(ratio > 0.5 && ratio < 2, `page ${shown.rss}, cprof ps ${entry.rssBytes} B`)
    // cprof ps's table prints the same Running cell (its window count may
    // have moved on since the page's read: the ring holds 1-3 windows).
    const table = await cprofCli(['ps', '--app', 'ui-rec'])
    const esc = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    const sameCell = new RegExp(' ' + esc(shown.running).replace(/^recorder\\\(\d+w\\\)/, 'recorder\\(\\d+w\\)') + ' ')
    assert.match(table.stdout, sameCell, table.stdout)
    await screenshot(page, 'ui-processes.png')
    assert.deepEqual(problems, [])
  } finally {
    app.child.kill('SIGKILL')
    await browser.close()
  }
})

test('a profile of a process that writes elsewhere shows the file it reports; a failing start is an error', { skip: skipBrowser }, async () => {
  const browser = await launch()
  // Its CPROF_DIR is another directory than the one served (a PM2 instance's).
  const elsewhere = makeTmpDir('cprof-ui-elsewhere-')
  const app = startFixture(path.join(__dirname, '..', 'triggers', 'fixtures', 'trigger-app.js'), [JSON.stringify({ dir: elsewhere }), '1', '120000'], { env: { CPROF_RUN_DIR: runDir, CPROF_APP: 'ui-elsewhere' } })
  // A live process that runs no cprof: it catches no signal, so it refuses.
  const plain = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  try {
    await app.waitForLine((l) => l.includes('"init"'), 30000)
    const pid = app.child.pid
    const { page, problems } = await openPage2(browser, url)
    await page.waitForSelector(`#procs tr[data-pid="${pid}"]`, { timeout: 30000 })
    await page.click(`#procs tr[data-pid="${pid}"] button.choose`)
    await page.waitForSelector(`#procs tr.chosen[data-pid="${pid}"]`)
    await page.$eval('#seconds', (e) => { e.value = '1' })
    await page.click('#start button[type=submit]')
    await page.waitForSelector(`#jobs .job[data-pid="${pid}"]:not([data-state="running"])`, { timeout: 90000 })
    const job = await page.$eval(`#jobs .job[data-pid="${pid}"]`, (d) => ({ state: d.dataset.state, cls: d.className, text: d.textContent, path: (d.querySelector('.path') || {}).textContent, open: !!d.querySelector('a'), hint: (d.querySelector('.hint') || {}).textContent }))
    assert.equal(job.state, 'done', job.text)
    assert.equal(job.cls, 'job ok')
    assert.doesNotMatch(job.text, /appeared/)
    assert.equal(path.dirname(job.path), elsewhere)
    assert.match(path.basename(job.path), new RegExp(`^cpu-${pid}-.*\\.cpuprofile$`))
    assert.ok(fs.existsSync(job.path))
    assert.equal(job.open, false, 'not served here: no link')
    assert.ok(job.hint.includes(`\`cprof html ${job.path}\``) && job.hint.includes(`\`cprof ui ${elsewhere}\``), job.hint)

    // The refusing pid: a failed job, in red.
    await page.$eval('#pid', (e, p) => { e.value = String(p) }, plain.pid)
    await page.$eval('#signal', (e) => { e.value = '' })
    await page.click('#start button[type=submit]')
    await page.waitForSelector(`#jobs .job[data-pid="${plain.pid}"][data-state="failed"]`, { timeout: 60000 })
    const failed = await page.$$eval(`#jobs .job[data-pid="${plain.pid}"]`, (ds) => ds.map((d) => ({ cls: d.className, color: getComputedStyle(d).color, error: (d.querySelector('.error') || {}).textContent, said: d.textContent.split('does not catch').length - 1 })))
    assert.equal(failed.length, 1)
    assert.equal(failed[0].cls, 'job err')
    assert.equal(failed[0].color, 'rgb(192, 57, 43)')
    assert.match(failed[0].error, new RegExp(`process ${plain.pid} does not catch SIGUSR2`))
    assert.equal(failed[0].said, 1, 'the reason once')
    await screenshot(page, 'ui-jobs.png')
    assert.deepEqual(problems, [])
  } finally {
    app.child.kill('SIGKILL')
    plain.kill('SIGKILL')
    await browser.close()
  }
})

// The pages it serves are the viewer's: the time-order view is there, and
// a range dragged on its overview reloads the page (#range= in the hash)
// under the same token URL, where the server builds it again and every
// view counts the range: the CSP and the token path let it.
test('a served viewer page has the time-order view, and a range selected on it survives the reload', { skip: skipBrowser }, async () => {
  const browser = await launch()
  try {
    const target = `${url}view?file=cpu-111-20260101T000000.000Z.cpuprofile`
    const { page, problems } = await openPage(browser, target)
    const whole = await page.evaluate(() => ({ n: window.cprofViewer.model.d.samples[0], overview: !!document.getElementById('time-overview') }))
    assert.deepEqual(whole.overview, true)
    const box = await (await page.$('#time-overview')).boundingBox()
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 4 })
    await reloadBy(page, () => page.mouse.up())
    const after = await page.evaluate(() => ({ href: location.href, range: window.cprofViewer.time.range, n: window.cprofViewer.model.d.samples[0] }))
    assert.ok(after.href.startsWith(target + '#range='), after.href)
    assert.equal(after.range.from, 'url')
    assert.equal(after.n, after.range.i1 - after.range.i0)
    assert.ok(after.n > 0 && after.n < whole.n, JSON.stringify({ whole, after }))
    assert.deepEqual(problems, [])
    await page.close()
  } finally {
    await browser.close()
  }
})

// The dashboard has no data-ready marker: wait for its first listing.
async function openPage2 (browser, target) {
  const page = await browser.newPage()
  await page.setViewport({ width: 1300, height: 800 })
  const problems = []
  page.on('pageerror', (e) => problems.push(String(e && e.message)))
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()) })
  await page.goto(target, { waitUntil: 'load' })
  return { page, problems }
}

// The dashboard's links to a profile (Open, a timeline block, Compare,
// Merge) open a new tab; the docs say what they do.
test('docs/viewer.md: Open, Compare and Merge open a new tab, as the dashboard does', () => {
  const ui = path.resolve(__dirname, '..', '..', '..', 'lib', 'ui')
  const js = fs.readFileSync(path.join(ui, 'dashboard.js'), 'utf8')
  const html = fs.readFileSync(path.join(ui, 'dashboard.html'), 'utf8')
  assert.equal((js.match(/\.target = '_blank'/g) || []).length, 3, 'Open, the timeline blocks and a job\'s Open')
  for (const id of ['compare', 'merge']) assert.match(html, new RegExp(`<a id="${id}" [^>]*target="_blank"`))
  const doc = fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'docs', 'viewer.md'), 'utf8')
  const item = doc.slice(doc.indexOf('- **Profiles**'), doc.indexOf('Security: it listens'))
  assert.doesNotMatch(item, /viewer above/)
  for (const what of ['Open', 'Compare selected', 'Merge selected']) {
    assert.match(item, new RegExp(`\\*${what}\\* opens [^;]*new tab`), what)
  }
})

test('with no dir it serves the directory cprof writes to by default', async () => {
  const tmp = makeTmpDir('cprof-ui-tmp-')
  const own = path.join(tmp, `cprof-${process.geteuid()}`)
  fs.mkdirSync(own, { mode: 0o700 })
  const env = { ...process.env, TMPDIR: tmp, CPROF_RUN_DIR: runDir }
  delete env.CPROF_DIR
  const child = spawn(process.execPath, [CLI, 'ui'], { stdio: ['ignore', 'pipe', 'pipe'], env })
  try {
    const served = await new Promise((resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`cprof ui printed nothing: ${out}`)), 30000)
      child.stdout.setEncoding('utf8').on('data', (d) => {
        out += d
        const m = /^cprof ui: serving (.+)$/m.exec(out)
        if (m) { clearTimeout(timer); resolve(m[1]) }
      })
      child.once('exit', (code) => reject(new Error(`cprof ui exited ${code}`)))
    })
    assert.equal(served, own)
  } finally {
    child.kill('SIGINT')
  }
})

// Starts `cprof ui ...args` and resolves { child, url } once it prints its
// URL, or { child, code, stderr } if it exits first.
function startUi (args, env) {
  const child = spawn(process.execPath, [CLI, 'ui', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    const timer = setTimeout(() => reject(new Error(`cprof ui printed no URL: ${out}${err}`)), 30000)
    child.stderr.setEncoding('utf8').on('data', (d) => { err += d })
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/)$/m.exec(out)
      if (m) { clearTimeout(timer); resolve({ child, url: m[1] }) }
    })
    child.once('close', (code) => { clearTimeout(timer); resolve({ child, code, stderr: err, stdout: out }) })
  })
}

test('a symbolic link in the served directory is neither listed nor opened, wherever it points', async () => {
  const served = makeTmpDir('cprof-ui-links-')
  const outside = makeTmpDir('cprof-ui-outside-')
  const secret = path.join(outside, 'secret.cpuprofile')
  fs.copyFileSync(path.join(FIXTURES, 'small.cpuprofile'), secret)
  const real = 'cpu-444-20260101T000000.000Z.cpuprofile'
  fs.copyFileSync(path.join(FIXTURES, 'small.cpuprofile'), path.join(served, real))
  fs.symlinkSync(secret, path.join(served, 'cpu-555-20260101T000000.000Z.cpuprofile'))
  fs.symlinkSync(path.join(served, real), path.join(served, 'cpu-666-20260101T000000.000Z.cpuprofile'))
  const { child, url: u } = await startUi([served], { ...process.env, CPROF_RUN_DIR: runDir })
  try {
    assert.ok(u, 'cprof ui started')
    const names = JSON.parse((await get(u + 'api/files')).body).files.map((f) => f.name)
    assert.deepEqual(names, [real])
    assert.equal((await get(u + 'view?file=' + real)).status, 200, 'the regular file opens')
    for (const link of ['cpu-555-20260101T000000.000Z.cpuprofile', 'cpu-666-20260101T000000.000Z.cpuprofile']) {
      const r = await get(u + 'view?file=' + link)
      assert.equal(r.status, 404, `${link}: ${r.body.slice(0, 200)}`)
      assert.equal((await get(u + `diff?before=${real}&after=${link}`)).status, 404)
      assert.equal((await get(u + `merge?file=${real}&file=${link}`)).status, 404)
    }
  } finally {
    child.kill('SIGINT')
  }
})

test('with no dir, a default directory that is a symlink or writable by others is refused, as the writers refuse it', async () => {
  const tmp = makeTmpDir('cprof-ui-tmp-')
  const own = path.join(tmp, `cprof-${process.geteuid()}`)
  const elsewhere = path.join(tmp, 'elsewhere')
  fs.mkdirSync(elsewhere, { mode: 0o700 })
  fs.copyFileSync(path.join(FIXTURES, 'small.cpuprofile'), path.join(elsewhere, 'cpu-1-20260101T000000.000Z.cpuprofile'))
  const env = { ...process.env, TMPDIR: tmp, CPROF_RUN_DIR: runDir }
  delete env.CPROF_DIR
  const cases = [
    ['is a symbolic link, not a directory', () => fs.symlinkSync(elsewhere, own)],
    ['can be written by other users (mode 0777)', () => { fs.mkdirSync(own); fs.chmodSync(own, 0o777) }],
    ['can be written by its group (mode 0770)', () => { fs.mkdirSync(own); fs.chmodSync(own, 0o770) }],
    ['is a symbolic link, not a directory', () => fs.symlinkSync(path.join(tmp, 'nowhere'), own)],
    ['is not a directory', () => fs.writeFileSync(own, '')]
  ]
  for (const [why, plant] of cases) {
    fs.rmSync(own, { recursive: true, force: true })
    plant()
    const r = await startUi([], env)
    if (r.url) r.child.kill('SIGINT')
    assert.equal(r.url, undefined, `${why}: not served`)
    assert.equal(r.code, 1, `${why}: ${r.stderr}`)
    assert.equal(r.stdout, '')
    assert.ok(r.stderr.startsWith(`cprof ui: ERR_CPROF_IO: refusing to serve ${own}: it ${why}, `), r.stderr)
    assert.match(r.stderr, /Remove it, or name a directory you own: cprof ui DIR\n$/)
  }
  // Missing: created private, as the writers create it, and served.
  fs.rmSync(own, { recursive: true, force: true })
  const r = await startUi([], env)
  try {
    assert.ok(r.url, `served: ${r.stderr}`)
    const st = fs.lstatSync(own)
    assert.ok(st.isDirectory())
    assert.equal(st.mode & 0o7777, 0o700)
  } finally {
    r.child.kill('SIGINT')
  }
})

'use strict'
// The viewer's labels per request (issue 41, docs/viewer.md "Labels"): the
// ground-truth app of test/js/api/labels.test.js (/a runs only fnA, /b only
// fnB, every request under withLabels({ route })) profiled with labels:
// true and formats: ['html']; its page (and cprof html's of the same
// .cpuprofile, which reads the .labels.json beside it) lists both routes
// with the sidecar's times, and filtered to route=/a every view counts
// exactly the samples cprof report --where route=/a counts. The filter
// lives in the URL's hash; hostile keys and values stay text; a profile
// without labels gets no label panel. Counts samples and their times,
// never wall-clock luck.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { pathToFileURL } = require('node:url')
const { UNDER_ASAN, makeTmpDir, removeTmpDirs, runFixture } = require('../helpers/util')
const { haveChromium, launch, openPage, reloadBy, screenshot } = require('../helpers/browser')

const CLI = path.resolve(__dirname, '..', '..', '..', 'bin', 'cprof.js')
const APP = path.resolve(__dirname, '..', 'api', 'fixtures', 'labels-app.js')
const skip = haveChromium() ? false : 'needs /usr/bin/chromium (apt-get install -y chromium)'

function cli (args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, `cprof ${args.join(' ')}: ${r.stderr}`)
  return r
}

let browser
let dir
let files // the stop's: cpuprofile, labels, html
before(async () => {
  if (skip) return
  dir = makeTmpDir('cprof-viewer-labels-')
  const run = runFixture(APP, [dir, UNDER_ASAN ? '6000' : '3000', '1000', 'html'], { timeout: 150000 })
  const out = run.json.find((o) => o.result || o.fatal)
  assert.ok(out && out.result, run.describe())
  files = out.result.files
  assert.ok(files.html && files.labels && files.cpuprofile, JSON.stringify(files))
  browser = await launch()
})
after(async () => {
  if (browser) await browser.close()
  removeTmpDirs()
})

// Each route's time from the .cpuprofile and its sidecar, on our own: a
// sample weighs the gap to the next one (the last one's to endTime).
function sidecarTimes (profileFile, labelsFile) {
  const p = JSON.parse(fs.readFileSync(profileFile, 'utf8'))
  const side = JSON.parse(fs.readFileSync(labelsFile, 'utf8'))
  const t = []
  let at = p.startTime
  for (const d of p.timeDeltas) t.push(at += d)
  const by = new Map()
  let total = 0
  side.samples.forEach((id, i) => {
    const w = Math.max(0, (i + 1 < t.length ? t[i + 1] : p.endTime) - t[i])
    const v = side.sets[id].route ?? '(none)'
    by.set(v, (by.get(v) || 0) + w)
    total += w
  })
  return { by, total, samples: side.samples.length }
}

// The page's route table: [{ value, us, pct }] as shown.
const routeRows = (page) => page.$$eval('#labels-top table.labels-key[data-key="route"] tbody tr', (trs) => trs.map((tr) => ({
  value: tr.querySelector('td.lv').textContent,
  us: Number(tr.querySelector('td.num').dataset.us),
  pct: tr.querySelector('td.pct').textContent,
  on: tr.classList.contains('on')
})))

// What the page counts: the model's total and a function's self and total.
const counts = (page) => page.evaluate(() => {
  const m = window.cprofViewer.model
  const fn = (name) => {
    let self = 0
    let total = 0
    for (let f = 0; f < m.nf; f++) if (m.fns.name[f] === name) { self += m.fnSelf[0][f]; total += m.fnTotal[0][f] }
    return { self, total }
  }
  return {
    grand: m.grand[0],
    root: m.total[0][0],
    samples: m.d.samples[0],
    fnA: fn('fnA'),
    fnB: fn('fnB'),
    flatFirst: document.querySelector('#view-flat tbody tr .name').textContent,
    filter: document.getElementById('labels-filter').textContent,
    hash: location.hash,
    title: document.title,
    timeInfo: document.getElementById('time-info').textContent
  }
})

const pct = (part, whole) => { const p = 100 * part / whole; return (p >= 10 || p === 0 ? p.toFixed(1) : p.toFixed(2)) + '%' }

test('the top values list /a and /b with the sidecar\'s times and shares, in the stop\'s page, cprof html\'s and cprof convert\'s', { skip }, async () => {
  const want = sidecarTimes(files.cpuprofile, files.labels)
  const again = path.join(dir, 'again.html')
  cli(['html', files.cpuprofile, '-o', again])
  const converted = path.join(dir, 'converted.html')
  cli(['convert', files.cpuprofile, '--to', 'html', '-o', converted])
  for (const html of [files.html, again, converted]) {
    const { page, problems } = await openPage(browser, pathToFileURL(html).href)
    const rows = await routeRows(page)
    for (const route of ['/a', '/b']) {
      const row = rows.find((r) => r.value === route)
      assert.ok(row, `${route} listed: ${JSON.stringify(rows)}`)
      assert.equal(row.us, want.by.get(route), `${route}'s time`)
      assert.equal(row.pct, pct(want.by.get(route), want.total), `${route}'s share`)
      assert.ok(want.by.get(route) >= 0.1 * want.total, `${route} has a fair share: ${row.pct}`)
    }
    assert.equal(rows.reduce((n, r) => n + r.us, 0), want.total, 'the values (and (none)) add up to the profile')
    const c = await counts(page)
    assert.equal(c.grand, want.total, 'no filter: the whole profile')
    assert.match(c.filter, /click a value/)
    assert.deepEqual(problems, [])
    await page.close()
  }
})

test('a merge of labelled profiles (cprof merge --formats html): its page lists the merged sidecar\'s times', { skip }, async () => {
  const copy = path.join(dir, 'twin.cpuprofile')
  fs.copyFileSync(files.cpuprofile, copy)
  fs.copyFileSync(files.labels, copy.replace(/\.cpuprofile$/, '.labels.json'))
  const merged = path.join(dir, 'merged.cpuprofile')
  cli(['merge', files.cpuprofile, copy, '-o', merged, '--formats', 'html'])
  const want = sidecarTimes(merged, merged.replace(/\.cpuprofile$/, '.labels.json'))
  const { page, problems } = await openPage(browser, pathToFileURL(merged.replace(/\.cpuprofile$/, '.html')).href + '#where=route=%2Fa')
  const rows = await routeRows(page)
  for (const route of ['/a', '/b']) assert.equal(rows.find((r) => r.value === route).us, want.by.get(route), route)
  assert.equal((await counts(page)).grand, want.by.get('/a'), 'filtered to /a: its time in both inputs')
  assert.deepEqual(problems, [])
  await page.close()
})

test('filtered to route=/a: fnA leads the flat profile, fnB all but vanishes, every total is cprof report --where\'s', { skip }, async () => {
  const where = JSON.parse(cli(['report', files.cpuprofile, '--where', 'route=/a', '--json']).stdout)
  const top = (name) => where.summary.top.find((f) => f.functionName === name) || { self: 0, total: 0 }
  const { page, problems } = await openPage(browser, pathToFileURL(files.html).href + '#where=route=%2Fa')
  const c = await counts(page)
  // µs in the page, ms with 3 decimals in the report: equal to the µs.
  assert.ok(Math.abs(c.grand - where.summary.total * 1000) < 1, `page ${c.grand} µs, report ${where.summary.total} ms`)
  assert.equal(c.root, c.grand, 'the trees and the flame graph: the root holds the filtered total')
  assert.equal(c.samples, where.samples, 'the samples counted')
  assert.ok(Math.abs(c.fnA.self - top('fnA').self * 1000) < 1, `fnA self: page ${c.fnA.self} µs, report ${top('fnA').self} ms`)
  assert.ok(Math.abs(c.fnA.total - top('fnA').total * 1000) < 1, `fnA total: page ${c.fnA.total} µs, report ${top('fnA').total} ms`)
  assert.equal(c.flatFirst, 'fnA', 'fnA on top of the flat profile')
  assert.ok(c.fnA.self > 0 && c.fnB.total <= 0.1 * c.fnA.self, `fnB under route=/a: ${JSON.stringify(c)}`)
  assert.ok(Math.abs(c.fnB.self - top('fnB').self * 1000) < 1, 'fnB: what the report has, if anything')
  // The header and the title say so; the /a row is on; the time order counts its samples.
  assert.match(c.filter, /Label filter: route=\/a ×/)
  assert.match(c.filter, new RegExp(`${where.samples.toLocaleString('en-US')} of [\\d,]+ samples`))
  assert.match(c.title, /^route=\/a — /)
  assert.match(c.timeInfo, new RegExp(`Label filter: ${where.samples.toLocaleString('en-US')} samples`))
  assert.ok((await routeRows(page)).find((r) => r.value === '/a').on)
  await screenshot(page, 'viewer-labels-filter.png')
  assert.deepEqual(problems, [])
  await page.close()
})

test('the filter in the URL: a click on a value adds it, the link reopens with it, a range keeps it, Clear restores the profile', { skip }, async () => {
  const want = sidecarTimes(files.cpuprofile, files.labels)
  const { page, problems } = await openPage(browser, pathToFileURL(files.html).href)
  await reloadBy(page, () => page.click('#labels-top table.labels-key[data-key="route"] tr[data-value="/b"]'))
  let c = await counts(page)
  assert.equal(c.hash, '#where=route=%2Fb')
  assert.equal(c.grand, want.by.get('/b'), '/b\'s time')
  // The link as shared: a new tab on the same URL opens the same way.
  const shared = await openPage(browser, await page.evaluate(() => location.href))
  assert.equal((await counts(shared.page)).grand, want.by.get('/b'))
  await shared.page.close()
  // /a too: either route, so everything labelled.
  await reloadBy(page, () => page.click('#labels-top table.labels-key[data-key="route"] tr[data-value="/a"]'))
  c = await counts(page)
  assert.equal(c.grand, want.by.get('/a') + want.by.get('/b'))
  assert.match(c.filter, /route=\/b ×.*route=\/a ×/)
  // A range selected now keeps the filter in the hash.
  const span = await page.evaluate(() => window.cprofViewer.time.ts[window.cprofViewer.time.ts.length - 1])
  await reloadBy(page, () => page.evaluate((b) => window.cprofViewer.time.selectRange(0, b), Math.round(span / 2)))
  c = await counts(page)
  assert.match(c.hash, /range=0-\d+/)
  assert.match(c.hash, /where=route=%2Fb&where=route=%2Fa|where=route=%2Fa&where=route=%2Fb/)
  assert.ok(c.grand > 0 && c.grand < want.by.get('/a') + want.by.get('/b'), 'the range\'s labelled samples')
  assert.match(c.filter, /in the range/)
  // Clear: the filter goes, the range stays; Whole profile: everything.
  await reloadBy(page, () => page.click('#labels-clear'))
  c = await counts(page)
  assert.doesNotMatch(c.hash, /where=/)
  assert.match(c.hash, /range=0-\d+/)
  await reloadBy(page, () => page.click('#time-clear'))
  c = await counts(page)
  assert.equal(c.grand, want.total, 'the whole profile again')
  assert.match(c.filter, /click a value/)
  assert.deepEqual(problems, [])
  await page.close()
})

test('hostile label keys and values show as text, never markup; a profile without labels gets no label panel', { skip }, async () => {
  const copy = path.join(dir, 'hostile.cpuprofile')
  fs.copyFileSync(files.cpuprofile, copy)
  const n = JSON.parse(fs.readFileSync(files.labels, 'utf8')).samples.length
  const key = '<img src=x onerror="window.__hit=1">'
  const value = '"\'><script>window.__hit=2</script>' + 'x'.repeat(10000)
  const quoted = 'it\'s "quoted" & <b>bold</b>'
  const sets = [{}, { [key]: quoted }, { route: value, [key]: quoted }]
  fs.writeFileSync(copy.replace(/\.cpuprofile$/, '.labels.json'), JSON.stringify({ version: 1, sets, samples: Array.from({ length: n }, (_, i) => i % 3), unknownSamples: 0 }))
  const html = path.join(dir, 'hostile.html')
  cli(['html', copy, '-o', html])
  const { page, problems } = await openPage(browser, pathToFileURL(html).href)
  const shown = await page.evaluate((k) => ({
    keys: [...document.querySelectorAll('#labels-top caption')].map((c) => c.textContent),
    values: [...document.querySelectorAll(`#labels-top table.labels-key tr[data-value]`)].map((tr) => tr.querySelector('td.lv').textContent),
    markup: document.querySelectorAll('#labels-panel img, #labels-panel script, #labels-panel b:not(:first-child)').length,
    hit: window.__hit
  }), key)
  assert.ok(shown.keys.includes(key), JSON.stringify(shown.keys))
  assert.ok(shown.values.includes(value) && shown.values.includes(quoted), 'values whole, as text')
  assert.equal(shown.markup, 0)
  assert.equal(shown.hit, undefined)
  // Filtered by the hostile key: the chip shows it as text, the samples count.
  const rowSel = 'tr[data-value]'
  await reloadBy(page, () => page.evaluate((sel, k) => [...document.querySelectorAll('#labels-top table.labels-key')].find((t) => t.dataset.key === k).querySelector(sel).click(), rowSel, key))
  const after = await page.evaluate(() => ({
    chip: document.querySelector('#labels-filter button.chip').textContent,
    grand: window.cprofViewer.model.grand[0],
    hit: window.__hit,
    imgs: document.querySelectorAll('img, #labels-panel script').length
  }))
  assert.equal(after.chip, `${key}=${quoted} \u00d7`)
  assert.ok(after.grand > 0)
  assert.equal(after.hit, undefined)
  assert.equal(after.imgs, 0)
  assert.deepEqual(problems, [])
  await page.close()

  // Without the sidecar, or with another profile's: no labels at all.
  const plain = path.join(dir, 'plain.cpuprofile')
  fs.copyFileSync(files.cpuprofile, plain)
  const plainHtml = path.join(dir, 'plain.html')
  cli(['html', plain, '-o', plainHtml])
  const text = fs.readFileSync(plainHtml, 'utf8')
  assert.doesNotMatch(text, /"labels":\{"sets"/)
  const stale = path.join(dir, 'stale.cpuprofile')
  fs.copyFileSync(files.cpuprofile, stale)
  fs.writeFileSync(stale.replace(/\.cpuprofile$/, '.labels.json'), JSON.stringify({ version: 1, sets: [{}, { route: '/a' }], samples: [0, 1, 1] }))
  const r = cli(['html', stale, '-o', path.join(dir, 'stale.html')])
  assert.match(r.stderr, /^cprof html: ignoring .*stale\.labels\.json: the labels hold 3 samples, the profile \d+: not this profile's labels; the page opens without its labels\n$/)
  assert.doesNotMatch(fs.readFileSync(path.join(dir, 'stale.html'), 'utf8'), /"labels":\{"sets"/)
  const p2 = await openPage(browser, pathToFileURL(plainHtml).href + '#where=route=%2Fa')
  assert.equal(await p2.page.$('#labels-panel'), null)
  assert.equal((await counts2(p2.page)), JSON.parse(fs.readFileSync(files.labels, 'utf8')).samples.length, 'a where= in the hash of a page without labels changes nothing')
  assert.deepEqual(p2.problems, [])
  await p2.page.close()
})

const counts2 = (page) => page.evaluate(() => window.cprofViewer.model.d.samples[0])

test('more than 8 values of a key: the rest summed on one row, which lists them on a click', { skip }, async () => {
  const copy = path.join(dir, 'many.cpuprofile')
  fs.copyFileSync(files.cpuprofile, copy)
  const n = JSON.parse(fs.readFileSync(files.labels, 'utf8')).samples.length
  const sets = [{}, ...Array.from({ length: 20 }, (_, k) => ({ tenant: `t${k}` }))]
  fs.writeFileSync(copy.replace(/\.cpuprofile$/, '.labels.json'), JSON.stringify({ version: 1, sets, samples: Array.from({ length: n }, (_, i) => i % 21) }))
  const html = path.join(dir, 'many.html')
  cli(['html', copy, '-o', html])
  const { page, problems } = await openPage(browser, pathToFileURL(html).href)
  const sel = '#labels-top table.labels-key[data-key="tenant"]'
  const before = await page.$$eval(`${sel} tr`, (trs) => trs.map((tr) => tr.querySelector('td.lv').textContent))
  assert.equal(before.length, 9, before.join(' | '))
  assert.match(before[8], /^… 1[23] more$/) // 20 values and (none): 8 shown
  await page.click(`${sel} tr.rest`)
  assert.equal(await page.$$eval(`${sel} tr`, (trs) => trs.length), 21)
  assert.deepEqual(problems, [])
  await page.close()
})

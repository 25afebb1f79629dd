'use strict'
// The HTML viewer end to end: profiles taken by cprof on a workload with
// known hot functions (formats: ['html'] at stop, and `cprof html`), opened
// in headless Chromium (Debian's chromium through puppeteer-core). What a
// user checks: the hot function on top of the flat table, the top-down tree
// expanded to it with the right total, its caller in the bottom-up view,
// search, zoom and hover in the flame graph; the same for a heap profile
// and a diff; hostile names shown as text. Screenshots go to test/artifacts.

const { test, describe, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { makeTmpDir, removeTmpDirs } = require('../helpers/util')
const { runFixture } = require('../helpers/util').fixturesIn(__dirname)
const { haveChromium, launch, openPage, screenshot } = require('../helpers/browser')
const { TEMPLATE_PATH } = require('../../../lib/viewer')
const { buildTemplate } = require('../../../lib/viewer/build')

const CLI = path.resolve(__dirname, '..', '..', '..', 'bin', 'cprof.js')
const skipBrowser = haveChromium() ? false : 'needs /usr/bin/chromium (apt-get install -y chromium)'

function cli (args) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60000 })
}

// The share (%) of samples whose stack starts with `chain` (function names
// from the root's child down), computed from the .cpuprofile on our own: a
// sample weighs the gap to the next one, as Chrome DevTools reads it.
function chainShare (profile, chain) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id)
  const { samples, timeDeltas } = profile
  const last = profile.startTime + timeDeltas.reduce((a, b) => a + b, 0)
  let total = 0
  let hit = 0
  samples.forEach((id, i) => {
    const w = Math.max(0, i + 1 < samples.length ? timeDeltas[i + 1] : profile.endTime - last)
    total += w
    const stack = []
    for (let n = id; n !== undefined; n = parent.get(n)) stack.unshift(byId.get(n).callFrame.functionName || '(anonymous)')
    stack.shift() // (root)
    if (chain.every((name, k) => stack[k] === name)) hit += w
  })
  return 100 * hit / total
}

// The function with the most self time in the .cpuprofile, and its
// heaviest caller: the workload makes it hotSpin (called by callerOfHot),
// or callerOfHot when V8 charged an inlined hotSpin to it (docs/api.md,
// "What you see in profiles").
function hottest (profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id)
  const self = new Map()
  const callers = new Map()
  const { samples, timeDeltas } = profile
  samples.forEach((id, i) => {
    const w = i + 1 < samples.length ? Math.max(0, timeDeltas[i + 1]) : 0
    const name = byId.get(id).callFrame.functionName
    self.set(name, (self.get(name) || 0) + w)
    const p = parent.get(id)
    if (p !== undefined) {
      const key = `${name}\0${byId.get(p).callFrame.functionName || '(anonymous)'}`
      callers.set(key, (callers.get(key) || 0) + w)
    }
  })
  const hot = [...self].sort((a, b) => b[1] - a[1])[0][0]
  const caller = [...callers].filter(([k]) => k.startsWith(hot + '\0')).sort((a, b) => b[1] - a[1])[0][0].split('\0')[1]
  return { hot, caller }
}

const rowText = (page, sel) => page.$$eval(sel, (rows) => rows.map((r) => ({
  name: r.querySelector('.name') && r.querySelector('.name').textContent,
  cells: [...r.querySelectorAll('td')].map((td) => td.textContent)
})))

// A .heapprofile's tree with each node's path of names below (root).
function heapNodes (profile) {
  const out = []
  const walk = (n, path) => {
    for (const c of n.children || []) {
      const p = [...path, c.callFrame.functionName || '(anonymous)']
      out.push({ node: c, path: p })
      walk(c, p)
    }
  }
  walk(profile.head, [])
  return out
}

// The function with the most self size in a .heapprofile, by name as the
// viewer shows it, and its heaviest caller (by the bytes it allocated when
// called from there).
function heapHottest (profile) {
  const self = new Map()
  const callers = new Map()
  for (const { node, path } of heapNodes(profile)) {
    const name = path[path.length - 1]
    self.set(name, (self.get(name) || 0) + node.selfSize)
    const key = `${name}\0${path.length > 1 ? path[path.length - 2] : '(root)'}`
    callers.set(key, (callers.get(key) || 0) + node.selfSize)
  }
  const hot = [...self].sort((a, b) => b[1] - a[1])[0][0]
  const caller = [...callers].filter(([k]) => k.startsWith(hot + '\0')).sort((a, b) => b[1] - a[1])[0][0].split('\0')[1]
  return { hot, caller }
}

// The share (%) of the sampled bytes allocated under the call path `chain`.
function heapChainShare (profile, chain) {
  let total = 0
  let hit = 0
  for (const { node, path } of heapNodes(profile)) {
    total += node.selfSize
    if (chain.every((name, k) => path[k] === name)) hit += node.selfSize
  }
  return 100 * hit / total
}

// Self shares (%) per function name of a .cpuprofile (weights as in
// chainShare), for the diff's "largest change" row.
function cpuSelfShares (profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const { samples, timeDeltas } = profile
  const self = new Map()
  let total = 0
  samples.forEach((id, i) => {
    const w = i + 1 < samples.length ? Math.max(0, timeDeltas[i + 1]) : 0
    const name = byId.get(id).callFrame.functionName || '(anonymous)'
    self.set(name, (self.get(name) || 0) + w)
    total += w
  })
  for (const [k, v] of self) self.set(k, 100 * v / total)
  return self
}

// Canvas pixels of the flame graph in `filter`'s colour.
const countPixels = (page, filter, box) => page.evaluate((src, b) => {
  // eslint-disable-next-line no-new-func
  const keep = new Function('r', 'g', 'b', 'return ' + src)
  const c = document.getElementById('flame')
  const dpr = window.devicePixelRatio || 1
  const [x, y, w, h] = b ? [b.x, b.y, b.w, b.h].map((v) => Math.max(1, Math.round(v * dpr))) : [0, 0, c.width, c.height]
  const d = c.getContext('2d').getImageData(x, y, w, h).data
  let n = 0
  for (let i = 0; i < d.length; i += 4) if (keep(d[i], d[i + 1], d[i + 2])) n++
  return { n, of: d.length / 4 }
}, filter, box)

const MAGENTA = 'r === 0xd6 && g === 0x3a && b === 0xd6'

// What a user checks in every view, for the function `hot` whose heaviest
// caller is `caller`: focused from the flat table, the top-down tree opens
// down to it through `caller` with the total share `pathShare(chain)`
// computed from the profile file; the bottom-up view has it first (heaviest
// self) with `caller` as its first caller; search turns its frames magenta
// and marks its flat row; hovering its frame names it; clicking zooms it to
// the full width. Screenshots as viewer-<tag>-*.png.
async function checkViews (page, { tag, hot, caller, pathShare, minShare }) {
  // Flat: click the function to focus it everywhere.
  await page.click('#tabs button[data-view="flat"]')
  const flat = await rowText(page, '#view-flat tbody tr')
  const at = flat.findIndex((r) => r.name === hot)
  assert.ok(at >= 0, `${hot} in the flat table`)
  await page.click(`#view-flat tbody tr:nth-child(${at + 1}) td.fn`)

  // Top-down: opened down to it, with the right total.
  await page.click('#tabs button[data-view="topdown"]')
  const sel = await page.$eval('#view-topdown tr.selected', (r) => ({
    name: r.querySelector('.name').textContent,
    key: Number(r.dataset.key),
    pct: r.children[1].textContent
  }))
  assert.equal(sel.name, hot)
  const chain = await page.evaluate((i) => {
    const m = window.cprofViewer.model
    const names = []
    for (let a = i; a > 0; a = m.parent[a]) names.unshift(m.fns.name[m.fn[a]])
    return names
  }, sel.key)
  assert.equal(chain[chain.length - 1], hot)
  assert.equal(chain[chain.length - 2], caller, chain.join(' > '))
  const want = pathShare(chain)
  assert.ok(Math.abs(parseFloat(sel.pct) - want) < 0.06, `top-down ${sel.pct} vs ${want.toFixed(2)}% from the profile file`)
  assert.ok(want > minShare, `${hot}'s path holds ${want}%`)
  // Every ancestor row is on screen: the tree was expanded to it.
  const shown = await page.$$eval('#view-topdown tbody tr .name', (els) => els.map((e) => e.textContent))
  for (const name of chain) assert.ok(shown.includes(name), `${name} shown`)
  // Collapse and expand by hand.
  assert.ok(shown.length > 1)
  await page.click('#view-topdown tbody tr:first-child .toggle')
  assert.equal(await page.$$eval('#view-topdown tbody tr', (r) => r.length), 1)
  await page.click('#view-topdown tbody tr:first-child .toggle')
  assert.ok(await page.$$eval('#view-topdown tbody tr', (r) => r.length) > 1)
  await screenshot(page, `viewer-${tag}-topdown.png`)

  // Bottom-up: the function first, opened to its callers.
  await page.click('#tabs button[data-view="bottomup"]')
  const bu = await rowText(page, '#view-bottomup tbody tr')
  assert.equal(bu[0].name, hot, 'heaviest self first')
  assert.equal(await page.$eval('#view-bottomup tr.selected .name', (e) => e.textContent), hot)
  const callers = await page.$$eval('#view-bottomup tbody tr', (rows) => rows
    .filter((r) => /^f\d+\/\d+$/.test(r.dataset.key))
    .map((r) => r.querySelector('.name').textContent))
  assert.equal(callers[0], caller, 'a caller row is open, the heaviest first')
  await screenshot(page, `viewer-${tag}-bottomup.png`)

  // Search: the function's frames turn magenta; its flat row is marked.
  await page.click('#tabs button[data-view="flat"]')
  await page.type('#search', hot)
  // One function by that name, but V8 names every anonymous one alike.
  assert.match(await page.$eval('#search-info', (e) => e.textContent), hot === '(anonymous)' ? /^\d+ functions?, \d/ : /^1 function, \d/)
  const magenta = (await countPixels(page, MAGENTA)).n
  assert.ok(magenta > 100, `${magenta} highlighted pixels`)
  const marked = await page.$$eval('#view-flat tr.match .name', (els) => els.map((e) => e.textContent))
  assert.ok(marked.includes(hot), `marked: ${marked.join(', ')}`)
  await screenshot(page, `viewer-${tag}-search.png`)
  await page.click('#search', { clickCount: 3 })
  await page.keyboard.press('Backspace')
  assert.equal((await countPixels(page, MAGENTA)).n, 0, 'cleared search, no highlight')

  // Hover names the heaviest frame of the function; a click zooms it to
  // the full width; Escape zooms out.
  const r = await page.evaluate((name) => {
    const v = window.cprofViewer
    const m = v.model
    const full = document.getElementById('flame').getBoundingClientRect().width
    let best = -1
    for (let i = 0; i < m.n; i++) if (m.fns.name[m.fn[i]] === name && (best < 0 || m.total[m.main][i] > m.total[m.main][best])) best = i
    const rect = v.flame.rectOf(best)
    document.getElementById('flame-wrap').scrollTop = rect.y - 40
    const c2 = document.getElementById('flame').getBoundingClientRect()
    return { i: best, name: m.fns.name[m.fn[best]], x: c2.left + rect.x + rect.w / 2, y: c2.top + rect.y + rect.h / 2, width: full, w: rect.w }
  }, hot)
  assert.ok(r.w < r.width - 2, 'not full width before the zoom')
  await page.mouse.move(r.x, r.y)
  assert.equal(await page.$eval('#tip', (e) => !e.hidden), true)
  assert.equal(await page.$eval('#tip b', (e) => e.textContent), r.name)
  await page.mouse.click(r.x, r.y)
  const details = await page.$eval('#details', (e) => e.textContent)
  assert.ok(details.startsWith(`Zoomed into ${r.name} (`) || details.startsWith(`Zoomed into ${r.name}:`), details)
  const zoomed = await page.evaluate((i) => window.cprofViewer.flame.rectOf(i), r.i)
  assert.ok(Math.abs(zoomed.w - r.width) < 1, `zoomed width ${zoomed.w} of ${r.width}`)
  await screenshot(page, `viewer-${tag}-zoom.png`)
  await page.keyboard.press('Escape')
  assert.match(await page.$eval('#details', (e) => e.textContent), /^Whole profile/)
}

let dir
let browser
const taken = {}

before(async () => {
  dir = makeTmpDir('cprof-viewer-')
  for (const [kind, mode] of [['cpu', 'hot'], ['cpu', 'cold'], ['heap', 'alloc']]) {
    const r = runFixture('viewer-app.js', [dir, kind, mode, '1500'], { timeout: 90000 })
    assert.equal(r.status, 0, r.describe())
    taken[kind === 'cpu' ? mode : 'heap'] = r.json[0].result
  }
  if (!skipBrowser) browser = await launch()
})

after(async () => {
  if (browser) await browser.close()
  removeTmpDirs()
})

test('the committed template is built from lib/viewer/assets', () => {
  assert.equal(fs.readFileSync(TEMPLATE_PATH, 'utf8'), buildTemplate(),
    'lib/viewer/template.html is stale: run `npm run build:viewer`')
})

test("formats: ['html'] writes the viewer next to the profile at stop", () => {
  for (const r of [taken.hot, taken.heap]) {
    const html = fs.readFileSync(r.files.html, 'utf8')
    assert.match(html, /^<!DOCTYPE html>/)
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/)
    assert.doesNotMatch(html, /__CPROF_PROFILE_JSON__/)
    assert.doesNotMatch(html, /(src|href)="https?:/)
    const data = JSON.parse(html.match(/<script type="application\/json" id="cprof-data">([^<]*)<\/script>/)[1])
    assert.equal(data.kind, r.kind)
    assert.equal(data.samples[0], r.samples)
  }
})

test("recorder.dump({ formats: ['html'] }) writes the viewer too, not the data-only page", async () => {
  const cprof = require('../../..')
  const out = path.join(dir, 'recorder')
  cprof.recorder.start({ window: 100 })
  let r
  try {
    await new Promise((resolve) => setTimeout(resolve, 400))
    r = await cprof.recorder.dump({ dir: out, formats: ['html'] })
  } finally {
    await cprof.recorder.stop()
  }
  const html = fs.readFileSync(r.files.html, 'utf8')
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/)
  assert.doesNotMatch(html, /open the profile with <code>cprof html<\/code>/)
  const data = JSON.parse(html.match(/<script type="application\/json" id="cprof-data">([^<]*)<\/script>/)[1])
  assert.equal(data.kind, 'cpu')
  assert.equal(data.samples[0], r.samples)
})

test('cprof html: default output, refuses to replace it without -o or --force, diff', () => {
  const sub = path.join(dir, 'cli')
  fs.mkdirSync(sub)
  const file = path.join(sub, 'cpu-hot.cpuprofile')
  fs.copyFileSync(taken.hot.files.cpuprofile, file)
  const out = file.replace(/\.cpuprofile$/, '.html')
  assert.equal(cli(['html', file]).status, 0)
  assert.ok(fs.statSync(out).size > 0)
  const refused = cli(['html', file])
  assert.equal(refused.status, 1)
  assert.match(refused.stderr, /exists: pass --force to replace it, or -o FILE/)
  const forced = cli(['html', file, '--force'])
  assert.equal(forced.status, 0, forced.stderr)
  assert.equal(forced.stdout.trim(), out)
  const o = path.join(dir, 'named.html')
  assert.equal(cli(['html', file, '-o', o]).status, 0)
  assert.equal(cli(['html', file, '-o', o]).status, 0, '-o replaces')
  const d = cli(['html', taken.cold.files.cpuprofile, file])
  assert.equal(d.status, 0, d.stderr)
  assert.equal(d.stdout.trim(), file.replace(/\.cpuprofile$/, '.diff.html'))
  const mixed = cli(['html', file, taken.heap.files.heapprofile, '-o', path.join(dir, 'x.html')])
  assert.equal(mixed.status, 1)
  assert.match(mixed.stderr, /ERR_CPROF_INVALID_ARG: cannot diff a CPU profile/)
  const conv = cli(['convert', file, '--to', 'html', '-o', path.join(dir, 'converted.html')])
  assert.equal(conv.status, 0, conv.stderr)
  assert.match(fs.readFileSync(path.join(dir, 'converted.html'), 'utf8'), /"format":"cprof-viewer"/)
  const usage = cli(['html'])
  assert.equal(usage.status, 2)
  assert.match(usage.stderr, /missing <file>/)
})

describe('in Chromium', { skip: skipBrowser }, () => {
  test('CPU profile: flat, top-down, bottom-up, search, zoom, hover', async () => {
    const { page, problems, requests } = await openPage(browser, 'file://' + taken.hot.files.html)
    try {
      assert.deepEqual(problems, [])
      assert.deepEqual(requests, ['file://' + taken.hot.files.html], 'nothing but the page is fetched')
      const figures = await page.$eval('#figures', (e) => e.textContent)
      assert.match(figures, /Samples/)
      assert.match(figures, /Interval1 ms/)
      assert.match(figures, /GC\d/)
      await screenshot(page, 'viewer-cpu.png')

      // Flat: the hot function on top (sorted by self).
      const profile = JSON.parse(fs.readFileSync(taken.hot.files.cpuprofile, 'utf8'))
      const { hot, caller } = hottest(profile)
      assert.ok(['hotSpin', 'callerOfHot'].includes(hot), `the hottest function is ${hot}`)
      await page.click('#tabs button[data-view="flat"]')
      const flat = await rowText(page, '#view-flat tbody tr')
      assert.equal(flat[0].name, hot)
      // Sort by total: (root) is left out, the workload's entry points lead.
      await page.click('#view-flat th[data-sort="total"]')
      const byTotal = await rowText(page, '#view-flat tbody tr')
      assert.notEqual(byTotal[0].name, '(root)')
      await page.click('#view-flat th[data-sort="self"]')

      await checkViews(page, { tag: 'cpu', hot, caller, pathShare: (chain) => chainShare(profile, chain), minShare: 40 })
      // Icicle and left-heavy redraw without errors.
      await page.select('#layout', 'icicle')
      await page.select('#order', 'heavy')
      await screenshot(page, 'viewer-cpu-icicle.png')
      assert.deepEqual(problems, [])
    } finally {
      await page.close()
    }
  })

  test('heap profile: the allocating function on top, then the same views in bytes', async () => {
    const { page, problems, requests } = await openPage(browser, 'file://' + taken.heap.files.html)
    try {
      assert.deepEqual(problems, [])
      assert.deepEqual(requests, ['file://' + taken.heap.files.html], 'nothing but the page is fetched')
      const figures = await page.$eval('#figures', (e) => e.textContent)
      assert.match(figures, /Profileheap/)
      assert.match(figures, /ContentsLive objects only/)
      assert.match(figures, /Interval4\.0 KiB/)
      await screenshot(page, 'viewer-heap.png')
      // makeRecords, or the loop that calls it when V8 inlined it there
      // (the heap sampler charges an inlined function's allocations to the
      // optimised frame that holds it).
      const profile = JSON.parse(fs.readFileSync(taken.heap.files.heapprofile, 'utf8'))
      const { hot, caller } = heapHottest(profile)
      assert.ok(['makeRecords', '(anonymous)'].includes(hot), `top allocator ${hot}`)
      await page.click('#tabs button[data-view="flat"]')
      const flat = await rowText(page, '#view-flat tbody tr')
      assert.equal(flat[0].name, hot)
      assert.match(flat[0].cells[0], /(KiB|MiB)$/)
      await checkViews(page, { tag: 'heap', hot, caller, pathShare: (chain) => heapChainShare(profile, chain), minShare: 30 })
      assert.deepEqual(problems, [])
    } finally {
      await page.close()
    }
    // From a .heapprofile file the page cannot know whether it was taken
    // with includeCollected (the file does not record it), and says so.
    const out = path.join(dir, 'heap-from-file.html')
    assert.equal(cli(['html', taken.heap.files.heapprofile, '-o', out]).status, 0)
    const fromFile = await openPage(browser, 'file://' + out)
    try {
      assert.match(await fromFile.page.$eval('#figures', (e) => e.textContent), /ContentsLive objects, or live and collected ones if it was taken with includeCollected \(the file does not say\)/)
      assert.deepEqual(fromFile.problems, [])
    } finally {
      await fromFile.page.close()
    }
  })

  test('diff: the largest change leads the flat table, the views work, grown frames red, shrunk blue', async () => {
    const out = path.join(dir, 'diff.html')
    const r = cli(['html', taken.cold.files.cpuprofile, taken.hot.files.cpuprofile, '-o', out])
    assert.equal(r.status, 0, r.stderr)
    const { page, problems } = await openPage(browser, 'file://' + out)
    try {
      assert.deepEqual(problems, [])
      assert.match(await page.$eval('#figures', (e) => e.textContent), /ProfileCPU diff/)
      await page.click('#tabs button[data-view="flat"]')
      const flat = await page.$$eval('#view-flat tbody tr', (rows) => rows.map((r) => ({
        name: r.querySelector('.name').textContent,
        cells: [...r.children].map((td) => ({ text: td.textContent, cls: td.className }))
      })))
      const heads = await page.$$eval('#view-flat thead th', (ths) => ths.map((th) => th.textContent))
      const col = (title) => heads.indexOf(title)
      // Sorted by the size of the change of self share: the function whose
      // self share changed most between the two files, or one within 2
      // points of it. hotSpin's rise and coldSpin's fall are near-equal by
      // the workload's design; beside two hogs coldSpin led by less than
      // that (a rank among near-equals, test/js/README.md).
      const before = cpuSelfShares(JSON.parse(fs.readFileSync(taken.cold.files.cpuprofile, 'utf8')))
      const afterProfile = JSON.parse(fs.readFileSync(taken.hot.files.cpuprofile, 'utf8'))
      const after = cpuSelfShares(afterProfile)
      const change = [...new Set([...before.keys(), ...after.keys()])]
        .map((name) => [name, Math.abs((after.get(name) || 0) - (before.get(name) || 0))])
        .sort((a, b) => b[1] - a[1])
      const lead = change.filter(([, d]) => d > change[0][1] - 2).map(([name]) => name)
      assert.ok(lead.includes(flat[0].name), `${flat[0].name} leads; expected ${lead.join(' or ')}`)
      assert.match(flat[0].name, /^(hotSpin|callerOfHot|coldSpin|callerOfCold)$/, JSON.stringify(flat[0]))
      // The callers' total shares hold their callees whatever was inlined:
      // callerOfHot grew, callerOfCold shrank, and the cells say so.
      const row = (name) => flat.find((r) => r.name === name)
      const grew = row('callerOfHot').cells[col('Total change')]
      const shrank = row('callerOfCold').cells[col('Total change')]
      assert.match(grew.cls, /grew/, JSON.stringify(grew))
      assert.match(grew.text, /^\+\d+\.\d\d pts$/)
      assert.match(shrank.cls, /shrank/, JSON.stringify(shrank))
      assert.match(shrank.text, /^\u2212\d+\.\d\d pts$/)
      await screenshot(page, 'viewer-diff.png')

      // The trees and the flame graph are sized by <after>: its hottest
      // function leads the bottom-up view, and its path's share is the one
      // in the after file.
      const { hot, caller } = hottest(afterProfile)
      await checkViews(page, { tag: 'diff', hot, caller, pathShare: (chain) => chainShare(afterProfile, chain), minShare: 40 })

      // The differential flame graph: callerOfHot's frame (its share grew by
      // tens of points) is red, callerOfCold's (shrank) blue. Each is zoomed
      // into first (in <after> callerOfCold can be a few pixels wide), then
      // sampled along a line 2 px below its top edge, clear of the label.
      await page.mouse.move(0, 0)
      const colourOf = async (name) => {
        const box = await page.evaluate((fname) => {
          const v = window.cprofViewer
          const m = v.model
          let best = -1
          for (let i = 0; i < m.n; i++) if (m.fns.name[m.fn[i]] === fname && (best < 0 || m.total[1][i] > m.total[1][best])) best = i
          v.flame.zoom(best)
          const rect = v.flame.rectOf(best)
          return { x: rect.x + 2, y: rect.y + 2, w: rect.w - 4, h: 1 }
        }, name)
        assert.ok(box.w > 10, `${name}'s frame is ${box.w} px wide`)
        const red = await countPixels(page, 'r > 180 && r - g > 60 && r - b > 60', box)
        const blue = await countPixels(page, 'b > 180 && b - r > 60 && b - g > 20', box)
        return { red: red.n / red.of, blue: blue.n / blue.of }
      }
      const hotColour = await colourOf('callerOfHot')
      assert.ok(hotColour.red > 0.9, `callerOfHot's frame: ${JSON.stringify(hotColour)}`)
      const coldColour = await colourOf('callerOfCold')
      assert.ok(coldColour.blue > 0.9, `callerOfCold's frame: ${JSON.stringify(coldColour)}`)
      await page.keyboard.press('Escape')
      await screenshot(page, 'viewer-diff-flame.png')
      assert.deepEqual(problems, [])
    } finally {
      await page.close()
    }
  })

  test('hostile names render as text, never as markup', async () => {
    const names = [
      '<script>window.pwned=1</script>',
      '"quoted" \'single\' & <b>bold</b> <img src=x onerror="window.pwned=2">',
      'ünïcødé 🔥 \u2028\u2029 </script><!--',
      'x'.repeat(10000)
    ]
    const nodes = [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, children: [2] }]
    names.forEach((name, i) => {
      const id = i + 2
      nodes.push({ id, callFrame: { functionName: name, scriptId: '1', url: `file:///app/<i>${i}</i>.js`, lineNumber: i, columnNumber: 0 }, children: i + 3 <= names.length + 1 ? [id + 1] : [] })
    })
    const samples = [2, 3, 4, 5, 5, 4, 3, 5]
    const file = path.join(dir, 'hostile.cpuprofile')
    fs.writeFileSync(file, JSON.stringify({ nodes, startTime: 0, endTime: 8000, samples, timeDeltas: samples.map(() => 1000) }))
    const out = path.join(dir, 'hostile.html')
    assert.equal(cli(['html', file, '-o', out, '--title', '<h1>title</h1>']).status, 0)
    const { page, problems, requests } = await openPage(browser, 'file://' + out)
    try {
      assert.deepEqual(problems, [])
      assert.equal(requests.length, 1, requests.join(', '))
      assert.equal(await page.evaluate(() => window.pwned), undefined)
      assert.equal(await page.$$eval('img, #views i, #views b, #title *', (e) => e.length), 0)
      // The page's own three: the profile's data, the (empty) heap-trend block, the code
      assert.deepEqual(await page.$$eval('script', (e) => e.map((x) => x.id)), ['cprof-data', 'cprof-trend', ''])
      assert.equal(await page.$eval('#title', (e) => e.textContent), '<h1>title</h1>')
      await page.click('#tabs button[data-view="flat"]')
      const shown = await page.$$eval('#view-flat tbody tr .name', (els) => els.map((e) => e.textContent))
      assert.deepEqual(shown.slice().sort(), names.slice().sort())
      await page.click('#tabs button[data-view="topdown"]')
      await screenshot(page, 'viewer-hostile.png')
    } finally {
      await page.close()
    }
  })
})

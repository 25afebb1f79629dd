'use strict'
// A heap snapshot's viewer page (cprof html FILE.heapsnapshot): a snapshot
// written by Node's own writer in another process (a module-level Map,
// sessionCache, holding N Sessions: test/js/cli/fixtures/snapshot-leak.js)
// opened in headless Chromium. What a user checks: Session in the class
// table with N objects, its largest object's retainer tree going up
// through the Map to sessionCache; a hand-made snapshot with hostile names
// shown as text.

const { test, describe, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { makeTmpDir, removeTmpDirs, childEnv, fileMode } = require('../helpers/util')
const { runFixture } = require('../helpers/util').fixturesIn(path.join(__dirname, '..', 'cli'))
const viewerFixtures = require('../helpers/util').fixturesIn(__dirname)
const { haveChromium, launch, openPage, screenshot } = require('../helpers/browser')

const CLI = path.resolve(__dirname, '..', '..', '..', 'bin', 'cprof.js')
const skipBrowser = haveChromium() ? false : 'needs /usr/bin/chromium (apt-get install -y chromium)'
const N = 1500

function cli (args) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 180000, env: childEnv() })
}

// The page's data block, parsed.
function pageData (file) {
  const m = /<script type="application\/json" id="cprof-data">(.*?)<\/script>/s.exec(fs.readFileSync(file, 'utf8'))
  return JSON.parse(m[1])
}

// An object and a string under the root; the names a hostile app can put in a
// snapshot (class names, property names, strings) as markup and script.
const HOSTILE = ['<img src=x onerror="window.pwned=1">', '</script><b id=pwned>edge</b>', '\u2028<svg onload="window.pwned=2">']
function hostileSnapshot (file) {
  const meta = {
    node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'],
    node_types: [['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number', 'native', 'synthetic'], 'string', 'number', 'number', 'number', 'number', 'number'],
    edge_fields: ['type', 'name_or_index', 'to_node'],
    edge_types: [['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak'], 'string_or_number', 'node']
  }
  const nodes = [9, 0, 1, 0, 1, 0, 0, 3, 1, 3, 100, 1, 0, 0, 2, 3, 5, 50, 0, 0, 0]
  const edges = [5, 2, 7, 2, 2, 14]
  fs.writeFileSync(file, JSON.stringify({ snapshot: { meta, node_count: 3, edge_count: 2 }, nodes, edges, strings: ['', ...HOSTILE] }))
}

let dir, leakPage, hostilePage, chainPage, chain
before(() => {
  dir = makeTmpDir('cprof-snapview-')
  const r = runFixture('snapshot-leak.js', [path.join(dir, 'leak.heapsnapshot'), String(N)], { timeout: 180000 })
  assert.equal(r.status, 0, r.describe())
  const h = cli(['html', r.json[0].file])
  assert.equal(h.status, 0, h.stderr)
  leakPage = path.join(dir, 'leak.html')
  assert.equal(h.stdout.trim(), leakPage)
  assert.equal(fileMode(leakPage), 0o600, 'a page holds the heap\'s names: private, as every file cprof writes')
  hostileSnapshot(path.join(dir, 'hostile.heapsnapshot'))
  hostilePage = path.join(dir, 'hostile.html')
  const x = cli(['html', path.join(dir, 'hostile.heapsnapshot'), '-o', hostilePage])
  assert.equal(x.status, 0, x.stderr)
  // a linked list of 300 Entries under a closure: deep retainer chains
  const c = viewerFixtures.runFixture('snapshot-chain.js', [path.join(dir, 'chain.heapsnapshot'), '300'], { timeout: 180000 })
  assert.equal(c.status, 0, c.describe())
  chain = c.json[0]
  chainPage = path.join(dir, 'chain.html')
  const y = cli(['html', chain.file, '-o', chainPage])
  assert.equal(y.status, 0, y.stderr)
})
after(removeTmpDirs)

test('cprof html on a snapshot: the classes, their largest objects and the retainers, capped', () => {
  const d = pageData(leakPage)
  assert.equal(d.kind, 'heapsnapshot')
  const s = d.classes.find((c) => c.name === 'Session')
  assert.equal(s.count, N)
  assert.equal(s.objects.length, d.caps.instances)
  assert.equal(s.more, N - d.caps.instances)
  // the largest Session's first retainers: a slot of the Map's table, the
  // Map, and sessionCache holding it
  const up = []
  for (let t = s.objects[0], i = 0; i < 4 && d.table[t].retainers?.length; i++) {
    const [edge, , r] = d.table[t].retainers[0]
    up.push(`${edge}:${d.table[r].class}`)
    t = r
  }
  assert.equal(up[1], 'table:Map', up.join(' <- '))
  assert.match(up[2], /^sessionCache:/, up.join(' <- '))
  assert.ok(d.table.length <= d.caps.nodes)
})

test('cprof html refuses a snapshot with a second file and names a broken one', () => {
  const two = cli(['html', path.join(dir, 'hostile.heapsnapshot'), path.join(dir, 'leak.heapsnapshot')])
  assert.equal(two.status, 2)
  assert.match(two.stderr, /cprof snapshot diff/)
  const broken = path.join(dir, 'broken.heapsnapshot')
  fs.writeFileSync(broken, '{"snapshot":{"meta":')
  const r = cli(['html', broken, '-o', path.join(dir, 'broken.html')])
  assert.equal(r.status, 1)
  assert.match(r.stderr, /^cprof html: .*(truncated|parse|JSON)/i)
  assert.equal(fs.existsSync(path.join(dir, 'broken.html')), false)
})

test('hostile names stay text in the data block', () => {
  const html = fs.readFileSync(hostilePage, 'utf8')
  const block = /id="cprof-data">(.*?)<\/script>/s.exec(html)[1]
  assert.doesNotMatch(block, /[<>\u2028]/)
  assert.ok(pageData(hostilePage).table.some((n) => n.class === HOSTILE[0]))
})

// In the page: selects object `at` (-1: the last) of class cls's list and
// measures the retainer tree: each row's label, tooltip and Retained cell
// (where it is, whether its text fits), the box's right edge (or the
// window's) and its horizontal overflow.
function measure (cls, at) {
  const v = window.cprofViewer
  v.selectClass(cls)
  v.selectObject(v.snapshot.classes.find((c) => c.name === cls).objects.at(at))
  const box = document.getElementById('snap-retainers')
  const edge = Math.min(box.getBoundingClientRect().right, window.innerWidth)
  const rows = [...box.querySelectorAll('tbody tr')].filter((tr) => tr.cells.length === 4).map((tr) => {
    const [name, , , retained] = tr.cells
    const b = retained.getBoundingClientRect()
    return { label: name.textContent, title: name.title, left: b.left, right: b.right, fits: retained.scrollWidth <= retained.clientWidth, retained: retained.textContent }
  })
  box.querySelector('tbody tr:nth-child(24)')?.scrollIntoView()
  return { rows, edge, overflow: box.scrollWidth - box.clientWidth }
}

describe('in Chromium', { skip: skipBrowser }, () => {
  let browser
  before(async () => { browser = await launch() })
  after(async () => { await browser?.close() })

  test('the class table shows Session; its largest object\'s retainer tree goes through sessionCache', async () => {
    const { page, problems, requests } = await openPage(browser, 'file://' + leakPage)
    assert.equal(await page.$eval('#tabs', (e) => getComputedStyle(e).display), 'none')
    const row = await page.evaluate(() => {
      const tr = [...document.querySelectorAll('#snap-classes tbody tr')].find((r) => r.cells[0].textContent === 'Session')
      tr.click()
      return [...tr.cells].map((c) => c.textContent)
    })
    assert.equal(row[1], N.toLocaleString('en-US'))
    const objects = await page.$$eval('#snap-objects tbody tr', (rs) => rs.map((r) => r.cells[0].textContent))
    assert.equal(objects.length, 21) // 20 and "1,480 more"
    assert.match(objects[0], /^Session @\d+$/)
    assert.match(objects[20], /1,480 more/)
    const tree = await page.$$eval('#snap-retainers tbody tr', (rs) => rs.map((r) => r.cells[0].textContent))
    assert.match(tree[0], /^Session @/)
    assert.ok(tree.some((t) => /^▾?table in Map @/.test(t)), tree.join('\n'))
    assert.ok(tree.some((t) => /sessionCache in /.test(t)), tree.join('\n'))
    await screenshot(page, 'viewer-snapshot.png')
    // sorting by count puts the most numerous class first
    const first = await page.evaluate(() => {
      document.querySelector('#snap-classes th[data-sort="count"]').click()
      return document.querySelector('#snap-classes tbody tr').cells[1].textContent
    })
    const d = pageData(leakPage)
    assert.equal(first, Math.max(...d.classes.map((c) => c.count)).toLocaleString('en-US'))
    // a retainer row collapses
    const collapsed = await page.evaluate(() => {
      const n = document.querySelectorAll('#snap-retainers tbody tr').length
      document.querySelector('#snap-retainers tbody tr:nth-child(2) .toggle').click()
      return [n, document.querySelectorAll('#snap-retainers tbody tr').length]
    })
    assert.ok(collapsed[1] < collapsed[0], String(collapsed))
    assert.deepEqual(problems, [])
    assert.deepEqual(requests.filter((u) => !u.startsWith('file://')), [])
  })

  // The retainer tree of the Payload at the list's tail (6 levels of
  // Entries, then "retainers not looked up") and of the 20th Entry from
  // the head (20 Entries up, the closure holding the head, the global: a
  // tree over 25 rows deep).
  test('a deep retainer chain keeps every column in view at 1400 px; closures say where they are defined; no distance is —', async () => {
    const { page, problems } = await openPage(browser, 'file://' + chainPage, { width: 1400, height: 1000 })
    const tail = await page.evaluate(measure, 'Payload', 0)
    assert.ok(tail.rows.filter((x) => /^\W*next in Entry @/.test(x.label)).length >= 5, tail.rows.map((x) => x.label).join('\n'))
    const r = await page.evaluate(measure, 'Entry', -1)
    for (const t of [tail, r]) {
      for (const x of t.rows) {
        assert.ok(x.left >= 0 && x.right <= t.edge, `${x.label}: Retained cell at ${x.left}-${x.right}, the box ends at ${t.edge}`)
        assert.ok(x.fits && /\d/.test(x.retained), `${x.label}: Retained "${x.retained}" clipped`)
      }
      assert.equal(t.overflow, 0, 'no horizontal scroll in the retainers box')
    }
    assert.ok(r.rows.filter((x) => /^\W*next in Entry @/.test(x.label)).length >= 19, r.rows.map((x) => x.label).join('\n'))
    assert.ok(r.rows.length >= 25, String(r.rows.length))
    // the closure that holds the list's head, named with its file and line
    const hold = r.rows.find((x) => /context in holdChain\(\)/.test(x.label))
    assert.match(hold?.label ?? '', new RegExp(`^\\W*context in holdChain\\(\\) snapshot-chain\\.js:${chain.holdLine} @\\d+$`))
    assert.ok(hold.title.includes(`${path.join(viewerFixtures.FIXTURES, 'snapshot-chain.js')}:${chain.holdLine}:`), hold.title)
    await screenshot(page, 'viewer-snapshot-chain.png')

    // a class no user root reaches: "—", the tooltip says why; sorted by
    // distance such classes come last
    const d = pageData(chainPage)
    const far = d.classes.find((c) => c.distance === null)
    assert.ok(far, 'the page lists a class held by the GC roots only')
    const cell = await page.evaluate((name) => {
      const tr = [...document.querySelectorAll('#snap-classes tbody tr')].find((row) => row.cells[0].textContent === name)
      const c = tr.cells[tr.cells.length - 1]
      document.querySelector('#snap-classes th[data-sort="distance"]').click()
      const last = [...document.querySelectorAll('#snap-classes tbody tr')].at(-1)
      return { text: c.textContent, title: c.title, last: last.cells[last.cells.length - 1].textContent }
    }, far.name)
    assert.equal(cell.text, '\u2014')
    assert.match(cell.title, /no user root .* reaches/i)
    assert.equal(cell.last, '\u2014')
    assert.deepEqual(problems, [])
  })

  test('hostile names are shown as text, never run', async () => {
    const { page, problems } = await openPage(browser, 'file://' + hostilePage)
    const r = await page.evaluate((name) => {
      window.cprofViewer.selectClass(name)
      return {
        pwned: window.pwned ?? null,
        injected: document.querySelectorAll('#pwned, img, svg').length,
        text: document.getElementById('snapshot-panel').textContent
      }
    }, '(string)') // HOSTILE[2], held by HOSTILE[1] in HOSTILE[0]
    assert.equal(r.pwned, null)
    assert.equal(r.injected, 0)
    for (const h of HOSTILE.slice(0, 2)) assert.ok(r.text.includes(h), h)
    assert.ok(r.text.includes('<svg onload=\\"window.pwned=2\\">'), 'the string, quoted as JSON')
    assert.deepEqual(problems, [])
  })
})

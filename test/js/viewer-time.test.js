'use strict'
// The viewer's time: the top-down tree opens on the app's code, the
// time-order view (samples in order, an overview to select a range that
// every other view then shows), incident markers, merged instances. In
// headless Chromium through puppeteer-core, as test/js/viewer.test.js.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { pathToFileURL } = require('node:url')
const { makeTmpDir, removeTmpDirs } = require('./helpers/util')
const { haveChromium, launch, openPage, screenshot } = require('./browser')

const CLI = path.resolve(__dirname, '..', '..', 'bin', 'cprof.js')
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

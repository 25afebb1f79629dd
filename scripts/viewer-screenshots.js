'use strict'
// The screenshots of docs/viewer.md's time-order section, made from real
// runs: node scripts/viewer-screenshots.js [outdir=docs/img]
// Needs Chromium (CPROF_CHROMIUM, default /usr/bin/chromium) and the addon
// built. Writes:
//   viewer-time.png           a node --cpu-prof file: the time-order view,
//                             the top-down tree opened on the app
//   viewer-time-range.png     the same file with a range selected (#range=)
//   viewer-time-incident.png  an eventLoopDelay incident's page
//   viewer-time-merged.png    cprof merge of two runs, --formats html
//   viewer-time-heap.png      a recorder heap dump: the live heap per window
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { pathToFileURL } = require('node:url')
const { launch } = require('../test/js/helpers/browser')

const ROOT = path.resolve(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'cprof.js')
const OUT = path.resolve(process.argv[2] || path.join(ROOT, 'docs', 'img'))

function run (args, opts = {}) {
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120000, ...opts })
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`)
  return r
}

// A small server-like app: bursts of work in its own functions between idle gaps.
const APP = `'use strict'
function parseInput (n) { let x = 0; for (let i = 0; i < n; i++) x += Math.sqrt(i ^ x); return x }
function renderPage (n) { let s = ''; for (let i = 0; i < n; i++) s += String.fromCharCode(97 + (i % 26)); return s.length }
function handleRequest (k) { return parseInput(3e5 + (k % 5) * 1e5) + renderPage(2e5) }
let k = 0
const t = setInterval(() => { const end = Date.now() + 20 + (k % 7) * 15; while (Date.now() < end) handleRequest(k++) }, 60)
setTimeout(() => clearInterval(t), 1500)
`

const INCIDENT_APP = `'use strict'
const cprof = require(${JSON.stringify(ROOT)})
function stallingFunction (ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x = (x + 7) % 1000003; return x }
function handleTick () { let x = 0; for (let i = 0; i < 2e4; i++) x += i; return x }
let ticks = 0
const t = setInterval(() => { handleTick(); if (++ticks === 150) stallingFunction(450) }, 10)
cprof.on('profile', (r) => { process.stdout.write(JSON.stringify(r.files) + '\\n'); clearInterval(t); setTimeout(() => cprof.destroy(), 50) })
cprof.init({ dir: process.argv[2], formats: ['html'], recorder: { window: 1000, interval: 2000 }, incidents: { eventLoopDelay: 200 } })
`

// A cache that keeps growing, under the recorder's heap windows; the heap
// dump's page shows the live heap of each window.
const HEAP_APP = `'use strict'
const cprof = require(${JSON.stringify(ROOT)})
const cache = new Map()
let k = 0
function rememberRequest () { for (let i = 0; i < 1500; i++) cache.set(k++, { body: 'x'.repeat(80) + k }) }
const t = setInterval(rememberRequest, 20)
cprof.recorder.start({ heap: true, window: 300 })
setTimeout(async () => {
  const r = await cprof.recorder.dump({ kind: 'heap', dir: process.argv[2], formats: ['html'] })
  process.stdout.write(JSON.stringify(r.files) + '\\n')
  clearInterval(t)
  await cprof.recorder.stop()
}, 3200)
`

async function shot (browser, url, file, prep) {
  const page = await browser.newPage()
  await page.setViewport({ width: 1400, height: 900 })
  await page.goto(url, { waitUntil: 'load' })
  await page.waitForSelector('body[data-ready="1"]')
  if (prep) await prep(page)
  await page.screenshot({ path: path.join(OUT, file) })
  await page.close()
  process.stdout.write(path.join(OUT, file) + '\n')
}

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-shots-'))
  fs.mkdirSync(OUT, { recursive: true })
  try {
    fs.writeFileSync(path.join(dir, 'server.js'), APP)
    run(['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', 'server.cpuprofile', path.join(dir, 'server.js')])
    run([CLI, 'html', path.join(dir, 'server.cpuprofile'), '-o', path.join(dir, 'server.html')])
    fs.writeFileSync(path.join(dir, 'incident.js'), INCIDENT_APP)
    const files = JSON.parse(run([path.join(dir, 'incident.js'), dir]).stdout.trim().split('\n')[0])
    fs.copyFileSync(path.join(dir, 'server.cpuprofile'), path.join(dir, 'worker-1.cpuprofile'))
    run(['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', 'worker-2.cpuprofile', path.join(dir, 'server.js')])
    run([CLI, 'merge', path.join(dir, 'worker-1.cpuprofile'), path.join(dir, 'worker-2.cpuprofile'), '-o', path.join(dir, 'fleet.cpuprofile'), '--formats', 'html'])
    fs.writeFileSync(path.join(dir, 'heap.js'), HEAP_APP)
    const heapFiles = JSON.parse(run([path.join(dir, 'heap.js'), dir]).stdout.trim())

    const browser = await launch()
    try {
      const server = pathToFileURL(path.join(dir, 'server.html')).href
      await shot(browser, server, 'viewer-time.png')
      await shot(browser, server + '#range=400000-700000', 'viewer-time-range.png', (page) => page.click('#tabs button[data-view="flat"]'))
      await shot(browser, pathToFileURL(files.html).href, 'viewer-time-incident.png')
      await shot(browser, pathToFileURL(path.join(dir, 'fleet.html')).href, 'viewer-time-merged.png')
      await shot(browser, pathToFileURL(heapFiles.html).href, 'viewer-time-heap.png')
    } finally {
      await browser.close()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1 })

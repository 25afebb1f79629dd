'use strict'
// How long the HTML viewer takes to open a large profile in Chromium.
//   node bench/viewer-open.js [nodes=50000] [runs=5]
// CPROF_BENCH_KEEP=file.html keeps a copy of the page it opened.
// Generates a synthetic .cpuprofile with that many call-tree nodes (5,000
// functions in 200 files, up to 40 deep, 200,000 samples), writes its
// viewer with `cprof html`, then opens it RUNS times in headless Chromium
// (fresh tab each) and reports, from navigation start: the page usable
// (data parsed, model built, flame graph, top-down, bottom-up and flat
// table drawn: body[data-ready]) and the viewer's own share of that.
// Not a test: the numbers go to docs/viewer.md.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { launch } = require('../test/js/helpers/browser')

const NODES = Number(process.argv[2] || 50000)
const RUNS = Number(process.argv[3] || 5)

// A deterministic pseudo-random tree: each new node hangs under a random
// earlier node no deeper than 40.
function makeProfile (n) {
  let seed = 12345
  const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff }
  const nodes = [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, children: [] }]
  const depth = [0]
  for (let i = 1; i < n; i++) {
    let p = Math.floor(rnd() ** 0.5 * i)
    while (depth[p] >= 40) p = Math.floor(rnd() * i)
    const f = Math.floor(rnd() * 5000)
    nodes.push({ id: i + 1, callFrame: { functionName: `fn${f}_${'work'.repeat(f % 4)}`, scriptId: String(1 + (f % 200)), url: `file:///srv/app/src/module${f % 200}.js`, lineNumber: f, columnNumber: 4 }, children: [] })
    nodes[p].children.push(i + 1)
    depth.push(depth[p] + 1)
  }
  // Frames that repeat under one parent would merge; that is fine: the
  // viewer's node count is what we report.
  const samples = []
  const timeDeltas = []
  for (let i = 0; i < 200000; i++) {
    samples.push(1 + Math.floor(rnd() * n))
    timeDeltas.push(1000)
  }
  return { nodes, startTime: 0, endTime: 200000 * 1000, samples, timeDeltas }
}

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-viewer-bench-'))
  const prof = path.join(dir, 'big.cpuprofile')
  fs.writeFileSync(prof, JSON.stringify(makeProfile(NODES)))
  const out = path.join(dir, 'big.html')
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, [path.join(__dirname, '..', 'bin', 'cprof.js'), 'html', prof, '-o', out], { encoding: 'utf8' })
  const writeMs = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(r.stderr)
  const htmlBytes = fs.statSync(out).size
  if (process.env.CPROF_BENCH_KEEP) fs.copyFileSync(out, process.env.CPROF_BENCH_KEEP)
  const browser = await launch()
  const rows = []
  try {
    for (let i = 0; i < RUNS; i++) {
      const page = await browser.newPage()
      await page.setViewport({ width: 1400, height: 1000 })
      await page.goto('file://' + out, { waitUntil: 'load', timeout: 120000 })
      await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 })
      rows.push(await page.evaluate(() => ({ nodes: window.cprofViewer.model.n, fns: window.cprofViewer.model.nf, readyAt: window.cprofViewer.readyAt, viewerMs: window.cprofViewer.readyMs, phases: window.cprofViewer.phases })))
      await page.close()
    }
  } finally {
    await browser.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const med = (k) => rows.map((x) => x[k]).sort((a, b) => a - b)[Math.floor(rows.length / 2)]
  const res = {
    nodes: rows[0].nodes,
    functions: rows[0].fns,
    htmlBytes,
    cprofHtmlMs: Math.round(writeMs),
    openMs: { median: Math.round(med('readyAt')), max: Math.round(Math.max(...rows.map((x) => x.readyAt))) },
    viewerMs: { median: Math.round(med('viewerMs')) },
    phasesMs: rows.map((x) => x.phases),
    runs: RUNS,
    loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' ')
  }
  process.stdout.write(JSON.stringify(res, null, 2) + '\n')
}

main().catch((err) => { console.error(err); process.exitCode = 1 })

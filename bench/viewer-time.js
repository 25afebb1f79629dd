'use strict'
// The time-order view on a long profile, in headless Chromium.
//   node bench/viewer-time.js [samples=1000000] [frames=120]
// Generates a synthetic .cpuprofile of SAMPLES samples 1 ms apart (17
// minutes for a million): 5,000 call-tree nodes up to 30 deep, the stack
// wandering like a program's (mostly the same stack as the sample before,
// sometimes a call or a return), with idle stretches of 0.1-2 s. Writes its
// viewer with `cprof html`, opens it once and reports:
//   - openMs: navigation start until the page is usable with the
//     time-order view drawn (body[data-ready]); the script's phases;
//   - frames: FRAMES frames of zooming in and out and panning, each a
//     redraw of the overview and the flame chart (what a wheel or drag
//     does): the draw time per frame (median, p95, max; 16.7 ms is 60 fps)
//     and the interval between animation frames;
//   - memory: the page's JS heap plus array buffers after a GC (Chromium's
//     Runtime.getHeapUsage), against the file's size.
// Not a test: the numbers go to docs/benchmarks.md.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { launch } = require('../test/js/helpers/browser')

const SAMPLES = Number(process.argv[2] || 1000000)
const FRAMES = Number(process.argv[3] || 120)

function makeProfile (n) {
  let seed = 4242
  const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff }
  const frame = (name, url, line) => ({ functionName: name, scriptId: url ? '1' : '0', url, lineNumber: line, columnNumber: 2 })
  const nodes = [{ id: 1, callFrame: frame('(root)', '', -1), children: [] }, { id: 2, callFrame: frame('(idle)', '', -1), children: [] }]
  nodes[0].children.push(2)
  const parent = [-1, 0]
  const depth = [0, 1]
  const kids = [[], []]
  for (let i = 2; i < 5000; i++) {
    let p = i < 20 ? 0 : 2 + Math.floor(rnd() * (i - 2))
    while (depth[p] >= 30) p = parent[p]
    const f = Math.floor(rnd() * 1500)
    nodes.push({ id: i + 1, callFrame: frame(`fn${f}`, `file:///srv/app/src/m${f % 90}.js`, f), children: [] })
    nodes[p].children.push(i + 1)
    kids[p].push(i)
    kids.push([])
    parent.push(p)
    depth.push(depth[p] + 1)
  }
  const samples = new Array(n)
  const timeDeltas = new Array(n).fill(1000)
  let cur = kids[0][2]
  let idle = 0
  for (let i = 0; i < n; i++) {
    if (idle > 0) { idle--; samples[i] = 2; continue }
    const r = rnd()
    if (r < 0.0005) idle = 100 + Math.floor(rnd() * 1900)
    else if (r < 0.08 && kids[cur].length) cur = kids[cur][Math.floor(rnd() * kids[cur].length)]
    else if (r < 0.16 && parent[cur] > 0) cur = parent[cur]
    else if (r < 0.162) cur = kids[0][2 + Math.floor(rnd() * (kids[0].length - 2))]
    samples[i] = cur + 1
  }
  return { nodes, startTime: 0, endTime: n * 1000, samples, timeDeltas }
}

const pct = (xs, p) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] }

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-viewer-time-'))
  const prof = path.join(dir, 'long.cpuprofile')
  fs.writeFileSync(prof, JSON.stringify(makeProfile(SAMPLES)))
  const out = path.join(dir, 'long.html')
  const r = spawnSync(process.execPath, [path.join(__dirname, '..', 'bin', 'cprof.js'), 'html', prof, '-o', out], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  const browser = await launch()
  let res
  try {
    const page = await browser.newPage()
    await page.setViewport({ width: 1400, height: 1000 })
    await page.goto('file://' + out, { waitUntil: 'load', timeout: 120000 })
    await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 })
    const open = await page.evaluate(() => ({ readyAt: window.cprofViewer.readyAt, viewerMs: window.cprofViewer.readyMs, phases: { ...window.cprofViewer.phases, timeView: window.cprofViewer.time.phases } }))
    const frames = await page.evaluate((count) => new Promise((resolve) => {
      const t = window.cprofViewer.time
      const draws = []
      const gaps = []
      let last = performance.now()
      let k = 0
      function step () {
        const now = performance.now()
        gaps.push(now - last)
        last = now
        // Zoom in for a third, pan for a third, zoom out for the rest.
        const mid = (t.view.v0 + t.view.v1) / 2
        if (k < count / 3) t.zoomAt(mid, 0.85)
        else if (k < 2 * count / 3) t.panBy((t.view.v1 - t.view.v0) * 0.05, k % 10 === 0 ? 1 : 0)
        else t.zoomAt(mid, 1.25)
        const a = performance.now()
        t.draw()
        draws.push(performance.now() - a)
        if (++k < count) requestAnimationFrame(step)
        else resolve({ draws, gaps: gaps.slice(1) })
      }
      requestAnimationFrame(step)
    }), FRAMES)
    const cdp = await page.target().createCDPSession()
    await cdp.send('HeapProfiler.collectGarbage')
    const heap = await cdp.send('Runtime.getHeapUsage')
    res = {
      samples: SAMPLES,
      cpuprofileBytes: fs.statSync(prof).size,
      htmlBytes: fs.statSync(out).size,
      openMs: Math.round(open.readyAt),
      viewerMs: Math.round(open.viewerMs),
      phasesMs: open.phases,
      drawMs: { median: +pct(frames.draws, 0.5).toFixed(2), p95: +pct(frames.draws, 0.95).toFixed(2), max: +Math.max(...frames.draws).toFixed(2) },
      frameIntervalMs: { median: +pct(frames.gaps, 0.5).toFixed(2), p95: +pct(frames.gaps, 0.95).toFixed(2) },
      memory: { jsHeapUsedBytes: heap.usedSize, backingStoreBytes: heap.backingStorageSize || 0 },
      loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' ')
    }
    res.memory.vsHtml = +((res.memory.jsHeapUsedBytes + res.memory.backingStoreBytes) / res.htmlBytes).toFixed(2)
    await page.close()
  } finally {
    await browser.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  process.stdout.write(JSON.stringify(res, null, 2) + '\n')
}

main().catch((err) => { console.error(err); process.exitCode = 1 })

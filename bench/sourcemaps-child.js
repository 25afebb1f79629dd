'use strict'
// One source-map measurement in a fresh process: load a real minified bundle
// (markdown-it, fast-xml-parser, pm2's API, autocannon and pprof-format
// bundled by esbuild: 1.5 MB of code, a 5 MB external map; see
// bench/sourcemaps.js), profile it rendering Markdown, parsing XML and
// encoding pprof, stop, and print one JSON line.
// Two profiles in a row: the first stop reads and decodes the map (cold
// cache), the second finds it in the cache (warm). With sourceMaps off the
// same two stops run without mapping, so the two processes compare alike.
//
//   node --expose-gc bench/sourcemaps-child.js '{"bundle":"/path/bundle.js",
//     "sourceMaps":true,"seconds":5}'
//
// Per stop: syncMs (inside the stop call), syncCpuMs, eldMaxMs
// (monitorEventLoopDelay max over the stop window), probeMaxMs (longest gap
// of a 1 ms interval), toFileMs (stop() → every file written), mainCpuMs
// (the main thread's CPU time from the stop call until 50 ms after the files
// are written, where process.threadCpuUsage exists: Node >= 23.9), and the
// result's sourceMaps counts, checked before any figure is kept.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { monitorEventLoopDelay } = require('node:perf_hooks')
const cprof = require('..')

const now = () => Number(process.hrtime.bigint()) / 1e6
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function probe () {
  let last = now()
  let maxGap = 0
  const t = setInterval(() => {
    const n = now()
    maxGap = Math.max(maxGap, n - last)
    last = n
  }, 1)
  return { stop () { clearInterval(t); return Math.max(maxGap, now() - last) } }
}

// The bundle's libraries at work, on this repository's own files.
function workload (app) {
  const root = path.join(__dirname, '..')
  const md = new app.MarkdownIt()
  const markdown = fs.readFileSync(path.join(root, 'README.md'), 'utf8')
  const parser = new app.XMLParser({ ignoreAttributes: false })
  const xml = new app.XMLBuilder({ ignoreAttributes: false }).build({ svg: { g: Array.from({ length: 200 }, (_, i) => ({ rect: { '@_x': i, '@_width': i * 2 }, text: `frame ${i}` })) } })
  return () => {
    md.render(markdown)
    parser.parse(xml)
    const fn = new app.pprof.Function({ id: 1, name: 1, filename: 2, startLine: 3 })
    const p = new app.pprof.Profile({ stringTable: new app.pprof.StringTable(), function: [fn] })
    app.pprof.Profile.decode(p.encode())
  }
}

function runFor (work, ms) {
  const end = Date.now() + ms
  return new Promise((resolve) => {
    function slice () {
      const stop = Date.now() + 20
      while (Date.now() < stop) work()
      if (Date.now() < end) setImmediate(slice)
      else resolve()
    }
    slice()
  })
}

async function stopOnce (work, o, dir, name) {
  await cprof.start({ interval: 1000, dir, name, formats: ['pprof', 'folded', 'svg', 'txt'], sourceMaps: o.sourceMaps })
  await runFor(work, o.seconds * 1000)
  global.gc()
  await sleep(30)
  const eld = monitorEventLoopDelay({ resolution: 1 })
  eld.enable()
  const pr = probe()
  await sleep(30)
  // The main thread's own CPU time over the whole stop (Node >= 23.9): unlike
  // the wall-clock pauses it does not grow when other processes share the cores.
  const main0 = process.threadCpuUsage ? process.threadCpuUsage() : null
  const cpu0 = process.cpuUsage()
  const t0 = now()
  const p = cprof.stop()
  const syncMs = now() - t0
  const c = process.cpuUsage(cpu0)
  const r = await p
  const toFileMs = now() - t0
  await sleep(50)
  const probeMaxMs = pr.stop()
  const mainCpu = main0 && process.threadCpuUsage(main0)
  eld.disable()
  for (const f of Object.values(r.files)) if (!(fs.statSync(f).size > 0)) throw new Error(`${f} is empty`)
  if (!(r.samples > 0)) throw new Error('no samples')
  if (o.sourceMaps && !(r.sourceMaps && r.sourceMaps.mapped > 0 && r.sourceMaps.mapErrors === 0)) {
    throw new Error(`the bundle's frames did not map: ${JSON.stringify(r.sourceMaps)}`)
  }
  if (!o.sourceMaps && r.sourceMaps) throw new Error('mapped without sourceMaps')
  return {
    syncMs,
    syncCpuMs: (c.user + c.system) / 1000,
    eldMaxMs: eld.max / 1e6,
    probeMaxMs,
    toFileMs,
    mainCpuMs: mainCpu ? (mainCpu.user + mainCpu.system) / 1000 : null,
    samples: r.samples,
    mapped: r.sourceMaps ? r.sourceMaps.mapped : 0,
    unmapped: r.sourceMaps ? r.sourceMaps.unmapped : 0,
    top: r.summary.top[0] && `${r.summary.top[0].functionName} ${path.basename(r.summary.top[0].url)}`
  }
}

async function main (o) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-bench-sm-'))
  try {
    const work = workload(require(o.bundle))
    await runFor(work, 300) // warm, as in a running app
    const cold = await stopOnce(work, o, dir, 'cold')
    const warm = await stopOnce(work, o, dir, 'warm')
    console.log(JSON.stringify({ cold, warm, bundleBytes: fs.statSync(o.bundle).size, mapBytes: fs.statSync(`${o.bundle}.map`).size }))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main(JSON.parse(process.argv[2])).catch((err) => {
  console.error(err && err.stack ? err.stack : err)
  process.exitCode = 1
})

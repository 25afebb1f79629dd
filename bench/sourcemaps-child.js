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
const cprof = require('..')
const { measureStop, runChild } = require('./stop-measure')

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
  const m = await measureStop(() => cprof.stop(), { threadCpu: true })
  const r = m.result
  for (const f of Object.values(r.files)) if (!(fs.statSync(f).size > 0)) throw new Error(`${f} is empty`)
  if (!(r.samples > 0)) throw new Error('no samples')
  if (o.sourceMaps && !(r.sourceMaps && r.sourceMaps.mapped > 0 && r.sourceMaps.mapErrors === 0)) {
    throw new Error(`the bundle's frames did not map: ${JSON.stringify(r.sourceMaps)}`)
  }
  if (!o.sourceMaps && r.sourceMaps) throw new Error('mapped without sourceMaps')
  return {
    syncMs: m.syncMs,
    syncCpuMs: m.syncCpuMs,
    eldMaxMs: m.eldMaxMs,
    probeMaxMs: m.probeMaxMs,
    toFileMs: m.doneMs,
    mainCpuMs: m.mainCpuMs,
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

runChild(main)

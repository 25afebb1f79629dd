'use strict'
// Heap snapshots read side by side (issue 29, Bounds; docs/benchmarks.md,
// Heap snapshots): cprof snapshot against memlab and Chrome DevTools' own
// heap-snapshot worker, on the same files in one run.
//   1. The files: bench/snapshots-app.js, an HTTP server on 127.0.0.1 whose
//      session cache grows (class instances, strings, arrays, Maps, Dates),
//      is grown by requests to each target size in turn (a calibration
//      snapshot first gives the bytes a session adds to the file) and
//      written with v8.writeHeapSnapshot(). They are kept in --dir between
//      runs (one whose size is within 25% of the target is reused) and
//      deleted at the end unless --keep.
//      With --shapes, also the adversarial shapes of issue 37
//      (bench/snapshots-shapes.js: a real linked list, a chain with nodes
//      held by its first and last, a node held from every depth of a
//      chain, a wide fan-in), each about --shape-mb; --sizes '' runs those
//      alone.
//   2. Each file, each tool, --rounds rounds (tools alternating within a
//      round; one round for files over 1 GB unless --rounds-big): the wall
//      time of the process to its report, its CPU time (user + sys: what a
//      busy machine's waits leave out) and its peak RSS (/usr/bin/time), one process at a time. A run killed at --limit seconds is "did
//      not finish"; one that exits non-zero (out of memory, a string too
//      long) is "failed", with its last error line.
//        cprof     node bin/cprof.js snapshot FILE --json
//        memlab    memlab 2.0's getFullHeapFromFile (load, dominators,
//                  retained sizes) + top objects + class totals
//                  (bench/snapshots-child.js; memlab from npm into
//                  bench/.cache/memlab/ on first use, not a dependency)
//        devtools  scripts/devtools-snapshot.js's worker, headless (needs
//                  .cache/chrome-devtools-frontend, see that script)
//   3. A table: median time and peak RSS per tool, cprof's speed-up over
//      the faster of the others that finished, and peak RSS / file size;
//      with shapes, cprof's time per MB on each against the app file's.
// node bench/snapshots.js [--sizes 100,500,1500] [--shapes list,firstlast,depth,fanin]
//   [--shape-mb 100] [--tools cprof,memlab,devtools]
//   [--rounds 2] [--rounds-big 1] [--limit 600] [--dir DIR] [--keep]
//   [--out bench/results/<date>-snapshots.json]
// Sizes in MB (10^6 bytes). The JS tools run with --max-old-space-size=16384.
const fs = require('node:fs')
const http = require('node:http')
const os = require('node:os')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { parseArgs } = require('node:util')
const { median } = require('./stats')

const ROOT = path.join(__dirname, '..')
const { values: a } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,500,1500' },
    shapes: { type: 'string', default: '' },
    'shape-mb': { type: 'string', default: '100' },
    tools: { type: 'string', default: 'cprof,memlab,devtools' },
    rounds: { type: 'string', default: '2' },
    'rounds-big': { type: 'string', default: '1' },
    limit: { type: 'string', default: '600' },
    dir: { type: 'string', default: path.join(os.tmpdir(), 'cprof-bench-snapshots') },
    keep: { type: 'boolean' },
    out: { type: 'string' }
  }
})
const SIZES = a.sizes.split(',').filter(Boolean).map(Number)
const SHAPES = a.shapes.split(',').filter(Boolean)
const SHAPE_MB = Number(a['shape-mb'])
const TOOLS = a.tools.split(',')
const LIMIT_S = Number(a.limit)
const HEAP_MB = 16384
const log = (s) => process.stderr.write(s + '\n')

function get (port, url) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: url, method: 'POST' }, (res) => {
      let body = ''
      res.on('data', (d) => { body += d })
      res.on('end', () => resolve(JSON.parse(body)))
    })
    req.on('error', reject)
    req.end()
  })
}

function startApp () {
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, path.join(__dirname, 'snapshots-app.js')],
    { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ child, port: JSON.parse(String(d)).port }))
    child.once('exit', (code) => reject(new Error(`app exited ${code}`)))
  })
}

// Grows the app's cache to `sessions` by requests of at most 5,000 logins.
async function growTo (port, sessions) {
  let have = (await get(port, '/stats')).sessions
  while (have < sessions) have = (await get(port, `/grow?n=${Math.min(5000, sessions - have)}`)).sessions
}

const fileFor = (mb) => path.join(a.dir, `app-${mb}MB.heapsnapshot`)
const sizeOf = (f) => { try { return fs.statSync(f).size } catch { return 0 } }
const fits = (f, mb) => Math.abs(sizeOf(f) / 1e6 / mb - 1) <= 0.25

// The snapshots not already in --dir, from one app grown in size order.
async function makeSnapshots () {
  fs.mkdirSync(a.dir, { recursive: true })
  const todo = [...SIZES].sort((x, y) => x - y).filter((mb) => !fits(fileFor(mb), mb))
  if (!todo.length) return
  const { child, port } = await startApp()
  try {
    const cal = path.join(a.dir, 'calibration.heapsnapshot')
    const base = (await get(port, `/snapshot?file=${encodeURIComponent(cal)}`)).bytes
    await growTo(port, 20000)
    let perSession = ((await get(port, `/snapshot?file=${encodeURIComponent(cal)}`)).bytes - base) / 20000
    fs.rmSync(cal)
    for (const mb of todo) {
      const sessions = Math.round((mb * 1e6 - base) / perSession)
      const t0 = Date.now()
      await growTo(port, sessions)
      const { bytes } = await get(port, `/snapshot?file=${encodeURIComponent(fileFor(mb))}`)
      perSession = (bytes - base) / sessions
      log(`made ${fileFor(mb)}: ${(bytes / 1e6).toFixed(0)} MB, ${sessions} sessions, ${((Date.now() - t0) / 1000).toFixed(0)} s`)
    }
  } finally {
    child.kill()
  }
}

const shapeFile = (shape) => path.join(a.dir, `shape-${shape}-${SHAPE_MB}MB.heapsnapshot`)

// The shapes' files not already in --dir, one process each.
function makeShapes () {
  for (const shape of SHAPES) {
    const file = shapeFile(shape)
    if (fits(file, SHAPE_MB)) continue
    const t0 = Date.now()
    execFileSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, path.join(__dirname, 'snapshots-shapes.js'), shape, file, String(SHAPE_MB)],
      { stdio: ['ignore', 'ignore', 'inherit'] })
    log(`made ${file}: ${(sizeOf(file) / 1e6).toFixed(0)} MB, ${((Date.now() - t0) / 1000).toFixed(0)} s`)
  }
}

function command (tool, file) {
  const node = [process.execPath]
  if (tool === 'cprof') return [...node, path.join(ROOT, 'bin', 'cprof.js'), 'snapshot', file, '--json']
  return [...node, `--max-old-space-size=${HEAP_MB}`, path.join(__dirname, 'snapshots-child.js'), tool, file]
}

// One run under /usr/bin/time in its own process group (killed whole at the
// limit): { status: 'ok'|'failed'|'did not finish', s, rssKB, error }.
function runOnce (tool, file) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint()
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %M %U %S', ...command(tool, file)],
      { stdio: ['ignore', 'ignore', 'pipe'], detached: true })
    let err = ''
    child.stderr.on('data', (d) => { err = (err + d).slice(-4000) })
    let killed = false
    const timer = setTimeout(() => { killed = true; try { process.kill(-child.pid, 'SIGKILL') } catch {} }, LIMIT_S * 1000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      const s = Number(process.hrtime.bigint() - t0) / 1e9
      const m = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(err)
      const rssKB = m ? Number(m[2]) : null
      const cpu = m ? Number(m[3]) + Number(m[4]) : null
      if (killed) return resolve({ status: 'did not finish', s, rssKB })
      if (code !== 0) {
        const lines = err.split('\n').filter((l) => l.trim() && !/^TIME |Command exited|^\s+at /.test(l))
        return resolve({ status: 'failed', s, rssKB, error: (lines.pop() || `exit ${code}`).slice(0, 200) })
      }
      resolve({ status: 'ok', s: m ? Number(m[1]) : s, cpu, rssKB })
    })
  })
}

function summarise (runs, fileBytes) {
  const ok = runs.filter((r) => r.status === 'ok')
  if (!ok.length) return { status: runs[0].status, error: runs[0].error, s: runs[0].s, rssMB: runs[0].rssKB && runs[0].rssKB / 1024 }
  const rssMB = Math.max(...ok.map((r) => r.rssKB)) / 1024
  return { status: 'ok', s: median(ok.map((r) => r.s)), cpu: median(ok.map((r) => r.cpu)), rssMB, rssPerFile: rssMB * 1048576 / fileBytes }
}

function table (results) {
  const out = ['| file | tool | time to report (CPU) | peak RSS (MiB) | RSS / file | cprof faster by |', '| --- | --- | --- | --- | --- | --- |']
  for (const r of results) {
    const others = Object.entries(r.tools).filter(([t, v]) => t !== 'cprof' && v.status === 'ok').map(([, v]) => v.s)
    const c = r.tools.cprof
    for (const [tool, v] of Object.entries(r.tools)) {
      const time = v.status === 'ok' ? `${v.s.toFixed(1)} s (${v.cpu.toFixed(1)} s)` : `${v.status} (${v.s.toFixed(0)} s${v.error ? ': ' + v.error : ''})`
      const rss = v.rssMB ? `${v.rssMB.toFixed(0)}` : '-'
      const ratio = v.rssPerFile ? `${v.rssPerFile.toFixed(2)}x` : '-'
      const speed = tool === 'cprof' && c.status === 'ok' && others.length ? `${(Math.min(...others) / c.s).toFixed(1)}x` : ''
      out.push(`| ${r.shape ? r.shape + ' ' : ''}${(r.bytes / 1e6).toFixed(0)} MB | ${tool} | ${time} | ${rss} | ${ratio} | ${speed} |`)
    }
  }
  return out.join('\n')
}

// cprof's seconds per MB (wall and CPU) on each shape, and over the app
// file nearest in size (the benign shape): the target is within 2x.
function perMB (results) {
  const rate = (r, k) => r.tools.cprof && r.tools.cprof.status === 'ok' ? r.tools.cprof[k] / (r.bytes / 1e6) : null
  const apps = results.filter((r) => !r.shape && rate(r, 's') !== null)
  const lines = []
  for (const r of results.filter((x) => x.shape)) {
    const app = apps.sort((x, y) => Math.abs(x.bytes - r.bytes) - Math.abs(y.bytes - r.bytes))[0]
    if (rate(r, 's') === null) { lines.push(`cprof on ${r.shape}: ${r.tools.cprof ? r.tools.cprof.status : 'not run'}`); continue }
    const ms = (x, k) => `${(rate(x, k) * 1000).toFixed(1)} ms/MB`
    lines.push(`cprof on ${r.shape}: ${ms(r, 's')} (CPU ${ms(r, 'cpu')})` + (app
      ? `, app ${(app.bytes / 1e6).toFixed(0)} MB ${ms(app, 's')} (CPU ${ms(app, 'cpu')}): ${(rate(r, 's') / rate(app, 's')).toFixed(2)}x (CPU ${(rate(r, 'cpu') / rate(app, 'cpu')).toFixed(2)}x)`
      : ''))
  }
  return lines.join('\n')
}

async function main () {
  if (TOOLS.includes('memlab')) ensureMemlab()
  if (SIZES.length) await makeSnapshots()
  makeShapes()
  const results = []
  const files = [...SIZES.map((mb) => [fileFor(mb), null]), ...SHAPES.map((s) => [shapeFile(s), s])]
  for (const [file, shape] of files) {
    const bytes = sizeOf(file)
    const rounds = bytes > 1e9 ? Number(a['rounds-big']) : Number(a.rounds)
    const runs = Object.fromEntries(TOOLS.map((t) => [t, []]))
    for (let i = 0; i < rounds; i++) {
      for (const tool of i % 2 ? [...TOOLS].reverse() : TOOLS) {
        // a tool that did not finish or failed once is not run again on this file
        if (runs[tool].some((r) => r.status !== 'ok')) continue
        const r = await runOnce(tool, file)
        log(`${shape ? shape + " " : ""}${(bytes / 1e6).toFixed(0)} MB ${tool} round ${i + 1}: ${r.status} ${r.s.toFixed(1)} s ${r.rssKB ? (r.rssKB / 1024).toFixed(0) + ' MB' : ''} ${r.error || ''}`)
        runs[tool].push(r)
      }
    }
    results.push({ file: path.basename(file), shape, bytes, runs, tools: Object.fromEntries(TOOLS.map((t) => [t, summarise(runs[t], bytes)])) })
  }
  const text = [table(results), perMB(results)].filter(Boolean).join('\n\n')
  process.stdout.write(text + '\n')
  const out = a.out || path.join(__dirname, 'results', `${new Date().toISOString().slice(0, 10)}-snapshots.json`)
  const memlabVersion = TOOLS.includes('memlab') // installed on first use only
    ? JSON.parse(fs.readFileSync(path.join(__dirname, '.cache', 'memlab', 'node_modules', 'memlab', 'package.json'), 'utf8')).version
    : null
  fs.writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, memGB: Math.round(os.totalmem() / 2 ** 30),
    limitS: LIMIT_S, memlab: memlabVersion, results, table: text
  }, null, 2) + '\n')
  log(`wrote ${path.relative(process.cwd(), out)}`)
  if (!a.keep) fs.rmSync(a.dir, { recursive: true, force: true })
}

// memlab from npm into bench/.cache/memlab/ (as bench/nodes.js installs Node).
function ensureMemlab () {
  const dir = path.join(__dirname, '.cache', 'memlab')
  if (fs.existsSync(path.join(dir, 'node_modules', '@memlab', 'heap-analysis'))) return
  log('installing memlab from npm into bench/.cache/memlab/ …')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n')
  // --ignore-scripts: its puppeteer would download a browser, which the analysis does not use
  execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund',
    '--ignore-scripts', 'memlab@2'], { stdio: ['ignore', 'ignore', 'inherit'] })
}

main().catch((err) => { process.stderr.write(`${err.stack}\n`); process.exitCode = 1 })

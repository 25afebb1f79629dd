'use strict'
// The heap trend's evidence (issue 30; docs/recorder.md, Heap trend):
// an HTTP server (bench/leaks-child.js) under a steady, bounded load on
// 127.0.0.1 with churn of short-lived allocations and the recorder's heap
// windows at their defaults (10 s windows, 60 s heap windows, the default
// heapInterval, a 15-window trend; --heap-window-ms and --heap-interval to
// try others), in three setups:
//   leak   a Map gaining --leak-kb KB/min (default 200) from one function,
//          rememberSession: when is it the top growing site (and stays so)?
//          --runs runs of --minutes minutes (default 5 x 10)
//   clean  the same server without the leak for --clean-minutes (default 30):
//          any growing site reported is a false positive
//   burst  a --burst-mb MB cache (default 50) filled once at minute 1 (10 s):
//          is it still reported 8 heap windows after it stopped?
// node bench/leaks.js [--quick] [--sections leak,clean,burst] [--minutes M]
//   [--runs N] [--clean-minutes M] [--window-ms MS] [--leak-kb KB]
//   [--burst-mb MB] [--rps R] [--heap-window-ms MS] [--heap-interval BYTES] [--parallel]
// --parallel: the runs and sections at once, each its own server and load
// (light: --rps each), so the evidence takes the longest section's time.
// --quick: 1 s windows and heap windows, a 20x faster leak, 1.5-minute runs, 2 runs: a smoke
// test of the script, not the evidence.
const { spawn } = require('node:child_process')
const http = require('node:http')
const path = require('node:path')
const { parseArgs } = require('node:util')

const { values: a } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    sections: { type: 'string', default: 'leak,clean,burst' },
    minutes: { type: 'string' },
    runs: { type: 'string' },
    'clean-minutes': { type: 'string' },
    'window-ms': { type: 'string' },
    'leak-kb': { type: 'string' },
    'burst-mb': { type: 'string' },
    rps: { type: 'string', default: '50' },
    'heap-interval': { type: 'string' },
    'heap-window-ms': { type: 'string' },
    parallel: { type: 'boolean' }
  }
})
const Q = a.quick
const cfg = {
  minutes: Number(a.minutes ?? (Q ? 1.5 : 10)),
  runs: Number(a.runs ?? (Q ? 2 : 5)),
  cleanMinutes: Number(a['clean-minutes'] ?? (Q ? 1.5 : 30)),
  windowMs: Number(a['window-ms'] ?? (Q ? 1000 : 10000)),
  heapWindowMs: Number(a['heap-window-ms'] ?? (Q ? 1000 : 60000)),
  leakBytesPerMin: Number(a['leak-kb'] ?? (Q ? 4000 : 200)) * 1000,
  burstBytes: Number(a['burst-mb'] ?? (Q ? 10 : 50)) * 1024 * 1024,
  rps: Number(a.rps),
  heapInterval: a['heap-interval'] ? Number(a['heap-interval']) : undefined,
  parallel: Boolean(a.parallel)
}

// A bounded load: rps requests a second on 127.0.0.1 until stop().
function load (port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
  let sent = 0
  const t = setInterval(() => {
    for (let i = 0; i < cfg.rps / 10; i++) {
      sent++
      http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => res.resume()).on('error', () => {})
    }
  }, 100)
  return { stop () { clearInterval(t); agent.destroy(); return sent } }
}

// One child for ms; resolves with its { at, trend } lines.
function runChild (childCfg, ms) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [path.join(__dirname, 'leaks-child.js'), JSON.stringify(childCfg)],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CPROF_RUN_DIR: path.join(require('node:os').tmpdir(), `cprof-bench-leaks-${process.pid}`) } })
    let out = ''
    let l = null
    c.stdout.on('data', (d) => {
      out += d
      if (!l) {
        const m = /\{"port":(\d+)\}/.exec(out)
        if (m) {
          l = load(Number(m[1]))
          setTimeout(() => c.kill(), ms)
        }
      }
    })
    c.on('error', reject)
    c.on('close', () => {
      const sent = l ? l.stop() : 0
      resolve({ sent, lines: out.split('\n').filter((x) => x.startsWith('{"at"')).map((x) => JSON.parse(x)) })
    })
  })
}

const top = (t) => (t.top[0] ? t.top[0].functionName : null)
// The recording's start: the first heap window's end (minus one heap window).
const startOf = (lines) => {
  const first = lines.find((x) => x.trend.windows > 0)
  return first ? first.trend.from - cfg.heapWindowMs : 0
}
const min = (ms) => (ms / 60000).toFixed(1)

// Runs fn(0) … fn(n - 1) one after another, or at once with --parallel.
async function each (n, fn) {
  const ks = Array.from({ length: n }, (_, k) => k)
  if (cfg.parallel) return Promise.all(ks.map(fn))
  const out = []
  for (const k of ks) out.push(await fn(k))
  return out
}

async function leak () {
  return each(cfg.runs, async (i) => {
    const r = await runChild({ leakBytesPerMin: cfg.leakBytesPerMin, windowMs: cfg.windowMs, heapWindowMs: cfg.heapWindowMs, heapInterval: cfg.heapInterval }, cfg.minutes * 60000)
    const start = startOf(r.lines)
    // First window from which rememberSession is the top site in every later line.
    let found = null
    for (let k = r.lines.length - 1; k >= 0 && top(r.lines[k].trend) === 'rememberSession'; k--) found = r.lines[k].trend.to
    const others = new Set(r.lines.flatMap((x) => x.trend.top.map((s) => s.functionName)).filter((n) => n !== 'rememberSession'))
    const last = r.lines.at(-1)?.trend
    const row = {
      run: i + 1,
      foundAfterMin: found === null ? null : Number(min(found - start)),
      perMinute: last?.top[0]?.perMinute ?? null,
      share: last?.top[0]?.share ?? null,
      otherSitesReported: [...others],
      windows: r.lines.length,
      requests: r.sent
    }
    console.log(JSON.stringify({ section: 'leak', ...row }))
    return row
  })
}

async function clean () {
  const r = await runChild({ windowMs: cfg.windowMs, heapWindowMs: cfg.heapWindowMs, heapInterval: cfg.heapInterval }, cfg.cleanMinutes * 60000)
  const reported = r.lines.filter((x) => x.trend.top.length > 0)
  const row = {
    minutes: cfg.cleanMinutes,
    windows: r.lines.length,
    linesWithAGrowingSite: reported.length,
    sites: [...new Set(reported.flatMap((x) => x.trend.top.map((s) => s.functionName)))],
    // each reported window: when (minutes from the start) and what, with its evidence
    reports: reported.map((x) => ({
      afterMin: Number(min(x.trend.to - startOf(r.lines))),
      windows: x.trend.windows,
      top: x.trend.top.map(({ functionName, url, line, perMinute, z, live, series }) => ({ functionName, url, line, perMinute, z, live, series }))
    })),
    heapGrowingLines: r.lines.filter((x) => x.trend.growing).length,
    requests: r.sent
  }
  console.log(JSON.stringify({ section: 'clean', ...row }))
  return row
}

async function burst () {
  const at = 60000
  const ms = at + 10000 + cfg.heapWindowMs * 8
  const r = await runChild({ burstBytes: cfg.burstBytes, burstAtMs: at, windowMs: cfg.windowMs, heapWindowMs: cfg.heapWindowMs, heapInterval: cfg.heapInterval }, ms)
  const done = startOf(r.lines) + at + 10000
  const reportedWhile = r.lines.some((x) => top(x.trend) === 'fillCacheOnce')
  const after = r.lines.filter((x) => x.trend.to > done && x.trend.top.some((s) => s.functionName === 'fillCacheOnce'))
  const row = {
    burstMb: cfg.burstBytes / 1024 / 1024,
    reportedWhileFilling: reportedWhile,
    lastReportedAfterStopSec: after.length ? (after.at(-1).trend.to - done) / 1000 : null,
    reportedAtEnd: r.lines.length ? r.lines.at(-1).trend.top.some((s) => s.functionName === 'fillCacheOnce') : null,
    liveAtEnd: r.lines.at(-1)?.trend.live ?? null
  }
  console.log(JSON.stringify({ section: 'burst', ...row }))
  return row
}

async function main () {
  const sections = a.sections.split(',')
  console.log(JSON.stringify({ node: process.version, ...cfg }))
  const out = {}
  const parts = { leak, clean, burst }
  const names = sections.filter((s) => parts[s])
  const rows = await each(names.length, (k) => parts[names[k]]())
  names.forEach((s, k) => { out[s] = rows[k] })
  if (out.leak) {
    const f = out.leak.map((r) => r.foundAfterMin)
    const ok = f.every((x) => x !== null && x <= cfg.minutes)
    console.log(`leak: top growing site in ${f.filter((x) => x !== null).length}/${f.length} runs, after ${f.join(', ')} min: ${ok ? 'PASS' : 'FAIL'}`)
  }
  if (out.clean) console.log(`clean: ${out.clean.linesWithAGrowingSite} of ${out.clean.windows} windows named a growing site over ${out.clean.minutes} min: ${out.clean.linesWithAGrowingSite === 0 ? 'PASS' : 'FAIL'}`)
  if (out.burst) console.log(`burst: reported at the end: ${out.burst.reportedAtEnd}: ${out.burst.reportedAtEnd === false ? 'PASS' : 'FAIL'}`)
}

main().catch((err) => { console.error(err); process.exitCode = 1 })

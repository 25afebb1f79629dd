'use strict'
// The HTTP measurement bench/run.js and bench/recorder.js share: the server
// (bench/http-child.js: examples/server.js, or with o.app 'real'
// bench/real-app.js) in its own process, under
// autocannon load from the bench's process, on separate cores; warmed up
// until its throughput is stable; profiling started, then the measured load
// with the server's CPU time marked at both ends; and the A/A interval that
// decides when enough rounds have run. See docs/benchmarks.md.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync, spawn } = require('node:child_process')
const { meanInterval } = require('./stats')
const { runLoad } = require('../examples/load')

// Each app's routes, cycled by every connection of the load.
const APP_ROUTES = {
  server: () => require('../examples/server').ROUTES,
  real: () => require('./real-app').ROUTES
}

// o: { connections, httpSeconds, warmup (max 1 s warm-up loads), pin (bool),
//      app ('server': examples/server.js, the default; 'real': bench/real-app.js) }
function createHttpBench (o) {
  const app = o.app || 'server'
  if (!APP_ROUTES[app]) throw new Error(`unknown app ${app} (${Object.keys(APP_ROUTES).join(', ')})`)
  const routes = APP_ROUTES[app]()
  // The server and the load generator (autocannon, in this process) on
  // separate cores, so neither takes the other's CPU time: with taskset, on
  // a machine of 2+ cores. PIN.server / PIN.load / PIN.all: cpu lists.
  const PIN = (() => {
    if (!o.pin || os.cpus().length < 2) return null
    try { execFileSync('taskset', ['-V'], { stdio: 'ignore' }) } catch { return null }
    const last = os.cpus().length - 1
    return { server: String(last), load: last > 1 ? `0-${last - 1}` : '0', all: `0-${last}` }
  })()

  function pinSelf (cpus) {
    if (PIN) execFileSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' })
  }

  // Fixed connections, bounded duration, loopback only. A warm-up load may
  // see no answer at all (a cold server's first responses can take over its
  // 1 s); a measured one may not.
  async function load (port, seconds, { warm = false } = {}) {
    const r = await runLoad({ url: `http://127.0.0.1:${port}`, seconds, connections: o.connections, routes })
    const errors = r.errors + r.timeouts + r.non2xx
    if ((r.requests.total === 0 && !warm) || errors > 0) throw new Error(`load: ${r.requests.total} requests, ${errors} errors`)
    return { rps: r.requests.total / (r.duration || seconds), p99: r.latency.p99, total: r.requests.total }
  }

  // Unmeasured 1 s loads until two in a row agree within 3% (JIT warm,
  // caches full), at most o.warmup of them. Returns how many ran.
  async function warmUp (port) {
    let last = null
    for (let i = 1; i <= o.warmup; i++) {
      const { rps } = await load(port, 1, { warm: true })
      if (last !== null && rps > 0 && Math.abs(rps / last - 1) < 0.03) return i
      last = rps
    }
    return o.warmup
  }

  // One run. cfg: { kind, approach ('none': no profiler), interval,
  // heapInterval (the recorder's heap windows, bytes; null: its default), env,
  // settle (s of unmeasured load after profiling starts, default 0) }.
  // Approach 'v8cpuprof': V8's own continuous sampling, `node --cpu-prof
  // --cpu-prof-interval <interval>` for the child's whole life (the floor
  // for continuous sampling at that interval); the child exits normally at
  // the end, its file is checked for samples, then deleted.
  async function httpRun (node, cfg) {
    const script = path.join(__dirname, 'http-child.js')
    const v8dir = cfg.approach === 'v8cpuprof' ? fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-bench-v8prof-')) : null
    const execArgv = v8dir ? ['--cpu-prof', '--cpu-prof-interval', String(cfg.interval || 10000), '--cpu-prof-dir', v8dir] : []
    const nodeArgs = [...execArgv, script, '--app', app]
    const [cmd, args] = PIN ? ['taskset', ['-c', PIN.server, node.bin, ...nodeArgs]] : [node.bin, nodeArgs]
    const child = spawn(cmd, args, { env: { ...process.env, ...cfg.env }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
    let stderr = ''
    child.stderr.on('data', (d) => { stderr += d })
    const exited = new Promise((resolve) => child.on('exit', resolve))
    const next = (what) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`http child: no ${what} (stderr: ${stderr.trim()})`)), 60000 + o.httpSeconds * 1000)
      const onMsg = (m) => {
        if (m.error || m[what] !== undefined) {
          clearTimeout(timer)
          child.off('message', onMsg)
          child.off('exit', onExit)
          if (m.error) reject(new Error(m.error))
          else resolve(m)
        }
      }
      const onExit = (code) => { clearTimeout(timer); reject(new Error(`http child exited (${code}) waiting for ${what}: ${stderr.trim()}`)) }
      child.on('message', onMsg)
      child.once('exit', onExit)
    })
    try {
      const { port } = await next('port')
      const warmups = o.warmup > 0 ? await warmUp(port) : 0
      child.send({ cmd: 'start', kind: cfg.kind, approach: cfg.approach, interval: cfg.interval, heapInterval: cfg.heapInterval })
      await next('started')
      if (cfg.settle) await load(port, cfg.settle)
      child.send({ cmd: 'mark' })
      const m0 = (await next('mark')).mark
      const l = await load(port, o.httpSeconds)
      child.send({ cmd: 'mark' })
      const m1 = (await next('mark')).mark
      child.send({ cmd: 'stop' })
      let s = await next('stopped')
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, v8dir ? 30000 : 5000).unref())])
      if (v8dir) s = { ...s, ...checkV8Profile(v8dir) }
      // The server's CPU time per request served in the measured window
      // (all its threads): what profiling adds to each request; unlike
      // requests/s it does not move when a neighbour gets less of the cores.
      const n = Math.max(1, m1.served - m0.served)
      const cpuUsPerReq = (m1.cpuUs - m0.cpuUs) / n
      // The same per thread name: a thread that exited in between counts as 0.
      const threadsUsPerReq = {}
      for (const [name, us] of Object.entries(m1.threads || {})) threadsUsPerReq[name] = Math.max(0, us - ((m0.threads || {})[name] || 0)) / n
      return { rps: l.rps, p99: l.p99, requests: l.total, cpuUsPerReq, threadsUsPerReq, warmups, samples: s.samples, intervalUs: s.intervalUs }
    } finally {
      if (child.exitCode === null) child.kill()
      if (v8dir) fs.rmSync(v8dir, { recursive: true, force: true })
    }
  }

  // The one .cpuprofile `--cpu-prof` wrote at exit: its samples and mean
  // interval (µs), or an error if there is none.
  function checkV8Profile (dir) {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
    if (files.length !== 1) throw new Error(`--cpu-prof: ${files.length} profiles in ${dir} (did the child exit normally?)`)
    const p = JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'))
    if (!(p.samples && p.samples.length > 0)) throw new Error('--cpu-prof: a profile without samples')
    return { samples: p.samples.length, nodes: p.nodes.length, intervalUs: (p.endTime - p.startTime) / p.samples.length }
  }

  // runRounds with this process (the load generator) on its own cores, and
  // the A/A interval logged after each round as `[label] http after …`.
  async function rounds ({ label, log, ...spec }) {
    pinSelf(PIN ? PIN.load : '')
    try {
      return await runRounds({
        ...spec,
        onRound: (r, iv, spent) => log(`  [${label}] http after ${r} rounds: A/A interval ±${(iv.rps * 100).toFixed(1)}% req/s, ` +
          `±${(iv.cpu * 100).toFixed(1)}% CPU/req (${(spent / 60000).toFixed(1)} min)`)
      })
    } finally {
      pinSelf(PIN ? PIN.all : '')
    }
  }

  // For reports: where the server and the load generator ran.
  const pinning = PIN ? `server on cpu ${PIN.server}, load on cpu ${PIN.load}` : 'not pinned'

  return { pinning, app, routes, load, httpRun, rounds }
}

// results: [{ c: { approach }, m }] in run order, baselines (approach
// 'none') between the others. The ratio of run k's `key` to the mean of the
// nearest baseline on each side.
function ratioToBaselines (results, k, key) {
  const isB = (j) => results[j].c.approach === 'none' && results[j].m
  const ns = []
  for (let j = k - 1; j >= 0; j--) if (isB(j)) { ns.push(results[j].m[key]); break }
  for (let j = k + 1; j < results.length; j++) if (isB(j)) { ns.push(results[j].m[key]); break }
  if (!ns.length || !results[k].m) return NaN
  return results[k].m[key] / (ns.reduce((a, b) => a + b, 0) / ns.length)
}

// The 95% interval of the mean A/A ratio (each baseline against its
// neighbouring baselines), for requests/s and CPU per request.
function aaIntervals (results) {
  const base = results.map((r, k) => ({ r, k })).filter(({ r }) => r.c.approach === 'none' && r.m)
  const ratios = (key) => base.map(({ k }) => ratioToBaselines(results, k, key))
  return { rps: meanInterval(ratios('rps')), cpu: meanInterval(ratios('cpuUsPerReq')) }
}

// Baseline between every group: B a b c B d e f B …, the group order
// reversed on odd rounds, so drift hits every configuration alike. At least
// `rounds` rounds; then more while the A/A interval of either judged measure
// is above `target` and `budgetMs` allows another round (at the pace of the
// ones so far). runOne(cfg) runs one and appends { c, m } (or { c, err }) to
// `results`. Returns { rounds, reached, rps, cpu }.
async function runRounds ({ groups, results, runOne, rounds, target, budgetMs, onRound = () => {} }) {
  const t0 = Date.now()
  const baseline = { approach: 'none', kind: 'cpu' }
  await runOne(baseline)
  for (let r = 0; ; r++) {
    const gs = r % 2 ? [...groups].reverse().map((g) => [...g].reverse()) : groups
    for (const g of gs) {
      for (const c of g) await runOne(c)
      await runOne(baseline)
    }
    if (r + 1 < rounds) continue
    const iv = aaIntervals(results)
    const spent = Date.now() - t0
    onRound(r + 1, iv, spent)
    if (iv.rps <= target && iv.cpu <= target) return { rounds: r + 1, reached: true, ...iv }
    if (spent / (r + 1) * (r + 2) > budgetMs) return { rounds: r + 1, reached: false, ...iv }
  }
}

module.exports = { createHttpBench, ratioToBaselines }

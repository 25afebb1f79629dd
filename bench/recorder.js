'use strict'
// The flight recorder's costs (issue 12), as ratios in one run:
//   rotation  main-thread pause per window rotation (the recorder: start the
//             next console profile, end the current one) against a plain
//             Profiler.stop + Profiler.start on one inspector session, same
//             workload (bench/workload.js), window length and interval.
//             Target: median at most 0.5x plain.
//   http      examples/server.js under autocannon with the recorder at its
//             defaults against no profiler, alternating runs (B R B R … B):
//             requests/s and server CPU per request. Target: under 2%.
//   rss       RSS of the HTTP app under load with the recorder at its
//             defaults for --rss-minutes (the issue asks 30): the growth
//             from the point the ring is full (minute 2; keep is 60 s) to the
//             end. Target: < 5 MB.
//
//   node bench/recorder.js [--quick] [--nodes 20,26] [--sections rotation,http,rss]
//        [--rotations N] [--window-ms MS] [--rounds N] [--http-seconds S]
//        [--rss-minutes M] [--out FILE]
const fs = require('node:fs')
const path = require('node:path')
const { execFile, fork } = require('node:child_process')
const { parseArgs } = require('node:util')
const { ensureNode } = require('./nodes')
const { summary } = require('./stats')
const { runLoad } = require('../examples/load')

const { values: opt } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    nodes: { type: 'string', default: '20,26' },
    sections: { type: 'string', default: 'rotation,http,rss' },
    rotations: { type: 'string' },
    'window-ms': { type: 'string' },
    rounds: { type: 'string' },
    'http-seconds': { type: 'string' },
    'rss-minutes': { type: 'string' },
    out: { type: 'string' }
  }
})
const Q = opt.quick
const O = {
  rotations: Number(opt.rotations || (Q ? 6 : 12)),
  windowMs: Number(opt['window-ms'] || (Q ? 1000 : 10000)),
  rounds: Number(opt.rounds || (Q ? 2 : 5)),
  httpSeconds: Number(opt['http-seconds'] || (Q ? 3 : 10)),
  rssMinutes: Number(opt['rss-minutes'] || (Q ? 1 : 30)),
  interval: 10000
}
const sections = opt.sections.split(',')
const log = (line) => process.stderr.write(`${line}\n`)
const results = { date: new Date().toISOString(), options: O, nodes: [] }

function child (node, cfg, timeout) {
  return new Promise((resolve, reject) => {
    execFile(node.bin, [path.join(__dirname, 'recorder-child.js'), JSON.stringify(cfg)],
      { timeout, maxBuffer: 16 << 20, encoding: 'utf8' }, (err, stdout, stderr) => {
        const line = stdout.trim().split('\n').pop()
        if (err || !line) reject(new Error(`recorder-child ${cfg.mode || cfg.approach}: ${stderr.trim().split('\n').slice(-3).join(' ') || err}`))
        else resolve(JSON.parse(line))
      })
  })
}

async function sectionRotation (node, out) {
  const pauses = { recorder: [], plain: [] }
  for (let r = 0; r < O.rounds; r++) {
    for (const approach of r % 2 ? ['plain', 'recorder'] : ['recorder', 'plain']) {
      const res = await child(node, { mode: 'rotation', approach, rotations: O.rotations, windowMs: O.windowMs, interval: O.interval, functions: 2000 },
        (O.rotations * O.windowMs + 60000) * 2)
      pauses[approach].push(...res.pauses)
      log(`  [${node.version}] rotation ${approach} round ${r + 1}: median ${summary(res.pauses).median.toFixed(2)} ms, max ${summary(res.pauses).max.toFixed(2)} ms, ${res.samples} samples`)
    }
  }
  const rec = summary(pauses.recorder)
  const plain = summary(pauses.plain)
  out.rotation = { recorder: rec, plain, ratioMedian: rec.median / plain.median, ratioMax: rec.max / plain.max }
  out.rotation.verdict = out.rotation.ratioMedian <= 0.5 ? 'PASS' : 'MISS'
}

async function load (port, seconds) {
  const r = await runLoad({ url: `http://127.0.0.1:${port}`, seconds, connections: 8 })
  const errors = r.errors + r.timeouts + r.non2xx
  if (r.requests.total === 0 || errors > 0) throw new Error(`load: ${r.requests.total} requests, ${errors} errors`)
  return { rps: r.requests.total / (r.duration || seconds), p99: r.latency.p99 }
}

// One run of bench/http-child.js (the same child bench/run.js uses).
async function httpRun (node, approach) {
  const c = fork(path.join(__dirname, 'http-child.js'), [], { execPath: node.bin, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  let stderr = ''
  c.stderr.on('data', (d) => { stderr += d })
  const next = (what) => new Promise((resolve, reject) => {
    const onMsg = (m) => {
      if (m.error) reject(new Error(m.error))
      else if (m[what] !== undefined) { c.off('message', onMsg); resolve(m) }
    }
    c.on('message', onMsg)
    c.once('exit', (code) => reject(new Error(`http child exited ${code}: ${stderr}`)))
  })
  try {
    const { port } = await next('port')
    await load(port, 1)
    c.send({ cmd: 'start', kind: 'cpu', approach, interval: null })
    await next('started')
    // The recorder's first windows fill the ring during this part.
    await load(port, 1)
    c.send({ cmd: 'mark' })
    const m0 = (await next('mark')).mark
    const l = await load(port, O.httpSeconds)
    c.send({ cmd: 'mark' })
    const m1 = (await next('mark')).mark
    c.send({ cmd: 'stop' })
    const s = await next('stopped')
    return { rps: l.rps, p99: l.p99, cpuUsPerReq: (m1.cpuUs - m0.cpuUs) / Math.max(1, m1.served - m0.served), samples: s.samples }
  } finally {
    if (c.exitCode === null) c.kill()
  }
}

async function sectionHttp (node, out) {
  const seq = ['none']
  for (let r = 0; r < O.rounds; r++) seq.push('recorder', 'none')
  const runs = []
  for (const a of seq) {
    const m = await httpRun(node, a)
    if (a === 'recorder' && !(m.samples > 0)) throw new Error('the recorder dumped no samples')
    runs.push({ a, m })
    log(`  [${node.version}] http ${a}: ${m.rps.toFixed(0)} req/s, ${m.cpuUsPerReq.toFixed(1)} µs CPU/req`)
  }
  const ratios = { rps: [], cpuUsPerReq: [] }
  const aa = { rps: [], cpuUsPerReq: [] }
  runs.forEach(({ a, m }, k) => {
    if (a !== 'recorder') return
    for (const key of Object.keys(ratios)) ratios[key].push(m[key] / ((runs[k - 1].m[key] + runs[k + 1].m[key]) / 2))
  })
  // A/A: each baseline against the next one, the noise floor of the ratios.
  const base = runs.filter((r) => r.a === 'none')
  for (let i = 1; i < base.length; i++) for (const key of Object.keys(aa)) aa[key].push(base[i].m[key] / base[i - 1].m[key])
  const rps = summary(ratios.rps)
  const cpu = summary(ratios.cpuUsPerReq)
  const noise = Math.max(...aa.rps.map((x) => Math.abs(1 - x)), ...aa.cpuUsPerReq.map((x) => Math.abs(1 - x)))
  const overhead = Math.max(1 - rps.median, cpu.median - 1)
  out.http = {
    rpsRatio: rps,
    cpuPerRequestRatio: cpu,
    aaNoise: noise,
    overhead,
    verdict: noise > 0.02 ? 'NOISY' : overhead < 0.02 ? 'PASS' : 'MISS'
  }
}

// One long HTTP run: the server child under continuous load for --rss-minutes.
async function rssRun (node, recorder) {
  const c = fork(path.join(__dirname, 'recorder-child.js'), [JSON.stringify({ mode: 'rss', minutes: O.rssMinutes, recorder })],
    { execPath: node.bin, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  let stdout = ''
  c.stdout.on('data', (d) => { stdout += d })
  const { port } = await new Promise((resolve) => c.once('message', resolve))
  const end = Date.now() + O.rssMinutes * 60_000
  while (Date.now() < end - 1000) await load(port, Math.max(1, Math.min(30, Math.floor((end - Date.now()) / 1000))))
  await new Promise((resolve) => c.once('exit', resolve))
  const r = JSON.parse(stdout.trim().split('\n').pop())
  const from = r.rss.find(([s]) => s >= Math.min(120, O.rssMinutes * 60 / 2)) || r.rss[0]
  const last = r.rss.at(-1)
  return {
    fromSecond: from[0],
    toSecond: last[0],
    rssFromMiB: from[1] / 2 ** 20,
    rssToMiB: last[1] / 2 ** 20,
    growthMiB: (last[1] - from[1]) / 2 ** 20,
    ringBytes: last[2],
    windows: r.windows,
    evicted: r.evicted,
    lost: r.lost,
    failed: r.failed,
    points: r.rss
  }
}

// The recorder's server and a baseline server without it, side by side
// (same machine, same time, each under its own load).
async function sectionRss (node, out) {
  const [rec, base] = await Promise.all([rssRun(node, true), rssRun(node, false)])
  out.rss = { minutes: O.rssMinutes, recorder: rec, baseline: base, growthOverBaselineMiB: rec.growthMiB - base.growthMiB }
  out.rss.verdict = rec.growthMiB < 5 ? 'PASS' : 'MISS'
}

async function main () {
  for (const major of opt.nodes.split(',')) {
    const node = ensureNode(major, log)
    const out = { version: node.version }
    results.nodes.push(out)
    log(`Node ${node.version}`)
    for (const [name, fn] of [['rotation', sectionRotation], ['http', sectionHttp], ['rss', sectionRss]]) {
      if (!sections.includes(name)) continue
      try {
        await fn(node, out)
        log(`  ${name}: ${JSON.stringify(out[name], (k, v) => (k === 'points' ? undefined : v))}`)
      } catch (err) {
        out[name] = { failed: err.message }
        log(`  ${name} FAILED: ${err.message}`)
      }
    }
  }
  const file = opt.out || path.join(__dirname, 'results', `${results.date.slice(0, 10)}-recorder${Q ? '-quick' : ''}.json`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n')
  log(`wrote ${path.relative(process.cwd(), file)}`)
}

main().catch((err) => { log(err.stack); process.exit(1) })

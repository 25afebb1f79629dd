'use strict'
// The flight recorder's costs (issue 12), as ratios in one run:
//   rotation  main-thread pause per window rotation (the recorder: start the
//             next console profile, end the current one) against a plain
//             Profiler.stop + Profiler.start on one inspector session, same
//             workload (bench/workload.js), window length and interval.
//             Target: median at most 0.5x plain.
//   http      examples/server.js under autocannon with the recorder at its
//             defaults against no profiler, alternating runs (B R B R … B)
//             with bench/run.js's method (bench/http.js: pinned cores,
//             warm-up, rounds until the A/A interval is under --http-target
//             or --http-budget is spent): requests/s and server CPU per
//             request. Target: under 2%.
//             --app server,real: the same on each app in turn (server:
//             examples/server.js, the default; real: bench/real-app.js,
//             fastify + handlebars + marked + response schemas + sha1 ETags);
//             --v8-cpu-prof: V8's own continuous sampling (`node --cpu-prof
//             --cpu-prof-interval`, the floor for continuous sampling) at the
//             same interval in every round too, and the recorder's ratio to it
//             (issue 38: target within 1%); --interval US: both at US instead
//             of the recorder's default (10 ms).
//   rss       RSS of the HTTP app under load with the recorder at its
//             defaults for --rss-minutes (the issue asks 30), next to a
//             server without it: the growth from minute 5 (the ring is full
//             after keep, 60 s) to the end. Target: < 5 MB.
//
//   node bench/recorder.js [--quick] [--nodes 24,26] [--sections rotation,http,rss]
//        [--rotations N] [--window-ms MS] [--rounds N] [--http-seconds S]
//        [--http-target PCT] [--http-budget MIN] [--warmup N] [--no-pin]
//        [--rss-minutes M] [--heap] [--heap-interval BYTES] [--out FILE]
//        [--app server,real] [--v8-cpu-prof] [--interval US]
//   --heap: the recorder with heap windows too (recorder: { heap: true }),
//           in the http and rss sections: issue 30's cost of the heap trend
//           (http: the recorder without heap windows in every round too, and
//           the heap runs' CPU per request over theirs; 60 s runs);
//           --heap-interval: their sampling interval (default: the recorder's)
const fs = require('node:fs')
const path = require('node:path')
const { execFile, fork } = require('node:child_process')
const { parseArgs } = require('node:util')
const { ensureNode } = require('./nodes')
const { summary } = require('./stats')
const { createHttpBench, ratioToBaselines } = require('./http')

const { values: opt } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    nodes: { type: 'string', default: '24,26' },
    sections: { type: 'string', default: 'rotation,http,rss' },
    rotations: { type: 'string' },
    'window-ms': { type: 'string' },
    rounds: { type: 'string' },
    'http-seconds': { type: 'string' },
    'rss-minutes': { type: 'string' },
    'http-target': { type: 'string', default: '2' },
    'http-budget': { type: 'string' },
    warmup: { type: 'string' },
    'no-pin': { type: 'boolean', default: false },
    heap: { type: 'boolean', default: false },
    'heap-interval': { type: 'string' },
    app: { type: 'string', default: 'server' },
    'v8-cpu-prof': { type: 'boolean', default: false },
    interval: { type: 'string' },
    out: { type: 'string' }
  }
})
const Q = opt.quick
const O = {
  rotations: Number(opt.rotations || (Q ? 6 : 12)),
  windowMs: Number(opt['window-ms'] || (Q ? 1000 : 10000)),
  rounds: Number(opt.rounds || (Q ? 2 : 5)),
  // --heap: 60 s, so each measured window holds one heap window (their default)
  httpSeconds: Number(opt['http-seconds'] || (Q ? 3 : opt.heap ? 60 : 20)),
  httpTarget: Number(opt['http-target']) / 100,
  httpBudgetMs: Number(opt['http-budget'] || (Q ? 4 : 25)) * 60000,
  warmup: Number(opt.warmup || (Q ? 4 : 10)),
  rssMinutes: Number(opt['rss-minutes'] || (Q ? 1 : 30)),
  interval: 10000,
  // the http section's sampling interval for the recorder and --cpu-prof
  // (null: the recorder's default, and 10 ms for --cpu-prof)
  httpInterval: opt.interval ? Number(opt.interval) : null,
  apps: opt.app.split(','),
  v8CpuProf: opt['v8-cpu-prof']
}
const sections = opt.sections.split(',')
const httpBench = (app) => createHttpBench({ connections: 8, httpSeconds: O.httpSeconds, warmup: O.warmup, pin: !opt['no-pin'], app })
const HTTP = httpBench('server')
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

// examples/server.js under load, the recorder at its defaults against no
// profiler, with bench/run.js's method (bench/http.js): separate cores,
// warm-up until stable, B R B R … until the A/A interval of both measures is
// under --http-target or --http-budget is spent. The recorder starts after
// the warm-up and runs 1 s of load before the measured window opens, so the
// window holds its steady state: rotations (every 10 s) and the conversion of
// each finished window on a worker thread, whose CPU time is the server's.
async function sectionHttp (node, out) {
  out.http = {}
  for (const app of O.apps) {
    out.http[app] = {}
    try {
      await httpOneApp(node, out.http[app], httpBench(app))
    } catch (err) {
      out.http[app] = { failed: err.message }
      log(`  [${node.version}] http ${app} FAILED: ${err.message}`)
    }
    log(`  [${node.version}] http ${app}: ${JSON.stringify({ ...out.http[app], runs: undefined })}`)
  }
}

async function httpOneApp (node, res, HTTP) {
  const label = `${node.version} ${HTTP.app}`
  const results = []
  // A failed run is logged and kept as { c, err } (the ratios skip it, as
  // bench/run.js's do); the rounds go on.
  let failed = 0
  const runOne = async (c) => {
    try {
      const m = await HTTP.httpRun(node, c)
      if (c === recorder && !(m.samples > 0)) throw new Error('the recorder dumped no samples')
      results.push({ c, m })
      log(`  [${label}] http ${results.length} ${c.approach}: ${m.rps.toFixed(0)} req/s, ${m.cpuUsPerReq.toFixed(1)} µs CPU/req, warm-up ${m.warmups} s` +
        (m.samples ? `, ${m.samples} samples at ${Math.round(m.intervalUs)} µs` : '') +
        (m.threadsUsPerReq ? `; by thread ${Object.entries(m.threadsUsPerReq).filter(([, us]) => us >= 0.05).map(([t, us]) => `${t} ${us.toFixed(2)}`).join(', ')}` : ''))
    } catch (err) {
      failed++
      results.push({ c, err })
      log(`  [${label}] http ${c.approach} FAILED: ${err.message}`)
    }
  }
  // --heap: the recorder with heap windows as well (issue 30's cost), and
  // the recorder without them next to it in every round (B c h B h c B …),
  // so heap windows' own cost is the ratio of the two runs of a round.
  const heapInterval = opt['heap-interval'] ? Number(opt['heap-interval']) : null
  const recorder = { kind: 'cpu', approach: opt.heap ? 'recorderHeap' : 'recorder', interval: O.httpInterval, heapInterval, settle: 1 }
  const cpuOnly = { kind: 'cpu', approach: 'recorder', interval: O.httpInterval, settle: 1 }
  // V8's own --cpu-prof, from the child's start (its warm-up included), at
  // the recorder's interval; the same 1 s of load before the measured window.
  const v8 = { kind: 'cpu', approach: 'v8cpuprof', interval: O.httpInterval || 10000, settle: 1 }
  const group = opt.heap ? [cpuOnly, recorder] : [recorder]
  if (O.v8CpuProf) group.unshift(v8)
  const stop = await HTTP.rounds({
    label, log, groups: [group], results, runOne, rounds: O.rounds, target: O.httpTarget, budgetMs: O.httpBudgetMs
  })
  const mine = results.map((r, k) => k).filter((k) => results[k].c === recorder && results[k].m)
  const rps = summary(mine.map((k) => ratioToBaselines(results, k, 'rps')))
  const cpu = summary(mine.map((k) => ratioToBaselines(results, k, 'cpuUsPerReq')))
  // Judged as bench/run.js judges its targets: each measure against its own
  // A/A interval; above 5% the machine was too busy for a verdict.
  const judge = (cost, noise) => noise > 0.05 ? 'NOISY' : cost < 0.02 ? 'PASS' : 'MISS'
  const threadMedians = (pairs) => {
    const out = {}
    for (const [name, c] of pairs) {
      const runs = results.filter((r) => r.c === c && r.m && r.m.threadsUsPerReq)
      const names = new Set(runs.flatMap((r) => Object.keys(r.m.threadsUsPerReq)))
      // usPerReq: CPU µs per request; share: of the server's CPU in the
      // same run (a ratio within one run, but it grows as the app idles)
      out[name] = Object.fromEntries([...names].sort().map((t) => [t, {
        usPerReq: summary(runs.map((r) => r.m.threadsUsPerReq[t] || 0)).median,
        share: summary(runs.map((r) => (r.m.threadsUsPerReq[t] || 0) / r.m.cpuUsPerReq)).median,
        // ms of CPU per second of load: a profiler thread's own rate, which
        // does not move with how busy the app is (its share does)
        msPerS: summary(runs.map((r) => (r.m.threadsUsPerReq[t] || 0) * r.m.rps / 1000)).median
      }]))
    }
    return out
  }
  const medianOf = (c, key) => summary(results.filter((r) => r.c === c && r.m).map((r) => r.m[key])).median
  const out = res
  Object.assign(out, {
    app: HTTP.app,
    routes: HTTP.routes,
    interval: O.httpInterval,
    pinned: HTTP.pinning,
    rounds: stop.rounds,
    aaReached: stop.reached,
    aaRps: stop.rps,
    aaCpu: stop.cpu,
    rpsRatio: rps,
    cpuPerRequestRatio: cpu,
    verdictRps: judge(1 - rps.median, stop.rps),
    verdictCpu: judge(cpu.median - 1, stop.cpu),
    medians: {
      none: { rps: medianOf(results.find((r) => r.c.approach === 'none')?.c, 'rps'), cpuUsPerReq: medianOf(results.find((r) => r.c.approach === 'none')?.c, 'cpuUsPerReq') },
      [recorder.approach]: { rps: medianOf(recorder, 'rps'), cpuUsPerReq: medianOf(recorder, 'cpuUsPerReq') },
      ...(O.v8CpuProf && { v8cpuprof: { rps: medianOf(v8, 'rps'), cpuUsPerReq: medianOf(v8, 'cpuUsPerReq') } })
    },
    // CPU µs per request by thread name, median per approach: what each
    // profiler adds on its own threads (V8's sampler, the thread pool where
    // the recorder converts windows) is read here in CPU time, apart from
    // the main thread's app work, whose run-to-run spread is the A/A noise.
    threads: threadMedians([['none', results.find((r) => r.c.approach === 'none')?.c], [recorder.approach, recorder], ...(O.v8CpuProf ? [['v8cpuprof', v8]] : [])]),
    failedRuns: failed,
    runs: results.map(({ c, m, err }) => ({ approach: c.approach, ...(m || { error: err.message }) }))
  })
  if (O.v8CpuProf) {
    // V8's own sampling against no profiler, and the recorder against the
    // --cpu-prof run next to it (same round; issue 38's target: within 1%).
    const v8s = results.map((r, k) => k).filter((k) => results[k].c === v8 && results[k].m)
    out.v8RpsRatio = summary(v8s.map((k) => ratioToBaselines(results, k, 'rps')))
    out.v8CpuPerRequestRatio = summary(v8s.map((k) => ratioToBaselines(results, k, 'cpuUsPerReq')))
    out.v8VerdictCpu = judge(out.v8CpuPerRequestRatio.median - 1, stop.cpu)
    const pairs = mine.map((k) => [k, results[k - 1]?.c === v8 ? k - 1 : results[k + 1]?.c === v8 ? k + 1 : -1])
      .filter(([, j]) => j >= 0 && results[j].m)
    out.recorderOverV8Rps = summary(pairs.map(([k, j]) => results[k].m.rps / results[j].m.rps))
    out.recorderOverV8Cpu = summary(pairs.map(([k, j]) => results[k].m.cpuUsPerReq / results[j].m.cpuUsPerReq))
    const within1 = (cost, noise) => noise > 0.05 ? 'NOISY' : cost < 0.01 ? 'PASS' : 'MISS'
    out.verdictOverV8Cpu = within1(out.recorderOverV8Cpu.median - 1, stop.cpu)
    out.verdictOverV8Rps = within1(1 - out.recorderOverV8Rps.median, stop.rps)
  }
  if (opt.heap) {
    // Each heap run against the CPU-only run next to it (same round).
    const pairs = mine.map((k) => [k, results[k - 1]?.c === cpuOnly ? k - 1 : results[k + 1]?.c === cpuOnly ? k + 1 : -1])
      .filter(([, j]) => j >= 0 && results[j].m)
    const heapCost = summary(pairs.map(([k, j]) => results[k].m.cpuUsPerReq / results[j].m.cpuUsPerReq))
    out.heapOverRecorderCpu = heapCost
    // issue 30's target: heap windows under 1 % of CPU per request
    out.verdictHeap = stop.cpu > 0.05 ? 'NOISY' : heapCost.median - 1 < 0.01 ? 'PASS' : 'MISS'
  }
}

// One long HTTP run: the server child under continuous load for --rss-minutes.
async function rssRun (node, recorder) {
  const c = fork(path.join(__dirname, 'recorder-child.js'), [JSON.stringify({ mode: 'rss', minutes: O.rssMinutes, recorder, heap: opt.heap, heapInterval: opt['heap-interval'] && Number(opt['heap-interval']) })],
    { execPath: node.bin, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  let stdout = ''
  c.stdout.on('data', (d) => { stdout += d })
  const { port } = await new Promise((resolve) => c.once('message', resolve))
  const end = Date.now() + O.rssMinutes * 60_000
  while (Date.now() < end - 1000) await HTTP.load(port, Math.max(1, Math.min(30, Math.floor((end - Date.now()) / 1000))))
  await new Promise((resolve) => c.once('exit', resolve))
  const r = JSON.parse(stdout.trim().split('\n').pop())
  const from = r.rss.find(([s]) => s >= Math.min(300, O.rssMinutes * 60 / 2)) || r.rss[0]
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
  // The app's own memory moves under load (the baseline server's grew by
  // 14.5 MiB in a 30-minute run): the recorder's share is its growth beyond
  // the baseline's, measured side by side.
  out.rss.verdict = out.rss.growthOverBaselineMiB < 5 ? 'PASS' : 'MISS'
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

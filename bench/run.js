'use strict'
// cprof's benchmark suite: cprof against what a user would otherwise pick (no
// profiler, the plain inspector approach of @pm2/io, @datadog/pprof), in one
// run, as ratios, on Node 24 and Node 26. See docs/benchmarks.md.
//
//   npm run bench                     full run (up to ~1.5 h on 2 cores: HTTP rounds run until
//                                     their A/A interval is under 2%, at most 25 min per Node)
//   npm run bench -- --quick          short run (~10-15 min on 2 cores)
//   node bench/run.js --help          every option
//
// Every measurement runs in a fresh child process; configurations alternate
// (baseline, A, B, C, baseline, …) so drift and noise hit them alike, and every
// child checks its output is a real profile before any figure is kept.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { parseArgs } = require('node:util')
const { ensureNode, CACHE } = require('./nodes')
const { summary, meanInterval } = require('./stats')
const { createHttpBench, ratioToBaselines } = require('./http')

const HELP = `usage: node bench/run.js [options]
  --quick               short run: fewer rounds, shorter loads and profiles (~10-15 min on 2 cores)
  --nodes 24,26         Node majors to run on (others than the running one install from npm
                        into bench/.cache/; e.g. --nodes 20,22,24,26)
  --sections LIST       any of http,cpu,heap,report (default: all), and sourcemaps (only when
                        listed: stop → files on a minified bundle with source maps on and off)
  --rounds N            rounds per measurement (full 3, quick 2); HTTP: the least, then more
                        rounds until the A/A interval is under --http-target or the budget is spent
  --http-seconds S      measured load per HTTP run, whole seconds (full 8, quick 1)
  --http-target PCT     A/A interval (95% CI of the baseline ratio's mean) to stop at (2)
  --http-budget MIN     time the HTTP section may take per Node before it stops adding
                        rounds (full 25, quick 4)
  --warmup S            unmeasured load before profiling starts: 1 s loads until two in a
                        row agree within 3%, at most S of them (full 10, quick 4)
  --http-configs LIST   HTTP runs to keep, as kind:approach (e.g. cpu:cprof,heap:plain; kind or
                        approach may be *): fewer configurations, more rounds in the budget
  --no-pin              do not pin the server and the load generator to separate cores
  --connections N       autocannon connections (8)
  --seconds S           synthetic CPU profile length (full 60, quick 3)
  --heap-seconds S      synthetic heap profile length (full 10, quick 2)
  --functions N         functions in the synthetic workload (2000)
  --cpu-approaches L    synthetic CPU approaches (floor,v8api,plain,datadog,cprof; also cprof-session)
  --out FILE            results JSON (default bench/results/<date>[-quick].json)
  --docs                also write the run's header and missed targets into docs/benchmarks.md
  --docs-from FILE      only write those from a results JSON, and exit
                        (--readme and --readme-from: older names of the same two options)
`

const { values: opt } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    nodes: { type: 'string', default: '24,26' },
    sections: { type: 'string', default: 'http,cpu,heap,report' },
    rounds: { type: 'string' },
    'http-seconds': { type: 'string' },
    warmup: { type: 'string' },
    'http-target': { type: 'string', default: '2' },
    'http-budget': { type: 'string' },
    'http-configs': { type: 'string', default: '*:*' },
    'no-pin': { type: 'boolean', default: false },
    connections: { type: 'string', default: '8' },
    seconds: { type: 'string' },
    'heap-seconds': { type: 'string' },
    functions: { type: 'string', default: '2000' },
    'cpu-approaches': { type: 'string', default: 'floor,v8api,plain,datadog,cprof' },
    out: { type: 'string' },
    docs: { type: 'boolean', default: false },
    'docs-from': { type: 'string' },
    readme: { type: 'boolean', default: false }, // the table used to live in README.md
    'readme-from': { type: 'string' },
    help: { type: 'boolean', default: false }
  }
})
if (opt.help) {
  process.stdout.write(HELP)
  process.exit(0)
}

const Q = opt.quick
const O = {
  rounds: Number(opt.rounds ?? (Q ? 2 : 3)),
  // autocannon runs whole seconds
  httpSeconds: Math.max(1, Math.ceil(Number(opt['http-seconds'] ?? (Q ? 1 : 8)))),
  warmup: Math.ceil(Number(opt.warmup ?? (Q ? 4 : 10))),
  httpTarget: Number(opt['http-target']) / 100,
  httpBudgetMs: Number(opt['http-budget'] ?? (Q ? 4 : 25)) * 60000,
  connections: Number(opt.connections),
  seconds: Number(opt.seconds ?? (Q ? 3 : 60)),
  heapSeconds: Number(opt['heap-seconds'] ?? (Q ? 2 : 10)),
  functions: Number(opt.functions),
  reportNodes: Q ? 60000 : 150000,
  reportSamples: Q ? 400000 : 1000000
}
const SECTIONS = new Set(opt.sections.split(','))

const log = (s) => process.stderr.write(s + '\n')
const now = () => Number(process.hrtime.bigint()) / 1e6
let failures = 0

// --- child processes ----------------------------------------------------

// "cprof-session" is cprof over the public node:inspector Session.
function variant (name) {
  if (name === 'cprof-session') return { approach: 'cprof', env: { CPROF_TRANSPORT: 'session' } }
  return { approach: name, env: {} }
}

// The first line of a child's stderr that says what went wrong (not a stack frame).
function firstError (text) {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('at ') && !/^\S+\.js:\d+$/.test(l) && l !== '^')
  return lines.find((l) => /Error|error|ERR_/.test(l)) || lines[0] || '(no output)'
}

function execJson (bin, args, { env = {}, timeout = 300000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { env: { ...process.env, ...env }, timeout, maxBuffer: 64 << 20, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const line = stdout.trim().split('\n').pop()
        if (err || !line) {
          reject(new Error(`${path.basename(args.find((a) => a.endsWith('.js')) || bin)} failed` +
            `${err && err.killed ? ' (timed out)' : ''}: ${firstError(stderr || (err && err.message) || '')}`))
          return
        }
        resolve(JSON.parse(line))
      })
  })
}

const H = createHttpBench({ connections: O.connections, httpSeconds: O.httpSeconds, warmup: O.warmup, pin: !opt['no-pin'] })

// One HTTP run (bench/http.js): profiling starts after the warm-up and stops
// after the measured load.
function httpRun (node, cfg) {
  const v = variant(cfg.approach)
  return H.httpRun(node, { ...cfg, approach: v.approach, env: v.env })
}

function stopRun (node, kind, name, interval, seconds) {
  const v = variant(name)
  return execJson(node.bin, ['--expose-gc', path.join(__dirname, 'stop-child.js'), JSON.stringify({
    kind, approach: v.approach, seconds, functions: O.functions, interval
  })], { env: v.env, timeout: (seconds + 120) * 1000 })
}

// --- sections -----------------------------------------------------------

const rows = []   // { node, workload, measure, approach, setting, unit, values, ratios, ratioOf, excluded, failed }
const runs = []   // every raw measurement, for the JSON

function addRow (r) { rows.push(r); return r }

// --http-configs: kind:approach pairs, either side may be *.
function httpWanted (c) {
  return opt['http-configs'].split(',').some((pair) => {
    const [kind, approach = '*'] = pair.split(':')
    return (kind === '*' || kind === c.kind) && (approach === '*' || approach === c.approach)
  })
}

function httpConfigs () {
  return [
    { kind: 'cpu', approach: 'cprof', interval: 1000, setting: '1 ms' },
    { kind: 'cpu', approach: 'plain', interval: 1000, setting: '1 ms' },
    { kind: 'cpu', approach: 'datadog', interval: 1000, setting: '1 ms' },
    { kind: 'cpu', approach: 'cprof', interval: null, setting: '10 ms (default)' },
    { kind: 'cpu', approach: 'plain', interval: 10000, setting: '10 ms' },
    { kind: 'cpu', approach: 'datadog', interval: 10000, setting: '10 ms' },
    { kind: 'heap', approach: 'cprof', interval: null, setting: '32 KiB (default)' },
    { kind: 'heap', approach: 'plain', interval: 32768, setting: '32 KiB' },
    { kind: 'heap', approach: 'datadog', interval: 32768, setting: '32 KiB' }
  ].filter(httpWanted)
}

async function probeUnavailable (node, kind, approach) {
  const v = variant(approach)
  const r = await execJson(node.bin, ['-e',
    `const a=require(${JSON.stringify(path.join(__dirname, 'approaches'))});` +
    `console.log(JSON.stringify({why:a.unavailable(${JSON.stringify(kind)},${JSON.stringify(v.approach)})}))`])
  return r.why
}

const HTTP_MEASURES = [['requests/s', 'rps', 'req/s'], ['p99 latency', 'p99', 'ms'],
  ['server CPU per request', 'cpuUsPerReq', 'µs']]

const httpStops = {}

async function sectionHttp (node) {
  const configs = []
  for (const c of httpConfigs()) {
    const why = await probeUnavailable(node, c.kind, c.approach)
    if (why) {
      addRow({ node: node.version, workload: `http ${c.kind}`, measure: 'requests/s, p99', approach: c.approach, setting: c.setting, excluded: why })
    } else {
      configs.push(c)
    }
  }
  // Baseline between every group of three (bench/http.js rounds).
  const groups = []
  for (let i = 0; i < configs.length; i += 3) groups.push(configs.slice(i, i + 3))
  const results = []
  const runOne = async (c) => {
    const label = c.approach === 'none' ? 'baseline' : `${c.kind} ${c.approach} ${c.setting}`
    const t0 = now()
    try {
      const m = await httpRun(node, c)
      if (c.approach !== 'none' && !(m.samples > 0)) throw new Error('no samples in the profile')
      results.push({ c, m })
      runs.push({ section: 'http', node: node.version, kind: c.kind, approach: c.approach, interval: c.interval, ...m })
      log(`  [${node.version}] http ${results.length} ${label}: ${m.rps.toFixed(0)} req/s, p99 ${m.p99} ms, ` +
        `${m.cpuUsPerReq.toFixed(1)} µs CPU/req, warm-up ${m.warmups} s (${((now() - t0) / 1000).toFixed(1)} s)`)
    } catch (err) {
      failures++
      results.push({ c, err })
      log(`  [${node.version}] http ${label} FAILED: ${err.message}`)
    }
  }
  const stopWhy = await H.rounds({
    label: node.version, log, groups, results, runOne, rounds: O.rounds, target: O.httpTarget, budgetMs: O.httpBudgetMs
  })
  httpStops[node.version] = stopWhy
  // Ratios against the baseline runs next to each run.
  const ratio = (k, key) => ratioToBaselines(results, k, key)
  const collect = (pred) => results.map((r, k) => ({ r, k })).filter(({ r }) => r.m && pred(r.c))
  const base = collect((c) => c.approach === 'none')
  for (const [measure, key, unit] of HTTP_MEASURES) {
    addRow({
      node: node.version, workload: 'http', measure, approach: 'none (A/A)', setting: '-', unit,
      values: base.map(({ r }) => r.m[key]), ratios: base.map(({ k }) => ratio(k, key)), ratioOf: 'baseline'
    })
  }
  for (const c of configs) {
    const mine = collect((x) => x === c)
    const failed = results.some((r) => r.c === c && r.err)
    const actual = mine.length && mine[0].r.m.intervalUs
    const setting = actual && c.interval === null && actual !== 10000 ? `${c.setting} = ${actual} µs!` : c.setting
    for (const [measure, key, unit] of HTTP_MEASURES) {
      addRow({
        node: node.version, workload: `http ${c.kind}`, measure, approach: c.approach, setting, unit,
        values: mine.map(({ r }) => r.m[key]), ratios: mine.map(({ k }) => ratio(k, key)), ratioOf: 'baseline',
        failed: failed ? 'a run failed' : undefined, cfg: c
      })
    }
  }
}

async function sectionStop (node, kind) {
  const seconds = kind === 'cpu' ? O.seconds : O.heapSeconds
  const interval = kind === 'cpu' ? 1000 : 32768
  const wanted = kind === 'cpu' ? opt['cpu-approaches'].split(',') : ['floor', 'v8api', 'plain', 'datadog', 'cprof']
  const names = []
  const excluded = {}
  for (const a of wanted) {
    const why = await probeUnavailable(node, kind, a)
    if (why) excluded[a] = why
    else names.push(a)
  }
  const res = Object.fromEntries(names.map((a) => [a, []]))
  const failed = {}
  let i = 0
  for (let r = 0; r < O.rounds; r++) {
    for (const a of names) {
      i++
      const t0 = now()
      try {
        const m = await stopRun(node, kind, a, interval, seconds)
        if (!(m.samples > 0)) throw new Error('no samples')
        res[a].push(m)
        runs.push({ section: kind, node: node.version, approach: a, interval, seconds, ...m })
        log(`  [${node.version}] ${kind} ${i}/${names.length * O.rounds} ${a}: pause ${m.eldMaxMs.toFixed(1)} ms (probe ${m.probeMaxMs.toFixed(1)}), ` +
          `stop→file ${m.toFileMs == null ? '-' : m.toFileMs.toFixed(1)} ms, peak RSS ${m.peakRssMiB.toFixed(1)} MiB, ` +
          `${m.samples} samples, ${m.nodes} nodes, ${(m.bytes / 1e6).toFixed(2)} MB (${((now() - t0) / 1000).toFixed(1)} s)`)
      } catch (err) {
        failures++
        failed[a] = err.message
        log(`  [${node.version}] ${kind} ${a} FAILED: ${err.message}`)
      }
    }
  }
  const setting = kind === 'cpu' ? `1 ms, ${seconds} s` : `32 KiB, ${seconds} s`
  const workload = `synthetic ${kind}`
  const measures = [
    ['pause at stop (ELD)', 'eldMaxMs', 'ms'],
    ['pause at stop (probe)', 'probeMaxMs', 'ms'],
    ['stop call CPU time', 'syncCpuMs', 'ms'],
    ['stop → file on disk', 'toFileMs', 'ms'],
    ['peak RSS', 'peakRssMiB', 'MiB']
  ]
  for (const a of wanted) {
    if (excluded[a]) addRow({ node: node.version, workload, measure: 'all', approach: a, setting, excluded: excluded[a] })
  }
  for (const [measure, key, unit] of measures) {
    for (const a of wanted) {
      if (excluded[a]) continue
      const vals = (res[a] || []).map((m) => m[key]).filter((x) => x != null)
      if (!vals.length && !failed[a]) continue // the floors write no file
      addRow({ node: node.version, workload, measure, approach: a, setting, unit, values: vals, failed: failed[a], key, kind })
    }
  }
  const sizes = Object.entries(res).filter(([, ms]) => ms.length).map(([a, ms]) => `${a} ${ms[0].nodes} nodes/${(ms[0].bytes / 1e6).toFixed(1)} MB`)
  addRow({ node: node.version, workload, measure: 'profile size (first run)', approach: '-', setting, note: sizes.join(', ') })
}

// Source maps on against off, on the same bundle (bench/sourcemaps.js).
async function sectionSourceMaps (node) {
  const m = await require('./sourcemaps').measure({ node: node.bin, rounds: O.rounds, seconds: Q ? 2 : 5, log })
  runs.push({ section: 'sourcemaps', node: node.version, ...m.runs })
  const workload = 'source maps'
  const setting = `bundle ${(m.bundleBytes / 1e6).toFixed(1)} MB, map ${(m.mapBytes / 1e6).toFixed(1)} MB`
  for (const r of m.rows) {
    const measure = `${r.measure}, ${r.phase === 'cold' ? 'first stop' : 'cached map'}`
    addRow({ node: node.version, workload, measure, approach: 'cprof', setting, unit: r.unit, values: r.off })
    addRow({ node: node.version, workload, measure, approach: 'cprof sourceMaps', setting, unit: r.unit, values: r.on })
  }
}

async function sectionReport (node, bigFile) {
  const cli = fs.existsSync(path.join(__dirname, '..', 'lib', 'cli', 'report.js'))
  const cprofBin = path.join(__dirname, '..', 'bin', 'cprof.js')
  const res = { js: [], cprof: [] }
  const sizes = fs.statSync(bigFile).size
  let failed
  for (let r = 0; r < O.rounds; r++) {
    for (const a of ['js', 'cprof']) {
      try {
        let ms
        if (a === 'cprof' && cli) {
          // The CLI as a user runs it: whole process, Node start-up included…
          const t0 = now()
          await new Promise((resolve, reject) => execFile(node.bin, [cprofBin, 'report', bigFile],
            { maxBuffer: 64 << 20, timeout: 300000 }, (err) => err ? reject(err) : resolve()))
          ms = now() - t0
        } else if (cli) {
          // …and the JS reference the same way.
          const t0 = now()
          await execJson(node.bin, [path.join(__dirname, 'report-child.js'), 'js', bigFile])
          ms = now() - t0
        } else {
          const m = await execJson(node.bin, [path.join(__dirname, 'report-child.js'), a === 'js' ? 'js' : 'analyze', bigFile])
          if (!(m.samples > 0)) throw new Error('no samples')
          ms = m.ms
        }
        res[a].push(sizes / 1e6 / (ms / 1000))
        runs.push({ section: 'report', node: node.version, approach: a, ms, bytes: sizes, cli })
        log(`  [${node.version}] report ${a}: ${(sizes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`)
      } catch (err) {
        failures++
        failed = err.message
        log(`  [${node.version}] report ${a} FAILED: ${err.message}`)
      }
    }
  }
  const setting = `${(sizes / 1e6).toFixed(1)} MB file`
  addRow({ node: node.version, workload: 'report', measure: 'throughput', approach: 'js', setting, unit: 'MB/s', values: res.js,
    note: cli ? 'node report-child.js js (read+JSON.parse+self/total+flat+top), whole process' : 'read+JSON.parse+self/total+flat+top, in-process' })
  addRow({ node: node.version, workload: 'report', measure: 'throughput', approach: 'cprof', setting, unit: 'MB/s', values: res.cprof, failed,
    note: cli ? '`cprof report FILE`, whole process' : 'cprof.analyze(FILE), in-process (`cprof report` not built yet)', key: 'report' })
}

// --- targets ------------------------------------------------------------

function atLeast (version, major, minor) {
  const [M, m] = version.split('.').map(Number)
  return M > major || (M === major && m >= minor)
}

function findRow (pred) { return rows.find((r) => ((r.values && r.values.length) || r.failed) && pred(r)) }

function evaluateTargets () {
  const targets = []
  const add = (t, peers = []) => {
    const broken = [t.row, ...peers].filter((r) => r && r.failed)
    if (broken.length) {
      t.verdict = 'FAILED'
      t.detail = `a run failed (${broken.map((r) => r.approach).join(', ')}): no verdict. ${t.detail}`
    }
    targets.push(t)
    if (t.row) (t.row.targets = t.row.targets || []).push(t)
  }
  for (const version of [...new Set(rows.map((r) => r.node))]) {
    const on = (r) => r.node === version
    // Throughput, judged twice: by requests/s, and by the server's CPU time
    // per request (lower is better), each against its own A/A noise.
    for (const [measure, higher] of [['requests/s', true], ['server CPU per request', false]]) {
      const aa = findRow((r) => on(r) && r.workload === 'http' && r.measure === measure)
      // The A/A interval: the 95% interval of the mean baseline ratio.
      const noise = aa ? meanInterval(aa.ratios) : 0
      // Above 5% A/A noise the machine was busy: no throughput verdict.
      const noisy = noise > 0.05
      const judge = (pass) => noisy ? 'NOISY' : pass ? 'PASS' : 'MISS'
      const cost = (ratio) => higher ? 1 - ratio : ratio - 1 // the share profiling costs
      const by = measure === 'requests/s' ? 'requests/s' : 'CPU per request'
      for (const setting of ['1 ms', '10 ms']) {
        const pick = (a) => findRow((r) => on(r) && r.workload === 'http cpu' && r.measure === measure && r.approach === a && r.setting.startsWith(setting))
        const mine = pick('cprof')
        if (!mine) continue
        const m = summary(mine.ratios).median
        for (const peer of ['plain', 'datadog']) {
          const p = pick(peer)
          if (!p) {
            add({ node: version, row: mine, what: `${by} at ${setting} no worse than ${peer}`, verdict: 'n/a', detail: `${peer} excluded or failed` })
            continue
          }
          const pm = summary(p.ratios).median
          const pass = cost(m) <= cost(pm) + noise
          add({
            node: version, row: mine, what: `${by} at ${setting} no worse than ${peer}`,
            verdict: judge(pass), short: `${higher ? '≥' : '≤'}${peer}`,
            detail: `cprof ${m.toFixed(3)} vs ${peer} ${pm.toFixed(3)} of baseline (A/A noise ±${(noise * 100).toFixed(1)}%` +
              `${noisy ? ': too noisy to judge, rerun on a quiet machine' : pass && cost(m) > cost(pm) ? ', within noise' : ''})`
          }, [p])
        }
        if (setting === '10 ms') {
          add({
            node: version, row: mine, what: `overhead < 3% at the default interval (${by})`,
            verdict: judge(cost(m) < 0.03), short: '<3%',
            detail: `overhead ${(cost(m) * 100).toFixed(1)}% (median of ${mine.ratios.length} runs; A/A noise ±${(noise * 100).toFixed(1)}%` +
              `${httpStops[version] && !httpStops[version].reached ? `; the time budget was spent after ${httpStops[version].rounds} rounds before the A/A interval reached ±${(O.httpTarget * 100).toFixed(0)}%` : ''})`
          })
        }
      }
    }
    // Stop: pause, stop→file, RSS — CPU and heap.
    for (const kind of ['cpu', 'heap']) {
      const pick = (measure, a) => findRow((r) => on(r) && r.kind === kind && r.measure === measure && r.approach === a)
      const med = (r) => r ? summary(r.values).median : NaN
      const limit = atLeast(version, 24, 12) ? 0.5 : 0.75
      for (const measure of ['pause at stop (ELD)', 'pause at stop (probe)', 'stop call CPU time']) {
        const mine = pick(measure, 'cprof')
        const plain = pick(measure, 'plain')
        if (!mine) continue
        if (plain) {
          const r = med(mine) / med(plain)
          add({ node: version, row: mine, what: `${kind} ${measure} ≤ ${limit}x plain`, verdict: r <= limit ? 'PASS' : 'MISS', short: `≤${limit}x plain`,
            detail: `${med(mine).toFixed(1)} / ${med(plain).toFixed(1)} ms = ${r.toFixed(2)}x` }, [plain])
        }
        const floors = ['floor', 'v8api'].map((a) => pick(measure, a)).filter(Boolean)
        if (floors.length) {
          const best = floors.reduce((a, b) => (med(a) <= med(b) ? a : b))
          const r = med(mine) / med(best)
          add({ node: version, row: mine, what: `${kind} ${measure} ≤ 1.2x V8's floor`, verdict: r <= 1.2 ? 'PASS' : 'MISS', short: '≤1.2x floor',
            detail: `${med(mine).toFixed(1)} / ${med(best).toFixed(1)} ms (${best.approach}) = ${r.toFixed(2)}x` +
              (floors.length > 1 ? `; vs the other floor ${floors.filter((f) => f !== best).map((f) => `${f.approach} ${(med(mine) / med(f)).toFixed(2)}x`).join('')}` : '') }, floors)
        }
      }
      for (const [measure, label] of [['stop → file on disk', 'stop → file no slower than plain'], ['peak RSS', 'peak RSS no more than plain']]) {
        const mine = pick(measure, 'cprof')
        const plain = pick(measure, 'plain')
        if (!mine || !plain) continue
        const r = med(mine) / med(plain)
        add({ node: version, row: mine, what: `${kind} ${label}`, verdict: r <= 1 ? 'PASS' : 'MISS', short: '≤plain',
          detail: `${med(mine).toFixed(1)} vs ${med(plain).toFixed(1)} ${mine.unit} = ${r.toFixed(2)}x` }, [plain])
      }
    }
    // Report.
    const rc = findRow((r) => on(r) && r.workload === 'report' && r.approach === 'cprof')
    const rj = findRow((r) => on(r) && r.workload === 'report' && r.approach === 'js')
    if (rc && rj) {
      const r = summary(rc.values).median / summary(rj.values).median
      add({ node: version, row: rc, what: '`cprof report` ≥ 2x the JS reference', verdict: r >= 2 ? 'PASS' : 'MISS', short: '≥2x js',
        detail: `${summary(rc.values).median.toFixed(1)} vs ${summary(rj.values).median.toFixed(1)} MB/s = ${r.toFixed(2)}x` }, [rj])
    }
  }
  return targets
}

// Ratios for the rows compared with another approach (pause, file, RSS, report).
function fillRatios () {
  for (const r of rows) {
    if (!r.values || r.ratios) continue
    const sameOf = (a) => rows.find((x) => x.node === r.node && x.workload === r.workload && x.measure === r.measure && x.approach === a && x.values && x.values.length)
    const ref = r.workload === 'report' ? sameOf('js') : r.workload === 'source maps' ? sameOf('cprof') : sameOf('plain')
    const m = summary(r.values).median
    const parts = []
    if (ref && ref !== r) parts.push(`${(m / summary(ref.values).median).toFixed(2)}x ${ref.approach}`)
    if ((r.measure.startsWith('pause') || r.measure === 'stop call CPU time') && !['floor', 'v8api'].includes(r.approach)) {
      for (const f of ['floor', 'v8api']) {
        const fr = sameOf(f)
        if (fr) parts.push(`${(m / summary(fr.values).median).toFixed(2)}x ${f}`)
      }
    }
    if (parts.length) r.ratioText = parts.join(', ')
  }
}

// --- output -------------------------------------------------------------

function machine () {
  const cpus = os.cpus()
  let model = cpus[0] ? cpus[0].model : 'unknown'
  try {
    const m = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)
    if (m) model = m[1].trim()
  } catch {}
  let revision = process.env.CPROF_BENCH_REVISION
  if (!revision) {
    try {
      revision = require('node:child_process').execFileSync('git', ['describe', '--always', '--dirty'],
        { cwd: path.join(__dirname, '..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    } catch { revision = 'unknown' }
  }
  return {
    cores: cpus.length, cpu: model, memGiB: +(os.totalmem() / 2 ** 30).toFixed(1), kernel: os.release(),
    load: os.loadavg().map((x) => +x.toFixed(2)), revision
  }
}

const fmt = (x, unit) => {
  if (!Number.isFinite(x)) return '-'
  if (unit === 'req/s') return x.toFixed(0)
  return x >= 100 ? x.toFixed(0) : x.toFixed(1)
}

function table (mach) {
  const head = ['node', 'workload', 'measure', 'approach', 'setting', 'median', 'min–max', 'ratio', 'target']
  const lines = []
  for (const r of rows) {
    let median = '-'; let range = '-'; let ratio = ''; let target = ''
    if (r.excluded) {
      ratio = `excluded: ${r.excluded}`
    } else if (r.note && !r.values) {
      ratio = r.note
    } else {
      const s = summary(r.values || [])
      median = `${fmt(s.median, r.unit)} ${r.unit}`
      range = s.n ? `${fmt(s.min, r.unit)}–${fmt(s.max, r.unit)}` : '-'
      if (r.ratios) {
        const q = summary(r.ratios)
        ratio = `${q.median.toFixed(3)} (${q.min.toFixed(3)}–${q.max.toFixed(3)}) of baseline`
      } else if (r.ratioText) {
        ratio = r.ratioText
      }
      if (r.failed) ratio += ` FAILED: ${String(r.failed).split('\n')[0].slice(0, 80)}`
      if (r.targets) target = r.targets.map((t) => `${t.short || t.what} ${t.verdict}`).join(', ')
    }
    lines.push([`v${r.node}`, r.workload, r.measure, r.approach, r.setting, median, range, ratio, target])
  }
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)))
  const row = (l) => '| ' + l.map((c, i) => String(c).padEnd(w[i])).join(' | ') + ' |'
  const out = [row(head), '|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|', ...lines.map(row)]
  return out.join('\n')
}

function targetList (targets) {
  return targets.map((t) => `- ${t.verdict.padEnd(4)} v${t.node} ${t.what}: ${t.detail}`).join('\n')
}

async function main () {
  const t0 = now()
  const mach = machine()
  const nodes = opt.nodes.split(',').map((m) => ensureNode(m.trim(), log))
  // The addon must load on each Node before anything is measured.
  for (const n of nodes) {
    await execJson(n.bin, ['-e', `require(${JSON.stringify(path.join(__dirname, '..'))});console.log('{}')`])
      .catch((err) => { throw new Error(`cprof does not load on Node ${n.version} (run \`npm install\` first): ${err.message}`) })
  }
  log(`cprof bench${Q ? ' --quick' : ''}: Node ${nodes.map((n) => n.version).join(', ')}; ${mach.cores} cores, ${mach.cpu}, ${mach.memGiB} GiB; load ${mach.load.join(' ')}`)
  if (mach.load[0] > 1) log(`  note: load average ${mach.load[0]} > 1: other work is running, figures will be noisy`)
  let bigFile
  if (SECTIONS.has('report')) {
    fs.mkdirSync(CACHE, { recursive: true })
    bigFile = path.join(CACHE, `report-${O.reportNodes}-${O.reportSamples}.cpuprofile`)
    if (!fs.existsSync(bigFile)) {
      await execJson(process.execPath, [path.join(__dirname, 'report-child.js'), 'make', bigFile, O.reportNodes, O.reportSamples])
        .catch(() => {})
      if (!fs.existsSync(bigFile)) throw new Error('could not write the large profile for the report benchmark')
    }
  }
  const timed = async (what, fn) => {
    const t = now()
    await fn()
    log(`  ${what}: ${((now() - t) / 1000).toFixed(0)} s`)
  }
  for (const node of nodes) {
    if (SECTIONS.has('http')) await timed(`[${node.version}] http`, () => sectionHttp(node))
    if (SECTIONS.has('cpu')) await timed(`[${node.version}] synthetic cpu`, () => sectionStop(node, 'cpu'))
    if (SECTIONS.has('heap')) await timed(`[${node.version}] synthetic heap`, () => sectionStop(node, 'heap'))
    if (SECTIONS.has('report')) await timed(`[${node.version}] report`, () => sectionReport(node, bigFile))
    if (SECTIONS.has('sourcemaps')) await timed(`[${node.version}] source maps`, () => sectionSourceMaps(node))
  }
  fillRatios()
  const targets = evaluateTargets()
  const mins = (now() - t0) / 60000
  const date = new Date().toISOString()
  const header = `cprof bench${Q ? ' --quick' : ''} — ${date.slice(0, 16).replace('T', ' ')} UTC, ${mins.toFixed(1)} min; ` +
    `${mach.cores} cores, ${mach.cpu}, ${mach.memGiB} GiB RAM, Linux ${mach.kernel}; load average at start ${mach.load.join(', ')}, ` +
    `at end ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}; cprof ${mach.revision}\n` +
    `rounds ${O.rounds}; HTTP: ${O.connections} connections, warm-up until stable (≤ ${O.warmup} s) + ${O.httpSeconds} s measured per run, ` +
    `${H.pinning}, rounds until the A/A interval ≤ ±${(O.httpTarget * 100).toFixed(0)}% ` +
    `or ${(O.httpBudgetMs / 60000).toFixed(0)} min (${Object.entries(httpStops).map(([v, st]) => st ? `${v}: ${st.rounds} rounds, ${st.reached ? 'reached' : 'budget spent'}` : `${v}: -`).join('; ') || 'no HTTP'}); ` +
    `synthetic: ${O.functions} functions, CPU ${O.seconds} s at 1 ms, heap ${O.heapSeconds} s at 32 KiB; ` +
    `report: a .cpuprofile of ${O.reportNodes} nodes and ${O.reportSamples} samples, ${SECTIONS.has('report') && fs.existsSync(path.join(__dirname, '..', 'lib', 'cli', 'report.js')) ? '`cprof report FILE` vs `node bench/report-child.js js FILE`, whole processes' : 'cprof.analyze() vs the JS reference, in-process'}`
  const text = `${header}\n\n${table(mach)}\n\nTargets:\n${targetList(targets)}\n`
  process.stdout.write('\n' + text)
  const out = opt.out || path.join(__dirname, 'results', `${date.slice(0, 10)}${Q ? '-quick' : ''}.json`)
  fs.mkdirSync(path.dirname(out), { recursive: true })
  fs.writeFileSync(out, JSON.stringify({
    date, quick: Q, minutes: +mins.toFixed(1), machine: mach, options: O, nodes,
    rows: rows.map((r) => ({ ...r, cfg: undefined, targets: r.targets && r.targets.map((t) => ({ what: t.what, verdict: t.verdict })) })),
    targets: targets.map((t) => ({ ...t, row: undefined })),
    runs, failures, httpStops, table: text
  }, null, 1) + '\n')
  log(`wrote ${path.relative(process.cwd(), out)}`)
  if (opt.docs || opt.readme) updateDocs(text, out)
  if (failures) {
    log(`${failures} run(s) failed: their rows show no figures`)
    process.exitCode = 1
  }
}

function updateDocs (text, out) {
  const rel = path.join('docs', 'benchmarks.md')
  const file = path.join(__dirname, '..', rel)
  const doc = fs.readFileSync(file, 'utf8')
  const begin = '<!-- bench:table:begin -->'
  const end = '<!-- bench:table:end -->'
  const a = doc.indexOf(begin)
  const b = doc.indexOf(end)
  if (a < 0 || b < a) {
    log(`${rel} has no bench table markers; not updated`)
    return
  }
  // The page keeps the run's header and the targets it missed; the whole
  // table and every verdict stay in the results JSON (its `table`).
  const [header] = text.split('\n\n')
  const verdicts = text.slice(text.indexOf('\nTargets:\n') + 10).split('\n').filter((l) => l.startsWith('- '))
  const passed = verdicts.filter((l) => l.startsWith('- PASS')).length
  const rest = verdicts.filter((l) => !l.startsWith('- PASS'))
  const from = path.relative(path.join(__dirname, '..'), out)
  const block = `${begin}\nFrom \`${from}\` (its \`table\` holds every row and verdict): ` +
    `${passed} of ${verdicts.length} targets PASS; the others:\n\n\`\`\`\n${header}\n\n${rest.join('\n')}\n\`\`\`\n`
  fs.writeFileSync(file, doc.slice(0, a) + block + doc.slice(b))
  log(`updated ${rel}`)
}

const from = opt['docs-from'] || opt['readme-from']
if (from) {
  updateDocs(JSON.parse(fs.readFileSync(from, 'utf8')).table, from)
} else {
  main().catch((err) => {
    console.error(`bench: ${err.stack || err.message}`)
    process.exitCode = 1
  })
}

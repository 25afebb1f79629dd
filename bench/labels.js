'use strict'
// Labels per request (issue 41, docs/labels.md), each mechanism's cost and
// accuracy, as ratios in one run:
//   http      the HTTP app (bench/http.js's method: the server in its own
//             process on its own core, warm-up, baselines between groups,
//             rounds until the A/A interval is under --http-target or the
//             budget is spent) with every request under withLabels({ route })
//             in every run: cprof.start() without labels, and with labels
//             through each mechanism; the CPU per request of each labels run
//             over the no-labels run of the same round. Target: <= 3 %.
//   switch    the cost of one switch: CPU time per await and per
//             setImmediate round trip under withLabels() with a profile
//             running, labels off and on through each mechanism
//             (bench/labels-child.js), medians of --rounds runs each.
//   otel      the same inside an OpenTelemetry span: labels: true (span) and
//             labels: { otel: true } (otel); the difference is the cost of
//             reading the active span at each switch.
//   accuracy  the ground-truth app (test/js/api/fixtures/labels-app.js) under
//             each mechanism: the share of fnA's samples labelled route=/a,
//             fnB's route=/b, and (idle) samples with no labels.
//
//   node bench/labels.js [--quick] [--nodes 24] [--sections switch,otel,http,accuracy]
//        [--mechanisms hooks,before,promise] [--app server|real] [--rounds N]
//        [--http-seconds S] [--http-target PCT] [--http-budget MIN] [--warmup N]
//        [--interval US] [--no-pin] [--out FILE]
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { parseArgs } = require('node:util')
const { ensureNode } = require('./nodes')
const { summary } = require('./stats')
const { createHttpBench, ratioToBaselines } = require('./http')

const { values: opt } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    nodes: { type: 'string', default: '24' },
    sections: { type: 'string', default: 'switch,accuracy,http' },
    mechanisms: { type: 'string', default: 'hooks,before,promise' },
    app: { type: 'string', default: 'server' },
    rounds: { type: 'string' },
    'http-seconds': { type: 'string' },
    'http-target': { type: 'string', default: '2' },
    'http-budget': { type: 'string' },
    warmup: { type: 'string' },
    interval: { type: 'string' },
    'no-pin': { type: 'boolean', default: false },
    out: { type: 'string' }
  }
})
const Q = opt.quick
const O = {
  rounds: Number(opt.rounds || (Q ? 2 : 4)),
  httpSeconds: Number(opt['http-seconds'] || (Q ? 3 : 8)),
  httpTarget: Number(opt['http-target']) / 100,
  httpBudgetMs: Number(opt['http-budget'] || (Q ? 6 : 25)) * 60000,
  warmup: Number(opt.warmup || (Q ? 4 : 10)),
  interval: opt.interval ? Number(opt.interval) : null,
  mechanisms: opt.mechanisms.split(','),
  app: opt.app
}
const log = (line) => process.stderr.write(`${line}\n`)
process.env.CPROF_BENCH_LABELS = '1' // every run's requests under withLabels (bench/http-child.js)

async function sectionHttp (node, out) {
  const HTTP = createHttpBench({ connections: 8, httpSeconds: O.httpSeconds, warmup: O.warmup, pin: !opt['no-pin'], app: O.app })
  const plain = { kind: 'cpu', approach: 'cprof', interval: O.interval, settle: 1 }
  const arms = O.mechanisms.map((m) => ({ kind: 'cpu', approach: 'cprofLabels', mechanism: m, interval: O.interval, settle: 1, env: { CPROF_LABELS_MECHANISM: m } }))
  const results = []
  const name = (c) => c.mechanism ? `labels:${c.mechanism}` : c.approach
  const runOne = async (c) => {
    try {
      const m = await HTTP.httpRun(node, c)
      results.push({ c, m })
      log(`  [${node.version}] http ${results.length} ${name(c)}: ${m.rps.toFixed(0)} req/s, ${m.cpuUsPerReq.toFixed(1)} µs CPU/req`)
    } catch (err) {
      results.push({ c, err })
      log(`  [${node.version}] http ${name(c)} FAILED: ${err.message}`)
    }
  }
  const stop = await HTTP.rounds({ label: node.version, log, groups: [[plain, ...arms]], results, runOne, rounds: O.rounds, target: O.httpTarget, budgetMs: O.httpBudgetMs })
  // Each labels run over the no-labels run of its group (no baseline between).
  const plainOf = (k) => {
    for (const step of [-1, 1]) {
      for (let j = k + step; j >= 0 && j < results.length && results[j].c.approach !== 'none'; j += step) if (results[j].c === plain) return j
    }
    return -1
  }
  const over = (arm, key) => summary(results.map((r, k) => [k, plainOf(k)])
    .filter(([k, j]) => results[k].c === arm && results[k].m && j >= 0 && results[j].m)
    .map(([k, j]) => results[k].m[key] / results[j].m[key]))
  out.http = {
    app: HTTP.app,
    pinned: HTTP.pinning,
    rounds: stop.rounds,
    aaCpu: stop.cpu,
    aaRps: stop.rps,
    plainCpuOverBaseline: summary(results.map((r, k) => k).filter((k) => results[k].c === plain && results[k].m).map((k) => ratioToBaselines(results, k, 'cpuUsPerReq'))),
    mechanisms: Object.fromEntries(arms.map((a) => [a.mechanism, {
      cpuPerRequestOverPlain: over(a, 'cpuUsPerReq'),
      rpsOverPlain: over(a, 'rps')
    }])),
    runs: results.map(({ c, m, err }) => ({ run: name(c), ...(m || { error: err.message }) }))
  }
}

// The ground-truth app's shares (as test/js/api/labels.test.js counts them).
function accuracy (node, mechanism) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-bench-labels-'))
  try {
    const app = path.join(__dirname, '..', 'test', 'js', 'api', 'fixtures', 'labels-app.js')
    const text = execFileSync(node.bin, [app, dir, Q ? '2000' : '4000', '1000'], { encoding: 'utf8', env: { ...process.env, CPROF_LABELS_MECHANISM: mechanism }, timeout: 300000 })
    const { result } = JSON.parse(text.trim().split('\n').pop())
    const p = JSON.parse(fs.readFileSync(result.files.cpuprofile, 'utf8'))
    const side = JSON.parse(fs.readFileSync(result.files.labels, 'utf8'))
    const byId = new Map(p.nodes.map((n) => [n.id, n]))
    const parent = new Map()
    for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id)
    const onStack = (id, fn) => { for (; id !== undefined; id = parent.get(id)) if (byId.get(id).callFrame.functionName === fn) return true; return false }
    const c = { fnA: [0, 0], fnB: [0, 0], idle: [0, 0] }
    p.samples.forEach((id, i) => {
      const route = side.sets[side.samples[i]].route
      if (onStack(id, 'fnA')) { c.fnA[1]++; if (route === '/a') c.fnA[0]++ }
      if (onStack(id, 'fnB')) { c.fnB[1]++; if (route === '/b') c.fnB[0]++ }
      if (byId.get(id).callFrame.functionName === '(idle)') { c.idle[1]++; if (side.samples[i] === 0) c.idle[0]++ }
    })
    const share = ([k, n]) => ({ share: n ? k / n : null, samples: n })
    return { fnA: share(c.fnA), fnB: share(c.fnB), idleUnlabelled: share(c.idle), samples: p.samples.length }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

function sectionSwitch (node, out, otel) {
  const arms = otel ? ['span', 'otel'] : ['off', ...O.mechanisms]
  const runs = Object.fromEntries(arms.map((m) => [m, []]))
  const mode = (arm) => ['off', 'span', 'otel'].includes(arm) ? arm : 'on'
  for (let r = 0; r < O.rounds; r++) {
    for (const arm of Object.keys(runs)) {
      const env = { ...process.env, CPROF_LABELS_MECHANISM: mode(arm) === 'on' ? arm : 'hooks' }
      const text = execFileSync(node.bin, [path.join(__dirname, 'labels-child.js'), mode(arm), Q ? '100000' : '400000'], { encoding: 'utf8', env, timeout: 300000 })
      runs[arm].push(JSON.parse(text.trim().split('\n').pop()))
    }
  }
  const med = (xs) => summary(xs).median
  const key = otel ? 'otel' : 'switch'
  out[key] = Object.fromEntries(Object.entries(runs).map(([arm, rs]) => [arm, {
    awaitNs: med(rs.map((x) => x.awaitNs)),
    immediateNs: med(rs.map((x) => x.immediateNs))
  }]))
  log(`  [${node.version}] ${key}: ${JSON.stringify(out[key])}`)
}

async function main () {
  const results = { date: new Date().toISOString(), options: O, nodes: [] }
  for (const major of opt.nodes.split(',')) {
    const node = await ensureNode(major)
    const out = { version: node.version }
    results.nodes.push(out)
    if (opt.sections.includes('switch')) sectionSwitch(node, out, false)
    if (opt.sections.includes('otel')) sectionSwitch(node, out, true)
    if (opt.sections.includes('accuracy')) {
      out.accuracy = {}
      for (const m of O.mechanisms) {
        out.accuracy[m] = accuracy(node, m)
        log(`  [${node.version}] accuracy ${m}: ${JSON.stringify(out.accuracy[m])}`)
      }
    }
    if (opt.sections.includes('http')) await sectionHttp(node, out)
    log(`  [${node.version}] ${JSON.stringify({ ...out, http: out.http && { ...out.http, runs: undefined } })}`)
  }
  const file = opt.out || path.join(__dirname, 'results', `${results.date.slice(0, 10)}-labels${Q ? '-quick' : ''}.json`)
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n')
  log(`wrote ${file}`)
}

main().catch((err) => { log(err.stack); process.exitCode = 1 })

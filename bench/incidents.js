'use strict'
// The incident watchers' own cost (issue 13), next to the flight recorder's:
//   tick   the cost of one check of each measure (µs, median of many calls)
//          and what that makes per second at the watchers' rates
//   load   an allocation-heavy workload (~300 scavenges/s) in setImmediate slices, the recorder
//          at its defaults all along, all four watchers (thresholds that
//          never fire) on and off in alternating phases of one process:
//          work done per second and CPU per unit of work in each on-phase,
//          as a ratio to its two off-neighbours, with the A/A noise (off
//          against the next off). Target: invisible (within the noise).
//
//   node bench/incidents.js [--quick] [--nodes 20,26] [--sections tick,load]
//        [--phases N] [--phase-ms MS] [--out FILE]
const fs = require('node:fs')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { parseArgs } = require('node:util')

if (process.argv[2] === 'child') {
  child(JSON.parse(process.argv[3]))
} else {
  main()
}

// One process: the recorder at its defaults all along, the four watchers
// (thresholds that never fire) switched on and off in alternating phases of
// phaseMs, so both arms see the same machine load. Prints per-phase
// { watchers, units, cpuUs, ms }.
function child (cfg) {
  const cprof = require('..')
  const { createIncidents } = require('../lib/incidents')
  const { incidentsOption } = require('../lib/incidents/options')
  const errors = []
  const incidents = createIncidents({
    recorder: { recordsHeap: () => false, dump: async () => errors.push('dump'), ownMs: () => 0 },
    heap: { isRunning: () => false },
    report: (err) => errors.push(err.message)
  })
  const o = incidentsOption({ eventLoopDelay: 200, cpu: 10000, rss: Number.MAX_SAFE_INTEGER, heapNearLimit: 99.9, heapLowMark: 99.8 })
  cprof.recorder.start()
  const phases = []
  let phase = null
  let units = 0
  let sink = 0
  const begin = (watchers) => {
    if (watchers) incidents.start(o)
    else incidents.stop()
    phase = { watchers, t: performance.now(), units, cpu: process.cpuUsage() }
  }
  const end = (now) => {
    const cpu = process.cpuUsage(phase.cpu)
    phases.push({ watchers: phase.watchers, units: units - phase.units, cpuUs: cpu.user + cpu.system, ms: now - phase.t })
  }
  const warmupEnd = performance.now() + 1000
  const step = () => {
    const sliceEnd = performance.now() + 5
    while (performance.now() < sliceEnd) {
      const objs = []
      for (let i = 0; i < 200; i++) objs.push({ i, s: `item-${i}`, a: [i, i + 1] })
      sink += objs.length
      units++
    }
    const now = performance.now()
    if (now < warmupEnd) return setImmediate(step)
    if (phase === null) begin(false)
    else if (now - phase.t >= cfg.phaseMs) {
      end(now)
      if (phases.length >= cfg.phases) {
        incidents.stop()
        process.stdout.write(JSON.stringify({ phases, errors, sink }) + '\n')
        return cprof.recorder.stop()
      }
      begin(!phase.watchers)
    }
    setImmediate(step)
  }
  step()
}

function micros (fn, n = 5000) {
  const times = []
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint()
    fn()
    times.push(Number(process.hrtime.bigint() - t) / 1000)
  }
  return median(times)
}

function median (xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

function tickSection () {
  const limits = require('../lib/incidents/limits')
  const { loopTick, HEAP_CHECK_MS } = require('../lib/incidents/watchers')
  const perCall = {
    eventLoopDelay: micros(() => performance.now()),
    cpu: micros(() => process.cpuUsage()),
    rss: micros(() => process.memoryUsage.rss()),
    heapNearLimit: micros(() => limits.oldGenerationUsed())
  }
  // Checks per second at the defaults: eventLoopDelay: 200 ticks every
  // loopTick(200) ms, cpu every 1 s (10 s window), rss every 1 s, heap every
  // HEAP_CHECK_MS.
  const rates = { eventLoopDelay: 1000 / loopTick(200), cpu: 1, rss: 1, heapNearLimit: 1000 / HEAP_CHECK_MS }
  const usPerSecond = Object.fromEntries(Object.entries(perCall).map(([k, v]) => [k, v * rates[k]]))
  return { perCallUs: perCall, ratesPerSecond: rates, usPerSecond, timerUsPerSecondNote: 'plus the timer callbacks themselves' }
}

function run (bin, cfg, timeout) {
  return new Promise((resolve, reject) => {
    execFile(bin, [__filename, 'child', JSON.stringify(cfg)], { timeout, encoding: 'utf8' }, (err, stdout, stderr) => {
      const line = stdout.trim().split('\n').pop()
      if (err || !line) reject(new Error(`child: ${stderr.trim().split('\n').slice(-3).join(' ') || err}`))
      else resolve(JSON.parse(line))
    })
  })
}

async function loadSection (node, O, log) {
  const r = await run(node.bin, { phases: O.phases, phaseMs: O.phaseMs }, (O.phases * O.phaseMs + 60000) * 2)
  // A process descheduled for 200 ms on a loaded machine sees a stall: the
  // fake dump costs nothing, so such firings are counted, not fatal.
  const failures = r.errors.filter((e) => e !== 'dump')
  if (failures.length) throw new Error(`the watchers failed: ${failures.join('; ')}`)
  const firings = r.errors.length
  const m = (ph) => ({ perSecond: ph.units / ph.ms * 1000, cpuUsPerUnit: ph.cpuUs / ph.units })
  // Each watchers-on phase against the mean of its two neighbours (off);
  // A/A: each off phase against the next off phase.
  const ratios = { perSecond: [], cpuUsPerUnit: [] }
  const aa = { perSecond: [], cpuUsPerUnit: [] }
  r.phases.forEach((ph, k) => {
    if (!ph.watchers || k + 1 >= r.phases.length) return
    const [a, b, c] = [r.phases[k - 1], ph, r.phases[k + 1]].map(m)
    for (const key of Object.keys(ratios)) ratios[key].push(b[key] / ((a[key] + c[key]) / 2))
    for (const key of Object.keys(aa)) aa[key].push(c[key] / a[key])
  })
  const off = r.phases.filter((p) => !p.watchers).map(m)
  const on = r.phases.filter((p) => p.watchers).map(m)
  log(`  [${node.version}] ${r.phases.length} phases of ${O.phaseMs} ms: recorder only ${median(off.map((x) => x.perSecond)).toFixed(0)} units/s, ` +
    `${median(off.map((x) => x.cpuUsPerUnit)).toFixed(3)} µs CPU/unit; with watchers ${median(on.map((x) => x.perSecond)).toFixed(0)} units/s, ` +
    `${median(on.map((x) => x.cpuUsPerUnit)).toFixed(3)} µs CPU/unit`)
  const iqr = (xs) => {
    const s = [...xs].sort((x, y) => x - y)
    return [s[Math.floor(s.length / 4)], s[Math.floor(s.length * 3 / 4)]]
  }
  return {
    ratioPerSecond: median(ratios.perSecond),
    ratioCpuPerUnit: median(ratios.cpuUsPerUnit),
    aaPerSecondIqr: iqr(aa.perSecond),
    aaCpuPerUnitIqr: iqr(aa.cpuUsPerUnit),
    aaPerSecondMedian: median(aa.perSecond),
    aaCpuPerUnitMedian: median(aa.cpuUsPerUnit),
    phases: r.phases.length,
    firings
  }
}

async function main () {
  const { ensureNode } = require('./nodes')
  const { values: opt } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      nodes: { type: 'string', default: '20,26' },
      sections: { type: 'string', default: 'tick,load' },
      phases: { type: 'string' },
      'phase-ms': { type: 'string' },
      out: { type: 'string' }
    }
  })
  const O = { phases: Number(opt.phases || (opt.quick ? 20 : 120)), phaseMs: Number(opt['phase-ms'] || 500) }
  const log = (line) => process.stderr.write(`${line}\n`)
  const results = { date: new Date().toISOString(), options: O, nodes: [] }
  const sections = opt.sections.split(',')
  if (sections.includes('tick')) {
    results.tick = tickSection()
    log(`tick (Node ${process.versions.node}): ${JSON.stringify(results.tick.perCallUs)} µs per check; ` +
      `${JSON.stringify(results.tick.usPerSecond)} µs per second`)
  }
  if (sections.includes('load')) {
    for (const major of opt.nodes.split(',')) {
      const node = ensureNode(major, log)
      const out = { node: node.version, load: await loadSection(node, O, log) }
      results.nodes.push(out)
      const l = out.load
      const pct = ([lo, hi]) => `${lo.toFixed(3)}–${hi.toFixed(3)}`
      log(`[${node.version}] watchers on / off: work per second ${l.ratioPerSecond.toFixed(3)}x (A/A middle half ${pct(l.aaPerSecondIqr)}), ` +
        `CPU per unit ${l.ratioCpuPerUnit.toFixed(3)}x (A/A middle half ${pct(l.aaCpuPerUnitIqr)})`)
    }
  }
  const json = JSON.stringify(results, null, 2) + '\n'
  if (opt.out) fs.writeFileSync(path.resolve(opt.out), json)
  process.stdout.write(json)
}

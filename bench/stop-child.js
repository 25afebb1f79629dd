'use strict'
// One measurement in a fresh process: profile the synthetic workload with one
// approach, stop, and print one JSON line:
//   syncMs      time inside the stop call until it returned (the synchronous part)
//   syncCpuMs   CPU time the process used meanwhile (process.cpuUsage: all threads; the
//               worker that cprof hands the reply to only starts after the call returns).
//               Unlike the wall-clock measures it does not grow when the machine is busy.
//   eldMaxMs    perf_hooks.monitorEventLoopDelay max over the stop window (blocked time)
//   probeMaxMs  the longest gap seen by an independent 1 ms setInterval probe
//   toFileMs    stop() called → file on disk (null for the floors, which write none)
//   peakRssMiB  the process's peak RSS (getrusage maxrss) before the output is checked
//   samples, nodes, bytes   of the output, read back from disk: no number comes from a broken run
//
//   node --expose-gc bench/stop-child.js '{"kind":"cpu","approach":"cprof","seconds":5,
//     "functions":2000,"interval":1000}'
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { monitorEventLoopDelay } = require('node:perf_hooks')
const approaches = require('./approaches')
const { generate, runFor } = require('./workload')

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

async function main (o) {
  const a = approaches.get(o.kind, o.approach)
  const why = approaches.unavailable(o.kind, o.approach)
  if (why) {
    console.log(JSON.stringify({ unavailable: why }))
    return
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-bench-'))
  try {
    const fns = generate(o.functions, { alloc: o.kind === 'heap' })
    // Warm the workload up before profiling starts, as in a running app.
    await new Promise((resolve) => runFor(fns, 300, resolve))
    const st = await a.start({ interval: o.interval, dir })
    await new Promise((resolve) => runFor(fns, o.seconds * 1000, resolve))
    global.gc()
    await sleep(30)
    const eld = monitorEventLoopDelay({ resolution: 1 })
    eld.enable()
    const pr = probe()
    await sleep(30)
    const cpu0 = process.cpuUsage()
    const t0 = now()
    const p = a.stop(st, path.join(dir, 'out'))
    const syncMs = now() - t0
    const c = process.cpuUsage(cpu0)
    const syncCpuMs = (c.user + c.system) / 1000
    const out = await p
    const toFileMs = out.file ? now() - t0 : null
    // Keep measuring a little after the file is written: work the approach
    // left on the main thread (callbacks, GC of the reply) counts too.
    await sleep(50)
    const probeMaxMs = pr.stop()
    eld.disable()
    const eldMaxMs = eld.max / 1e6
    const peakRssMiB = process.resourceUsage().maxRSS / 1024
    const checked = a.check(out)
    console.log(JSON.stringify({ syncMs, syncCpuMs, eldMaxMs, probeMaxMs, toFileMs, peakRssMiB, ...checked, file: undefined }))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main(JSON.parse(process.argv[2])).catch((err) => {
  console.error(err && err.stack ? err.stack : err)
  process.exitCode = 1
})

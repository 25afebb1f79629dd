'use strict'
// One measurement in a fresh process: profile the synthetic workload with one
// approach, stop, and print one JSON line:
//   syncMs, syncCpuMs, eldMaxMs, probeMaxMs   as bench/stop-measure.js measures them
//               (syncCpuMs: all threads, but the worker that cprof hands the reply to only
//               starts after the call returns; unlike the wall-clock measures it does not
//               grow when the machine is busy)
//   toFileMs    stop() called → file on disk (null for the floors, which write none)
//   peakRssMiB  the process's peak RSS (getrusage maxrss) before the output is checked
//   samples, nodes, bytes   of the output, read back from disk: no number comes from a broken run
//
//   node --expose-gc bench/stop-child.js '{"kind":"cpu","approach":"cprof","seconds":5,
//     "functions":2000,"interval":1000}'
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const approaches = require('./approaches')
const { generate, runFor } = require('./workload')
const { measureStop, runChild } = require('./stop-measure')

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
    const m = await measureStop(() => a.stop(st, path.join(dir, 'out')))
    const out = m.result
    const { syncMs, syncCpuMs, eldMaxMs, probeMaxMs } = m
    const toFileMs = out.file ? m.doneMs : null
    const peakRssMiB = process.resourceUsage().maxRSS / 1024
    const checked = a.check(out)
    console.log(JSON.stringify({ syncMs, syncCpuMs, eldMaxMs, probeMaxMs, toFileMs, peakRssMiB, ...checked, file: undefined }))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

runChild(main)

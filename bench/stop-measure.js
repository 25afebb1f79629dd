'use strict'
// The measurement around one stop call, shared by the children that time a
// stop in a fresh process (bench/stop-child.js, bench/sourcemaps-child.js):
//   syncMs      time inside the stop call until it returned (the synchronous part)
//   syncCpuMs   CPU time the process used meanwhile (process.cpuUsage: all threads)
//   eldMaxMs    perf_hooks.monitorEventLoopDelay max over the stop window (blocked time)
//   probeMaxMs  the longest gap seen by an independent 1 ms setInterval probe
//   doneMs      stop called → its promise settled (every file written)
//   mainCpuMs   with { threadCpu: true }: the main thread's CPU time from the stop call
//               until 50 ms after it settled (process.threadCpuUsage, Node >= 23.9; else null)
// The window opens after a GC and 30 ms of quiet, and closes 50 ms after the
// promise settles: work the approach left on the main thread (callbacks, GC
// of the reply) counts too.
const { monitorEventLoopDelay } = require('node:perf_hooks')

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

/** stop() → a promise; resolves { result, syncMs, syncCpuMs, eldMaxMs, probeMaxMs, doneMs, mainCpuMs } */
async function measureStop (stop, { threadCpu = false } = {}) {
  global.gc()
  await sleep(30)
  const eld = monitorEventLoopDelay({ resolution: 1 })
  eld.enable()
  const pr = probe()
  await sleep(30)
  // The main thread's own CPU time over the whole stop: unlike the
  // wall-clock pauses it does not grow when other processes share the cores.
  const main0 = threadCpu && process.threadCpuUsage ? process.threadCpuUsage() : null
  const cpu0 = process.cpuUsage()
  const t0 = now()
  const p = stop()
  const syncMs = now() - t0
  const c = process.cpuUsage(cpu0)
  const result = await p
  const doneMs = now() - t0
  await sleep(50)
  const probeMaxMs = pr.stop()
  const mainCpu = main0 && process.threadCpuUsage(main0)
  eld.disable()
  return {
    result,
    syncMs,
    syncCpuMs: (c.user + c.system) / 1000,
    eldMaxMs: eld.max / 1e6,
    probeMaxMs,
    doneMs,
    mainCpuMs: mainCpu ? (mainCpu.user + mainCpu.system) / 1000 : null
  }
}

/** Runs main(the JSON options in argv[2]); a failure prints its stack and exits 1. */
function runChild (main) {
  main(JSON.parse(process.argv[2])).catch((err) => {
    console.error(err && err.stack ? err.stack : err)
    process.exitCode = 1
  })
}

module.exports = { measureStop, runChild }

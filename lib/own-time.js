'use strict'
// cprof's own main-thread time: every synchronous call in which cprof holds
// the event loop (a heap profile's stop, whose full GC on a large heap takes
// seconds; a snapshot; a recorder rotation or dump; starting a profiler),
// summed per thread. The eventLoopDelay watcher (lib/incidents/watchers.js)
// takes their wall time out of the gap it measures, and the cpu watcher
// their CPU time out of the CPU it measures: cprof's pauses are not the
// app's stalls or load, and an app stall next to one is still measured whole.

let total = 0 // ms, wall
// µs: per call, the larger of its wall time (a loaded machine deschedules
// the process inside it) and the process's CPU time in it (V8's parallel GC
// threads work beside the main thread).
let cpuTotal = 0
let depth = 0 // a timed call inside another is counted once, by the outer one

/** Runs fn (its synchronous part: a returned promise is not awaited), counting it as cprof's own time. */
function timed (fn) {
  const t0 = performance.now()
  const c0 = depth === 0 ? process.cpuUsage() : null
  depth++
  try {
    return fn()
  } finally {
    if (--depth === 0) {
      const ms = performance.now() - t0
      const c = process.cpuUsage(c0)
      total += ms
      cpuTotal += Math.max(ms * 1000, c.user + c.system)
    }
  }
}

/** cprof's own main-thread time so far, in ms. */
const ownMs = () => total

/** cprof's own CPU time so far, in µs: the bound above, summed. */
const ownCpuMicros = () => cpuTotal

module.exports = { timed, ownMs, ownCpuMicros }

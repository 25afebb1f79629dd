'use strict'
// cprof's own main-thread time: every synchronous call in which cprof holds
// the event loop (a heap profile's stop, whose full GC on a large heap takes
// seconds; a snapshot; a recorder rotation or dump; starting a profiler),
// summed per thread. The eventLoopDelay watcher (lib/incidents/watchers.js)
// takes it out of the gap it measures: cprof's pauses are not the app's
// stalls, and an app stall next to one is still measured whole.

let total = 0 // ms
let depth = 0 // a timed call inside another is counted once, by the outer one

/** Runs fn (its synchronous part: a returned promise is not awaited), counting it as cprof's own time. */
function timed (fn) {
  const t0 = performance.now()
  depth++
  try {
    return fn()
  } finally {
    if (--depth === 0) total += performance.now() - t0
  }
}

/** cprof's own main-thread time so far, in ms. */
const ownMs = () => total

module.exports = { timed, ownMs }

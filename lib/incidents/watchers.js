'use strict'
// The incident measures. Each watcher calls measure(value) on every check
// and returns stop(); its timers are unref'd, so watching never keeps the
// process alive. The caller decides what a value means (lib/incidents/index.js).
const limits = require('./limits')

function every (ms, fn) {
  const t = setInterval(fn, ms)
  t.unref()
  return () => clearInterval(t)
}

// The tick period for an event-loop delay threshold: fine enough that the
// measure is within 10 % of the threshold, never busier than 100 Hz.
function loopTick (thresholdMs) {
  return Math.min(100, Math.max(10, Math.round(thresholdMs / 10)))
}

/**
 * Event-loop delay: a timer ticking every loopTick(threshold) ms measures
 * the gap between its own ticks (ms). A block of B ms sits inside one gap,
 * so the gap is >= B: a single stall of N ms gives a value >= N on the first
 * tick after it, while the stall's CPU window is still the newest.
 * ownMs() is cprof's own main-thread time so far (lib/own-time.js), taken
 * out of the gap: cprof's pauses are not the app's stalls, and an app stall
 * in the same gap is still measured whole.
 * startup() (lib/incidents/startup.js) says whether the main module has
 * loaded: until it has, no gap is measured, and the gap in which it is
 * first seen loaded (which holds the load) is not either; 'unsure' (an ES
 * module loaded where it cannot be seen) takes the first gap over the
 * threshold as the load.
 */
function watchLoopDelay (thresholdMs, measure, ownMs = () => 0, startup = () => 'done') {
  const tick = loopTick(thresholdMs)
  let last = null
  let lastOwn = 0
  let armed = false
  return every(tick, () => {
    const now = performance.now()
    const own = ownMs()
    const gap = last === null ? null : Math.round(now - last - (own - lastOwn))
    last = now
    lastOwn = own
    if (armed) {
      measure(gap)
      return
    }
    const s = startup()
    armed = s === 'done' || (s === 'unsure' && gap !== null && gap >= thresholdMs)
  })
}

/**
 * CPU: process.cpuUsage() (user + system) over the last windowMs, as a
 * percentage of one core, or of the cgroup quota when that is below one
 * core. Reports nothing until a whole window has been seen.
 * ownCpu() is cprof's own CPU time so far, in µs (lib/own-time.js: its
 * synchronous calls, such as the full GC of each heap window's rotation,
 * with the GC work they leave on V8's helper threads after them), taken
 * out: cprof's work is not the app's load.
 */
function watchCpu (windowMs, measure, ownCpu = () => 0, quota = limits.cpuQuota()) {
  const cores = quota !== null && quota < 1 ? quota : 1
  const cpuMicros = () => {
    const u = process.cpuUsage()
    return u.user + u.system - ownCpu()
  }
  const samples = [{ t: performance.now(), cpu: cpuMicros() }]
  return every(Math.min(1000, Math.max(100, Math.round(windowMs / 10))), () => {
    const now = { t: performance.now(), cpu: cpuMicros() }
    samples.push(now)
    // Keep one sample at or before the window's start.
    while (samples.length > 2 && samples[1].t <= now.t - windowMs) samples.shift()
    const first = samples[0]
    if (now.t - first.t < windowMs * 0.95) return
    const busy = Math.max(0, now.cpu - first.cpu) / 1000 / (now.t - first.t)
    measure(Math.round(busy / cores * 1000) / 10)
  })
}

/** Resident set size in bytes, every second (process.memoryUsage.rss(): no heap walk). */
function watchRss (measure) {
  return every(1000, () => measure(process.memoryUsage.rss()))
}

/**
 * V8 old generation in use, as a percentage of its limit, every
 * HEAP_CHECK_MS (one getHeapSpaceStatistics() call, about 1 µs). Not after
 * each GC through a PerformanceObserver('gc'): Node builds an entry per GC,
 * which cost 12-14 % CPU in an allocation-heavy loop (~330 scavenges/s,
 * bench/incidents.js), far from invisible.
 */
const HEAP_CHECK_MS = 100

function watchHeap (measure, limit = limits.oldGenerationLimit()) {
  return every(HEAP_CHECK_MS, () => measure(Math.round(limits.oldGenerationUsed() / limit * 10000) / 100))
}

module.exports = { watchLoopDelay, watchCpu, watchRss, watchHeap, loopTick, HEAP_CHECK_MS }

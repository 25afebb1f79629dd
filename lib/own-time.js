'use strict'
// cprof's own time: every synchronous call in which cprof holds the event
// loop (a heap profile's stop, whose full GC on a large heap takes seconds;
// a snapshot; a recorder rotation or dump; starting a profiler), summed.
// The eventLoopDelay watcher (lib/incidents/watchers.js) takes their wall
// time out of the gap it measures, and the cpu watcher their CPU time out of
// the CPU it measures: cprof's pauses are not the app's stalls or load, and
// an app stall next to one is still measured whole.
//
// Their CPU time is counted per thread where Linux tells it
// (/proc/self/task/<tid>/schedstat, ns): the calling thread's during the call,
// and V8's helper threads' from the call's start until they are quiet again
// after it. A full GC (each heap window's, a heap profile's stop) marks on
// the helper threads beside the main thread and leaves them sweeping for
// 100-300 ms after the call returns: that is cprof's CPU too. The app's own
// threads (workers, libuv's pool) are never counted. See docs/incidents.md
// (cpu) for the measures behind the rule.
const fs = require('node:fs')
const os = require('node:os')

// A tail is followed in steps of TAIL_STEP_MS; it ends at the first step in
// which the helper threads together used under a tenth of one core (their
// sweeping is done), and lasts at most as long as the call itself (a bound
// on the app's own GC work counted with it: the helpers' sweeping after a
// full GC is a fraction of its marking).
const TAIL_STEP_MS = 25
const QUIET = 0.1

let total = 0 // ms, wall
let cpuTotal = 0 // µs
let depth = 0 // a timed call inside another is counted once, by the outer one
let self // the calling thread's id (the main thread's, unless cprof runs in a worker)
let helpers // V8's helper threads' ids (undefined: not looked for yet; null: no per-thread CPU)
let tail = null // { counted (helpers' CPU ns counted up to), step: { busy, at }, end (performance.now()), timer }

/**
 * A thread's time on a CPU and waiting in the run queue for one, in ns
 * ({ cpu, wait }), or null where procfs does not tell it.
 */
function threadNs (tid) {
  const f = (taskField(tid, 'schedstat') || '').split(' ').map(Number)
  return f.length >= 2 && Number.isFinite(f[0]) && Number.isFinite(f[1]) ? { cpu: f[0], wait: f[1] } : null
}

function taskField (tid, file) {
  try {
    return fs.readFileSync(`/proc/self/task/${tid}/${file}`, 'utf8')
  } catch {
    return null
  }
}

/**
 * V8's helper threads (its platform's worker pool, which runs parallel and
 * concurrent GC work), once: on Node >= 22 the threads named V8Worker
 * (node-V8Worker on 26); Node 20 names every thread "node", and there they
 * are the first threads started after the main one (firstStarted()). null
 * where procfs does not tell per-thread CPU.
 */
function helperThreads () {
  if (helpers !== undefined) return helpers
  helpers = null
  let tids
  try {
    self = fs.readlinkSync('/proc/thread-self').split('/').pop() // "<pid>/task/<tid>"
    tids = fs.readdirSync('/proc/self/task').filter((t) => t !== String(process.pid) && t !== self)
  } catch {
    return helpers
  }
  if (threadNs(self) === null) return helpers
  const named = tids.filter((t) => /V8Worker$/.test((taskField(t, 'comm') || '').trim()))
  helpers = named.length ? named : firstStarted(tids)
  return helpers
}

// Node's platform starts, before V8 itself, its delayed-task thread (idle:
// counting it is harmless) and then its pool of --v8-pool-size threads; the
// inspector's thread, libuv's pool and the app's workers start later. So the
// pool is the 1 + size threads started first, in the order of their start
// (stat's 22nd field, clock ticks; ties by thread id). Not by the tick
// alone: on a loaded machine the pool may start ticks after the first one.
function firstStarted (tids) {
  const start = (t) => {
    const stat = taskField(t, 'stat') || ''
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
  }
  const order = tids.map((t) => ({ t, at: start(t) })).sort((a, b) => a.at - b.at || a.t - b.t)
  return order.slice(0, 1 + poolSize()).map((o) => o.t)
}

// --v8-pool-size from the command line or NODE_OPTIONS: 4 unless given,
// and below 1 the available parallelism less one (node_platform.cc).
function poolSize () {
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS || '').split(/\s+/)]
  let size = 4
  args.forEach((a, i) => {
    const m = /^--v8-pool-size(?:=(.*))?$/.exec(a)
    if (m) size = Number(m[1] !== undefined ? m[1] : args[i + 1])
  })
  return size >= 1 ? Math.floor(size) : Math.max(os.availableParallelism() - 1, 1)
}

/** The helper threads' time so far, in ns: { cpu, busy (on a CPU or waiting for one) }. */
function helpersNs () {
  const sum = { cpu: 0, busy: 0 }
  for (const t of helpers) {
    const n = threadNs(t)
    if (n) {
      sum.cpu += n.cpu
      sum.busy += n.cpu + n.wait
    }
  }
  return sum
}

// Counts the helpers' CPU since the tail's last read. how: 'step' (the
// tail's timer: it ends when they were quiet over the step or its time is
// up), 'read' (counts only: the step may be too short to tell), 'end'.
// Quiet is neither running nor waiting for a CPU: on a loaded machine a
// helper still sweeping may get no CPU in a step, but waits for one.
function followTail (how) {
  if (!tail) return
  const now = performance.now()
  const n = helpersNs()
  cpuTotal += (n.cpu - tail.counted) / 1000
  tail.counted = n.cpu
  if (how === 'read') return
  const quiet = (n.busy - tail.step.busy) / 1e6 < QUIET * (now - tail.step.at)
  tail.step = { busy: n.busy, at: now }
  if (how === 'end' || quiet || now >= tail.end) {
    clearInterval(tail.timer)
    tail = null
  }
}

function startTail (n, callMs) {
  const timer = setInterval(followTail, TAIL_STEP_MS, 'step')
  timer.unref()
  const at = performance.now()
  tail = { counted: n.cpu, step: { busy: n.busy, at }, end: at + Math.max(callMs, TAIL_STEP_MS), timer }
}

// Per-thread: the calling thread's and the helpers' times (ns) at a call's ends.
function perThreadStart () {
  followTail('end') // a call inside a tail: the tail ends where the call starts
  return { self: threadNs(self), helpers: helpersNs() }
}

function perThreadEnd (c0, ms) {
  const c = { self: threadNs(self), helpers: helpersNs() }
  const selfNs = c.self && c0.self ? c.self.cpu - c0.self.cpu : 0 // procfs gone: never throws into a call
  cpuTotal += (selfNs + c.helpers.cpu - c0.helpers.cpu) / 1000
  startTail(c.helpers, ms)
}

/** Runs fn (its synchronous part: a returned promise is not awaited), counting it as cprof's own time. */
function timed (fn) {
  const t0 = performance.now()
  const perThread = depth === 0 && helperThreads() !== null
  const c0 = depth !== 0 ? null : perThread ? perThreadStart() : process.cpuUsage()
  depth++
  try {
    return fn()
  } finally {
    if (--depth === 0) {
      const ms = performance.now() - t0
      total += ms
      if (perThread) {
        perThreadEnd(c0, ms)
      } else {
        // Without per-thread CPU: the larger of the wall time and the
        // process's CPU time in the call (its helper threads' included).
        const c = process.cpuUsage(c0)
        cpuTotal += Math.max(ms * 1000, c.user + c.system)
      }
    }
  }
}

/** cprof's own main-thread time so far, in ms. */
const ownMs = () => total

/** cprof's own CPU time so far, in µs (an open tail read up to now). */
function ownCpuMicros () {
  followTail('read')
  return cpuTotal
}

module.exports = { timed, ownMs, ownCpuMicros, helperThreads }

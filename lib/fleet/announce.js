'use strict'
// A process with cprof initialised announces itself in the run directory
// (lib/identity/rundir.js): its entry, <pid>.json, is written when init()
// installs triggers, rewritten when what runs changes (a profile starts,
// ends, fails), and removed by destroy() and at exit. Readers (cprof ps, the
// fan-out) recognise the entries of dead processes by pid + start time and
// prune them, so a process killed by a signal leaves nothing for long.
//
// Never hurts the host: writes go through libuv's thread pool (fs.promises),
// one at a time, the latest state winning; the 'exit' handler only unlinks
// (it keeps nothing alive); a failing run directory costs one report().
const procfs = require('../procfs')
const rundir = require('../identity/rundir')
const { identity } = require('../identity/process')

const VERSION = 1

/** hooks: { report(err) }. */
function createAnnouncer (hooks) {
  let state = null // { dir, config, running, last, errors }
  let writing = false
  let dirty = false
  let reported = false
  let recorder = null // { running, windows, from, to, heapTrend, incidents? }: the flight recorder, when it ran
  const startTime = procfs.startTime(process.pid)

  function entry (s) {
    return {
      v: VERSION,
      pid: process.pid,
      ppid: process.ppid,
      startTime,
      ...identity(),
      title: process.title,
      script: process.env.pm_exec_path || process.argv[1] || null,
      node: process.version,
      cwd: process.cwd(),
      dir: s.config.dir,
      triggers: s.config.triggers,
      running: s.running,
      recorder,
      last: s.last,
      errors: s.errors,
      updated: Date.now()
    }
  }

  async function flush () {
    if (writing) {
      dirty = true
      return
    }
    writing = true
    try {
      do {
        dirty = false
        const s = state
        if (!s) break
        if (!s.ready) {
          await rundir.prepare(s.dir)
          s.ready = true
        }
        if (!state) break // destroy() ran meanwhile
        await rundir.writeEntry(s.dir, process.pid, entry(state))
        if (!state) rundir.removeEntrySync(s.dir, process.pid) // destroy() ran during the write
      } while (dirty)
    } catch (err) {
      if (!reported) {
        reported = true
        err.message = `cprof ps and the fan-out commands will not see this process: ${err.message}`
        hooks.report(err)
      }
    } finally {
      writing = false
    }
  }

  function onExit () {
    if (state) rundir.removeEntrySync(state.dir, process.pid)
  }

  /** config: { dir (profiles), triggers: { cpu, heap, pm2Actions } }. */
  function start (config) {
    if (startTime === null) return // no /proc: nothing could tell this entry from a reused pid
    const had = state
    state = {
      dir: rundir.runDir(),
      ready: had ? had.ready : false,
      config,
      running: had ? had.running : { cpu: null, heap: null },
      last: had ? had.last : { cpu: null, heap: null, dump: null },
      errors: had ? had.errors : { cpu: null, heap: null, dump: null }
    }
    if (!had) process.on('exit', onExit)
    flush()
  }

  function stop () {
    const s = state
    if (!s) return
    state = null
    process.removeListener('exit', onExit)
    rundir.removeEntrySync(s.dir, process.pid)
  }

  function running (kind, run) {
    if (!state) return
    state.running[kind] = run ? { since: run.startTime } : null
    flush()
  }

  // What the last profile of a kind wrote (the fan-out waits for this).
  function finished (kind, result, extra) {
    if (!state) return
    state.running[kind] = null
    state.last[kind] = {
      startTime: result.startTime,
      files: result.files,
      samples: result.samples,
      durationMs: result.durationMs,
      ...extra
    }
    flush()
  }

  // A node:cluster primary's merged profile of itself and its workers, or
  // why it could not merge them ({ startTime, error }).
  function merged (kind, result) {
    if (!state) return
    const last = state.last[kind] || {}
    state.last[kind] = {
      ...last,
      merged: result.error
        ? { startTime: result.startTime, error: result.error }
        : {
            startTime: result.startTime,
            files: result.files,
            samples: result.samples,
            instances: result.instances,
            missing: result.missing
          }
    }
    flush()
  }

  // The flight recorder's state (lib/recorder/index.js status()), rewritten when
  // it starts, stops, and at each window it adds to its ring. heapTrend:
  // status().heap.trend with heap windows (the top growing sites, at most
  // 10), read by cprof ps and cprof leaks (docs/recorder.md, Heap trend);
  // heapUsed: V8's used heap then (what a heap snapshot costs is in
  // proportion to it: cprof leaks --holders says so before taking two).
  function recorderState (st) {
    recorder = st
      ? {
          running: st.running === true,
          windows: st.windows,
          from: st.from,
          to: st.to,
          heapTrend: (st.heap && st.heap.trend) || null,
          heapUsed: process.memoryUsage().heapUsed
        }
      : null
    // The incident counters (lib/incidents/index.js), once incidents were set.
    if (recorder && st.incidents) {
      const { fired, suppressed, failed, suppressedBy } = st.incidents
      recorder.incidents = { fired, suppressed, failed, ...(suppressedBy ? { suppressedBy } : {}) }
    }
    if (state) flush()
  }

  // What the last CPU dump of the recorder wrote; at: when (the fan-out
  // waits for a dump written after its signal; startTime is the recording's).
  function dumped (result) {
    if (!state || result.kind !== 'cpu') return
    state.last.dump = {
      at: Date.now(),
      startTime: result.startTime,
      files: result.files,
      samples: result.samples,
      durationMs: result.durationMs,
      windows: result.windows
    }
    flush()
  }

  // extra: what names the request (a snapshot's id).
  function failed (kind, err, extra) {
    if (!state) return
    if (kind in state.running) state.running[kind] = null
    state.errors[kind] = { code: err && err.code, message: err && err.message ? err.message : String(err), at: Date.now(), ...extra }
    flush()
  }

  // The run directory this process announces itself in (lib/triggers/dump-request.js
  // takes a --last request from there), or null before start().
  const dir = () => (state ? state.dir : null)

  return { start, stop, running, finished, merged, failed, recorder: recorderState, dumped, dir, active: () => state !== null }
}

module.exports = { createAnnouncer, VERSION }

'use strict'
// The preload cprof run puts into the command's NODE_OPTIONS: V8's CPU (and
// heap) profiler in every node process and worker thread, written at exit.
// lib/cli/run.js adds it as --require, so each node of the command's tree and
// each of its worker threads loads it: V8's CPU profiler (and with
// CPROF_RUN_HEAP its sampling heap profiler) is started over an in-thread
// inspector session, and stopped on the 'exit' event, which process.exit(),
// a normal end and an uncaught exception all emit. The session's calls are
// synchronous in the thread, so the profile is written before the process is
// gone. It is what `node --cpu-prof` writes, without the flag: Node 20 (and
// older 22s) refuse --cpu-prof in NODE_OPTIONS (exit 9); --require every
// supported Node takes (docs/cli.md, "cprof run").
//
// Files go into CPROF_RUN_DIR (the run's private temp dir), named
// <pid>-<threadId>-<start ms>.cpuprofile / .heapprofile, and .json beside
// them, written last: which script, its ppid and argv, for the names cprof
// run gives the outputs. Each is written under a temp name and renamed, so a
// file there is complete.
//
// Signals: a process killed by SIGINT, SIGTERM or SIGHUP emits no 'exit'.
// In the main thread, while the app has no listener of its own for one of
// them, a listener here writes the profiles, steps aside and raises the
// signal again: the process dies of it as it would have. As soon as the app
// (or a library: signal-exit, readline) listens, this one is removed, so
// what the app sees and does on the signal is exactly what it would without
// cprof; it comes back when the app's last listener goes.
// Nothing here throws into the app: a failure is one line on stderr.
const fs = require('node:fs')
const path = require('node:path')

const DIR = process.env.CPROF_RUN_DIR

function start () {
  const inspector = require('node:inspector')
  const { threadId, isMainThread } = require('node:worker_threads')
  const interval = Number(process.env.CPROF_RUN_INTERVAL) || 1000
  const heap = process.env.CPROF_RUN_HEAP === '1'
  const heapInterval = Number(process.env.CPROF_RUN_HEAP_INTERVAL) || 32768
  const includeCollected = process.env.CPROF_RUN_INCLUDE_COLLECTED === '1'
  const session = new inspector.Session()
  session.connect()
  const post = (method, params) => {
    let out
    let failure
    session.post(method, params, (err, r) => { failure = err; out = r })
    if (failure) throw failure
    return out
  }
  // The heap sampler first: its start is not the CPU profile's to count.
  if (heap) {
    post('HeapProfiler.enable')
    post('HeapProfiler.startSampling', {
      samplingInterval: heapInterval,
      ...(includeCollected ? { includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } : {})
    })
  }
  post('Profiler.enable')
  post('Profiler.setSamplingInterval', { interval })
  post('Profiler.start')
  const startTime = Date.now()
  let done = false

  function put (name, text) {
    const file = path.join(DIR, name)
    const tmp = `${file}.tmp`
    fs.writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' })
    fs.renameSync(tmp, file)
  }

  function write (how) {
    if (done) return
    done = true
    try {
      // startTime too: a pid the system gave again later is another process.
      const stem = `${process.pid}-${threadId}-${startTime}`
      const cpu = post('Profiler.stop').profile
      const hp = heap ? post('HeapProfiler.stopSampling').profile : null
      session.disconnect()
      put(`${stem}.cpuprofile`, JSON.stringify(cpu))
      if (hp) put(`${stem}.heapprofile`, JSON.stringify(hp))
      // Last: cprof run reads a thread's profiles once this is there.
      const main = require.main && require.main.filename
      put(`${stem}.json`, JSON.stringify({
        pid: process.pid,
        ppid: process.ppid,
        threadId,
        script: main || (isMainThread ? process.argv[1] : undefined) || null,
        argv: isMainThread ? process.argv.slice(1) : [],
        startTime,
        end: how
      }))
    } catch (err) {
      // The run's dir gone: cprof run ended before this process (a daemon
      // it left behind); nothing to say.
      if (err.code === 'ENOENT' && !fs.existsSync(DIR)) return
      process.stderr.write(`cprof run: pid ${process.pid} thread ${threadId}: no profile written: ${err.message}\n`)
    }
  }

  process.on('exit', (code) => write(`exit ${code}`))
  if (isMainThread) for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) watchSignal(sig, write)
}

// The listener that is there only while the app has none for sig.
function watchSignal (sig, write) {
  const onSignal = () => {
    write(sig)
    process.removeListener(sig, onSignal)
    process.removeListener('newListener', onNew)
    process.removeListener('removeListener', onRemove)
    process.kill(process.pid, sig)
  }
  // Later: 'newListener' comes before the listener is added, and removing
  // the last one now would make Node stop watching the signal.
  const stepAside = () => {
    if (process.listeners(sig).some((l) => l !== onSignal)) process.removeListener(sig, onSignal)
  }
  const onNew = (event, fn) => {
    if (event === sig && fn !== onSignal) process.nextTick(stepAside)
  }
  const onRemove = (event, fn) => {
    if (event === sig && fn !== onSignal && process.listenerCount(sig) === 0) process.on(sig, onSignal)
  }
  process.on('newListener', onNew)
  process.on('removeListener', onRemove)
  if (process.listenerCount(sig) === 0) process.on(sig, onSignal)
}

if (DIR) {
  try {
    start()
  } catch (err) {
    process.stderr.write(`cprof run: pid ${process.pid}: profiling did not start: ${err.message}\n`)
  }
}

'use strict'
// cprof ui's profile jobs (POST api/profile, GET api/jobs): a process
// profiled by its signal trigger for some seconds (lib/fleet/signal-
// profile.js, as `cprof trigger <pid> --duration`), its lines kept as the
// job's log. The file is the one the process reports in its run-directory
// entry, wherever it writes (its own CPROF_DIR, a PM2 instance's): the job
// has its path, and its name when it is in the dashboard's directory (so
// the page links the viewer). No file is a failed job, with the reason. The
// last 50 jobs are kept.
const path = require('node:path')
const { signalProfile } = require('../fleet/signal-profile')

const MAX_JOBS = 50

/** dir: the dashboard's directory. → { list, start(body) → { id } | { error } } */
function createJobs (dir) {
  // { id, pid, kind, seconds, state: 'running' | 'done' | 'failed', log,
  //   file (its path) | null, name (in dir) | null, error | null }
  const list = []
  let seq = 0

  function start (body) {
    const { pid, kind, seconds, signal } = body || {}
    if (!Number.isSafeInteger(pid) || pid < 1) return { error: 'pid must be a process id' }
    if (kind !== 'cpu' && kind !== 'heap') return { error: "kind must be 'cpu' or 'heap'" }
    if (typeof seconds !== 'number' || !(seconds >= 0.1 && seconds <= 600)) return { error: 'seconds must be from 0.1 to 600' }
    if (signal !== undefined && (typeof signal !== 'string' || !/^(SIG)?[A-Z0-9+]+$/i.test(signal))) return { error: 'signal must be a signal name' }
    const job = { id: ++seq, pid, kind, seconds, state: 'running', log: '', file: null, name: null, error: null }
    list.push(job)
    if (list.length > MAX_JOBS) list.shift()
    const sink = { write: (s) => { job.log += s } }
    const result = {}
    const o = { pid, heap: kind === 'heap', signal, duration: seconds, force: false }
    signalProfile(o, { out: sink, err: sink, who: 'cprof ui', result }).then(
      (code) => {
        if (result.file) {
          job.file = result.file
          if (path.dirname(path.resolve(result.file)) === path.resolve(dir)) job.name = path.basename(result.file)
        }
        job.error = code === 0 && !result.error ? null : result.error || lastLine(job.log) || `exit ${code}`
        job.state = job.file && code === 0 ? 'done' : 'failed'
      },
      (err) => { job.state = 'failed'; job.error = String(err && err.message); job.log += job.error })
    return { id: job.id }
  }

  return { list, start }
}

function lastLine (log) {
  const lines = log.trim().split('\n')
  return (lines[lines.length - 1] || '').replace(/^cprof ui: /, '') || null
}

module.exports = { createJobs }

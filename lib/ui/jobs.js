'use strict'
// cprof ui's profile jobs (POST api/profile, GET api/jobs): a process
// profiled by its signal trigger for some seconds (lib/fleet/signal-
// profile.js, as `cprof trigger <pid> --duration`), its lines kept as the
// job's log. The last 50 jobs are kept.
const { signalProfile } = require('../fleet/signal-profile')

const MAX_JOBS = 50

/** dir: the dashboard's directory, where a job waits for its file (it says
 * so when the app writes elsewhere). → { list, start(body) → { id } | { error } } */
function createJobs (dir) {
  const list = [] // { id, pid, kind, seconds, state: 'running' | 'done' | 'failed', log }
  let seq = 0

  function start (body) {
    const { pid, kind, seconds, signal } = body || {}
    if (!Number.isSafeInteger(pid) || pid < 1) return { error: 'pid must be a process id' }
    if (kind !== 'cpu' && kind !== 'heap') return { error: "kind must be 'cpu' or 'heap'" }
    if (typeof seconds !== 'number' || !(seconds >= 0.1 && seconds <= 600)) return { error: 'seconds must be from 0.1 to 600' }
    if (signal !== undefined && (typeof signal !== 'string' || !/^(SIG)?[A-Z0-9+]+$/i.test(signal))) return { error: 'signal must be a signal name' }
    const job = { id: ++seq, pid, kind, seconds, state: 'running', log: '' }
    list.push(job)
    if (list.length > MAX_JOBS) list.shift()
    const sink = { write: (s) => { job.log += s } }
    const o = { pid, heap: kind === 'heap', signal, duration: seconds, dir, force: false }
    signalProfile(o, { out: sink, err: sink, who: 'cprof ui' }).then(
      (code) => { job.state = code === 0 ? 'done' : 'failed' },
      (err) => { job.state = 'failed'; job.log += String(err && err.message) })
    return { id: job.id }
  }

  return { list, start }
}

module.exports = { createJobs }

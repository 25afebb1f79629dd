'use strict'
// One process profiled by its signal trigger (cprof.init() or the preload,
// lib/triggers/): the signal it installed for the kind (its run-directory
// entry, else its start environment), checked (a signal cprof can install,
// one the process catches: an uncaught SIGUSR2 would terminate it), sent;
// with a duration, sent again after it, then the profile file it wrote is
// awaited and its real duration read. `cprof trigger <pid>` (lib/cli/
// trigger.js) and the dashboard's jobs (lib/ui/jobs.js) both run this;
// ctx: { out, err, who, result? }: where the lines go, whose they are, and
// (cprof ui) an object that gets the file written ({ file }) or why none ({ error }).
const fs = require('node:fs')
const path = require('node:path')
const native = require('../native')
const { parseSignal, DEFAULT_SIGNAL } = require('../triggers/signals')
const { startEnv: unpackPm2 } = require('../identity/pm2')
const { termSafe } = require('../term')
const procfs = require('../procfs')
const { discover, findProcess } = require('./discover')
// what the process says it wrote: followed as the fan-out follows it
const { collect } = require('./fanout')

// How long cprof waits for the app to write its profile after the second
// signal (or a dump): the app may be in long synchronous work.
const WAIT_S = 30

/** 'dump', 'heap' or 'CPU': o's kind as the messages name it. */
const kindName = (o) => (o.dump ? 'dump' : o.heap ? 'heap' : 'CPU')

// The environment the process was started with, as register.js reads it: a
// PM2 cluster instance carries the app's variables inside pm2_env.
function startEnv (pid) {
  return unpackPm2(procfs.env(pid) || {})
}

// The process's run-directory entry, as `cprof ps` shows it: the signals
// and the dir its triggers were installed with (init() in code or the
// preload, PM2's pm2_env or io included); null if it did not announce itself.
// The caller's own run directories first; then, for a process of another
// user (root), its owner's run directory as rundir.ofProcess checks it, so
// root sends what the process announced (init({ dumpSignal }) in code)
// rather than guessing from its environment. warn(text): its entry was
// skipped (lib/fleet/discover.js findProcess).
function announced (pid, warn) {
  return findProcess(pid, warn).entry || null
}

// The signal for o's kind that the process's entry says it installed:
// { name, from } or { error, status }. With the flight recorder on, the
// CPU signal may be the dump's: a CPU profile is then refused at once.
function announcedSignal (o, entry) {
  const t = entry.triggers || {}
  const pid = entry.pid
  if (o.dump) {
    if (t.dumpSignal) return { name: t.dumpSignal, from: 'its dump signal' }
    return { error: `process ${pid} runs no flight recorder (CPROF_RECORDER=1 or init({ recorder })): nothing to dump`, status: 1 }
  }
  if (o.heap) {
    if (t.heapSignal) return { name: t.heapSignal, from: 'its heap signal' }
    return { error: `process ${pid} has no heap signal installed (CPROF_HEAP_SIGNAL or init({ heapSignal }))` +
      `${t.heap && t.pm2Actions ? '; pm2 trigger <app> cprof:heap:start works' : ''}`, status: 1 }
  }
  if (t.signal) return { name: t.signal, from: 'its CPU signal' }
  return { error: noCpuSignal(pid, t), status: 1 }
}

// Why a process announced no CPU signal, and what works instead.
function noCpuSignal (pid, t) {
  if (t.recorder) {
    return `process ${pid} runs the flight recorder, and no CPU signal: ` +
      `${t.dumpSignal ? `${termSafe(t.dumpSignal)} dumps the recorder. ` : ''}` +
      `\`cprof trigger ${pid} --dump [--last S]\` writes its last seconds as a CPU profile` +
      `${t.cpu ? `; for a CPU profile beside it, ${t.pm2Actions ? 'pm2 trigger <app> cprof:cpu:start, or ' : ''}` +
        'give the dump its own signal (CPROF_DUMP_SIGNAL) so that CPROF_SIGNAL toggles CPU profiles' : ''}`
  }
  return `process ${pid} has no CPU signal installed (its CPU profiling is off: CPROF_PROFILING=1 or init())`
}

// The signal from the process's start environment (no run-directory entry):
// { name, from } or { error, status }.
function envSignal (o, env) {
  if (o.heap) {
    if (env.CPROF_HEAP_SIGNAL) return { name: env.CPROF_HEAP_SIGNAL, from: 'CPROF_HEAP_SIGNAL' }
    return { error: 'the heap signal has no default: pass --signal <the heapSignal the app set>', status: 2 }
  }
  if (o.dump && env.CPROF_DUMP_SIGNAL) return { name: env.CPROF_DUMP_SIGNAL, from: 'CPROF_DUMP_SIGNAL' }
  if (env.CPROF_SIGNAL) return { name: env.CPROF_SIGNAL, from: 'CPROF_SIGNAL' }
  return { name: DEFAULT_SIGNAL, from: 'the default' }
}

// Whether the process catches signal number n (SigCgt in /proc/<pid>/status);
// undefined when that cannot be read.
function catches (pid, n) {
  let status
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return undefined
  }
  const m = /^SigCgt:\s*([0-9a-f]+)$/mi.exec(status)
  if (!m) return undefined
  return ((BigInt(`0x${m[1]}`) >> BigInt(n - 1)) & 1n) === 1n
}

// Where the process writes its profiles: the dir its entry announced (its
// init() or preload config), else as lib/options.js decides it there:
// CPROF_DIR (relative to its working directory), else <its tmpdir>/cprof-<its
// effective uid> (lib/dirs.js; /proc/<pid> belongs to that uid).
function profileDir (pid, env, given, entry = null) {
  if (given !== undefined) return path.resolve(given)
  let cwd = '/'
  try {
    cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
  } catch {}
  if (entry && typeof entry.dir === 'string' && entry.dir !== '') return path.resolve(entry.cwd || cwd, entry.dir)
  if (env.CPROF_DIR) return path.resolve(cwd, env.CPROF_DIR)
  const tmp = (env.TMPDIR || '/tmp').replace(/(.)\/+$/, '$1')
  let uid = process.geteuid()
  try {
    uid = fs.statSync(`/proc/${pid}`).uid
  } catch {}
  return path.join(path.resolve(cwd, tmp), `cprof-${uid}`)
}

// cprof names a signal-triggered profile <kind>-<pid>-<start stamp>.<ext>
// (lib/controller.js), written atomically: polls dir for one that started
// at or after since (ms); null after waitMs.
async function waitForProfile (dir, pid, kind, since, waitMs) {
  const ext = kind === 'heap' ? 'heapprofile' : 'cpuprofile'
  const re = new RegExp(`^${kind}-(?:[A-Za-z0-9_-]+\\.[0-9a-z]+-)?${pid}-(\\d{8}T\\d{6}\\.\\d{3}Z)\\.${ext}$`)
  const deadline = Date.now() + waitMs
  for (;;) {
    let names = []
    try {
      names = fs.readdirSync(dir)
    } catch {}
    const found = names.map((n) => [n, re.exec(n)])
      .filter(([, m]) => m && stampTime(m[1]) >= since)
      .sort(([a], [b]) => (a < b ? -1 : 1))
    if (found.length > 0) {
      const [name, m] = found[0]
      return { file: path.join(dir, name), startMs: stampTime(m[1]) }
    }
    if (Date.now() >= deadline) return null
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function stampTime (stamp) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{3})Z$/.exec(stamp)
  return m ? Date.UTC(+m[1], m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]) : NaN
}

// The time the profile really covers, in ms: a CPU profile says it (endTime
// - startTime); a heap profile does not, so: from its start stamp to when
// the file was written (which also counts the write, a few ms).
async function realDurationMs (found, kind) {
  if (kind === 'cpu') return (await native.analyze({ path: path.resolve(found.file), top: 0, nodes: false, lines: false })).durationMs
  return fs.statSync(found.file).mtimeMs - found.startMs
}

function alive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    if (err.code === 'EPERM') return true
    return false
  }
}

function send (pid, sig) {
  try {
    process.kill(pid, sig.name)
  } catch (err) {
    const why = err.code === 'ESRCH' ? 'no such process' : err.code === 'EPERM' ? 'not permitted' : err.message
    throw Object.assign(new Error(`cannot signal process ${pid}: ${why}`), { code: err.code })
  }
}

// The file of o's kind the process wrote for a profile started at or after
// since: { file } or { reason }. A process that announced itself says in its
// run-directory entry what it wrote, or why it failed (the fan-out's
// collect, lib/fleet/fanout.js): that is followed, wherever its dir is.
// Else (no entry in this user's run directories, or --dir given) dir is
// polled for a file named as cprof names one.
async function written (o, k, t, dir, since) {
  const own = t.entry && o.dir === undefined && discover({ prune: false }).entries.some((e) => e.pid === o.pid)
  if (own) {
    const got = (await collect([t.entry], k, since, WAIT_S * 1000, new Map()))[o.pid]
    if (got.file) return { file: got.file, startMs: got.entry.last[k].startTime }
    // A process that exits once its profile is written may remove its
    // entry before it says so there: its file, named as cprof names it.
    const found = await waitForProfile(dir, o.pid, k, since, 0)
    if (found) return found
    const late = /^wrote no profile/.test(got.reason)
    return { reason: `process ${o.pid} ${got.reason}${late ? ` (it writes into ${dir})` : ''}`, late }
  }
  const found = await waitForProfile(dir, o.pid, k, since, WAIT_S * 1000)
  if (found) return found
  return { reason: `no ${k === 'heap' ? 'heap' : 'CPU'} profile of process ${o.pid} appeared in ${dir} within ${WAIT_S} s`, late: true }
}

// After --duration: the file the app wrote, and how long it really covers.
// ctx.result, when given, gets { file } or { error }: what cprof ui's job shows.
async function report (o, kind, t, dir, since, { out, err, who, result = {} }) {
  const k = o.heap ? 'heap' : 'cpu'
  const found = await written(o, k, t, dir, since)
  if (!found.file) { // late: exit 0 all the same, the signals were sent
    result.error = found.reason
    err.write(`${who}: ${termSafe(found.reason)}${found.late
      ? ': the app may still be busy (it acts on signals when its event loop turns), or it writes ' +
        'elsewhere (pass --dir); `cprof list <dir>` shows it once written'
      : ''}\n`)
    return found.late ? 0 : 1
  }
  result.file = found.file
  let ms
  try {
    ms = await realDurationMs(found, k)
  } catch (e) {
    err.write(`${who}: wrote ${termSafe(found.file)}, but cannot read its duration: ${termSafe(e.message)}\n`)
    return 1
  }
  const s = ms / 1000
  const asked = o.duration
  let line = `wrote ${found.file}: ${k === 'heap' ? 'about ' : ''}${s.toFixed(2)} s of profile (asked ${asked} s)`
  if (Math.abs(s - asked) > Math.max(0.1, asked * 0.1)) {
    line += `; the app acts on a signal when its event loop turns, so synchronous work ` +
      'delayed the start or the stop'
  }
  out.write(`${termSafe(line)}\n`)
  return 0
}

/**
 * The signal to send o.pid ({ pid, heap, dump, signal?, force }), checked:
 * { sig, entry, env } or { exit } (2: a bad signal name; 1: no such
 * process, no signal for the kind, or one it does not catch), said on err.
 */
function target (o, { err, who }) {
  const kind = kindName(o)
  let name = o.signal
  let from = '--signal'
  if (name !== undefined) {
    try {
      parseSignal(name, from)
    } catch (e) {
      err.write(`${who}: ${termSafe(e.message)}\n`)
      return { exit: 2 }
    }
  }
  if (!alive(o.pid)) {
    err.write(`${who}: no process ${o.pid}\n`)
    return { exit: 1 }
  }
  const entry = announced(o.pid, (w) => err.write(`${who}: ${termSafe(w)}\n`))
  const env = startEnv(o.pid)
  if (name === undefined) {
    const chosen = entry ? announcedSignal(o, entry) : envSignal(o, env)
    if (chosen.error) {
      err.write(`${who}: ${chosen.error}\n`)
      return { exit: chosen.status }
    }
    ({ name, from } = chosen)
  }
  let sig
  try {
    sig = parseSignal(name, from)
  } catch (e) {
    err.write(`${who}: ${termSafe(e.message)}\n`)
    return { exit: 2 }
  }
  if (!o.force && catches(o.pid, sig.number) === false) {
    err.write(`${who}: process ${o.pid} does not catch ${sig.name}, so cprof's ${kind} trigger ` +
      `is not installed there with that signal${sig.name === 'SIGUSR2' ? ' (SIGUSR2 would terminate it)' : ''}. ` +
      'Check the app calls cprof.init() or runs with -r cprof/register and CPROF_PROFILING=1, ' +
      'and which signal it uses; --force sends anyway.\n')
    return { exit: 1 }
  }
  return { sig, entry, env }
}

/**
 * A profile of o.duration seconds by t's signal (target()): sent, sent
 * again after the duration, then the file awaited in o.dir (else where the
 * process writes) and reported on out. Resolves with the exit status.
 */
async function profileFor (o, t, ctx) {
  const kind = kindName(o)
  const { sig } = t
  try {
    const since = Date.now()
    send(o.pid, sig)
    ctx.out.write(`sent ${sig.name} to ${o.pid}: a ${kind} profile starts; sending it again in ${o.duration} s\n`)
    await new Promise((resolve) => setTimeout(resolve, o.duration * 1000))
    send(o.pid, sig)
    ctx.out.write(`sent ${sig.name} to ${o.pid} again: the ${kind} profile stops and is written\n`)
    return await report(o, kind, t, profileDir(o.pid, t.env, o.dir, t.entry), since, ctx)
  } catch (e) {
    if (ctx.result) ctx.result.error = e.message
    ctx.err.write(`${ctx.who}: ${termSafe(e.message)}\n`)
    return 1
  }
}

/** target() then profileFor(): o { pid, heap, signal?, duration (s), dir?, force }. */
async function signalProfile (o, ctx) {
  const t = target(o, ctx)
  return t.exit !== undefined ? t.exit : profileFor(o, t, ctx)
}

module.exports = { WAIT_S, kindName, target, profileFor, signalProfile, send, startEnv, profileDir, catches }

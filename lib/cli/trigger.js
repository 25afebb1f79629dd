'use strict'
// cprof trigger <pid> [--heap] [--signal <name>] [--duration <s>] [--force]
// cprof trigger <pid> --dump [--last <s>] [--signal <name>] [--force]
//
// Sends the signal trigger to a live process that installed it (cprof.init()
// or node -r cprof/register): the first signal starts a profile, the next one
// stops it and writes the file. Before sending, it checks in
// /proc/<pid>/status that the process catches the signal: an uncaught
// SIGUSR2 would terminate it.
const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { parseSignal, DEFAULT_SIGNAL } = require('../triggers/signals')
const dumpRequest = require('../triggers/dump-request')
const rundir = require('../fleet/rundir')
const { FORMAT_EXT } = require('../options')
const { termSafe } = require('../term')
const { UsageError, usageError } = require('./usage')
const { discover } = require('../fleet/discover')
const procfs = require('../fleet/procfs')
const { startEnv: unpackPm2 } = require('../triggers/pm2')

// How long --duration waits for the app to write its profile after the
// second signal: the app may be in long synchronous work.
const WAIT_S = 30

const USAGE = `usage: cprof trigger <pid> [--heap] [--signal <name>] [--duration <s>] [--dir <dir>] [--force]
       cprof trigger <pid> --dump [--last <s>] [--signal <name>] [--force]
       cprof trigger --app NAME | <pid> --tree [--heap] [--duration <s>] [--formats LIST] [--json]
       cprof trigger --app NAME | <pid> --tree --dump [--last <s>] [--formats LIST] [--json]

Toggles profiling in a process that runs cprof's signal trigger
(cprof.init() or node -r cprof/register): the first signal starts a
profile, the second stops it and writes the file into the app's directory
(see \`cprof list\`).

  --heap            send the heap signal (the app's heapSignal) instead of the CPU one
  --signal <name>   the signal to send; default: the one the process installed for that
                    kind, as \`cprof ps\` shows it (a PM2 cluster instance's CPROF_* too); for a
                    process that did not announce itself, the CPROF_SIGNAL / CPROF_HEAP_SIGNAL
                    it was started with, else ${DEFAULT_SIGNAL} (CPU; heap has no default)
  --duration <s>    send the signal, wait this many seconds, send it again, then wait
                    (up to ${WAIT_S} s) for the profile file and print its path and the
                    duration it really covers: the app acts on a signal when its event
                    loop turns, so long synchronous work delays both start and stop
  --dir <dir>       where the app writes profiles, to find that file (default: the dir
                    the process announced, else its CPROF_DIR, else its TMPDIR or /tmp,
                    plus /cprof-<its uid>)
  --force           send even if the process does not seem to catch the signal
  --dump            ask the flight recorder (recorder: in init(), or CPROF_RECORDER=1) to write
                    what it holds; the signal defaults to the process's dump signal
                    (CPROF_DUMP_SIGNAL, else CPROF_SIGNAL, else ${DEFAULT_SIGNAL})
  --last <s>        with --dump: only the last <s> seconds (default: all the recorder keeps);
                    passed in the process's run directory, then cprof waits (up to ${WAIT_S} s)
                    for the dump and prints the file, or why there is none (exit 1)

Fan-out (the processes that announced themselves; see \`cprof ps\`):
  --app NAME        every process of app NAME (PM2 name, CPROF_APP, title or script)
  --tree            process <pid> and every cprof process under it (a node:cluster
                    primary passes the signal on to its workers itself)
  Each process gets its own signal. With --duration: start, wait, stop; without:
  the first call starts, the next stops. Then cprof waits (up to 30 s) for every
  instance's file and writes one merged profile next to them,
  <kind>-<app>.merged-<pid>-<stamp>.<ext>, and prints each instance's share of
  it; an instance that exits or fails is named as missing. Exit 1 only when no
  instance delivered a profile.
  With --dump [--last <s>]: every process's flight recorder writes what it holds
  (each gets its dump signal, a cluster primary's workers too), and the dumps
  are merged the same way (cpu-<app>.merged-...); a process running no
  recorder is named as missing.
  --formats LIST    also write the merged profile as: pprof, folded, svg, txt
  --top N           functions in the printed summary (default 10)
  --json            print the merged result as JSON
`

function options (argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        heap: { type: 'boolean' },
        signal: { type: 'string' },
        duration: { type: 'string' },
        dir: { type: 'string' },
        force: { type: 'boolean' },
        dump: { type: 'boolean' },
        last: { type: 'string' },
        app: { type: 'string' },
        tree: { type: 'boolean' },
        formats: { type: 'string', multiple: true },
        top: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' }
      }
    })
  } catch (err) {
    throw new UsageError(err.message)
  }
  const { values, positionals } = parsed
  if (values.help) return { help: true }
  const fleet = values.app !== undefined || values.tree
  if (values.app !== undefined && (values.tree || positionals.length > 0)) {
    throw new UsageError('--app NAME takes no process id and no --tree')
  }
  if (!fleet && (values.formats || values.top !== undefined || values.json)) {
    throw new UsageError('--formats, --top and --json go with --app or --tree')
  }
  if (values.app === '') throw new UsageError('--app must name an app')
  if (values.app !== undefined) positionals.push('0') // no pid: the app names the set
  const pid = Number(positionals[0])
  if (!/^\d+$/.test(positionals[0]) || !Number.isSafeInteger(pid) || (pid < 1 && values.app === undefined)) {
    throw new UsageError(`not a process id: ${JSON.stringify(positionals[0])}`)
  }
  let duration
  if (values.duration !== undefined) {
    duration = Number(values.duration)
    if (values.duration.trim() === '' || !Number.isFinite(duration) || duration <= 0) {
      throw new UsageError(`--duration must be a number of seconds > 0, got ${JSON.stringify(values.duration)}`)
    }
  }
  let last
  if (values.last !== undefined) {
    if (!values.dump) throw new UsageError('--last goes with --dump')
    last = Number(values.last)
    if (values.last.trim() === '' || !Number.isFinite(last) || last <= 0) {
      throw new UsageError(`--last must be a number of seconds > 0, got ${JSON.stringify(values.last)}`)
    }
  }
  if (values.dump && (values.heap || duration !== undefined)) {
    throw new UsageError('--dump does not go with --heap or --duration')
  }
  if (values.dir === '') throw new UsageError('--dir must name a directory')
  let formats
  let top
  if (fleet) {
    if (values.signal !== undefined || values.dir !== undefined || values.force) {
      throw new UsageError('--signal, --dir and --force act on one process: the fan-out uses what each process announced')
    }
    formats = [...new Set((values.formats || []).flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean))]
    const bad = formats.find((f) => !Object.hasOwn(FORMAT_EXT, f))
    if (bad) throw new UsageError(`unknown format "${bad}" for --formats; known: ${Object.keys(FORMAT_EXT).join(', ')}`)
    if (values.top !== undefined) {
      top = Number(values.top)
      if (!/^\d+$/.test(values.top) || top < 1) throw new UsageError(`--top must be an integer >= 1, got ${JSON.stringify(values.top)}`)
    }
  }
  return {
    pid: values.app !== undefined ? undefined : pid,
    heap: Boolean(values.heap),
    signal: values.signal,
    duration,
    dir: values.dir,
    force: Boolean(values.force),
    dump: Boolean(values.dump),
    last,
    fleet,
    app: values.app,
    formats,
    top,
    json: Boolean(values.json)
  }
}

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
// rather than guessing from its environment.
function announced (pid) {
  const own = discover({ prune: false }).entries.find((e) => e.pid === pid)
  if (own) return own
  const found = rundir.ofProcess(pid)
  return found ? found.entry : null
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
  if (kind === 'cpu') return (await require('../index').analyze(found.file)).durationMs
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

async function run (argv, { out = process.stdout, err = process.stderr } = {}) {
  let o
  try {
    o = options(argv)
  } catch (e) {
    if (!(e instanceof UsageError)) throw e
    return usageError('trigger', USAGE, e.message, err).exit
  }
  if (o.help) {
    out.write(USAGE)
    return 0
  }
  if (o.fleet) return require('./fleet-trigger').runFleet(o, { out, err })
  const kind = o.dump ? 'dump' : o.heap ? 'heap' : 'CPU'
  let name = o.signal
  let from = '--signal'
  if (name !== undefined) {
    try {
      parseSignal(name, from)
    } catch (e) {
      err.write(`cprof trigger: ${termSafe(e.message)}\n`)
      return 2
    }
  }
  if (!alive(o.pid)) {
    err.write(`cprof trigger: no process ${o.pid}\n`)
    return 1
  }
  const entry = announced(o.pid)
  const env = startEnv(o.pid)
  if (name === undefined) {
    const chosen = entry ? announcedSignal(o, entry) : envSignal(o, env)
    if (chosen.error) {
      err.write(`cprof trigger: ${chosen.error}\n`)
      return chosen.status
    }
    ({ name, from } = chosen)
  }
  let sig
  try {
    sig = parseSignal(name, from)
  } catch (e) {
    err.write(`cprof trigger: ${termSafe(e.message)}\n`)
    return 2
  }
  if (!o.force && catches(o.pid, sig.number) === false) {
    err.write(`cprof trigger: process ${o.pid} does not catch ${sig.name}, so cprof's ${kind} trigger ` +
      `is not installed there with that signal${sig.name === 'SIGUSR2' ? ' (SIGUSR2 would terminate it)' : ''}. ` +
      'Check the app calls cprof.init() or runs with -r cprof/register and CPROF_PROFILING=1, ' +
      'and which signal it uses; --force sends anyway.\n')
    return 1
  }
  try {
    if (o.dump) {
      if (o.last !== undefined) return await dumpLast(o, sig, { out, err })
      send(o.pid, sig)
      const dir = profileDir(o.pid, env, o.dir, entry)
      out.write(`sent ${sig.name} to ${o.pid}: its flight recorder writes ` +
        `${o.last !== undefined ? `the last ${o.last} s` : 'all it holds'} into ${termSafe(dir)} ` +
        `(\`cprof list ${termSafe(dir)}\` shows the file)\n`)
      return 0
    }
    const since = Date.now()
    send(o.pid, sig)
    if (o.duration === undefined) {
      out.write(`sent ${sig.name} to ${o.pid}: it starts a ${kind} profile, or stops the running one ` +
        'and writes it\n')
      return 0
    }
    out.write(`sent ${sig.name} to ${o.pid}: a ${kind} profile starts; sending it again in ${o.duration} s\n`)
    await new Promise((resolve) => setTimeout(resolve, o.duration * 1000))
    send(o.pid, sig)
    out.write(`sent ${sig.name} to ${o.pid} again: the ${kind} profile stops and is written\n`)
    return await report(o, kind, profileDir(o.pid, env, o.dir, entry), since, { out, err })
  } catch (e) {
    err.write(`cprof trigger: ${termSafe(e.message)}\n`)
    return 1
  }
}

// After --duration: the file the app wrote, and how long it really covers.
async function report (o, kind, dir, since, { out, err }) {
  const k = o.heap ? 'heap' : 'cpu'
  const found = await waitForProfile(dir, o.pid, k, since, WAIT_S * 1000)
  if (!found) {
    err.write(`cprof trigger: no ${kind} profile of process ${o.pid} appeared in ${termSafe(dir)} within ${WAIT_S} s: ` +
      'the app may still be busy (it acts on signals when its event loop turns), or it writes ' +
      'elsewhere (pass --dir); `cprof list <dir>` shows it once written\n')
    return 0
  }
  let ms
  try {
    ms = await realDurationMs(found, k)
  } catch (e) {
    err.write(`cprof trigger: wrote ${termSafe(found.file)}, but cannot read its duration: ${termSafe(e.message)}\n`)
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

// --dump --last S: the request goes into the process's own run directory
// (lib/triggers/dump-request.js), then cprof waits for the dump its entry reports,
// so what it prints is what happened; a request not taken is removed.
async function dumpLast (o, sig, { out, err }) {
  const owner = rundir.processOwner(o.pid)
  const me = process.geteuid()
  if (owner !== null && me !== 0 && owner !== me) {
    err.write(`cprof trigger: cannot signal process ${o.pid}: not permitted (it runs as uid ${owner}, you are uid ${me})\n`)
    return 1
  }
  const found = rundir.ofProcess(o.pid)
  if (!found) {
    err.write(`cprof trigger: cannot pass --last to process ${o.pid}: it has no entry in a run directory of ` +
      'its user (`cprof ps`, as that user, lists the processes that have one). Nothing was sent; ' +
      'without --last the dump holds all the recorder keeps\n')
    return 1
  }
  if (!(found.entry.recorder && found.entry.recorder.running)) {
    err.write(`cprof trigger: process ${o.pid} runs no flight recorder (CPROF_RECORDER=1 or init({ recorder })); nothing was sent\n`)
    return 1
  }
  const since = Date.now()
  dumpRequest.put(found.dir, o.pid, Math.round(o.last * 1000), found.owner)
  try {
    send(o.pid, sig)
  } catch (e) {
    dumpRequest.remove(found.dir, o.pid, found.owner)
    throw e
  }
  const deadline = since + WAIT_S * 1000
  for (;;) {
    const e = rundir.entryIn(found.dir, o.pid, found.owner)
    const done = e && e.last && e.last.dump
    const failed = e && e.errors && e.errors.dump
    if (done && done.at >= since) {
      out.write(`sent ${sig.name} to ${o.pid}: its flight recorder wrote the last ${o.last} s ` +
        `(${(done.durationMs / 1000).toFixed(2)} s of recording in whole windows): ${termSafe(done.files.cpuprofile)}\n`)
      return 0
    }
    if (failed && failed.at >= since) {
      err.write(`cprof trigger: sent ${sig.name} to ${o.pid}, but its dump failed: ` +
        `${termSafe(failed.code ? failed.code + ': ' : '')}${termSafe(failed.message)}\n`)
      return 1
    }
    if (!e || Date.now() >= deadline) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const untaken = dumpRequest.remove(found.dir, o.pid, found.owner)
  const dir = termSafe(profileDir(o.pid, startEnv(o.pid), o.dir, found.entry))
  err.write(`cprof trigger: sent ${sig.name} to ${o.pid}, but it reported no dump within ${WAIT_S} s` +
    `${untaken ? ' and did not take the request (removed)' : ''}: it may be busy (it acts on signals when ` +
    `its event loop turns), or exited; its dumps go into ${dir} (\`cprof list ${dir}\` shows one once written)\n`)
  return 1
}

module.exports = { run, catches, profileDir }

'use strict'
// cprof trigger <pid> [--heap] [--signal <name>] [--duration <s>] [--force]
// cprof trigger <pid> --dump [--last <s>] [--signal <name>] [--force]
//
// Sends the signal trigger to a live process that installed it (cprof.init()
// or node -r cprof/register): the first signal starts a profile, the next one
// stops it and writes the file. Before sending, it checks in
// /proc/<pid>/status that the process catches the signal: an uncaught
// SIGUSR2 would terminate it.
const { DEFAULT_SIGNAL } = require('../triggers/signals')
const dumpRequest = require('../triggers/dump-request')
const rundir = require('../identity/rundir')
const { FORMAT_EXT } = require('../options')
const { termSafe } = require('../term')
const { command, UsageError } = require('./kit')
// signal a process, wait for its file: shared with cprof ui's jobs
const { WAIT_S, kindName, target, profileFor, send, startEnv, profileDir, catches } = require('../fleet/signal-profile')
const { snapshotOne, WRITE_WAIT_S } = require('../fleet/signal-snapshot')

const trigger = command({
  name: 'trigger',
  usage: [
    '<pid> [--heap] [--signal <name>] [--duration <s>] [--dir <dir>] [--force]',
    '<pid> --dump [--last <s>] [--signal <name>] [--force]',
    '<pid> --snapshot [--dir <dir>] [--force]',
    '--app NAME --snapshot [--json]',
    '--app NAME [--heap] [--duration <s>] [--formats LIST] [--json]',
    '<pid> --tree [--heap] [--duration <s>] [--formats LIST] [--json]',
    '--app NAME --dump [--last <s>] [--formats LIST] [--json]',
    '<pid> --tree --dump [--last <s>] [--formats LIST] [--json]'
  ],
  positionals: [0, 1],
  about: `Toggles profiling in a process that runs cprof's signal trigger
(cprof.init() or node -r cprof/register): the first signal starts a
profile, the second stops it and writes the file into the app's directory
(see \`cprof list\`).`,
  options: [
    { name: 'heap', type: 'flag', help: "send the heap signal (the app's heapSignal) instead of the CPU one" },
    {
      name: 'signal',
      arg: '<name>',
      type: 'text',
      shown: 'the one the process installed',
      help: 'the signal to send; default: the one the process installed for that kind (`cprof ps`); for a process ' +
        `that did not announce itself, its CPROF_SIGNAL / CPROF_HEAP_SIGNAL, else ${DEFAULT_SIGNAL} (CPU only)`,
      noDefaultInHelp: true
    },
    {
      name: 'duration',
      arg: '<s>',
      type: 'seconds',
      above: true,
      help: `send the signal, wait this many seconds, send it again, wait (up to ${WAIT_S} s) for the file and ` +
        'print it with the duration it really covers (synchronous work delays both signals)'
    },
    {
      name: 'dir',
      arg: '<dir>',
      type: 'dir',
      shown: 'the one the process announced',
      help: 'where the app writes profiles (default: the one it announced, else its CPROF_DIR, else its ' +
        'TMPDIR or /tmp, plus /cprof-<its uid>)',
      noDefaultInHelp: true
    },
    { name: 'force', type: 'flag', help: 'send even if the process does not seem to catch the signal' },
    {
      name: 'dump',
      type: 'flag',
      help: 'ask the flight recorder (recorder: in init(), or CPROF_RECORDER=1) to write what it holds; the signal ' +
        `defaults to the process's dump signal (CPROF_DUMP_SIGNAL, else CPROF_SIGNAL, else ${DEFAULT_SIGNAL})`
    },
    {
      name: 'last',
      arg: '<s>',
      type: 'seconds',
      above: true,
      shown: 'all the recorder keeps',
      help: `with --dump: only the last <s> seconds; cprof waits (up to ${WAIT_S} s) and prints the file, or why ` +
        'there is none (exit 1)'
    },
    {
      name: 'snapshot',
      type: 'flag',
      help: 'ask the process for a full heap snapshot (heap.snapshot()); cprof waits (up to ' +
        `${WAIT_S} s for it to start, ${WRITE_WAIT_S} s for the file) and prints its path, MB and seconds, or why ` +
        'there is none (exit 1: ERR_CPROF_BUSY, ERR_CPROF_NO_SPACE). It PAUSES the app and needs memory beside ' +
        'the heap. --dir <dir>: write it there (checked as heap.snapshot() checks it)'
    },
    { name: 'app', arg: 'NAME', type: 'text', help: 'fan-out: every process of app NAME (PM2 name, CPROF_APP, title or script)' },
    {
      name: 'tree',
      type: 'flag',
      help: 'fan-out: process <pid> and every cprof process under it (a node:cluster primary passes the signal on ' +
        'to its workers itself)'
    },
    { name: 'formats', arg: 'LIST', type: 'list', choices: Object.keys(FORMAT_EXT), noun: 'format', shown: 'none', help: 'fan-out: also write the merged profile as these' },
    { name: 'top', arg: 'N', type: 'count', min: 1, default: 10, help: 'fan-out: functions in the printed summary' },
    { name: 'json', type: 'flag', help: 'fan-out: print the merged result as JSON' }
  ],
  notes: `Fan-out (--app, --tree: the processes that announced themselves; see \`cprof ps\`):
  Each process gets its own signal. With --duration: start, wait, stop (once each
  has started: a busy one acts on a signal late); without:
  the first call starts, the next stops. Then cprof waits (up to 30 s) for every
  instance's file and writes one merged profile next to them,
  <kind>-<app>.merged-<pid>-<stamp>.<ext>, and prints each instance's share of
  it; an instance that exits or fails is named as missing. Exit 1 only when no
  instance delivered a profile.
  With --dump [--last <s>]: every process's flight recorder writes what it holds
  (each gets its dump signal, a cluster primary's workers too), and the dumps
  are merged the same way (cpu-<app>.merged-...); a process running no
  recorder is named as missing.
  With --snapshot (--app only): every process of the app writes a heap snapshot,
  one process after the other (each pauses its own process); exit 1 when any
  wrote none. --json prints [{ pid, label, file, bytes, durationMs } | { pid, label, reason }].`
})

// The command line's values as the trigger's options; throws UsageError.
function options ({ values, given, positionals }) {
  const fleet = values.app !== undefined || values.tree
  if (values.app !== undefined && (values.tree || positionals.length > 0)) {
    throw new UsageError('--app NAME takes no process id and no --tree')
  }
  if (!fleet && ['formats', 'top', 'json'].some((k) => given.has(k))) {
    throw new UsageError('--formats, --top and --json go with --app or --tree')
  }
  if (values.app === '') throw new UsageError('--app must name an app')
  if (values.snapshot) snapshotConflicts(values, given)
  if (values.app !== undefined) positionals.push('0') // no pid: the app names the set
  const pid = Number(positionals[0])
  if (!/^\d+$/.test(positionals[0]) || !Number.isSafeInteger(pid) || (pid < 1 && values.app === undefined)) {
    throw new UsageError(`not a process id: ${JSON.stringify(positionals[0])}`)
  }
  if (values.last !== undefined && !values.dump) throw new UsageError('--last goes with --dump')
  if (values.dump && (values.heap || values.duration !== undefined)) {
    throw new UsageError('--dump does not go with --heap or --duration')
  }
  if (fleet && !values.snapshot && (values.signal !== undefined || values.dir !== undefined || values.force)) {
    throw new UsageError('--signal, --dir and --force act on one process: the fan-out uses what each process announced')
  }
  const fanOut = fleet && !values.snapshot
  return {
    pid: values.app !== undefined ? undefined : pid,
    heap: Boolean(values.heap),
    signal: values.signal,
    duration: values.duration,
    dir: values.dir,
    force: Boolean(values.force),
    dump: Boolean(values.dump),
    last: values.last,
    snapshot: Boolean(values.snapshot),
    fleet,
    app: values.app,
    formats: fanOut ? values.formats || [] : undefined,
    top: fanOut && given.has('top') ? values.top : undefined,
    json: Boolean(values.json)
  }
}

// --snapshot asks for one thing with the signal the process announced.
function snapshotConflicts (values, given) {
  const other = ['heap', 'dump', 'duration', 'last', 'signal', 'tree', 'formats', 'top'].find((k) => given.has(k) && values[k] !== false)
  if (other) throw new UsageError(`--snapshot does not go with --${other}`)
  if (values.app !== undefined && (values.dir !== undefined || values.force)) {
    throw new UsageError('--dir and --force act on one process: with --app each writes into its own directory')
  }
}

async function run (argv, { out = process.stdout, err = process.stderr } = {}) {
  return trigger.run(argv, { out, err }, (a) => act(options(a), out, err))
}

// What the options ask for: one process, or the fan-out.
async function act (o, out, err) {
  if (o.snapshot && o.fleet) return require('./fleet-trigger').snapshotAll(o, { out, err })
  if (o.fleet) return require('./fleet-trigger').runFleet(o, { out, err })
  const ctx = { out, err, who: 'cprof trigger' }
  if (o.snapshot) return snapshotOne(o, ctx)
  const t = target(o, ctx)
  if (t.exit !== undefined) return t.exit
  if (o.duration !== undefined) return profileFor(o, t, ctx)
  const { sig } = t
  try {
    if (o.dump) {
      if (o.last !== undefined) return await dumpLast(o, sig, { out, err })
      send(o.pid, sig)
      const dir = profileDir(o.pid, t.env, o.dir, t.entry)
      out.write(`sent ${sig.name} to ${o.pid}: its flight recorder writes ` +
        `${o.last !== undefined ? `the last ${o.last} s` : 'all it holds'} into ${termSafe(dir)} ` +
        `(\`cprof list ${termSafe(dir)}\` shows the file)\n`)
      return 0
    }
    send(o.pid, sig)
    out.write(`sent ${sig.name} to ${o.pid}: it starts a ${kindName(o)} profile, or stops the running one ` +
      'and writes it\n')
    return 0
  } catch (e) {
    err.write(`cprof trigger: ${termSafe(e.message)}\n`)
    return 1
  }
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

module.exports = { run, catches, command: trigger }

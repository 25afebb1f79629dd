'use strict'
// cprof attach <pid> [--duration S] [--heap] [--formats …]: profiles a
// running Node process that never loaded cprof, over its inspector
// (lib/fleet/attach.js), then hands the profile to the native core for the
// summary and the formats, as cprof convert does.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const native = require('../native')
const {
  FORMAT_EXT, formatNames, dirOption, CPU_INTERVAL_DEFAULT_US, HEAP_INTERVAL_DEFAULT_BYTES, HEAP_STACK_DEPTH_DEFAULT
} = require('../options')
const { prepareDir } = require('../dirs')
const { attach, hostPort, GRACE_MS } = require('../fleet/attach')
const { topLines } = require('../fleet/summary')
const { termSafe } = require('../term')
const { command, UsageError } = require('./kit')

const FORMATS = Object.keys(FORMAT_EXT)
const TOP = 10
// Caught while attached: the profile is stopped and the inspector closed
// before exiting (128 + the signal's number). SIGKILL cannot be caught:
// then attach's watchdog, or else the target's own timer, closes it
// (lib/fleet/attach.js).
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP']

const attachCommand = command({
  name: 'attach',
  usage: ['<pid> [--duration S] [--heap [--include-collected]] [--interval N] [--formats LIST]',
    '       [--dir DIR] [--wait S] [--top N] [--json] [--force]'],
  positionals: [1, 1],
  about: `Profiles a running Node.js process that never loaded cprof: sends it SIGUSR1,
which makes Node open its inspector on 127.0.0.1 (port 9229, or the
--inspect-port it was started with), finds it among the process's own
listening sockets (/proc), connects to it, samples for the
duration, then closes the target's inspector again and prints the top
functions. While attached the inspector port is open on loopback: any local
user who connects to it in that time can run code in the process.

Ctrl-C (SIGINT), SIGTERM or SIGHUP stop the sampling early: the profile so far
is written and the inspector closed before cprof exits (128 + the signal's
number). If cprof is killed outright (SIGKILL), its watchdog process closes
the inspector at once; should that be killed too, the target closes it by
itself ${GRACE_MS / 1000} s after the duration ends.

Refuses, sending nothing, when its /proc entries are not yours to read (run as
its user or root), the process is not node, SIGUSR1 is ignored or
blocked there or Node runs with --disable-sigusr1, the inspector port is
already open (someone's debugger) or taken by another process, or the
process's --inspect-port names a host other than loopback (0.0.0.0: every
interface; --force attaches anyway). An app that handles SIGUSR1 itself gets
the signal and no inspector opens: attach says so after --wait seconds (exit 1).`,
  options: [
    { name: 'duration', arg: 'S', type: 'seconds', above: true, max: 3600, default: 10, help: 'seconds to sample' },
    {
      name: 'heap',
      type: 'flag',
      help: 'heap sampling (a .heapprofile) instead of CPU: the allocations still live at the end; 0 samples is an ' +
        'answer (exit 0)'
    },
    {
      name: 'include-collected',
      type: 'flag',
      help: 'with --heap: keep the samples of objects a GC freed before the end too (what the window allocated, ' +
        'not only what it left live)'
    },
    {
      name: 'interval',
      arg: 'N',
      type: 'count',
      min: 1,
      max: 2 ** 30,
      shown: `CPU ${CPU_INTERVAL_DEFAULT_US} µs, heap ${HEAP_INTERVAL_DEFAULT_BYTES} bytes`,
      help: 'sampling interval: CPU µs, heap bytes'
    },
    { name: 'formats', arg: 'LIST', type: 'list', choices: FORMATS, noun: 'format', shown: 'none', help: 'also write these' },
    {
      name: 'dir',
      arg: 'DIR',
      type: 'dir',
      shown: "$CPROF_DIR, else cprof's default directory",
      help: 'where to write; files are named `<cpu|heap>-<pid>-<start stamp>.<ext>`'
    },
    {
      name: 'wait',
      arg: 'S',
      type: 'seconds',
      above: true,
      max: 600,
      default: 10,
      help: "seconds to wait for the inspector to open after SIGUSR1; if it opens later (the target's main " +
        "thread busy in native code), cprof's watchdog closes it"
    },
    { name: 'top', arg: 'N', type: 'count', min: 1, default: TOP, help: 'functions in the printed summary' },
    {
      name: 'json',
      type: 'flag',
      help: 'print `{ pid, address, port, closed, interrupted, kind, samples, droppedSamples (heap), durationMs, ' +
        'files, summary }` as JSON'
    },
    {
      name: 'force',
      type: 'flag',
      help: "attach even when the inspector opens on an address other than loopback (as configured by the process's --inspect-port)"
    }
  ]
})

// The command line's values as attach's options.
function attachOptions ({ values: v, positionals }) {
  if (!/^\d+$/.test(positionals[0])) throw new UsageError('give exactly one process id')
  if (v['include-collected'] && !v.heap) throw new UsageError('--include-collected goes with --heap')
  return {
    pid: Number(positionals[0]),
    durationMs: v.duration * 1000,
    heap: Boolean(v.heap),
    includeCollected: Boolean(v['include-collected']),
    interval: v.interval ?? (v.heap ? HEAP_INTERVAL_DEFAULT_BYTES : CPU_INTERVAL_DEFAULT_US),
    formats: v.formats || [],
    ...dirOption(v.dir), // { dir, ownDir }: the default directory must be the user's private one
    waitMs: v.wait * 1000,
    top: v.top,
    json: Boolean(v.json),
    force: Boolean(v.force)
  }
}

// The profile text into dir (checked by prepareDir before attaching),
// exclusively, mode 0600, never through a symlink: <kind>-<pid>-<stamp>.<ext>.
async function save (dir, o, startTime, text) {
  const stamp = new Date(startTime).toISOString().replace(/[-:]/g, '')
  const kind = o.heap ? 'heap' : 'cpu'
  const stem = `${kind}-${o.pid}-${stamp}`
  const file = path.join(dir, `${stem}.${o.heap ? 'heapprofile' : 'cpuprofile'}`)
  await fs.promises.writeFile(file, text, { flag: 'wx', mode: 0o600 })
  return { file, stem }
}

async function run (argv, { out = process.stdout, err = process.stderr } = {}) {
  return attachCommand.run(argv, { out, err }, (a) => attachTo(attachOptions(a), out, err))
}

async function attachTo (o, out, err) {
  const kind = o.heap ? 'heap' : 'CPU'
  let got
  try {
    // Where the profile goes is checked first: no inspector is opened in
    // the target for a profile that could not be written (lib/dirs.js rules).
    await prepareDir(o.dir, o.ownDir, 'pass --dir (or set CPROF_DIR) to a directory you own')
  } catch (e) {
    err.write(`cprof attach: ${e.code}: ${termSafe(e.message)}\n`)
    return 1
  }
  const startTime = Date.now()
  const stop = onStopSignals(o.pid, err)
  try {
    got = await attach({
      pid: o.pid,
      durationMs: o.durationMs,
      heap: o.heap,
      intervalUs: o.interval,
      intervalBytes: o.interval,
      stackDepth: HEAP_STACK_DEPTH_DEFAULT,
      includeCollected: o.includeCollected,
      openWaitMs: o.waitMs,
      force: o.force,
      signal: stop.signal,
      onOpen: ({ port, address, loopback }) => {
        if (!o.json) {
          err.write(`cprof attach: process ${o.pid}'s inspector is open on ${hostPort(address, port)}` +
            `${loopback ? '' : ' (NOT loopback: reachable from other hosts, --force)'}; ` +
            `${kind} sampling for ${o.durationMs / 1000} s\n`)
        }
      }
    })
  } catch (e) {
    err.write(`cprof attach: ${e.code ? e.code + ': ' : ''}${termSafe(e.message)}\n`)
    return stop.signal.aborted ? stop.exitCode() : 1
  } finally {
    stop.remove()
  }
  const at = hostPort(got.address, got.port)
  if (!got.closed) {
    err.write(`cprof attach: warning: process ${o.pid} still listens on ${at} after ` +
      'cprof asked its inspector to close\n')
  }
  const interrupted = got.interrupted ? stop.signal.reason : null
  if (got.text === null) {
    err.write(`cprof attach: interrupted by ${interrupted} before sampling began, nothing written; ` +
      `inspector closed again: ${got.closed ? 'yes' : 'NO'}\n`)
    return stop.exitCode()
  }
  const { file, stem } = await save(o.dir, o, startTime, got.text)
  const outs = formatNames(stem, o.formats)
  const r = await native.convert(file, o.dir, o.top, {
    // A CPU profile without samples is broken; a heap profile without
    // samples says no sampled allocation outlived the window; an
    // interrupted one may have stopped before the first sample.
    outs, title: path.basename(file), needSamples: !o.heap && !interrupted, keepExisting: true, interval: o.interval, ownDir: o.ownDir
  })
  const files = [file, ...o.formats.map((f) => r.outputs[f].path)]
  const code = interrupted ? stop.exitCode() : got.closed ? 0 : 1
  if (o.json) {
    out.write(JSON.stringify({
      pid: o.pid, address: got.address, port: got.port, closed: got.closed, interrupted, kind: r.kind, samples: r.samples,
      droppedSamples: r.droppedSamples, durationMs: r.durationMs, files, summary: r.summary
    }, null, 2) + '\n')
    return code
  }
  const span = r.kind === 'cpu' ? `, ${(r.durationMs / 1000).toFixed(2)} s` : ''
  const lines = [`attached to ${o.pid}: ${r.samples} samples${span}; inspector closed again: ${got.closed ? 'yes' : 'NO'}`]
  if (interrupted) lines.push(`interrupted by ${interrupted}: the profile holds what was sampled until then`)
  if (o.heap && r.samples === 0) {
    lines.push(`no sampled allocation of the ${o.durationMs / 1000} s was still live at its end` +
      (o.includeCollected ? '' : ': --include-collected keeps the collected ones too'))
  }
  if (r.droppedSamples) lines.push(`${r.droppedSamples} samples named nodes V8 pruned from the tree: left out`)
  for (const f of files) lines.push(`  ${termSafe(f)}`)
  out.write([...lines, ...topLines(r, o.top)].join('\n') + '\n')
  return code
}

// While attached, SIGINT/SIGTERM/SIGHUP abort the sampling (the signal's
// name is the reason) instead of ending this process with the target's
// inspector open; a second one is ignored, saying why. remove() restores
// the defaults once the inspector is closed.
function onStopSignals (pid, err) {
  const ac = new AbortController()
  const on = (name) => {
    if (ac.signal.aborted) {
      err.write(`cprof attach: ${name}: still closing process ${pid}'s inspector (after a SIGKILL, cprof's ` +
        'watchdog would close it)\n')
      return
    }
    err.write(`cprof attach: ${name}: stopping the profile and closing process ${pid}'s inspector\n`)
    ac.abort(name)
  }
  for (const name of STOP_SIGNALS) process.on(name, on)
  return {
    signal: ac.signal,
    exitCode: () => 128 + os.constants.signals[ac.signal.reason],
    remove: () => { for (const name of STOP_SIGNALS) process.off(name, on) }
  }
}

module.exports = { run, command: attachCommand }

'use strict'
// cprof attach <pid> [--duration S] [--heap] [--formats …]: profiles a
// running Node process that never loaded cprof, over its inspector
// (lib/fleet/attach.js), then hands the profile to the native core for the
// summary and the formats, as cprof convert does.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')
const native = require('../native')
const {
  FORMAT_EXT, formatNames, dirOption, CPU_INTERVAL_DEFAULT_US, HEAP_INTERVAL_DEFAULT_BYTES, HEAP_STACK_DEPTH_DEFAULT
} = require('../options')
const { prepareDir } = require('../dirs')
const { attach, hostPort, GRACE_MS } = require('../fleet/attach')
const { topLines } = require('../fleet/summary')
const { termSafe } = require('../term')
const { UsageError, usageError } = require('./usage')

const FORMATS = Object.keys(FORMAT_EXT)
const TOP = 10
// Caught while attached: the profile is stopped and the inspector closed
// before exiting (128 + the signal's number). SIGKILL cannot be caught:
// then attach's watchdog, or else the target's own timer, closes it
// (lib/fleet/attach.js).
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP']

const USAGE = `usage: cprof attach <pid> [--duration S] [--heap [--include-collected]] [--interval N] [--formats LIST]
                    [--dir DIR] [--wait S] [--top N] [--json] [--force]

Profiles a running Node.js process that never loaded cprof: sends it SIGUSR1,
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
the signal and no inspector opens: attach says so after --wait seconds (exit 1).

  --duration S      seconds to sample (default 10)
  --heap            heap allocation sampling (a .heapprofile) instead of CPU: the sampled
                    allocations of the window still live at its end, as heap.start() samples;
                    none may be (a server's per-request garbage), which is an answer, not an
                    error: 0 samples, exit 0
  --include-collected
                    with --heap: keep the samples of objects a GC freed before the end too
                    (what the window allocated, not only what it left live)
  --interval N      sampling interval: CPU µs (default ${CPU_INTERVAL_DEFAULT_US}), heap bytes (default ${HEAP_INTERVAL_DEFAULT_BYTES})
  --formats LIST    also write these (comma-separated): ${FORMATS.join(', ')}
  --dir DIR         where to write (default: $CPROF_DIR, else cprof's default directory);
                    files are named <cpu|heap>-<pid>-<start stamp>.<ext>
  --wait S          seconds to wait for the inspector to open after SIGUSR1 (default 10); if it
                    opens later (the target's main thread busy in native code), cprof's
                    watchdog closes it
  --top N           functions in the printed summary (default ${TOP})
  --json            print { pid, address, port, closed, interrupted, kind, samples,
                    droppedSamples (heap), durationMs, files, summary } as JSON
  --force           attach even when the inspector opens on an address other than
                    loopback (as configured by the process's --inspect-port)
`

function parse (argv) {
  let a
  try {
    a = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        duration: { type: 'string' },
        heap: { type: 'boolean' },
        'include-collected': { type: 'boolean' },
        interval: { type: 'string' },
        formats: { type: 'string', multiple: true },
        dir: { type: 'string' },
        wait: { type: 'string' },
        top: { type: 'string' },
        json: { type: 'boolean' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' }
      }
    })
  } catch (e) {
    throw new UsageError(e.message)
  }
  const v = a.values
  if (v.help) return { help: true }
  if (a.positionals.length !== 1 || !/^\d+$/.test(a.positionals[0])) throw new UsageError('give exactly one process id')
  const num = (name, text, def, ok) => {
    if (text === undefined) return def
    const n = Number(text)
    if (text.trim() === '' || !ok(n)) throw new UsageError(`--${name}: bad value ${JSON.stringify(text)}`)
    return n
  }
  const formats = [...new Set((v.formats || []).flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean))]
  const bad = formats.find((f) => !FORMATS.includes(f))
  if (bad) throw new UsageError(`unknown format "${bad}" for --formats; known: ${FORMATS.join(', ')}`)
  if (v.dir === '') throw new UsageError('--dir must name a directory')
  if (v['include-collected'] && !v.heap) throw new UsageError('--include-collected goes with --heap')
  return {
    pid: Number(a.positionals[0]),
    durationMs: num('duration', v.duration, 10, (n) => Number.isFinite(n) && n > 0 && n <= 3600) * 1000,
    heap: Boolean(v.heap),
    includeCollected: Boolean(v['include-collected']),
    interval: num('interval', v.interval, v.heap ? HEAP_INTERVAL_DEFAULT_BYTES : CPU_INTERVAL_DEFAULT_US,
      (n) => Number.isInteger(n) && n >= 1 && n <= 2 ** 30),
    formats,
    ...dirOption(v.dir), // { dir, ownDir }: the default directory must be the user's private one
    waitMs: num('wait', v.wait, 10, (n) => Number.isFinite(n) && n > 0 && n <= 600) * 1000,
    top: num('top', v.top, TOP, (n) => Number.isInteger(n) && n >= 1),
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
  let o
  try {
    o = parse(argv)
  } catch (e) {
    if (!(e instanceof UsageError)) throw e
    return usageError('attach', USAGE, e.message, err).exit
  }
  if (o.help) {
    out.write(USAGE)
    return 0
  }
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

module.exports = { run, USAGE }

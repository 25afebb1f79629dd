'use strict'
// `cprof trigger --app NAME` and `cprof trigger <pid> --tree` (part of
// lib/cli/trigger.js): every process of an app, or a process and the ones
// under it, that announced itself in the run directory, at once; then one
// merged profile with each instance's share (lib/fleet/fanout.js); with
// --dump, of what every instance's flight recorder holds.
const { discover, byApp, tree } = require('../fleet/discover')
const fanout = require('../fleet/fanout')
const { topLines, fmt } = require('../fleet/summary')
const { termSafe } = require('../term')
const { requestSnapshot, warning, wroteLine } = require('../fleet/signal-snapshot')
const { label: labelOf } = require('../cluster/merge-set')

const WAIT_MS = 30000
const TOP = 10

function sleep (ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function describeSet (o) {
  return o.app !== undefined ? `app ${JSON.stringify(o.app)}` : `the tree of process ${o.pid}`
}

function print (r, o, out) {
  const kind = o.heap ? 'heap profile' : o.dump ? 'CPU recording (flight recorder dumps)' : 'CPU profile'
  const n = r.instances.length
  const lines = [`merged ${kind} of ${n} instance${n === 1 ? '' : 's'}` +
    `${r.missing.length ? ` (${r.missing.length} missing)` : ''}: ${r.samples} samples` +
    (r.by === 'primary' ? ` (merged by the cluster primary, pid ${r.primary})` : '')]
  for (const f of Object.values(r.files)) lines.push(`  ${termSafe(f)}`)
  lines.push(`instances (share of the ${o.heap ? 'sampled bytes' : 'time on CPU, idle left out'}):`)
  for (const i of r.instances) {
    const total = i.total !== undefined ? `${fmt(i.total, o.heap ? 0 : 1)} ${i.unit}${o.heap ? '' : ' on CPU'}, ` : ''
    lines.push(`  ${termSafe(i.label).padEnd(16)} pid ${String(i.pid).padEnd(8)} ${String(i.samples).padStart(7)} samples  ` +
      `${total}${i.share !== undefined ? `${i.share.toFixed(1)}%` : ''}${i.top ? `  top: ${termSafe(i.top)}` : ''}`)
    lines.push(`  ${''.padEnd(16)} ${termSafe(i.file)}`)
  }
  for (const m of r.missing) lines.push(`  ${termSafe(m.label).padEnd(16)} pid ${String(m.pid).padEnd(8)} MISSING: ${termSafe(m.reason)}`)
  out.write([...lines, ...topLines(r, o.top || TOP)].join('\n') + '\n')
}

/** o: { app | pid + tree, heap | dump + last (s), duration (s), formats, json }. */
async function runFleet (o, { out, err }) {
  const kind = o.heap ? 'heap' : o.dump ? 'dump' : 'cpu'
  const found = discover()
  for (const w of found.warnings) err.write(`cprof trigger: ${termSafe(w)}\n`)
  const members = o.app !== undefined ? byApp(found.entries, o.app) : tree(found.entries, o.pid)
  if (members.length === 0) {
    err.write(`cprof trigger: no process of ${describeSet(o)} runs cprof (see \`cprof ps\`)\n`)
    return 1
  }
  if (kind === 'dump') return dumpAll(members, o, { out, err })
  const unable = cannotTake(fanout.targets(members), kind)
  if (unable.size === fanout.targets(members).length) {
    for (const [pid, why] of unable) err.write(`cprof trigger: process ${pid} ${termSafe(why)}\n`)
    err.write(`cprof trigger: no process of ${describeSet(o)} can take a ${kind} profile: nothing was signalled` +
      `${kind === 'cpu' && members.some(recording) ? `; their flight recorders hold the last seconds: ${dumpCommand(o)}` : ''}\n`)
    return 1
  }
  const running = members.filter((m) => m.running && m.running[kind])
  if (o.duration !== undefined && running.length > 0) {
    err.write(`cprof trigger: a ${kind} profile already runs in ${running.map((m) => m.pid).join(', ')}: ` +
      'stop it first (the same command without --duration stops and merges)\n')
    return 1
  }
  let since = Date.now()
  let early = new Map() // --duration: who could not be signalled at the start
  if (o.duration === undefined) {
    const targets = fanout.targets(members)
    const on = targets.filter((m) => m.running && m.running[kind])
    if (on.length === 0) {
      const failed = fanout.signalAll(members, kind)
      for (const [pid, why] of failed) err.write(`cprof trigger: process ${pid} ${termSafe(why)}\n`)
      const sent = targets.length - failed.size
      const via = members.length - targets.length
      out.write(`started a ${kind} profile: signalled ${sent} process${sent === 1 ? '' : 'es'} of ${describeSet(o)}` +
        `${via ? ` (a cluster primary passes it on to ${via} worker${via === 1 ? '' : 's'})` : ''}; ` +
        'run the same command again to stop them and merge\n')
      return failed.size === targets.length ? 1 : 0
    }
    if (on.length !== targets.length) {
      err.write(`cprof trigger: a ${kind} profile runs in ${on.map((m) => m.pid).join(', ')} but not in ` +
        `${targets.filter((m) => !on.includes(m)).map((m) => m.pid).join(', ')}: one signal would start some and stop others\n`)
      return 1
    }
    since = Math.min(...on.map((m) => m.running[kind].since))
  } else {
    early = fanout.signalAll(members, kind)
    for (const [pid, why] of early) err.write(`cprof trigger: process ${pid} ${termSafe(why)}\n`)
    if (!o.json) {
      const sent = fanout.targets(members).length - early.size
      const via = members.length - fanout.targets(members).length
      err.write(`cprof trigger: ${kind} profile started: signalled ${sent} process${sent === 1 ? '' : 'es'} of ` +
        `${describeSet(o)}${via ? ` (a cluster primary passes it on to ${via} worker${via === 1 ? '' : 's'})` : ''}; ` +
        `stopping in ${o.duration} s\n`)
    }
    await sleep(o.duration * 1000)
  }
  // The stop goes to whoever runs a profile, once every signalled process
  // has started its own (a busy one acts on the start late; stopped before
  // then, it would go on profiling; without --duration they all run
  // already, so nobody is waited for). One that has not after WAIT_MS is
  // named missing, and not signalled: a second signal would be a start.
  const signalled = fanout.targets(members).filter((m) => !early.has(m.pid))
  const { entries, late } = await fanout.untilStarted(signalled, kind, since, WAIT_MS)
  const failed = fanout.signalAll(members.filter((m) => {
    const e = entries.get(m.pid)
    return e && e.running && e.running[kind]
  }), kind)
  for (const m of late) {
    failed.set(m.pid, `had not started its ${kind} profile ${WAIT_MS / 1000} s after the signal (its event loop ` +
      'did not turn); not stopped: it stops by itself after its maxDuration')
  }
  return finish(members, o, { kind, since, failed: new Map([...early, ...failed]) }, { out, err })
}

function recording (m) {
  return Boolean(m.recorder && m.recorder.running)
}

function dumpCommand (o) {
  return `cprof trigger ${o.app !== undefined ? `--app ${o.app}` : `${o.pid} --tree`} --dump [--last S]`
}

// The targets that announced no signal for kind, and why: with the flight
// recorder on, the CPU signal is its dump's unless the app gave the dump
// another one (docs/recorder.md). Checked before anything is sent, so that
// a fan-out nobody can answer fails at once instead of waiting for files.
function cannotTake (targets, kind) {
  const out = new Map()
  for (const m of targets) {
    const t = m.triggers || {}
    if (kind === 'heap' && !t.heapSignal) out.set(m.pid, 'has no heapSignal (CPROF_HEAP_SIGNAL) installed')
    if (kind === 'cpu' && !t.signal) {
      out.set(m.pid, recording(m)
        ? `runs the flight recorder, whose dump signal${t.dumpSignal ? ` (${termSafe(t.dumpSignal)})` : ''} takes the CPU signal's place`
        : 'has no CPU signal installed (its CPU profiling is off)')
    }
  }
  return out
}

// --dump [--last S]: every instance's flight recorder writes what it holds
// (of the last S s); then the same wait and merge as a profile's.
async function dumpAll (members, o, { out, err }) {
  const since = Date.now()
  const failed = fanout.signalAll(members, 'dump', o.last !== undefined ? Math.round(o.last * 1000) : undefined)
  if (!o.json) {
    const sent = members.length - failed.size
    err.write(`cprof trigger: asked ${sent} flight recorder${sent === 1 ? '' : 's'} of ${describeSet(o)} for ` +
      `${o.last !== undefined ? `the last ${o.last} s` : 'all they hold'}\n`)
  }
  return finish(members, o, { kind: 'dump', since, failed }, { out, err })
}

async function finish (members, o, { kind, since, failed }, { out, err }) {
  let r
  try {
    r = await fanout.gather(members, {
      kind, app: o.app !== undefined ? o.app : members[0].app, since, waitMs: WAIT_MS, formats: o.formats, top: o.top || TOP, failed
    })
  } catch (e) {
    if (e.code !== 'ERR_CPROF_FLEET') throw e
    err.write(`cprof trigger: ${e.code}: ${termSafe(e.message)}\n`)
    return 1
  }
  if (o.json) out.write(JSON.stringify(r, null, 2) + '\n')
  else print(r, o, out)
  for (const m of r.missing) err.write(`cprof trigger: missing ${termSafe(m.label)} (pid ${m.pid}): ${termSafe(m.reason)}\n`)
  return 0
}

// --app NAME --snapshot: every process of the app writes a heap snapshot,
// one after the other, so that the app's instances are never all paused at
// once; each line says what one wrote, or why not.
async function snapshotAll (o, { out, err }) {
  const found = discover()
  for (const w of found.warnings) err.write(`cprof trigger: ${termSafe(w)}\n`)
  const members = byApp(found.entries, o.app)
  if (members.length === 0) {
    err.write(`cprof trigger: no process of ${describeSet(o)} runs cprof (see \`cprof ps\`)\n`)
    return 1
  }
  err.write(warning('cprof trigger', `each of the ${members.length} process${members.length === 1 ? '' : 'es'} of ${describeSet(o)}, one at a time,`))
  const results = []
  for (const m of members) {
    const r = await requestSnapshot(m.pid)
    const label = labelOf(m)
    results.push(r.why ? { pid: m.pid, label, reason: r.why } : { pid: m.pid, label, file: r.file, bytes: r.bytes, durationMs: r.durationMs })
    if (o.json) continue
    if (r.why) err.write(`cprof trigger: ${termSafe(label)} (pid ${m.pid}): no snapshot: ${termSafe(r.why)}\n`)
    else out.write(`${termSafe(label).padEnd(16)} pid ${String(m.pid).padEnd(8)} ${wroteLine(r)}\n`)
  }
  if (o.json) out.write(JSON.stringify(results, null, 2) + '\n')
  return results.some((r) => r.reason) ? 1 : 0
}

module.exports = { runFleet, snapshotAll, WAIT_MS }

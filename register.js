'use strict'
// node -r cprof/register app.js   (or NODE_OPTIONS='-r cprof/register')
//
// Installs cprof's triggers from the environment before the app runs:
// CPROF_PROFILING=1 (or PM2's `io` variable with profiling: true) switches
// them on; CPROF_SIGNAL, CPROF_HEAP_SIGNAL, CPROF_DIR, CPROF_TIMEOUT,
// CPROF_MAX_DURATION, CPROF_INTERVAL, CPROF_HEAP_INTERVAL, CPROF_FORMATS,
// CPROF_SOURCE_MAPS configure them; CPROF_RECORDER=1 starts the flight
// recorder, CPROF_ON_* its incident triggers (docs/incidents.md).
// It never stops the app: a bad value costs one stderr line and no triggers.
// Worker threads also run preloads; signals are process-wide, so only the
// main thread installs anything.
const { isMainThread } = require('node:worker_threads')

function preload () {
  const { envConfig } = require('./lib/triggers/env')
  const { startEnv } = require('./lib/identity/pm2')
  const config = envConfig(startEnv(process.env))
  if (!config) return
  const cprof = require('./lib/index')
  cprof.init(config)
  noSignalNote(config)
  // A signal from outside started a profile: say it was received.
  cprof.on('start', (s) => {
    const stops = s.timeout > 0 ? `stops after ${Math.round(s.timeout / 1000)} s or at the next ${s.signal}` : `stops at the next ${s.signal}`
    process.stderr.write(`cprof: ${s.signal}: started a ${s.kind} profile in pid ${s.pid} (${stops}); files go to ${s.dir}\n`)
  })
  // Nobody in the app listens: say where each profile went, on one line.
  cprof.on('profile', (r) => {
    const file = Object.values(r.files || {})[0]
    const secs = typeof r.durationMs === 'number' ? ` ${(r.durationMs / 1000).toFixed(1)} s,` : ''
    const hid = r.reason && r.reason.suppressed > 0
      ? `; ${r.reason.suppressed} earlier crossing${r.reason.suppressed === 1 ? '' : 's'} suppressed (cooldown, maxPerHour)` : ''
    const through = r.reason && r.reason.escalated ? '; through the cooldown: escalate times the last firing' : ''
    const why = r.reason ? `, incident ${r.reason.trigger}: ${r.reason.value} >= ${r.reason.threshold}${hid}${through}` : ''
    // A heap snapshot (lib/triggers/snapshot-trigger.js) has a size, not samples.
    const what = r.kind === 'snapshot' ? `${(r.bytes / 1048576).toFixed(1)} MB` : `${r.samples} samples`
    process.stderr.write(`cprof: wrote ${file} (${r.kind},${secs} ${what}${why})\n`)
  })
}

// CPROF_PROFILING=1 beside the recorder, whose dump keeps the shared
// signal: the CPU toggle then has no signal. Under PM2 its actions reach the
// toggle; elsewhere nothing outside the app can, and silence would hide it.
function noSignalNote (config) {
  const { initConfig } = require('./lib/triggers/config')
  const { underPm2 } = require('./lib/identity/pm2')
  const c = initConfig(config)
  if (!c.cpu || !c.recorder || c.signal || underPm2()) return
  const sig = c.dumpSignal.name
  process.stderr.write(`cprof: CPROF_PROFILING: the CPU profile toggle has no signal (${sig} dumps the recorder); ` +
    `set CPROF_DUMP_SIGNAL to another signal (e.g. SIGURG) to toggle CPU profiles with ${sig}, ` +
    'or start them from the app (cprof.start()) or under PM2 (pm2 trigger <app> cprof:cpu:start)\n')
}

if (isMainThread) {
  try {
    preload()
  } catch (err) {
    const code = err && err.code ? `${err.code}: ` : ''
    process.stderr.write(`cprof: not profiling: ${code}${err && err.message ? err.message : err}\n`)
  }
}

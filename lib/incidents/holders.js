'use strict'
// The heapGrowth incident's holders report (incidents: { heapGrowth: {
// snapshot: true, holders: S } }): S seconds after the firing's snapshot, a
// second one through the same guard (lib/incidents/heap-snapshot.js: one at a
// time, the free-disk check), then `cprof leaks --holders`' comparison of the
// two (lib/cli/leaks-holders.js) in a child process at the lowest CPU
// priority (lib/incidents/holders-report.js): the diff costs memory in
// proportion to the snapshots, which the leaking process must not pay in
// its own heap. It writes <stem>.holders.json and <stem>.holders.txt beside
// the firing's files and deletes the second snapshot. All after the firing's
// 'profile' event; the timer does not keep the process alive.
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { incidentSnapshot } = require('./heap-snapshot')
const { cprofError } = require('../errors')

const CHILD = path.join(__dirname, 'holders-report.js')

// The child's environment: the app's, without what would start cprof (or
// anything else preloaded) in it.
function childEnv () {
  const env = {}
  for (const [k, v] of Object.entries(process.env)) if (k !== 'NODE_OPTIONS' && !k.startsWith('CPROF_')) env[k] = v
  return env
}

/**
 * Schedules the second snapshot and the report: ctx { first (the firing's
 * snapshot), at (its directory), dir (the dump's dir option), name (the
 * firing's stem), reason }; done(err) once written (err null) or not (an
 * ERR_CPROF_IO error saying why). Returns { files: { json, text }, due,
 * cancel }: where the report will be, when the second snapshot is due (ms),
 * and cancel() (incidents stopped before it: nothing taken, done not called).
 */
function scheduleHolders (ctx, seconds, done, deps = { incidentSnapshot, spawn }) {
  const files = { json: path.join(ctx.at, `${ctx.name}.holders.json`), text: path.join(ctx.at, `${ctx.name}.holders.txt`) }
  const started = Date.now()
  const fail = (why) => done(cprofError('ERR_CPROF_IO', `heapGrowth: no holders report: ${why}; the firing's files stand (cprof leaks <pid> --holders takes one by hand)`))
  const t = setTimeout(async () => {
    const s = await deps.incidentSnapshot({ at: ctx.at, dir: ctx.dir, name: `${ctx.name}.second` })
    if (!s.file) return fail(s.why)
    const intervalMs = Date.now() - started
    let c
    try {
      c = deps.spawn(process.execPath, [CHILD, ctx.first, s.file, files.json, files.text, String(intervalMs), JSON.stringify(ctx.reason)],
        { env: childEnv(), stdio: ['ignore', 'ignore', 'pipe'] })
    } catch (err) {
      require('node:fs').rmSync(s.file, { force: true })
      return fail(err.message)
    }
    try { os.setPriority(c.pid, 19) } catch {} // nice: the app's CPU first
    let err = ''
    c.stderr.setEncoding('utf8').on('data', (d) => { err = (err + d).slice(-2000) })
    c.on('error', (e) => { err += e.message })
    c.on('close', (code) => {
      require('node:fs').rmSync(s.file, { force: true }) // the child deletes it too; never left behind
      if (code === 0) done(null)
      else fail(`the comparison exited with ${code}: ${err.trim().split('\n').pop() || 'no message'}`)
    })
  }, seconds * 1000)
  t.unref()
  return { files, due: started + seconds * 1000, cancel: () => clearTimeout(t) }
}

module.exports = { scheduleHolders }

'use strict'
// The HTTP app under load on a loopback port: examples/server.js's
// createServer() (`--app server`, the default) or bench/real-app.js (`--app
// real`: fastify + handlebars + marked), driven over IPC by bench/run.js and
// bench/recorder.js:
//   → { cmd: 'start', kind, approach, interval }   start profiling (approach 'none': nothing;
//                                                  'v8cpuprof': nothing either, V8's own
//                                                  --cpu-prof runs from the parent's execArgv)
//   ← { started: true }
//   → { cmd: 'mark' }                              the server's CPU time and requests so far
//   ← { mark: { cpuUs, served, threads } }         (run.js marks both ends of the measured load;
//                                                  threads: CPU µs per thread name, from /proc)
//   → { cmd: 'stop' }                              stop, write, check the file
//   ← { stopped: true, samples, nodes, bytes }     or { error }
// On 'ready' it sends { port }. After 'stopped' it exits normally (so that
// --cpu-prof writes its file).
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const approaches = require('./approaches')

const APPS = {
  // examples/server.js: hand-written hot loops (FNV, a regex, JSON.stringify)
  server: () => {
    const server = require('../examples/server').createServer()
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
      server,
      port: server.address().port,
      close: async () => { server.close(); server.closeAllConnections() }
    })))
  },
  // bench/real-app.js: fastify, handlebars, marked, schemas, sha1 ETags
  real: () => require('./real-app').start()
}
const appName = process.argv.includes('--app') ? process.argv[process.argv.indexOf('--app') + 1] : 'server'
if (!APPS[appName]) throw new Error(`http-child: unknown --app ${appName} (${Object.keys(APPS).join(', ')})`)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-bench-http-'))
let app = null
let closing = null
let run = null
// The app closed once, whichever of stop and disconnect comes first.
const closeApp = () => { if (app && !closing) closing = Promise.resolve(app.close()).catch(() => {}); return closing }
let served = 0

// CPU time (µs) of this process's threads by name (/proc/self/task/*/comm:
// "MainThread", "v8:ProfEvntProc" V8's sampler, "libuv-worker" the thread
// pool where cprof converts windows, "V8Worker" GC and compile helpers),
// from schedstat's on-CPU nanoseconds (stat's utime is in 10 ms ticks, too
// coarse for a few ms of conversion per window). Separates what a profiler
// adds on its own threads, in CPU time, from the app's noisy main-thread
// work. {} off Linux.
function threadCpu () {
  const out = {}
  let tids = []
  try { tids = fs.readdirSync('/proc/self/task') } catch { return out }
  for (const tid of tids) {
    try {
      const name = fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()
      const ns = Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0])
      out[name] = (out[name] || 0) + ns / 1000
    } catch {} // a thread that ended between the two reads
  }
  return out
}

function cleanup () {
  fs.rmSync(dir, { recursive: true, force: true })
}

async function onMessage (m) {
  try {
    if (m.cmd === 'start') {
      if (m.approach === 'none' || m.approach === 'v8cpuprof') {
        run = { none: true }
      } else {
        const a = approaches.get(m.kind, m.approach)
        const why = approaches.unavailable(m.kind, m.approach)
        if (why) throw new Error(why)
        run = { a, st: await a.start({ interval: m.interval, heapInterval: m.heapInterval, dir }) }
      }
      process.send({ started: true })
    } else if (m.cmd === 'mark') {
      const c = process.cpuUsage()
      process.send({ mark: { cpuUs: c.user + c.system, served, threads: threadCpu() } })
    } else if (m.cmd === 'stop') {
      let checked = {}
      if (!run.none) {
        const out = await run.a.stop(run.st, path.join(dir, 'out'))
        checked = run.a.check(out)
      }
      await closeApp()
      cleanup()
      process.send({ stopped: true, ...checked, file: undefined }, () => {
        process.disconnect()
        // A normal exit even if a library keeps a handle: --cpu-prof
        // writes its profile on exit, not on a kill.
        setTimeout(() => process.exit(0), 200).unref()
      })
    }
  } catch (err) {
    cleanup()
    process.send({ error: err && err.stack ? err.stack : String(err) }, () => process.exit(1))
  }
}

process.on('message', (m) => { onMessage(m) })
process.on('disconnect', () => { cleanup(); closeApp() })
// CPROF_BENCH_LABELS=1 (bench/labels.js): every request runs under
// cprof.withLabels({ route }), in every run alike (labels on or off).
function labelRequests (server) {
  const cprof = require('..')
  const handlers = server.listeners('request')
  server.removeAllListeners('request')
  server.on('request', (req, res) => cprof.withLabels({ route: req.url }, () => {
    for (const h of handlers) h.call(server, req, res)
  }))
}

APPS[appName]().then((a) => {
  app = a
  if (process.env.CPROF_BENCH_LABELS === '1') labelRequests(app.server)
  app.server.on('request', () => { served++ })
  process.send({ port: app.port })
}, (err) => {
  cleanup()
  process.send({ error: err && err.stack ? err.stack : String(err) }, () => process.exit(1))
})

'use strict'
// The HTTP app under load: examples/server.js's createServer() on a loopback
// port, driven over IPC by bench/run.js:
//   → { cmd: 'start', kind, approach, interval }   start profiling (approach 'none': nothing)
//   ← { started: true }
//   → { cmd: 'mark' }                              the server's CPU time and requests so far
//   ← { mark: { cpuUs, served } }                  (run.js marks both ends of the measured load)
//   → { cmd: 'stop' }                              stop, write, check the file
//   ← { stopped: true, samples, nodes, bytes }     or { error }
// On 'ready' it sends { port }.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const approaches = require('./approaches')
const { createServer } = require('../examples/server')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-bench-http-'))
const server = createServer()
let run = null
let served = 0
server.on('request', () => { served++ })

function cleanup () {
  fs.rmSync(dir, { recursive: true, force: true })
}

async function onMessage (m) {
  try {
    if (m.cmd === 'start') {
      if (m.approach === 'none') {
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
      process.send({ mark: { cpuUs: c.user + c.system, served } })
    } else if (m.cmd === 'stop') {
      let checked = {}
      if (!run.none) {
        const out = await run.a.stop(run.st, path.join(dir, 'out'))
        checked = run.a.check(out)
      }
      server.close()
      server.closeAllConnections()
      cleanup()
      process.send({ stopped: true, ...checked, file: undefined }, () => process.disconnect())
    }
  } catch (err) {
    cleanup()
    process.send({ error: err && err.stack ? err.stack : String(err) }, () => process.exit(1))
  }
}

process.on('message', (m) => { onMessage(m) })
process.on('disconnect', () => { cleanup(); server.close(); server.closeAllConnections() })
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))

'use strict'
// One measurement: profile the workload, then stop with one approach and
// report the main-thread pause (the synchronous part of stopping plus any
// later main-thread work, seen by a 1 ms interval probe) and stop→file time.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { generate, runFor } = require('./workload')

const now = () => Number(process.hrtime.bigint()) / 1e6

function probe () {
  let last = now()
  let maxGap = 0
  const t = setInterval(() => {
    const n = now()
    maxGap = Math.max(maxGap, n - last)
    last = n
  }, 1)
  return { stop () { clearInterval(t); return Math.max(maxGap, now() - last) } }
}

function sessionStart (interval) {
  const inspector = require('node:inspector')
  const s = new inspector.Session()
  s.connect()
  s.post('Profiler.enable')
  s.post('Profiler.setSamplingInterval', { interval })
  s.post('Profiler.start')
  return s
}

const approaches = {
  // V8's own floor: the stop command with the reply left as text.
  floor: {
    start (interval) {
      const { Connection } = process.binding('inspector')
      let reply = null
      let id = 0
      const c = new Connection((m) => { reply = m })
      const call = (method, params) => { c.dispatch(JSON.stringify({ id: ++id, method, params })); return reply }
      call('Profiler.enable'); call('Profiler.setSamplingInterval', { interval }); call('Profiler.start')
      return { call, c }
    },
    async stop (st) {
      const t0 = now()
      const text = st.call('Profiler.stop')
      const pause = now() - t0
      st.c.disconnect()
      return { pause, bytes: text.length, nodes: (text.match(/"callFrame"/g) || []).length }
    }
  },
  // The bare public-API stop: V8 + Node's JSON.parse of the reply.
  bare: {
    start: sessionStart,
    async stop (s) {
      const t0 = now()
      let profile
      s.post('Profiler.stop', (err, r) => { if (err) throw err; profile = r.profile })
      const pause = now() - t0
      s.disconnect()
      return { pause, bytes: JSON.stringify(profile).length, nodes: profile.nodes.length }
    }
  },
  // The plain approach (@pm2/io): stop, JSON.stringify, writeFileSync.
  plain: {
    start: sessionStart,
    async stop (s, file) {
      const t0 = now()
      let profile
      s.post('Profiler.stop', (err, r) => { if (err) throw err; profile = r.profile })
      const text = JSON.stringify(profile)
      fs.writeFileSync(file, text)
      const pause = now() - t0
      s.disconnect()
      return { pause, toFile: pause, bytes: text.length, nodes: profile.nodes.length }
    }
  },
  cprof: {
    async start (interval, dir) {
      const cprof = require('..')
      await cprof.start({ interval, dir })
      return cprof
    },
    async stop (cprof) {
      const t0 = now()
      const p = cprof.stop()
      const pause = now() - t0
      const r = await p
      const toFile = now() - t0
      if (!(r.samples > 0) || !fs.existsSync(r.files.cpuprofile)) throw new Error('cprof wrote no profile')
      const text = fs.readFileSync(r.files.cpuprofile, 'utf8')
      return { pause, toFile, bytes: text.length, nodes: JSON.parse(text).nodes.length }
    }
  }
}
approaches['cprof-session'] = approaches.cprof

async function run (name, { seconds, functions, interval }) {
  const a = approaches[name]
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-bench-'))
  const fns = generate(functions)
  const st = await a.start(interval, dir)
  await new Promise((resolve) => runFor(fns, seconds * 1000, resolve))
  global.gc()
  const pr = probe()
  await new Promise((resolve) => setTimeout(resolve, 20))
  const m = await a.stop(st, path.join(dir, 'plain.cpuprofile'))
  await new Promise((resolve) => setTimeout(resolve, 20))
  const gap = pr.stop()
  fs.rmSync(dir, { recursive: true, force: true })
  console.log(JSON.stringify({ pauseMs: m.pause, probeMaxGapMs: gap, toFileMs: m.toFile ?? null, bytes: m.bytes, nodes: m.nodes }))
}

module.exports = { run }

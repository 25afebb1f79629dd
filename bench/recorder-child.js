'use strict'
// bench/recorder.js's children.
//   rotation {approach: 'recorder'|'plain', rotations, windowMs, functions, interval}
//     → { pauses: [ms...], samples } : the main thread's time in each window
//       rotation, under the synthetic workload (bench/workload.js). recorder:
//       the recorder's rotation (start the next console profile, end the
//       current one, copy its text to C). plain: Profiler.stop + Profiler.start
//       on one raw inspector Connection (the plain way to cut windows).
//   rss {minutes, recorder, heap, heapInterval} → an HTTP server (examples/server.js) with the
//     recorder at its defaults (recorder: false: without it, the baseline);
//     prints { rss: [[s, rss, ring bytes, V8 heapTotal, external]...] } at the end
//     (heapTotal and external tell a step of the JS heap from native growth)
const path = require('node:path')
const { generate, runFor } = require('./workload')

const cfg = JSON.parse(process.argv[2] || '{}')

function rawConnection () {
  const emit = process.emitWarning
  process.emitWarning = () => {}
  let binding
  try { binding = process.binding('inspector') } finally { process.emitWarning = emit }
  let reply = null
  let id = 0
  const c = new binding.Connection((m) => { if (!m.startsWith('{"method"')) reply = m })
  return {
    call (method, params) {
      reply = null
      c.dispatch(JSON.stringify({ id: ++id, method, params }))
      return reply
    }
  }
}

function sleepWorking (fns, ms) {
  return new Promise((resolve) => runFor(fns, ms, resolve))
}

async function rotation () {
  const fns = generate(cfg.functions || 2000)
  await sleepWorking(fns, 2000) // warm: the code is compiled and optimised
  const pauses = []
  let samples = 0
  if (cfg.approach === 'recorder') {
    const cprof = require('..')
    const native = require('../lib/native')
    cprof.recorder.start({ window: 3_600_000, interval: cfg.interval })
    let windows = 0
    cprof.on('window', (w) => { samples += w.samples; windows++ })
    for (let i = 0; i < cfg.rotations; i++) {
      await sleepWorking(fns, cfg.windowMs)
      const t = performance.now()
      native.recRotate()
      pauses.push(performance.now() - t)
    }
    while (windows < cfg.rotations) await new Promise((resolve) => setTimeout(resolve, 20))
    await cprof.recorder.stop()
  } else {
    const c = rawConnection()
    c.call('Profiler.enable')
    c.call('Profiler.setSamplingInterval', { interval: cfg.interval })
    c.call('Profiler.start')
    for (let i = 0; i < cfg.rotations; i++) {
      await sleepWorking(fns, cfg.windowMs)
      const t = performance.now()
      const reply = c.call('Profiler.stop')
      c.call('Profiler.start')
      pauses.push(performance.now() - t)
      samples += (reply.match(/"samples":\[([^\]]*)\]/)?.[1].split(',').length) || 0
    }
  }
  if (!(samples > 0)) throw new Error('no samples recorded')
  return { pauses, samples }
}

async function rss () {
  const { createServer } = require('../examples/server')
  const cprof = require('..')
  if (cfg.recorder !== false) cprof.recorder.start(cfg.heap ? { heap: true, ...(cfg.heapInterval && { heapInterval: cfg.heapInterval }) } : {})
  const server = createServer()
  await new Promise((resolve) => server.listen(cfg.port || 0, '127.0.0.1', resolve))
  process.send({ port: server.address().port })
  const t0 = Date.now()
  const points = []
  const timer = setInterval(() => {
    const m = process.memoryUsage()
    points.push([Math.round((Date.now() - t0) / 1000), m.rss, cprof.recorder.status().bytes, m.heapTotal, m.external])
  }, 10_000)
  await new Promise((resolve) => setTimeout(resolve, cfg.minutes * 60_000))
  clearInterval(timer)
  const s = cprof.recorder.status()
  server.close()
  server.closeAllConnections()
  if (s.running) await cprof.recorder.stop()
  return { rss: points, windows: s.windows, evicted: s.evicted, lost: s.lost, failed: s.failed }
}

const run = cfg.mode === 'rss' ? rss : rotation
run().then(
  (r) => { process.stdout.write(JSON.stringify(r) + '\n'); if (process.send) process.disconnect() },
  (err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })

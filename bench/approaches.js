'use strict'
// The profilers under comparison, each as a user would drive it:
//   start(opts) -> state            opts: { interval, dir }  (interval: µs for CPU, bytes for heap;
//                                   null = the approach's default)
//   stop(state, file) -> Promise    resolves once the profile is on disk (or, for the floors,
//                                   once the reply text is in hand); the part of stop() that runs
//                                   before the promise is returned is the synchronous pause
//   check(out) -> { samples, nodes, bytes, file }   throws unless the output is a real profile
//
// CPU: floor (raw inspector Connection, reply left as text), v8api (Node >= 24.12
// v8.startCpuProfile().stop(), a JSON string), plain (@pm2/io: node:inspector Session,
// Profiler.stop, JSON.stringify, fs.writeFileSync), datadog (@datadog/pprof time profiler,
// pprof.encode, fs.writeFile), cprof.
// Heap: the same names over HeapProfiler.startSampling/stopSampling (v8api: Node >= 26
// v8.startHeapProfile().stop()), @datadog/pprof's heap profiler and cprof.heap.
const fs = require('node:fs')
const path = require('node:path')
const zlib = require('node:zlib')

const CPROF = path.join(__dirname, '..')

// --- helpers ------------------------------------------------------------

function rawConnection () {
  // process.binding is deprecated but is the only way to reach the raw
  // Connection from JS; silence the one-time warning so it cannot land in
  // the middle of a measurement.
  const emit = process.emitWarning
  process.emitWarning = () => {}
  let binding
  try { binding = process.binding('inspector') } finally { process.emitWarning = emit }
  let reply = null
  let id = 0
  const c = new binding.Connection((m) => { reply = m })
  return {
    call (method, params) {
      reply = null
      c.dispatch(JSON.stringify({ id: ++id, method, params }))
      if (reply === null) throw new Error(`no synchronous reply to ${method}`)
      return reply
    },
    disconnect () { c.disconnect() }
  }
}

function session () {
  const inspector = require('node:inspector')
  const s = new inspector.Session()
  s.connect()
  const post = (method, params) => {
    let out
    s.post(method, params, (err, r) => { if (err) throw err; out = r })
    return out
  }
  return { s, post }
}

// A .cpuprofile's samples and nodes, from its text.
function checkCpuText (text, file) {
  const p = JSON.parse(text)
  if (!Array.isArray(p.nodes) || !Array.isArray(p.samples) || p.samples.length === 0) {
    throw new Error(`${file || 'reply'}: not a CPU profile with samples`)
  }
  return { samples: p.samples.length, nodes: p.nodes.length, bytes: Buffer.byteLength(text), file }
}

function countHeapNodes (n) {
  let k = 1
  for (const c of n.children || []) k += countHeapNodes(c)
  return k
}

function checkHeapText (text, file) {
  const p = JSON.parse(text)
  if (!p.head || !Array.isArray(p.samples) || p.samples.length === 0) {
    throw new Error(`${file || 'reply'}: not a heap profile with samples`)
  }
  return { samples: p.samples.length, nodes: countHeapNodes(p.head), bytes: Buffer.byteLength(text), file }
}

function checkFile (file, check) {
  if (!file || !fs.existsSync(file)) throw new Error(`no file written (${file})`)
  return check(fs.readFileSync(file, 'utf8'), file)
}

function checkPprof (file) {
  if (!file || !fs.existsSync(file)) throw new Error(`no file written (${file})`)
  const { Profile } = require('pprof-format')
  const buf = fs.readFileSync(file)
  const p = Profile.decode(zlib.gunzipSync(buf))
  if (!p.sample.length) throw new Error(`${file}: pprof profile without samples`)
  return { samples: p.sample.length, nodes: p.location.length, bytes: buf.length, file }
}

function nodeAtLeast (major, minor) {
  const [M, m] = process.versions.node.split('.').map(Number)
  return M > major || (M === major && m >= minor)
}

// Why @datadog/pprof cannot run here, or null when it can.
function datadogUnavailable () {
  try {
    const dd = require('@datadog/pprof')
    if (typeof dd.time.start !== 'function') return '@datadog/pprof has no time.start'
    return null
  } catch (err) {
    return `@datadog/pprof does not load on Node ${process.versions.node}: ${err.message.split('\n')[0]}`
  }
}

// --- CPU ----------------------------------------------------------------

const cpu = {
  floor: {
    about: "V8's floor: Profiler.stop through the raw inspector Connection, reply left as text",
    start ({ interval }) {
      const c = rawConnection()
      c.call('Profiler.enable')
      c.call('Profiler.setSamplingInterval', { interval: interval || 1000 })
      c.call('Profiler.start')
      return c
    },
    async stop (c) {
      const text = c.call('Profiler.stop')
      c.disconnect()
      return { text }
    },
    check (out) {
      const m = JSON.parse(out.text)
      return checkCpuText(JSON.stringify(m.result.profile))
    }
  },
  v8api: {
    about: "V8's floor on Node >= 24.12: v8.startCpuProfile() handle's stop(), a JSON string (V8's default interval)",
    unavailable: () => (nodeAtLeast(24, 12) && typeof require('node:v8').startCpuProfile === 'function')
      ? null
      : 'needs Node >= 24.12 (v8.startCpuProfile)',
    start () { return require('node:v8').startCpuProfile() },
    async stop (h) { return { text: h.stop() } },
    check (out) { return checkCpuText(out.text) }
  },
  plain: {
    about: '@pm2/io: node:inspector Session, Profiler.stop, JSON.stringify, fs.writeFileSync',
    start ({ interval }) {
      const x = session()
      x.post('Profiler.enable')
      x.post('Profiler.setSamplingInterval', { interval: interval || 1000 })
      x.post('Profiler.start')
      return x
    },
    async stop (x, file) {
      const { profile } = x.post('Profiler.stop')
      fs.writeFileSync(file + '.cpuprofile', JSON.stringify(profile))
      x.s.disconnect()
      return { file: file + '.cpuprofile' }
    },
    check (out) { return checkFile(out.file, checkCpuText) }
  },
  datadog: {
    about: '@datadog/pprof time profiler: time.stop(), pprof.encode(), fs.writeFile',
    unavailable: datadogUnavailable,
    start ({ interval }) {
      const dd = require('@datadog/pprof')
      dd.time.start({ intervalMicros: interval || 1000, durationMillis: 3600e3 })
      return dd
    },
    stop (dd, file) {
      const profile = dd.time.stop()
      return dd.encode(profile)
        .then((buf) => fs.promises.writeFile(file + '.pb.gz', buf))
        .then(() => ({ file: file + '.pb.gz' }))
    },
    check (out) { return checkPprof(out.file) }
  },
  cprof: {
    about: 'cprof.start() / cprof.stop()',
    async start ({ interval, dir }) {
      const cprof = require(CPROF)
      await cprof.start(interval ? { interval, dir } : { dir })
      return cprof
    },
    stop (cprof) {
      return cprof.stop().then((r) => ({ file: r.files.cpuprofile, result: r }))
    },
    check (out) {
      if (!(out.result.samples > 0)) throw new Error('cprof reported no samples')
      return { ...checkFile(out.file, checkCpuText), intervalUs: out.result.intervalUs }
    }
  }
}

// cprof with labels (bench/labels.js): start({ labels: true }); the
// mechanism comes from CPROF_LABELS_MECHANISM in the child's environment.
cpu.cprofLabels = {
  ...cpu.cprof,
  about: 'cprof.start({ labels: true }) / cprof.stop() (bench/labels.js)',
  async start ({ interval, dir }) {
    const cprof = require(CPROF)
    await cprof.start({ dir, labels: true, ...(interval && { interval }) })
    return cprof
  }
}

// The flight recorder at its defaults (10 s windows, 10 ms interval, 60 s
// kept): start() is recorder.start(), stop() a dump of all it holds, then
// recorder.stop(). interval null keeps the default.
cpu.recorder = {
  about: 'cprof.recorder.start() / recorder.dump() (bench/recorder.js)',
  start ({ interval, dir }) {
    const cprof = require(CPROF)
    cprof.recorder.start(interval ? { interval } : {})
    return { cprof, dir }
  },
  async stop ({ cprof, dir }) {
    const r = await cprof.recorder.dump({ dir })
    await cprof.recorder.stop()
    return { file: r.files.cpuprofile, result: r }
  },
  check (out) {
    if (!(out.result.samples > 0)) throw new Error('the recorder reported no samples')
    return { ...checkFile(out.file, checkCpuText), intervalUs: out.result.intervalUs }
  }
}

// The recorder with heap windows too (issue 30's cost: the live heap by site
// at every window's end, V8's sampler at the default heapInterval, and the
// heap trend): recorder.start({ heap: true }), the rest as above.
cpu.recorderHeap = {
  ...cpu.recorder,
  about: 'cprof.recorder.start({ heap: true }) / recorder.dump() (bench/recorder.js --heap)',
  start ({ interval, heapInterval, dir }) {
    const cprof = require(CPROF)
    cprof.recorder.start({ heap: true, ...(interval && { interval }), ...(heapInterval && { heapInterval }) })
    return { cprof, dir }
  }
}

// --- heap ---------------------------------------------------------------

const heap = {
  floor: {
    about: "V8's floor: HeapProfiler.stopSampling through the raw inspector Connection, reply left as text",
    start ({ interval }) {
      const c = rawConnection()
      c.call('HeapProfiler.enable')
      c.call('HeapProfiler.startSampling', { samplingInterval: interval || 32768 })
      return c
    },
    async stop (c) {
      const text = c.call('HeapProfiler.stopSampling')
      c.disconnect()
      return { text }
    },
    check (out) { return checkHeapText(JSON.stringify(JSON.parse(out.text).result.profile)) }
  },
  v8api: {
    about: "V8's floor on Node >= 26: v8.startHeapProfile() handle's stop(), a JSON string, no forced GC",
    unavailable: () => typeof require('node:v8').startHeapProfile === 'function'
      ? null
      : 'needs Node >= 26 (v8.startHeapProfile)',
    start ({ interval }) {
      return require('node:v8').startHeapProfile({ sampleInterval: interval || 32768, stackDepth: 128 })
    },
    async stop (h) { return { text: h.stop() } },
    check (out) { return checkHeapText(out.text) }
  },
  plain: {
    about: '@pm2/io: HeapProfiler.startSampling/stopSampling, JSON.stringify, fs.writeFileSync',
    start ({ interval }) {
      const x = session()
      x.post('HeapProfiler.enable')
      x.post('HeapProfiler.startSampling', { samplingInterval: interval || 32768 })
      return x
    },
    async stop (x, file) {
      const { profile } = x.post('HeapProfiler.stopSampling')
      fs.writeFileSync(file + '.heapprofile', JSON.stringify(profile))
      x.s.disconnect()
      return { file: file + '.heapprofile' }
    },
    check (out) { return checkFile(out.file, checkHeapText) }
  },
  datadog: {
    about: '@datadog/pprof heap profiler: heap.profile(), pprof.encode(), fs.writeFile, heap.stop()',
    unavailable: datadogUnavailable,
    start ({ interval }) {
      const dd = require('@datadog/pprof')
      dd.heap.start(interval || 32768, 128)
      return dd
    },
    stop (dd, file) {
      const profile = dd.heap.profile()
      dd.heap.stop()
      return dd.encode(profile)
        .then((buf) => fs.promises.writeFile(file + '.pb.gz', buf))
        .then(() => ({ file: file + '.pb.gz' }))
    },
    check (out) { return checkPprof(out.file) }
  },
  cprof: {
    about: 'cprof.heap.start() / cprof.heap.stop()',
    async start ({ interval, dir }) {
      const cprof = require(CPROF)
      await cprof.heap.start(interval ? { interval, dir } : { dir })
      return cprof
    },
    stop (cprof) {
      return cprof.heap.stop().then((r) => ({ file: r.files.heapprofile, result: r }))
    },
    check (out) {
      if (!(out.result.samples > 0)) throw new Error('cprof reported no samples')
      return checkFile(out.file, checkHeapText)
    }
  }
}

function get (kind, name) {
  const a = (kind === 'heap' ? heap : cpu)[name]
  if (!a) throw new Error(`unknown ${kind} approach "${name}"`)
  return a
}

// Why an approach cannot run in this Node, or null.
function unavailable (kind, name) {
  const a = get(kind, name)
  return a.unavailable ? a.unavailable() : null
}

module.exports = { cpu, heap, get, unavailable }

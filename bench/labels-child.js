'use strict'
// One measurement of bench/labels.js's switch section: CPU time per await
// (a promise reaction) and per setImmediate callback, under
// withLabels({ route }) with a CPU profile running, labels on (the
// mechanism from CPROF_LABELS_MECHANISM) or off (argv[2] 'off'); 'span'
// and 'otel': the same inside an OpenTelemetry span (sdk-trace-base,
// AsyncLocalStorageContextManager), with labels: true or { otel: true }.
//   node labels-child.js on|off|span|otel <n> → one JSON line { awaitNs, immediateNs }
const cprof = require('..')

const mode = process.argv[2]
const labels = mode === 'otel' ? { otel: true } : mode !== 'off'
let inSpan = (fn) => fn()
if (mode === 'span' || mode === 'otel') {
  const api = require('@opentelemetry/api')
  const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base')
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks')
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  api.trace.setGlobalTracerProvider(new BasicTracerProvider())
  const tracer = api.trace.getTracer('bench')
  inSpan = (fn) => tracer.startActiveSpan('request', (span) => fn().finally(() => span.end()))
}
const n = Number(process.argv[3] || 200000)

function cpuNs () {
  const u = process.cpuUsage()
  return (u.user + u.system) * 1000
}

async function awaits (k) {
  for (let i = 0; i < k; i++) await null
}

async function immediates (k) {
  for (let i = 0; i < k; i++) await new Promise((resolve) => setImmediate(resolve))
}

async function measure (fn, k) {
  await inSpan(() => cprof.withLabels({ route: '/warm' }, fn, k / 10)) // warm the JIT
  const t = cpuNs()
  await inSpan(() => cprof.withLabels({ route: '/a' }, fn, k))
  return (cpuNs() - t) / k
}

async function main () {
  await cprof.start({ labels, dir: require('node:os').tmpdir() + '/cprof-bench-labels-child' })
  const awaitNs = await measure(awaits, n)
  const immediateNs = await measure(immediates, n / 4)
  const r = await cprof.stop()
  require('node:fs').rmSync(r.files.cpuprofile, { force: true })
  if (r.files.labels) require('node:fs').rmSync(r.files.labels, { force: true })
  process.stdout.write(JSON.stringify({ awaitNs, immediateNs }) + '\n')
}

main()

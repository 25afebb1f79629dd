'use strict'
// Push to Grafana Pyroscope (lib/push, docs/pyroscope.md): real apps under
// the preload (-r register.js, CPROF_PUSH_URL) push 1 s windows to a
// receiver on 127.0.0.1 that reads the ingest API as grafana/pyroscope's
// source does (helpers/pyroscope-receiver.js: busboy for the form,
// pprof-format for the profile). Faults: down at start, slow, 429/503,
// 400/413, never answering (the long outages: push-outage.test.js). In every
// case the app exits 0 on its own with bounded memory.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')

const { functionTotals, parseName } = require('../helpers/pyroscope-receiver.js')
const { receiver, closeReceivers, runApp, assertClean, typeNames, isCpu, assertContiguous } = require('../helpers/push-app.js')
const { removeTmpDirs, makeTmpDir } = require('../helpers/util.js')
const { NO_PM2, pm2Home, reapPm2 } = require('../helpers/pm2.js')
const { pushOptions, publicOptions, parseLabels } = require('../../../lib/push/options')
const { seriesName, series } = require('../../../lib/push/labels')
const { createQueue } = require('../../../lib/push/queue')
const { backoff, retryAfterMs, createPusher } = require('../../../lib/push/client')
const { envConfig } = require('../../../lib/triggers/env')
const cprof = require('../../../lib/index')

after(removeTmpDirs)
after(closeReceivers)

const ROOT = path.join(__dirname, '..', '..', '..')

// ---- units: options, labels, queue, backoff ----

test('push options: a bad URL or label is ERR_CPROF_INVALID_ARG at init(), secrets never returned', () => {
  for (const bad of ['not a url', 'ftp://host', 'http://h/?q=1', '', 42]) {
    assert.throws(() => cprof.init({ recorder: { push: { url: bad } } }), { code: 'ERR_CPROF_INVALID_ARG' }, String(bad))
  }
  assert.throws(() => pushOptions({ url: 'http://h', labels: { 'bad-name': 'x' } }), { code: 'ERR_CPROF_INVALID_ARG' })
  assert.throws(() => pushOptions({ url: 'http://h', labels: { __x: 'x' } }), /reserved/)
  assert.throws(() => pushOptions({ url: 'http://h', labels: { service_name: 'x' } }), /push\.app/)
  assert.throws(() => pushOptions({ url: 'http://h', labels: { a: 'x,y' } }), /without , \{ or \}/)
  assert.throws(() => pushOptions({ url: 'http://h', app: 'my app' }), { code: 'ERR_CPROF_INVALID_ARG' })
  assert.throws(() => pushOptions({ url: 'http://h', password: 'p' }), /push\.user/)
  assert.throws(() => pushOptions({ url: 'http://h', colour: 1 }), /unknown option "colour"/)

  const o = pushOptions({ url: 'https://123:secret-pw@profiles.example.net/base/', tenant: 't1', labels: { env: 'prod' } })
  assert.equal(o.url, 'https://profiles.example.net/base')
  assert.equal(o.user, '123')
  assert.equal(o.password, 'secret-pw')
  // Grafana Cloud: user (stack id) + token → basic auth with the token as password.
  const cloud = pushOptions({ url: 'https://p.example.net', user: '42', token: 'secret-tok' })
  assert.deepEqual([cloud.user, cloud.password, cloud.token], ['42', 'secret-tok', undefined])
  assert.equal(pushOptions({ url: 'http://h', token: 'secret-t' }).token, 'secret-t')
  const shown = JSON.stringify(publicOptions(o))
  assert.doesNotMatch(shown, /secret/)
  assert.match(shown, /"auth":"basic"/)
  assert.equal(o.timeout, 10000)
  assert.equal(o.queueBytes, 8 * 1024 * 1024)
  assert.equal(o.maxSamples, 16000)
  assert.equal(o.maxProfileBytes, 4 * 1024 * 1024)
})

test('CPROF_PUSH_* under the preload: the URL alone switches the recorder on; errors name the variable, never a secret', () => {
  const c = envConfig({ CPROF_PUSH_URL: 'http://localhost:4040', CPROF_PUSH_LABELS: 'env=prod, region=eu', CPROF_PUSH_TOKEN: 'secret-x', CPROF_PUSH_TENANT: 'acme' })
  assert.deepEqual(c.recorder.push, { url: 'http://localhost:4040', labels: { env: 'prod', region: 'eu' }, token: 'secret-x', tenant: 'acme' })
  assert.throws(() => envConfig({ CPROF_PUSH_URL: 'nope' }), (err) => err.code === 'ERR_CPROF_INVALID_ARG' && /CPROF_PUSH/.test(err.message))
  assert.throws(() => envConfig({ CPROF_PUSH_TOKEN: 'secret-x' }), (err) => /CPROF_PUSH_URL/.test(err.message) && !/secret/.test(err.message))
  assert.throws(() => envConfig({ CPROF_PUSH_URL: 'http://h', CPROF_PUSH_TIMEOUT: 'soon' }), /CPROF_PUSH_TIMEOUT/)
  assert.throws(() => envConfig({ CPROF_PUSH_URL: 'http://h', CPROF_RECORDER: '0' }), /CPROF_RECORDER=0/)
  assert.deepEqual(parseLabels('a=1,b=x=y'), { a: '1', b: 'x=y' })
  // PM2's io object carries the same options.
  const io = envConfig({ io: JSON.stringify({ recorder: { window: 5000, push: { url: 'http://h:4040', app: 'web' } } }) })
  assert.equal(io.recorder.push.app, 'web')
})

test('labels: service name and instance from PM2, else the pid; the name parameter parses as Pyroscope parses it', () => {
  const pm2 = series({ labels: { env: 'prod' } }, { pm_id: '3', name: 'web api', NODE_APP_INSTANCE: '1' })
  assert.equal(pm2.app, 'web_api')
  assert.equal(pm2.labels.instance, '1')
  assert.equal(pm2.labels.node_version, process.versions.node)
  const plain = series({ app: 'svc' }, {})
  assert.equal(plain.labels.instance, String(process.pid))
  const parsed = parseName(pm2.name)
  assert.equal(parsed.app, 'web_api')
  assert.deepEqual(parsed.labels, pm2.labels)
  assert.equal(seriesName('a', { z: '1', b: '2' }), 'a{b=2,z=1}')
})

test('queue: bounded by bytes, drops the oldest, keeps the newest', () => {
  const q = createQueue(100)
  assert.deepEqual(q.add({ id: 1, bytes: 40 }), [])
  assert.deepEqual(q.add({ id: 2, bytes: 40 }), [])
  assert.deepEqual(q.add({ id: 3, bytes: 40 }).map((i) => i.id), [1])
  assert.equal(q.bytes, 80)
  assert.deepEqual(q.add({ id: 4, bytes: 500 }).map((i) => i.id), [2, 3])
  assert.equal(q.length, 1)
  const first = q.shift()
  assert.equal(first.id, 4)
  q.add({ id: 5, bytes: 60 })
  assert.deepEqual(q.putBack({ id: 6, bytes: 60 }).map((i) => i.id), [6], 'an item that no longer fits is the oldest: dropped')
})

test('backoff: exponential, jittered in the upper half, capped; Retry-After in seconds or as a date', () => {
  assert.equal(backoff(1, () => 0), 500)
  assert.equal(backoff(1, () => 1), 1000)
  assert.equal(backoff(3, () => 1), 4000)
  assert.equal(backoff(30, () => 1), 10000)
  assert.equal(retryAfterMs('2'), 2000)
  assert.equal(retryAfterMs(new Date(Date.now() + 3000).toUTCString(), Date.now()) > 1000, true)
  assert.equal(retryAfterMs('soon'), null)
  assert.equal(retryAfterMs(undefined), null)
})

// ---- end to end ----
// Tests of delivery (outages, retries, refusals, TLS, series names) run a
// light app (APP_SLICE_MS 2, APP_IDLE_MS 40: ~5% of a core): they count
// windows and requests, not samples, and a CPU-bound app would cost every
// suite run CPU that measures nothing. Tests of what a window holds run it busy.


test('windows arrive as pprof: the hot function tops the CPU series, labels and time ranges right, nothing twice; heap windows too', async () => {
  const r = await receiver()
  const run = await runApp({
    CPROF_PUSH_URL: r.url,
    CPROF_PUSH_LABELS: 'env=test,region=eu',
    CPROF_PUSH_TOKEN: 'secret-token',
    CPROF_PUSH_TENANT: 'tenant-a',
    CPROF_RECORDER_HEAP: '1',
    CPROF_RECORDER_HEAP_WINDOW: '1000',
    APP_MS: '4000',
    APP_STOP: '1'
  })
  assertClean(run, 'healthy')
  const cpu = r.profiles.filter(isCpu)
  const heap = r.profiles.filter((p) => !isCpu(p))
  assert.ok(cpu.length >= 4, `${cpu.length} CPU windows`)
  assert.equal(run.out.push.pushed, r.profiles.length)
  assert.deepEqual([run.out.push.failed, run.out.push.dropped, run.out.push.queued], [0, 0, 0])
  for (const p of r.profiles) {
    assert.equal(p.app, 'push-test')
    assert.deepEqual(p.labels, { env: 'test', region: 'eu', instance: String(run.pid), hostname: require('node:os').hostname(), node_version: process.versions.node })
    assert.equal(p.spyName, 'cprof')
    assert.equal(p.headers.authorization, 'Bearer secret-token')
    assert.equal(p.headers['x-scope-orgid'], 'tenant-a')
    assert.ok(p.from <= p.until && p.until - p.from <= 2, `range ${p.from}..${p.until}`)
    const t = Number(BigInt(p.profile.timeNanos) / 1000000n)
    assert.equal(Math.floor(t / 1000), p.from, 'the profile time is the window start')
  }
  assertContiguous(cpu, 'cpu')
  // The hot function tops the whole CPU series (self cpu/nanoseconds).
  const total = new Map()
  for (const p of cpu) for (const [fn, v] of functionTotals(p.profile, 1)) total.set(fn, (total.get(fn) || 0) + v)
  const top = [...total].sort((a, b) => b[1] - a[1])[0]
  // Named <file>:<name>:<line>, the file relative to the app's directory.
  assert.match(top[0], /^\.\/test\/js\/push\/fixtures\/push-app\.js:hotPushWork:\d+$/, JSON.stringify([...total].slice(0, 5)))
  // Heap windows in Pyroscope's memory types.
  assert.ok(heap.length >= 3, `${heap.length} heap windows`)
  for (const p of heap) assert.equal(typeNames(p), 'inuse_objects/count,inuse_space/bytes')
})

test('receiver down at start: retried, the app runs and exits 0 on its own', async () => {
  const r = await receiver()
  await r.down()
  const run = await runApp({ CPROF_PUSH_URL: r.url, APP_MS: '3000' })
  assertClean(run, 'down at start')
  assert.equal(run.out.push.pushed, 0)
  assert.ok(run.out.push.retried >= 1, JSON.stringify(run.out.push))
  assert.equal(run.out.push.lastError.code, 'ECONNREFUSED')
  assert.ok(run.ms < 20_000, `exited after ${run.ms} ms`)
  // The retries never held the main thread: most of the wall time went to
  // the app's own slices (a comparison of iterations with an earlier run
  // measured the machine's load instead).
  assert.ok(run.out.workMs > run.out.ms * 0.5, `the app worked ${run.out.workMs} of ${run.out.ms} ms`)
  assert.match(run.stderr, /ERR_CPROF_PUSH/, 'the outage is reported once')
  assert.equal(run.stderr.match(/ERR_CPROF_PUSH/g).length, 1)
})

test('slow receiver: requests time out and are retried; the app exits on its own', async () => {
  const r = await receiver()
  r.set({ delayMs: 3000 })
  const run = await runApp({ CPROF_PUSH_URL: r.url, CPROF_PUSH_TIMEOUT: '500', APP_MS: '3000', APP_SLICE_MS: '2', APP_IDLE_MS: '40' })
  assertClean(run, 'slow')
  assert.ok(run.out.push.retried >= 1, JSON.stringify(run.out.push))
  assert.match(run.out.push.lastError.message, /no answer within 500 ms/)
  assert.ok(run.ms < 20_000)
})

test('429 and 503 are retried with backoff (Retry-After respected), then delivered', async () => {
  for (const [status, retryAfter, minGap] of [[429, 2, 1900], [503, undefined, 450]]) {
    const r = await receiver()
    r.set({ status, retryAfter, times: 2 })
    const run = await runApp({ CPROF_PUSH_URL: r.url, APP_MS: '2500', APP_STOP: '1', APP_SLICE_MS: '2', APP_IDLE_MS: '40' })
    assertClean(run, String(status))
    assert.ok(run.out.push.retried >= 2, JSON.stringify(run.out.push))
    assert.equal(run.out.push.failed, 0)
    const cpu = r.profiles.filter(isCpu)
    assert.equal(run.out.push.pushed, cpu.length)
    assertContiguous(cpu, String(status))
    const [first, second, third] = r.requests
    assert.deepEqual([first.status, second.status, third.status], [status, status, 200])
    assert.ok(second.at - first.at >= minGap, `${status}: retried after ${second.at - first.at} ms`)
    assert.equal(r.requests[0].url, r.requests[2].url, 'the same window again')
  }
})

test('400 and 413 are not retried: counted as failed, each window sent once', async () => {
  for (const status of [400, 413]) {
    const r = await receiver()
    r.set({ status })
    const run = await runApp({ CPROF_PUSH_URL: r.url, APP_MS: '2500', APP_STOP: '1', APP_SLICE_MS: '2', APP_IDLE_MS: '40' })
    assertClean(run, String(status))
    const p = run.out.push
    assert.equal(p.retried, 0)
    assert.equal(p.pushed, 0)
    assert.ok(p.failed >= 2)
    assert.equal(p.failed, r.requests.length)
    assert.equal(new Set(r.requests.map((q) => q.url)).size, r.requests.length, 'no window sent twice')
    assert.equal(p.lastError.status, status)
  }
})

test('a receiver that accepts and never answers: the app still exits 0 on its own, at once', async () => {
  const r = await receiver()
  r.set({ hang: true })
  const run = await runApp({ CPROF_PUSH_URL: r.url, APP_MS: '3000', APP_SLICE_MS: '2', APP_IDLE_MS: '40' })
  assertClean(run, 'hang')
  assert.ok(r.requests.length >= 1)
  assert.equal(run.out.push.pushed, 0)
  assert.ok(run.ms < 12_000, `exited after ${run.ms} ms`)
})

test('instances of one app (PM2 cluster-style environment) are distinct series', async () => {
  const r = await receiver()
  const env = (i) => ({ CPROF_PUSH_URL: r.url, CPROF_PUSH_APP: '', pm_id: String(i), name: 'web', NODE_APP_INSTANCE: String(i), APP_MS: '2500', APP_STOP: '1', APP_SLICE_MS: '2', APP_IDLE_MS: '40' })
  const runs = await Promise.all([runApp(env(0)), runApp(env(1))])
  runs.forEach((run, i) => assertClean(run, `instance ${i}`))
  const names = new Set(r.profiles.map((p) => `${p.app}/${p.labels.instance}`))
  assert.deepEqual([...names].sort(), ['web/0', 'web/1'])
  for (const i of ['0', '1']) assertContiguous(r.profiles.filter((p) => p.labels.instance === i && isCpu(p)), `instance ${i}`)
})

test('a real PM2 cluster (io object in the ecosystem file): each instance its own series, named after the app', { timeout: 180_000 }, async (t) => {
  if (NO_PM2) return t.skip(NO_PM2)
  const home = makeTmpDir('cprof-pm2push-')
  const appDir = makeTmpDir('cprof-pm2push-app-')
  // Async, so the receiver in this process answers meanwhile.
  const { pm2Async: pm2 } = pm2Home({ home, cwd: appDir })
  const r = await receiver()
  require('node:fs').writeFileSync(path.join(appDir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({
    apps: [{
      name: 'cprof-push',
      script: path.join(__dirname, 'fixtures', 'push-app.js'),
      exec_mode: 'cluster',
      instances: 2,
      autorestart: false,
      node_args: `-r ${path.join(ROOT, 'register.js')}`,
      env: { APP_MS: '600000', APP_IDLE_MS: '40' },
      io: { recorder: { window: 1000, push: { url: r.url, labels: { env: 'pm2' } } } }
    }]
  })}\n`)
  try {
    const started = await pm2('start', 'ecosystem.config.js')
    assert.equal(started.status, 0, started.out)
    const deadline = Date.now() + 45_000
    const seen = () => new Set(r.profiles.map((p) => `${p.app}/${p.labels.instance}/${p.labels.env}`))
    while (seen().size < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500))
    assert.deepEqual([...seen()].sort(), ['cprof-push/0/pm2', 'cprof-push/1/pm2'])
  } finally {
    await pm2('kill')
    reapPm2(home)
  }
})

test('HTTPS: a private CA through NODE_EXTRA_CA_CERTS works, an unknown one is refused and retried; URL credentials become basic auth', async (t) => {
  const fs = require('node:fs')
  const dir = makeTmpDir('cprof-push-tls-')
  const key = path.join(dir, 'key.pem')
  const cert = path.join(dir, 'cert.pem')
  const made = require('node:child_process').spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert,
    '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' })
  if (made.error || made.status !== 0) return t.skip(`openssl cannot make a certificate here: ${made.error ? made.error.message : made.stderr}`)
  const r = await receiver({ tls: { key: fs.readFileSync(key), cert: fs.readFileSync(cert) } })
  const url = r.url.replace('https://', 'https://4242:secret-pw@')
  const trusted = await runApp({ CPROF_PUSH_URL: url, NODE_EXTRA_CA_CERTS: cert, APP_MS: '5000', APP_STOP: '1', APP_SLICE_MS: '2', APP_IDLE_MS: '40' })
  assertClean(trusted, 'trusted CA')
  assert.ok(trusted.out.push.pushed >= 2, JSON.stringify(trusted.out.push))
  assert.equal(trusted.out.push.url, r.url, 'the status shows the URL without credentials')
  assert.equal(r.profiles[0].headers.authorization, `Basic ${Buffer.from('4242:secret-pw').toString('base64')}`)
  const count = r.profiles.length
  const unknown = await runApp({ CPROF_PUSH_URL: r.url, NODE_EXTRA_CA_CERTS: '', APP_MS: '5000', APP_SLICE_MS: '2', APP_IDLE_MS: '40' })
  assertClean(unknown, 'unknown CA')
  assert.equal(unknown.out.push.pushed, 0)
  assert.ok(unknown.out.push.retried >= 1)
  assert.match(unknown.out.push.lastError.code, /CERT|SELF_SIGNED/)
  assert.equal(r.profiles.length, count)
})

test('a window above maxSamples is split into parts of one range whose samples add up to the window', async () => {
  const r = await receiver()
  const windows = []
  const onWindow = (info) => windows.push(info)
  cprof.on('window', onWindow)
  try {
    cprof.recorder.start({ window: 60_000, push: { url: r.url, app: 'split', maxSamples: 4 } })
    // Twelve functions of their own names: at least twelve distinct stacks.
    // eslint-disable-next-line no-new-func
    const fns = Array.from({ length: 12 }, (_, i) => new Function(`return function busy${i} (ms) { const end = Date.now() + ms; let x = ${i}; while (Date.now() < end) x++; return x }`)())
    for (let k = 0; k < 8; k++) for (const f of fns) f(12)
    const s = await cprof.recorder.stop()
    assert.equal(windows.length, 1)
    assert.equal(s.push.pushed, r.profiles.length)
    assert.ok(r.profiles.length >= 3, `${r.profiles.length} parts`)
    let count = 0
    for (const p of r.profiles) {
      assert.ok(p.profile.sample.length <= 4)
      assert.deepEqual([p.from, p.until, String(p.profile.timeNanos)], [r.profiles[0].from, r.profiles[0].until, String(r.profiles[0].profile.timeNanos)])
      for (const sample of p.profile.sample) count += Number(sample.value[0])
    }
    assert.equal(count, windows[0].samples, 'the parts hold every sample of the window once')
    assert.equal(windows[0].push, undefined, "the 'window' event carries no bytes")
  } finally {
    cprof.off('window', onWindow)
  }
})

test('a window older than Pyroscope accepts (1 h) is dropped, not sent to be refused', async () => {
  const r = await receiver()
  const zlib = require('node:zlib')
  const { Profile, ValueType, StringTable } = require('pprof-format')
  const pprof = (fromMs) => {
    const strings = new StringTable()
    const p = new Profile({ sampleType: [new ValueType({ type: strings.dedup('samples'), unit: strings.dedup('count') })], timeNanos: BigInt(fromMs) * 1000000n, stringTable: strings })
    return zlib.gzipSync(p.encode())
  }
  const pusher = createPusher(pushOptions({ url: r.url, app: 'old' }), { name: 'old{instance=1}' })
  const now = Date.now()
  const old = now - 2 * 3600 * 1000
  pusher.enqueue({ kind: 'cpu', seq: 1, from: old, to: old + 10_000, push: [pprof(old)] })
  pusher.enqueue({ kind: 'cpu', seq: 2, from: now - 10_000, to: now, push: [pprof(now - 10_000)] })
  await pusher.flush(10_000)
  const s = pusher.status()
  pusher.close()
  assert.deepEqual([s.pushed, s.dropped, s.failed], [1, 1, 0])
  assert.equal(r.profiles.length, 1)
  assert.equal(r.requests.length, 1)
})

// ---- what Pyroscope shows: read as its tree builder reads the pprof (frames keyed by Function.name) ----

// Self cpu/nanoseconds summed over the CPU windows, by Function.name.
function cpuByName (profiles) {
  const total = new Map()
  for (const p of profiles.filter(isCpu)) for (const [fn, v] of functionTotals(p.profile, 1)) total.set(fn, (total.get(fn) || 0) + v)
  return total
}

test('pushed CPU is CPU time, (idle) left out: an idle app within 2x of its main thread\'s CPU time, a busy one within 10%', async () => {
  // idle: 1 ms of work every 100 ms, sampled every 1 ms (at the default
  // 10 ms its ~50 ms of work would be a handful of samples, too few for a
  // ratio); busy: the event loop never waits.
  // The CPU profile samples the main thread (JavaScript, its GC share, the
  // rest as (program)), so that thread's own CPU time is what it must
  // match: the process's (process.cpuUsage()) also holds V8's sampling and
  // GC helper threads and the push client, as much as the idle app's 50 ms
  // of work on a loaded machine (ratios of 0.44-0.49 against it were seen).
  for (const [what, env, lo, hi] of [['idle', { APP_SLICE_MS: '1', APP_IDLE_MS: '100', CPROF_RECORDER_INTERVAL: '1000' }, 0.5, 2], ['busy', {}, 0.9, 1.1]]) {
    const r = await receiver()
    const run = await runApp({ CPROF_PUSH_URL: r.url, APP_MS: '5000', APP_STOP: '1', ...env })
    assertClean(run, what)
    const byName = cpuByName(r.profiles)
    assert.equal(byName.has('(idle)'), false, `${what}: (idle) pushed as CPU`)
    const pushedMs = [...byName.values()].reduce((a, b) => a + b, 0) / 1e6
    const [measure, cpuMs] = run.out.mainCpuMs !== null ? ['main thread', run.out.mainCpuMs] : ['process.cpuUsage()', run.out.cpuMs]
    const ratio = pushedMs / cpuMs
    assert.ok(ratio >= lo && ratio <= hi,
      `${what}: pushed ${pushedMs.toFixed(0)} ms of cpu, ${measure} ${cpuMs.toFixed(0)} ms (process ${run.out.cpuMs.toFixed(0)} ms) over the same windows (x${ratio.toFixed(2)}); top ${JSON.stringify([...byName].sort((a, b) => b[1] - a[1]).slice(0, 4))}`)
  }
})

test('same-named functions of different files are distinct frames (Function.name <file>:<name>:<line>)', async () => {
  const fs = require('node:fs')
  const dir = makeTmpDir('cprof-push-names-')
  const src = 'module.exports = function fib (n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }\n'
  fs.writeFileSync(path.join(dir, 'a.js'), src)
  fs.writeFileSync(path.join(dir, 'c.js'), src)
  const r = await receiver()
  cprof.recorder.start({ window: 60_000, push: { url: r.url, app: 'names' } })
  try {
    const a = require(path.join(dir, 'a.js'))
    const c = require(path.join(dir, 'c.js'))
    const end = Date.now() + 1500
    while (Date.now() < end) { a(22); c(22) }
  } finally {
    await cprof.recorder.stop()
  }
  const byName = cpuByName(r.profiles)
  const fibs = [...byName].filter(([name]) => /:fib:\d+$/.test(name))
  const ofFile = (f) => fibs.filter(([name]) => name === `${path.join(dir, f)}:fib:1`)
  assert.equal(ofFile('a.js').length, 1, JSON.stringify(fibs))
  assert.equal(ofFile('c.js').length, 1, JSON.stringify(fibs))
  assert.ok(ofFile('a.js')[0][1] > 0 && ofFile('c.js')[0][1] > 0, JSON.stringify(fibs))
  // No pushed name stands for two places: one (file, line) per Function.name; frames
  // without a script keep V8's name.
  const places = new Map()
  for (const p of r.profiles) {
    const s = (i) => p.profile.stringTable.strings[Number(i)]
    for (const f of p.profile.function) {
      const name = s(f.name)
      if (s(f.filename) === '') assert.equal(name, s(f.systemName) || '(anonymous)')
      const place = `${s(f.filename)}:${f.startLine}`
      assert.equal(places.get(name) ?? place, place, `${name} names two places`)
      places.set(name, place)
    }
  }
})

test('pushed heap windows are the live heap: a growing Map is a rising inuse_space line', async () => {
  const r = await receiver()
  const run = await runApp({
    CPROF_PUSH_URL: r.url, CPROF_RECORDER_HEAP: '1', CPROF_RECORDER_HEAP_INTERVAL: '8192', CPROF_RECORDER_HEAP_WINDOW: '1000', APP_GROW: '10', APP_MS: '5000', APP_STOP: '1'
  })
  assertClean(run, 'leak')
  const heap = r.profiles.filter((p) => !isCpu(p)).sort((x, y) => (BigInt(x.profile.timeNanos) < BigInt(y.profile.timeNanos) ? -1 : 1))
  assert.ok(heap.length >= 4, `${heap.length} heap windows`)
  const inuse = heap.map((p) => p.profile.sample.reduce((n, smp) => n + Number(smp.value[1]), 0))
  // Every window long enough to keep new arrays (the last one, ended by stop(), may be a few ms)
  // holds more than the one before.
  const ms = heap.map((p) => Number(BigInt(p.profile.durationNanos) / 1000000n))
  for (let i = 1; i < inuse.length; i++) if (ms[i] >= 500) assert.ok(inuse[i] > inuse[i - 1], `inuse_space by window: ${inuse} (ms: ${ms})`)
  assert.ok(ms.filter((d) => d >= 500).length >= 3, `window lengths: ${ms}`)
  // The last window holds the whole live heap: at least half of what the Map
  // keeps (arrays of 128 small integers, 1 KiB and more each), not one window's share.
  const kept = run.out.grown * 1024
  assert.ok(inuse[inuse.length - 1] >= kept / 2, `last window ${inuse[inuse.length - 1]} bytes, the Map keeps >= ${kept}; by window: ${inuse}`)
})

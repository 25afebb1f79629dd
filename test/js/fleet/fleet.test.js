'use strict'

// The fleet, for real: a node:cluster app (a primary and 2 workers) and a
// PM2 cluster app (2 instances) with cprof preloaded, each instance running
// the same hot function. `cprof ps` must list every instance with its app
// name and instance id; one `cprof trigger` must yield per-instance files
// named <kind>-<app>.<instance>-<pid>-<stamp> and a merged profile whose
// sample count is the sum of theirs (counted here from the files) and whose
// top function is the hot one; an instance that dies mid-profile is named
// as missing and the rest still merge; exit 1 only when none delivered.
// Every process announces itself in a run directory of this test's own
// (CPROF_RUN_DIR), so other tests' processes do not show up.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

const { ROOT, makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util.js')
const { FIXTURES } = require('../helpers/util.js').fixturesIn(__dirname)
const { NO_PM2, pm2Home, reapPm2 } = require('../helpers/pm2.js')
const { decodePprof } = require('../helpers/formats.js')
const { devtoolsTimes, speedscopeTimes, slack, firstOnTop, assertViewerSums } = require('../helpers/viewer-rules.js')

const CLI = path.join(ROOT, 'bin', 'cprof.js')
const REGISTER = path.join(ROOT, 'register.js')
const runDir = path.join(makeTmpDir('cprof-fleet-'), 'run')
const children = []

after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  removeTmpDirs()
})

const test = (name, fn) => nodeTest(name, { timeout: 120000 }, fn)

function env (extra = {}) {
  const e = childEnv({ CPROF_RUN_DIR: runDir, ...extra })
  for (const k of ['CPROF_SIGNAL', 'CPROF_HEAP_SIGNAL', 'CPROF_APP', 'io']) if (!(k in extra)) delete e[k]
  return e
}

function cprof (args, extra) {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => { stdout += d })
    c.stderr.on('data', (d) => { stderr += d })
    c.on('close', (status) => resolve({ status, stdout, stderr, describe: () => `cprof ${args.join(' ')}: status=${status}\n${stdout}\n${stderr}` }))
  })
}

function start (script, args, extra) {
  const c = spawn(process.execPath, ['-r', REGISTER, path.join(FIXTURES, script), ...args], {
    env: env({ CPROF_PROFILING: 'cpu', CPROF_INTERVAL: '1000', ...extra }), stdio: ['ignore', 'pipe', 'pipe']
  })
  children.push(c)
  let stdout = ''
  let stderr = ''
  c.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  c.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const ready = new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${script} did not start: ${stderr}`)), 60000) // a bound on a hang: beside two hogs, 20 s was once too short
    c.stdout.on('data', () => {
      const line = stdout.split('\n').find((l) => l.startsWith('{"ready"'))
      if (line) {
        clearTimeout(t)
        resolve(JSON.parse(line).ready)
      }
    })
  })
  const exited = new Promise((resolve) => c.on('close', (status, signal) => resolve({ status, signal })))
  return { child: c, ready, exited, err: () => stderr }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// `cprof ps --json --app NAME` until it lists n processes.
async function psUntil (app, n) {
  const end = Date.now() + 20000
  for (;;) {
    const r = await cprof(['ps', '--json', '--app', app])
    assert.equal(r.status, 0, r.describe())
    const rows = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l))
    if (rows.length >= n || Date.now() > end) return rows
    await sleep(200)
  }
}

// Samples in a .cpuprofile, read here (not through cprof).
function samplesIn (file) {
  return JSON.parse(fs.readFileSync(file, 'utf8')).samples.length
}

// The viewer marks of a page cprof wrote (docs/formats.md, Viewer marks).
function pageMarks (html) {
  const text = fs.readFileSync(html, 'utf8')
  assert.match(text, /Content-Security-Policy/) // the viewer's template, not the bare data page
  return JSON.parse(JSON.parse(/<script type="application\/json" id="cprof-data">(.*?)<\/script>/s.exec(text)[1]).marks)
}

function topNamed (summary) {
  return summary.top.find((f) => !f.functionName.startsWith('(')).functionName
}

// The self samples of functionName in a .cpuprofile, counted here as
// DevTools counts (each sample to its node), not through cprof.
function selfSamplesIn (file, functionName) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'))
  const named = new Set(p.nodes.filter((n) => n.callFrame.functionName === functionName).map((n) => n.id))
  return p.samples.filter((id) => named.has(id)).length
}

// What a failure message needs to tell a short profile from a starved one:
// its samples, its span and its top self functions by samples.
function profileShape (file) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'))
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame.functionName || '(anonymous)']))
  const self = new Map()
  for (const id of p.samples) self.set(byId.get(id), (self.get(byId.get(id)) || 0) + 1)
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([f, n]) => `${f} ${n}`).join(', ')
  return `${p.samples.length} samples over ${Math.round((p.endTime - p.startTime) / 1000)} ms; ${top}`
}

test('node:cluster: cprof ps lists the primary and both workers; trigger --tree merges their profiles', async () => {
  const dir = makeTmpDir()
  const app = start('fleet-cluster.js', ['2'], { CPROF_DIR: dir })
  const workers = await app.ready
  const rows = await psUntil('fleet-cluster', 3)
  assert.equal(rows.length, 3, JSON.stringify(rows))
  const primary = rows.find((r) => r.pid === app.child.pid)
  assert.equal(primary.role, 'primary')
  assert.deepEqual(primary.workers.slice().sort(), workers.slice().sort())
  const ws = rows.filter((r) => r.role === 'worker')
  assert.deepEqual(ws.map((r) => r.instance).sort(), [1, 2])
  for (const w of ws) {
    assert.equal(w.app, 'fleet-cluster')
    assert.equal(w.ppid, app.child.pid)
    assert.equal(w.triggers.signal, 'SIGUSR2')
    assert.equal(typeof w.rssBytes, 'number')
    assert.ok(w.rssBytes > 1e6)
  }
  // Entries are private: the directory 0700, the files 0600.
  assert.equal(fs.statSync(runDir).mode & 0o777, 0o700)
  for (const f of fs.readdirSync(runDir)) assert.equal(fs.statSync(path.join(runDir, f)).mode & 0o777, 0o600, f)

  const r = await cprof(['trigger', String(app.child.pid), '--tree', '--duration', '2', '--formats', 'html', '--json'])
  assert.equal(r.status, 0, r.describe())
  const res = JSON.parse(r.stdout)
  assert.equal(res.by, 'primary', 'the primary passed the signal on and merged')
  // The page written from the primary's merged file: where each instance starts.
  let first = 0
  assert.deepEqual(pageMarks(res.files.html).instances, res.instances.map((i) => {
    const x = { name: `${i.label} (pid ${i.pid})`, firstSample: first }
    first += samplesIn(i.file)
    return x
  }))
  assert.deepEqual(res.missing, [])
  assert.equal(res.instances.length, 3)
  const files = res.instances.map((i) => i.file)
  for (const i of res.instances.filter((x) => x.label !== 'fleet-cluster.primary')) {
    assert.match(path.basename(i.file), new RegExp(`^cpu-fleet-cluster\\.[12]-${i.pid}-\\d{8}T\\d{6}\\.\\d{3}Z\\.cpuprofile$`))
    assert.equal(path.dirname(i.file), dir)
  }
  const sum = files.reduce((n, f) => n + samplesIn(f), 0)
  assert.equal(samplesIn(res.files.cpuprofile), sum, 'the merged profile holds every instance\'s samples')
  assert.equal(res.samples, sum)
  assert.match(path.basename(res.files.cpuprofile), /^cpu-fleet-cluster\.merged-\d+-\d{8}T\d{6}\.\d{3}Z\.cpuprofile$/)
  assert.equal(topNamed(res.summary), 'hotWork')
  // The instances ran at the same time: read as DevTools and speedscope read
  // it (each sample lasts until the next), the merged file gives each
  // function the sum of the instances' times, within one sampling interval
  // per instance: no instance's last sample lasts into the next one's profile.
  const inputs = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')))
  const mergedProfile = JSON.parse(fs.readFileSync(res.files.cpuprofile, 'utf8'))
  assertViewerSums('node:cluster merge, DevTools\' rule', mergedProfile, inputs, devtoolsTimes, slack(inputs))
  assertViewerSums('node:cluster merge, speedscope\'s rule', mergedProfile, inputs, speedscopeTimes, slack(inputs),
    slack(inputs) + firstOnTop(inputs))
  const shares = res.instances.reduce((s, i) => s + i.share, 0)
  assert.ok(Math.abs(shares - 100) < 0.01, `shares add up to 100: ${shares}`)

  // cprof report --app: the same merged view from the files alone.
  const rep = await cprof(['report', '--app', 'fleet-cluster', '--dir', dir, '--json'])
  assert.equal(rep.status, 0, rep.describe())
  const merged = JSON.parse(rep.stdout)
  assert.equal(merged.samples, sum)
  assert.equal(topNamed(merged.summary), 'hotWork')

  app.child.kill('SIGTERM')
  await app.exited
})

// Samples in a .heapprofile (V8's sampling heap profile: samples[], and the
// tree of nodes whose selfSize V8 scales up from them to estimate what was
// allocated), and the function with the most self bytes: read here, not
// through cprof.
function heapOf (file) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'))
  const self = new Map()
  const walk = (n) => {
    const name = n.callFrame.functionName
    self.set(name, (self.get(name) || 0) + n.selfSize)
    for (const c of n.children || []) walk(c)
  }
  walk(p.head)
  const top = [...self].filter(([name]) => name && !name.startsWith('(')).sort((a, b) => b[1] - a[1])[0]
  return {
    samples: p.samples.length,
    bytes: p.samples.reduce((n, x) => n + x.size, 0), // as sampled
    selfBytes: [...self.values()].reduce((a, b) => a + b, 0), // V8's estimate from them, in the tree
    top: top && top[0]
  }
}

test('node:cluster heap fan-out: trigger --tree --heap merges every instance\'s heap profile, the allocator on top', async () => {
  const dir = makeTmpDir()
  const app = start('fleet-cluster.js', ['2'], {
    CPROF_DIR: dir, CPROF_APP: 'fleet-heap', CPROF_PROFILING: 'heap', CPROF_HEAP_SIGNAL: 'SIGWINCH', FLEET_WORK: 'alloc'
  })
  const workers = await app.ready
  const rows = await psUntil('fleet-heap', 3)
  assert.equal(rows.length, 3, JSON.stringify(rows))
  for (const w of rows) assert.equal(w.triggers.heapSignal, 'SIGWINCH', JSON.stringify(w))

  const r = await cprof(['trigger', String(app.child.pid), '--tree', '--heap', '--duration', '3', '--formats', 'pprof', '--json'])
  assert.equal(r.status, 0, r.describe())
  const res = JSON.parse(r.stdout)
  assert.equal(res.kind, 'heap')
  assert.deepEqual(res.missing, [], r.describe())
  assert.deepEqual(res.instances.map((i) => i.label).sort(), ['fleet-heap.1', 'fleet-heap.2', 'fleet-heap.primary'])
  assert.deepEqual(res.instances.filter((i) => i.label !== 'fleet-heap.primary').map((i) => i.pid).sort(), workers.slice().sort())
  const per = res.instances.map((i) => {
    assert.match(path.basename(i.file), new RegExp(`^heap-fleet-heap\\.(?:[12]|primary)-${i.pid}-\\d{8}T\\d{6}\\.\\d{3}Z\\.heapprofile$`))
    assert.equal(path.dirname(i.file), dir)
    const h = heapOf(i.file)
    assert.equal(i.samples, h.samples, i.label)
    return { label: i.label, ...h }
  })
  // Each worker keeps 16 MiB of arrays alive, replaced every 0.64 s: a
  // quiet run gives hundreds of samples at 32 KiB. How many depends on how
  // much of the window the worker ran (starved beside two hogs, one got its
  // start late and gave 24), so the count asked is only enough to name
  // the top: allocRecords is the app's one allocator.
  for (const w of per.filter((x) => x.label !== 'fleet-heap.primary')) {
    assert.ok(w.samples >= 10, JSON.stringify(w))
    assert.equal(w.top, 'allocRecords', JSON.stringify(w))
  }
  assert.match(path.basename(res.files.heapprofile), /^heap-fleet-heap\.merged-\d+-\d{8}T\d{6}\.\d{3}Z\.heapprofile$/)
  const merged = heapOf(res.files.heapprofile)
  const sum = per.reduce((n, x) => n + x.samples, 0)
  assert.equal(merged.samples, sum, 'the merged heap profile holds every instance\'s samples')
  assert.equal(res.samples, sum)
  assert.equal(merged.bytes, per.reduce((n, x) => n + x.bytes, 0))
  assert.equal(merged.selfBytes, per.reduce((n, x) => n + x.selfBytes, 0))
  assert.equal(res.summary.total, merged.selfBytes)
  assert.equal(merged.top, 'allocRecords')
  assert.equal(topNamed(res.summary), 'allocRecords')
  const shares = res.instances.reduce((n, i) => n + i.share, 0)
  assert.ok(Math.abs(shares - 100) < 0.01, `shares add up to 100: ${shares}`)
  // --formats pprof, asked here though the primary (which merged) was not
  // configured for it: written beside the merged file, gzip'd.
  assert.deepEqual(Object.keys(res.files), ['heapprofile', 'pprof'])
  assert.equal(path.dirname(res.files.pprof), dir)
  assert.equal(path.basename(res.files.pprof), path.basename(res.files.heapprofile).replace(/\.heapprofile$/, '.pb.gz'))
  const pp = decodePprof(res.files.pprof)
  assert.deepEqual(pp.types, ['samples/count', 'inuse_space/bytes'])
  assert.equal(pp.sums[0], BigInt(sum))
  assert.equal(pp.sums[1], BigInt(merged.selfBytes))

  // cprof report --app --heap: the same merged view from the files alone.
  const rep = await cprof(['report', '--app', 'fleet-heap', '--heap', '--dir', dir, '--json'])
  assert.equal(rep.status, 0, rep.describe())
  const again = JSON.parse(rep.stdout)
  assert.equal(again.samples, sum)
  assert.equal(topNamed(again.summary), 'allocRecords')

  // --app NAME reaches the same set; the primary passes the signal on and merges.
  const a = await cprof(['trigger', '--app', 'fleet-heap', '--heap', '--duration', '1', '--json'])
  assert.equal(a.status, 0, a.describe())
  const byApp = JSON.parse(a.stdout)
  assert.equal(byApp.by, 'primary')
  assert.equal(byApp.instances.length, 3)
  assert.notEqual(byApp.files.heapprofile, res.files.heapprofile)
  assert.equal(heapOf(byApp.files.heapprofile).samples, byApp.instances.reduce((n, i) => n + heapOf(i.file).samples, 0))
  assert.equal(topNamed(byApp.summary), 'allocRecords')

  app.child.kill('SIGTERM')
  await app.exited
})

test('flight recorder: cprof ps shows it; trigger --app/--tree --dump merges every recorder, one without is missing', async () => {
  const dir = makeTmpDir()
  const rec = { CPROF_DIR: dir, CPROF_APP: 'fleet-rec', CPROF_PROFILING: '0', CPROF_RECORDER: '1', CPROF_RECORDER_WINDOW: '1000' }
  const app = start('fleet-cluster.js', ['2'], rec)
  const solo = start('fleet-solo.js', ['60000'], { CPROF_DIR: dir, CPROF_APP: 'fleet-rec' }) // no recorder
  await Promise.all([app.ready, solo.ready])
  let rows
  const end = Date.now() + 20000
  do {
    rows = await psUntil('fleet-rec', 4)
    if (rows.filter((r) => r.recorder && r.recorder.windows >= 2).length === 3) break
    await sleep(200)
  } while (Date.now() < end)
  assert.equal(rows.length, 4, JSON.stringify(rows))
  for (const r of rows.filter((x) => x.pid !== solo.child.pid)) {
    assert.equal(r.recorder.running, true, JSON.stringify(r))
    assert.ok(r.recorder.windows >= 2, JSON.stringify(r))
    assert.equal(r.triggers.dumpSignal, 'SIGUSR2')
  }
  assert.equal(rows.find((x) => x.pid === solo.child.pid).recorder, null)
  const table = await cprof(['ps', '--app', 'fleet-rec'])
  assert.equal(table.stdout.split('\n').filter((l) => /\srecorder\(\d+w\)\s/.test(l)).length, 3, table.stdout)

  const r = await cprof(['trigger', '--app', 'fleet-rec', '--dump', '--last', '2', '--json'])
  assert.equal(r.status, 0, r.describe())
  const res = JSON.parse(r.stdout)
  assert.deepEqual(res.instances.map((i) => i.label).sort(), ['fleet-rec.1', 'fleet-rec.2', 'fleet-rec.primary'])
  assert.equal(res.missing.length, 1, r.describe())
  assert.deepEqual([res.missing[0].label, res.missing[0].pid], ['fleet-rec.x', solo.child.pid])
  assert.match(res.missing[0].reason, /no flight recorder/)
  assert.match(r.stderr, /missing fleet-rec\.x \(pid \d+\): runs no flight recorder/)
  for (const i of res.instances) {
    assert.match(path.basename(i.file), new RegExp(`^cpu-recording-fleet-rec\\.(?:[12]|primary)-${i.pid}-\\d{8}T\\d{6}\\.\\d{3}Z\\.cpuprofile$`))
    assert.equal(path.dirname(i.file), dir)
  }
  const sum = res.instances.reduce((n, i) => n + samplesIn(i.file), 0)
  assert.equal(samplesIn(res.files.cpuprofile), sum, 'the merged dump holds every instance\'s samples')
  assert.equal(res.samples, sum)
  assert.match(path.basename(res.files.cpuprofile), /^cpu-fleet-rec\.merged-\d+-\d{8}T\d{6}\.\d{3}Z\.cpuprofile$/)
  // The workers' hot function, counted as DevTools counts: in each worker's
  // dump, and in the merge exactly as many times as in the dumps together.
  // Not its rank: starved beside two hogs, the workers' last 2 s held so
  // little hotWork that cprof's own reads in three processes outranked it.
  const hot = res.instances.map((i) => ({ label: i.label, n: selfSamplesIn(i.file, 'hotWork') }))
  for (const w of hot.filter((h) => h.label !== 'fleet-rec.primary')) assert.ok(w.n > 0, JSON.stringify(hot))
  assert.equal(selfSamplesIn(res.files.cpuprofile, 'hotWork'), hot.reduce((n, h) => n + h.n, 0))
  // --last 2: whole 1 s windows, so at most 2 s plus the one still open.
  for (const i of res.instances) {
    const p = JSON.parse(fs.readFileSync(i.file, 'utf8'))
    assert.ok((p.endTime - p.startTime) / 1e6 < 3.5, `${i.file} covers the last 2 s, not all`)
  }

  // The tree of the primary: its workers' recorders too, printed with shares.
  const t = await cprof(['trigger', String(app.child.pid), '--tree', '--dump'])
  assert.equal(t.status, 0, t.describe())
  assert.match(t.stdout, /^merged CPU recording \(flight recorder dumps\) of 3 instances: \d+ samples$/m)
  for (const l of ['fleet-rec.primary', 'fleet-rec.1', 'fleet-rec.2']) {
    assert.match(t.stdout, new RegExp(`^  ${l.replace('.', '\\.')}\\s+pid \\d+\\s+\\d+ samples .*\\d+\\.\\d%`, 'm'))
  }
  app.child.kill('SIGTERM')
  solo.child.kill('SIGTERM')
  await Promise.all([app.exited, solo.exited])
})

// fleet-cluster.js with 2 workers, worker 1 failing as env says (CRASH_*),
// then `cprof trigger --app name --duration S --json` over it: { app, r, res }.
async function triggerOverFailing (name, env, seconds) {
  const app = start('fleet-cluster.js', ['2'], { CPROF_DIR: makeTmpDir(), CPROF_APP: name, CRASH_WORKER: '1', ...env })
  await app.ready
  assert.equal((await psUntil(name, 3)).length, 3)
  const r = await cprof(['trigger', '--app', name, '--duration', String(seconds), '--json'])
  assert.equal(r.status, 0, r.describe())
  return { app, r, res: JSON.parse(r.stdout) }
}

test('an instance that dies mid-profile: the others still merge, it is named missing, exit 0', async () => {
  const { app, r, res } = await triggerOverFailing('crashy', { CRASH_AFTER_MS: '300' }, 2)
  assert.equal(res.missing.length, 1, r.describe())
  assert.equal(res.missing[0].label, 'crashy.1')
  assert.match(res.missing[0].reason, /exited/)
  assert.match(r.stderr, /missing crashy\.1 \(pid \d+\): .*exited/)
  assert.deepEqual(res.instances.map((i) => i.label).sort(), ['crashy.2', 'crashy.primary'])
  assert.equal(samplesIn(res.files.cpuprofile), res.instances.reduce((n, i) => n + samplesIn(i.file), 0))
  // The survivor's work is in its own profile (and so in the merge, which
  // holds its samples: above). Not a rank: beside two CPU hogs the one busy
  // worker got so little CPU that the primary's IPC dispatch (Node 22) or
  // cprof's own-time reads came out on top.
  const survivor = res.instances.find((i) => i.label === 'crashy.2')
  assert.ok(selfSamplesIn(survivor.file, 'hotWork') > 0, `no hotWork sample in ${survivor.file}: ${profileShape(survivor.file)}`)
  app.child.kill('SIGTERM')
  await app.exited
})

// Found beside two CPU hogs: a worker whose channel closed before the
// primary saw it exit made Worker.send() emit an 'error' nobody listened to,
// and the app's primary died of cprof's stop. Here the channel closes and
// the worker takes 3 s to exit, so the stop meets the closed channel first.
test('a worker whose IPC channel closed mid-profile: the primary lives on and merges, the worker is named missing', async () => {
  const { app, r, res } = await triggerOverFailing('unplugged', { CRASH_MODE: 'disconnect' }, 1)
  assert.deepEqual(res.missing.map((m) => m.label), ['unplugged.1'], r.describe())
  assert.deepEqual(res.instances.map((i) => i.label).sort(), ['unplugged.2', 'unplugged.primary'])
  assert.equal(app.child.exitCode, null, 'the primary is still running')
  app.child.kill('SIGTERM')
  await app.exited
})

test('no instance delivers (the only one exits mid-profile): exit 1, and why', async () => {
  const dir = makeTmpDir()
  const solo = start('fleet-solo.js', ['500', 'after-signal'], { CPROF_DIR: dir, CPROF_APP: 'solo' })
  await solo.ready
  assert.equal((await psUntil('solo', 1)).length, 1)
  const r = await cprof(['trigger', '--app', 'solo', '--duration', '3'])
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, /ERR_CPROF_FLEET: no instance of solo delivered a profile: solo\.x \(pid \d+\): exited/)
  assert.deepEqual(await solo.exited, { status: 0, signal: null })
  // Its entry went with it: the exit handler removed it.
  assert.equal((await psUntil('solo', 0)).length, 0)
})

// utime + stime of a process in clock ticks, read here from /proc/<pid>/stat.
function cpuTicksOf (pid) {
  const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return Number(f[14 - 3]) + Number(f[15 - 3])
}

// cpuPercent is what each process used of one core over cprof ps's window
// (250 ms or more, on a loaded machine). Not a timed assertion: the CPU time
// the test itself reads from /proc around the whole command bounds it from
// above (ticks are 10 ms, USER_HZ = 100); a busy instance must reach a clear
// share in one of many tries, however loaded the machine.
test('cprof ps --json: cpuPercent of a busy instance and of an idle one, bounded by their CPU time', async () => {
  const busy = start('fleet-solo.js', ['120000'], { CPROF_APP: 'fleet-cpu' })
  const idle = start('fleet-solo.js', ['120000', 'idle'], { CPROF_APP: 'fleet-cpu' })
  await Promise.all([busy.ready, idle.ready])
  assert.equal((await psUntil('fleet-cpu', 2)).length, 2)
  const WINDOW_S = 0.25
  let best = null
  for (let i = 0; i < 40 && !(best && best.busy >= 20); i++) {
    const before = { busy: cpuTicksOf(busy.child.pid), idle: cpuTicksOf(idle.child.pid) }
    const r = await cprof(['ps', '--json', '--app', 'fleet-cpu'])
    const after = { busy: cpuTicksOf(busy.child.pid), idle: cpuTicksOf(idle.child.pid) }
    assert.equal(r.status, 0, r.describe())
    const rows = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l))
    const got = {}
    for (const [name, c] of [['busy', busy.child], ['idle', idle.child]]) {
      const row = rows.find((x) => x.pid === c.pid)
      assert.equal(typeof row.cpuPercent, 'number', JSON.stringify(row))
      assert.ok(row.cpuPercent >= 0, JSON.stringify(row))
      // At most the CPU time it used while the command ran, over the shortest window.
      const bound = ((after[name] - before[name]) / 100 / WINDOW_S) * 100
      assert.ok(row.cpuPercent <= bound + 0.05, `${name}: cpuPercent ${row.cpuPercent} > ${bound}, its CPU time around cprof ps`)
      got[name] = row.cpuPercent
    }
    // A spinning JS thread uses at most about one core (GC threads aside).
    assert.ok(got.busy <= 150, JSON.stringify(got))
    if (!best || got.busy > best.busy) best = got
  }
  assert.ok(best.busy >= 20, `the busy instance reached ${best.busy}% of a core at best`)
  assert.ok(best.idle < best.busy, JSON.stringify(best))
  busy.child.kill('SIGTERM')
  idle.child.kill('SIGTERM')
  await Promise.all([busy.exited, idle.exited])
})

test('cprof ps SIGNAL: every signal the process installed, by what it does (the recorder\'s dump, the heap signal)', async () => {
  const rec = start('fleet-solo.js', ['20000', 'idle'], { CPROF_APP: 'sigs-rec', CPROF_PROFILING: '0', CPROF_RECORDER: '1', CPROF_RECORDER_WINDOW: '1000' })
  const all = start('fleet-solo.js', ['20000', 'idle'], {
    CPROF_APP: 'sigs-all', CPROF_PROFILING: '1', CPROF_HEAP_SIGNAL: 'SIGWINCH', CPROF_RECORDER: '1', CPROF_DUMP_SIGNAL: 'SIGURG'
  })
  try {
    await Promise.all([rec.ready, all.ready])
    await psUntil('sigs-rec', 1)
    await psUntil('sigs-all', 1)
    const r = await cprof(['ps'])
    const row = (app) => r.stdout.split('\n').find((l) => l.includes(` ${app} `)) || ''
    assert.match(row('sigs-rec'), /\sdump:SIGUSR2$/, r.stdout)
    assert.match(row('sigs-all'), /\scpu:SIGUSR2,heap:SIGWINCH,dump:SIGURG$/, r.stdout)
  } finally {
    for (const p of [rec, all]) p.child.kill('SIGKILL')
  }
})

test('stale entries (a pid that is gone, a pid reused by another process) are pruned by readers', async () => {
  fs.mkdirSync(runDir, { recursive: true, mode: 0o700 })
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  const gone = Number(dead.stdout)
  const stale = (pid, startTime) => {
    fs.writeFileSync(path.join(runDir, `${pid}.json`), JSON.stringify({ v: 1, pid, startTime, app: 'stale', updated: 1 }), { mode: 0o600 })
  }
  stale(gone, '1')
  stale(process.pid, '1') // this pid is alive, but did not start at tick 1
  const r = await cprof(['ps', '--json', '--app', 'stale'])
  assert.equal(r.status, 0, r.describe())
  assert.equal(r.stdout, '')
  assert.equal(fs.existsSync(path.join(runDir, `${gone}.json`)), false)
  assert.equal(fs.existsSync(path.join(runDir, `${process.pid}.json`)), false)
})

test('a run directory another user could write to is refused, by writers and readers', async () => {
  const bad = makeTmpDir('cprof-fleet-bad-')
  fs.chmodSync(bad, 0o777)
  const solo = start('fleet-solo.js', ['1000'], { CPROF_RUN_DIR: bad, CPROF_APP: 'unsafe' })
  await solo.ready
  assert.deepEqual(await solo.exited, { status: 0, signal: null }, 'the app runs on')
  assert.match(solo.err(), /ERR_CPROF_IO: cprof ps and the fan-out commands will not see this process: refusing to use .* can be written by other users \(mode 0777\)/)
  assert.deepEqual(fs.readdirSync(bad), [])
  const r = await cprof(['ps'], { CPROF_RUN_DIR: bad })
  assert.match(r.stderr, /ignoring .*: it can be written by other users/)
})

// Field 22 of /proc/<pid>/stat, as an entry records it.
function startTimeOf (pid) {
  const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[22 - 3]
}

// An entry as lib/fleet/announce.js writes it, for process pid, naming signal.
function plantEntry (dir, pid, app, signal) {
  const entry = {
    v: 1, pid, ppid: process.pid, startTime: startTimeOf(pid), app, role: null, instance: null,
    triggers: { cpu: true, heap: false, signal, heapSignal: null, recorder: false, dumpSignal: null },
    running: { cpu: null, heap: null }, last: { cpu: null, heap: null, dump: null }, updated: Date.now()
  }
  fs.writeFileSync(path.join(dir, `${pid}.json`), JSON.stringify(entry), { mode: 0o600 })
}

// Issue 32: the fan-out sent an entry's signal as written, SIGKILL included,
// to the pid it names. Each of these would end its process.
test('announced entries naming SIGKILL, SIGTERM, an uncaught SIGUSR2/SIGHUP, or a process that is not Node: trigger --app signals none, every one survives', async () => {
  const dir = path.join(makeTmpDir('cprof-fleet-sig-'), 'run')
  fs.mkdirSync(dir, { mode: 0o700 })
  const idle = () => {
    const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    children.push(c)
    return c
  }
  const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' })
  children.push(sleeper)
  const victims = [[idle(), 'SIGKILL'], [idle(), 'SIGTERM'], [idle(), 'SIGUSR2'], [idle(), 'SIGHUP'], [sleeper, 'SIGUSR2']]
  await sleep(300) // each is running (execve done, its stat says so)
  for (const [c, sig] of victims) plantEntry(dir, c.pid, 'planted', sig)
  const r = await cprof(['trigger', '--app', 'planted'], { CPROF_RUN_DIR: dir })
  assert.equal(r.status, 1, r.describe())
  const says = (c) => new RegExp(`process ${c.pid} (.*)`).exec(r.stderr)?.[1]
  assert.match(says(victims[0][0]), /was not signalled: its announced signal: SIGKILL cannot be a cprof trigger/)
  assert.match(says(victims[1][0]), /was not signalled: its announced signal: SIGTERM cannot be a cprof trigger/)
  assert.match(says(victims[2][0]), /was not signalled: it does not catch SIGUSR2 \(default\)/)
  assert.match(says(victims[3][0]), /was not signalled: it does not catch SIGHUP \(default\)/)
  assert.match(says(sleeper), /was not signalled: it does not run Node\.js \(its executable is .*sleep\)/)
  await sleep(500)
  for (const [c, sig] of victims) {
    assert.deepEqual([c.exitCode, c.signalCode], [null, null], `the process named with ${sig} still runs`)
    c.kill('SIGKILL')
  }
})

// Issue 32: readers lstat'ed only the last component, by path. A symlink
// planted at <tmpdir>/cprof-<uid> is refused by every reader (here with
// CPROF_RUN_DIR naming that layout; test/js/api/security.test.js plants it as
// another user in the shared temp directory).
test('a run directory reached through a symlinked cprof-<uid> is refused by readers: cprof ps, trigger --app, report --app', async () => {
  const tmp = makeTmpDir('cprof-fleet-link-')
  const theirs = path.join(tmp, 'theirs')
  fs.mkdirSync(path.join(theirs, 'run'), { recursive: true, mode: 0o700 })
  fs.symlinkSync(theirs, path.join(tmp, `cprof-${process.geteuid()}`))
  const dir = path.join(tmp, `cprof-${process.geteuid()}`, 'run')
  const target = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  children.push(target)
  await sleep(300)
  plantEntry(path.join(theirs, 'run'), target.pid, 'linked', 'SIGKILL')
  const warning = `ignoring ${path.join(tmp, `cprof-${process.geteuid()}`)}: it is a symbolic link, not a directory`
  for (const args of [['ps', '--app', 'linked'], ['trigger', '--app', 'linked']]) {
    const r = await cprof(args, { CPROF_RUN_DIR: dir })
    assert.ok(r.stderr.includes(warning), r.describe())
    assert.doesNotMatch(r.stdout, /linked/, r.describe())
  }
  const rep = await cprof(['report', '--app', 'linked'], { CPROF_RUN_DIR: dir })
  assert.match(rep.stderr, /no cpu profile of app "linked" in the directories of its live processes \(none runs/, rep.describe())
  assert.deepEqual([target.exitCode, target.signalCode], [null, null])
  target.kill('SIGKILL')
})

// The race: the run directory swapped for a symlink to another one between
// the check and the read. Readers read through the descriptor they checked,
// so they see the directory they checked. Done in-process, from inside the
// listing, so the moment is exact.
nodeTest('run directory swapped for a symlink after it was checked: readers still read the checked one', {
  skip: process.platform !== 'linux' && 'readers read through /proc/self/fd (Linux)'
}, () => {
  const { discover } = require('../../../lib/fleet/discover.js')
  const tmp = makeTmpDir('cprof-fleet-swap-')
  const own = path.join(tmp, `cprof-${process.geteuid()}`)
  fs.mkdirSync(path.join(own, 'run'), { recursive: true, mode: 0o700 })
  fs.mkdirSync(path.join(tmp, 'theirs', 'run'), { recursive: true, mode: 0o700 })
  plantEntry(path.join(own, 'run'), process.pid, 'checked', 'SIGUSR2')
  plantEntry(path.join(tmp, 'theirs', 'run'), process.pid, 'swapped-in', 'SIGKILL')
  const real = fs.readdirSync
  let swapped = false
  fs.readdirSync = function (p, ...rest) {
    if (!swapped) {
      swapped = true
      fs.renameSync(own, path.join(tmp, 'moved'))
      fs.symlinkSync(path.join(tmp, 'theirs'), own)
    }
    return real.call(this, p, ...rest)
  }
  let found
  try {
    found = discover({ prune: false, env: { CPROF_RUN_DIR: path.join(own, 'run') } })
  } finally {
    fs.readdirSync = real
  }
  assert.ok(swapped)
  assert.deepEqual(found.entries.map((e) => [e.pid, e.app]), [[process.pid, 'checked']], JSON.stringify(found))
})

// ---- PM2 cluster mode, for real (as test/js/triggers/pm2.test.js drives it) ----

// Under ASan on a loaded machine this takes 90 s: 240 s tells slow from hung.
nodeTest('PM2 cluster mode, 2 instances: cprof ps names app and instance; trigger --app merges both', { timeout: 240000 }, async (t) => {
  if (NO_PM2) return t.skip(NO_PM2)
  const home = makeTmpDir('cprof-fleet-pm2-')
  const appDir = makeTmpDir('cprof-fleet-pm2-app-')
  const dir = makeTmpDir()
  const { pm2, trigger } = pm2Home({ home, cwd: appDir, env: env(), keep: ['CPROF_RUN_DIR'] })
  fs.mkdirSync(path.join(appDir, 'node_modules'))
  fs.symlinkSync(ROOT, path.join(appDir, 'node_modules', 'cprof'), 'dir')
  fs.writeFileSync(path.join(appDir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({
    apps: [{
      name: 'fleet-pm2',
      script: path.join(FIXTURES, 'fleet-pm2-app.js'),
      exec_mode: 'cluster',
      instances: 2,
      node_args: '-r cprof/register',
      env: { CPROF_PROFILING: 'cpu', CPROF_DIR: dir, CPROF_INTERVAL: '1000', CPROF_RUN_DIR: runDir }
    }]
  })}\n`)
  try {
    const started = pm2('start', 'ecosystem.config.js')
    assert.equal(started.status, 0, started.describe())
    const rows = await psUntil('fleet-pm2', 2)
    assert.equal(rows.length, 2, JSON.stringify(rows))
    assert.deepEqual(rows.map((r) => r.instance).sort(), [0, 1])
    assert.deepEqual(rows.map((r) => r.pm2Id).sort(), [0, 1])
    for (const r of rows) assert.equal(r.role, 'pm2')
    const table = await cprof(['ps', '--app', 'fleet-pm2'])
    assert.match(table.stdout, /PID\s+APP\s+PM2\s+INST\s+ROLE/)
    assert.equal(table.stdout.trim().split('\n').filter((l) => /\sfleet-pm2\s+\d\s+\d\s+pm2\s/.test(l)).length, 2, table.stdout)

    const r = await cprof(['trigger', '--app', 'fleet-pm2', '--duration', '2', '--json', '--formats', 'pprof'])
    assert.equal(r.status, 0, r.describe())
    const res = JSON.parse(r.stdout)
    assert.equal(res.by, 'cprof')
    assert.deepEqual(res.missing, [])
    assert.deepEqual(res.instances.map((i) => i.label).sort(), ['fleet-pm2.0', 'fleet-pm2.1'])
    for (const i of res.instances) {
      assert.match(path.basename(i.file), new RegExp(`^cpu-fleet-pm2\\.[01]-${i.pid}-\\d{8}T\\d{6}\\.\\d{3}Z\\.cpuprofile$`))
    }
    const sum = res.instances.reduce((n, i) => n + samplesIn(i.file), 0)
    assert.equal(samplesIn(res.files.cpuprofile), sum)
    assert.equal(topNamed(res.summary), 'hotWork')
    assert.deepEqual([...fs.readFileSync(res.files.pprof).subarray(0, 2)], [0x1f, 0x8b])
    // report --app finds the files through the live instances' entries.
    const rep = await cprof(['report', '--app', 'fleet-pm2', '--json'])
    assert.equal(rep.status, 0, rep.describe())
    assert.equal(JSON.parse(rep.stdout).samples, sum)

    // PM2's own action reaches every instance (cluster mode too); each file
    // carries app and instance, and report --app merges the newest of each.
    const action = (name) => trigger(t, 'fleet-pm2', name, undefined, { replies: 2 })
    assert.deepEqual((await action('cprof:cpu:start')).map((x) => x.ok), [true, true])
    await sleep(1000)
    const stopped = await action('cprof:cpu:stop')
    assert.equal(stopped.length, 2)
    const newest = stopped.map((x) => x.files.cpuprofile)
    for (const f of newest) assert.match(path.basename(f), /^cpu-fleet-pm2\.[01]-\d+-/)
    const rep2 = await cprof(['report', '--app', 'fleet-pm2', '--json'])
    assert.equal(rep2.status, 0, rep2.describe())
    const after = JSON.parse(rep2.stdout)
    assert.deepEqual(after.instances.slice().sort(), newest.slice().sort())
    assert.equal(after.samples, newest.reduce((n, f) => n + samplesIn(f), 0))
  } finally {
    pm2('kill')
    reapPm2(home)
  }
})

// Two instances of app (fleet-solo.js; the second with secondArgs), both
// announced: { a, b }.
async function twoInstances (app, secondArgs = []) {
  const dir = makeTmpDir()
  const a = start('fleet-solo.js', ['120000'], { CPROF_DIR: dir, CPROF_APP: app })
  const b = start('fleet-solo.js', ['120000', ...secondArgs], { CPROF_DIR: dir, CPROF_APP: app })
  await Promise.all([a.ready, b.ready])
  assert.equal((await psUntil(app, 2)).length, 2)
  return { a, b }
}

// A fan-out's result r that merged both a and b, neither missing, and left
// neither profiling; the instances are ended.
async function assertBothDelivered (r, app, { a, b }) {
  assert.equal(r.status, 0, r.describe())
  const res = JSON.parse(r.stdout)
  assert.deepEqual(res.missing, [], r.describe())
  assert.deepEqual(res.instances.map((i) => i.pid).sort(), [a.child.pid, b.child.pid].sort())
  for (const row of await psUntil(app, 2)) assert.equal(row.running.cpu, null, `still profiling: ${JSON.stringify(row)}`)
  a.child.kill()
  b.child.kill()
  return res
}

// A busy instance acts on the start signal only when its event loop turns,
// after the duration here: the stop must still reach it once it has
// started, not leave it profiling (and the fan-out waiting 30 s for it).
test('trigger --app --duration: an instance whose event loop is blocked past the duration is stopped once it has started, and delivers', async () => {
  const both = await twoInstances('fleet-busy', ['busy'])
  await assertBothDelivered(await cprof(['trigger', '--app', 'fleet-busy', '--duration', '0.5', '--json']), 'fleet-busy', both)
})

// Without --duration: the first call starts every instance's profile, the
// same call again stops them and merges (the help's and docs/cli.md's promise).
test('trigger --app without --duration: the first call starts, the next stops and merges', async () => {
  const both = await twoInstances('fleet-toggle')
  const first = await cprof(['trigger', '--app', 'fleet-toggle'])
  assert.equal(first.status, 0, first.describe())
  assert.match(first.stdout, /^started a cpu profile: signalled 2 processes of app "fleet-toggle"; run the same command again to stop them and merge$/m)
  const end = Date.now() + 20000
  let rows
  do {
    await sleep(200)
    rows = await psUntil('fleet-toggle', 2)
  } while (!rows.every((row) => row.running.cpu) && Date.now() < end)
  assert.ok(rows.every((row) => row.running.cpu), `not all started: ${JSON.stringify(rows)}`)
  await sleep(500)
  const res = await assertBothDelivered(await cprof(['trigger', '--app', 'fleet-toggle', '--json']), 'fleet-toggle', both)
  assert.equal(samplesIn(res.files.cpuprofile), res.instances.reduce((n, i) => n + samplesIn(i.file), 0))
})

// The merged page of `cprof trigger --app --formats html`: the viewer (not
// the bare data page), with where each instance's samples start in the
// merged profile, named by instance and pid (docs/formats.md, Viewer marks).
test('trigger --app --formats html: the merged page is the viewer and shows where each instance starts', async () => {
  const { a, b } = await twoInstances('fleet-html')
  const r = await cprof(['trigger', '--app', 'fleet-html', '--duration', '1', '--formats', 'html', '--json'])
  assert.equal(r.status, 0, r.describe())
  const res = JSON.parse(r.stdout)
  assert.equal(res.by, 'cprof')
  assert.equal(res.instances.length, 2, r.describe())
  const marks = pageMarks(res.files.html)
  const first = samplesIn(res.instances[0].file)
  assert.deepEqual(marks.instances, [
    { name: `fleet-html.x (pid ${res.instances[0].pid})`, firstSample: 0 },
    { name: `fleet-html.x (pid ${res.instances[1].pid})`, firstSample: first }
  ])
  assert.equal(samplesIn(res.files.cpuprofile), first + samplesIn(res.instances[1].file))
  const { haveChromium, launch, openPage } = require('../helpers/browser')
  if (haveChromium()) {
    const browser = await launch()
    try {
      const { page, problems } = await openPage(browser, 'file://' + res.files.html)
      const shown = await page.evaluate(() => ({ instances: window.cprofViewer.time.instances.map((x) => [x.name, x.firstSample]), legend: document.getElementById('time-marks').textContent }))
      assert.deepEqual(shown.instances, marks.instances.map((x) => [x.name, x.firstSample]))
      assert.match(shown.legend, /2 merged profiles, one after the other: fleet-html\.x \(pid \d+\), fleet-html\.x \(pid \d+\)/)
      assert.deepEqual(problems, [])
    } finally {
      await browser.close()
    }
  }
  a.child.kill('SIGTERM')
  b.child.kill('SIGTERM')
  await Promise.all([a.exited, b.exited])
})

'use strict'

// PM2, for real: the `pm2` package (a devDependency) with its own PM2_HOME in
// a temp dir, started here and killed in after(). Two apps preload
// cprof/register from their ecosystem file, one switched on by `io:
// { profiling: true }` (ecosystem.json), one by `env: { CPROF_PROFILING }`
// (ecosystem.config.js); `pm2 trigger` drives cprof's actions and prints
// their replies; `pm2 sendSignal` drives the signal trigger.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { assertCpuProfileSchema } = require('../helpers/schema.js')
const { ROOT, makeTmpDir } = require('../helpers/util.js')
const { FIXTURES } = require('../helpers/util.js').fixturesIn(__dirname)
const { pm2Home, pm2Suite } = require('../helpers/pm2.js')

const home = makeTmpDir('cprof-pm2-')
const appDir = makeTmpDir('cprof-pm2-app-')
const dirs = { io: makeTmpDir(), env: makeTmpDir() }
const { pm2, trigger: pm2Trigger, logs } = pm2Home({ home, cwd: appDir })

const test = pm2Suite({ home, pm2, timeout: 120000, setUp })

function setUp () {
  fs.mkdirSync(path.join(appDir, 'node_modules'))
  fs.symlinkSync(ROOT, path.join(appDir, 'node_modules', 'cprof'), 'dir')
  const script = path.join(FIXTURES, 'trigger-pm2-app.js')
  // docs/triggers.md's entry (PM2), plus a top-level `profiling: true` that PM2 must not pass on.
  fs.writeFileSync(path.join(appDir, 'ecosystem.json'), JSON.stringify({
    apps: [{
      name: 'cprof-io',
      script,
      node_args: '-r cprof/register',
      io: { profiling: true },
      profiling: true,
      env: { CPROF_DIR: dirs.io, SEEN_FILE: path.join(appDir, 'seen-io.json') }
    }]
  }, null, 2))
  fs.writeFileSync(path.join(appDir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({
    apps: [{
      name: 'cprof-env',
      script,
      node_args: '-r cprof/register',
      env: { CPROF_PROFILING: 'cpu,heap', CPROF_DIR: dirs.env, SEEN_FILE: path.join(appDir, 'seen-env.json') }
    }]
  }, null, 2)}\n`)
  for (const file of ['ecosystem.json', 'ecosystem.config.js']) {
    const r = pm2('start', file)
    assert.equal(r.status, 0, r.describe())
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor (what, fn, ms = 15000) {
  const end = Date.now() + ms
  for (;;) {
    const v = fn()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${logs()}`)
    await sleep(200)
  }
}

function actionsOf (name) {
  const r = pm2('jlist')
  if (r.status !== 0) return []
  let list
  try {
    list = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')))
  } catch {
    return []
  }
  const app = list.find((p) => p.name === name)
  return app && app.pm2_env.axm_actions ? app.pm2_env.axm_actions.map((a) => a.action_name) : []
}

// `pm2 trigger <app> <action> [param]` → the app's reply (helpers/pm2.js).
async function trigger (t, app, action, param) {
  return (await pm2Trigger(t, app, action, param))[0]
}

function cprofFiles (dir, ext) {
  return fs.readdirSync(dir).filter((f) => f.endsWith(ext)).map((f) => path.join(dir, f))
}

const ACTIONS = ['cprof:cpu:start', 'cprof:cpu:stop', 'cprof:heap:start', 'cprof:heap:stop', 'cprof:heap:snapshot', 'cprof:snapshot']

test('what PM2 passes on: io as JSON in the environment, node_args, env; not unknown app keys', async () => {
  const seen = await waitFor('the app to start', () => {
    const f = path.join(appDir, 'seen-io.json')
    return fs.existsSync(f) && JSON.parse(fs.readFileSync(f, 'utf8'))
  })
  assert.equal(seen.io, '{"profiling":true}')
  assert.equal(seen.profiling, undefined, 'a top-level profiling key does not reach the process')
  assert.deepEqual(seen.execArgv, ['-r', 'cprof/register'])
  assert.equal(seen.CPROF_DIR, dirs.io)
  assert.equal(seen.send, 'function')
  assert.equal(seen.pm_id, '0')
  assert.equal(seen.preloaded, true)
})

for (const app of ['cprof-io', 'cprof-env']) {
  test(`${app}: cprof registers its PM2 actions`, async () => {
    const names = await waitFor(`${app}'s actions`, () => {
      const a = actionsOf(app)
      return ACTIONS.every((n) => a.includes(n)) && a
    })
    for (const n of ACTIONS) assert.ok(names.includes(n), `${n} in ${names}`)
  })
}

test('pm2 trigger cprof:cpu:start / cprof:cpu:stop full: the reply says one line first, names the file and gives the summary', async (t) => {
  const started = await trigger(t, 'cprof-io', 'cprof:cpu:start', '20000')
  assert.equal(started.ok, true, JSON.stringify(started))
  assert.equal(started.kind, 'cpu')
  assert.equal(started.stopsAfterMs, 20000)
  await sleep(700)
  const r = await trigger(t, 'cprof-io', 'cprof:cpu:stop', 'full')
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(Object.keys(r)[0], 'line', 'a line a person reads comes first')
  assert.match(r.line, new RegExp(`^wrote ${r.files.cpuprofile} \\(cpu, [\\d.]+ s, ${r.samples} samples\\); top self: .+ [\\d.]+ %`))
  assert.equal(r.kind, 'cpu')
  assert.equal(path.dirname(r.files.cpuprofile), dirs.io)
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(r.files.cpuprofile, 'utf8')))
  assert.ok(r.samples > 0)
  assert.ok(r.summary.top.length > 0)
  // The app's own code is hot (V8 may charge hashLoop to its inlining caller).
  assert.ok(r.summary.top.some((f) => f.url.endsWith('/trigger-pm2-app.js')), JSON.stringify(r.summary.top.slice(0, 5)))
})

test('pm2 trigger: failures come back in the reply, and the app lives on', async (t) => {
  const idle = await trigger(t, 'cprof-io', 'cprof:cpu:stop')
  assert.equal(idle.ok, false)
  assert.equal(idle.error.code, 'ERR_CPROF_NOT_STARTED')
  const bad = await trigger(t, 'cprof-io', 'cprof:cpu:start', 'soon')
  assert.equal(bad.ok, false)
  assert.equal(bad.error.code, 'ERR_CPROF_INVALID_ARG')
  const busy1 = await trigger(t, 'cprof-io', 'cprof:heap:start')
  const busy2 = await trigger(t, 'cprof-io', 'cprof:heap:start')
  assert.equal(busy1.ok, true)
  assert.equal(busy2.error.code, 'ERR_CPROF_BUSY')
  assert.equal((await trigger(t, 'cprof-io', 'cprof:heap:stop')).ok, true)
  const list = JSON.parse(pm2('jlist').stdout)
  assert.equal(list.find((p) => p.name === 'cprof-io').pm2_env.restart_time, 0, 'never restarted')
})

test('pm2 trigger cprof:heap:start / stop (a short reply) and cprof:heap:snapshot', async (t) => {
  assert.equal((await trigger(t, 'cprof-env', 'cprof:heap:start')).ok, true)
  await sleep(500)
  const heap = await trigger(t, 'cprof-env', 'cprof:heap:stop')
  assert.equal(heap.ok, true, JSON.stringify(heap))
  assert.equal(heap.kind, 'heap')
  assert.equal(path.dirname(heap.files.heapprofile), dirs.env)
  assert.equal(JSON.parse(fs.readFileSync(heap.files.heapprofile, 'utf8')).head.callFrame.functionName, '(root)')
  // Without "full": the line, the fields, no summary (was ~3 KB an instance).
  assert.match(heap.line, new RegExp(`^wrote ${heap.files.heapprofile} \\(heap, [\\d.]+ s, ${heap.samples} samples\\)`))
  assert.equal(heap.summary, undefined)
  assert.ok(JSON.stringify(heap).length < 1024, `${JSON.stringify(heap).length} bytes`)
  const snap = await trigger(t, 'cprof-env', 'cprof:heap:snapshot')
  assert.equal(snap.ok, true, JSON.stringify(snap))
  assert.equal(path.dirname(snap.files.heapsnapshot), dirs.env)
  const head = fs.readFileSync(snap.files.heapsnapshot, 'utf8').slice(0, 200)
  assert.match(head, /^\{"snapshot":/)
})

// Issue 29: `pm2 trigger <app> cprof:snapshot`, the guarded snapshot
// (lib/triggers/snapshot-trigger.js): the file's path, size and pause in the
// reply, the file one `cprof snapshot` reads, and the log line.
test('pm2 trigger cprof:snapshot writes a heap snapshot cprof snapshot reads', async (t) => {
  const r = await trigger(t, 'cprof-io', 'cprof:snapshot')
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.kind, 'snapshot')
  assert.equal(path.dirname(r.file), dirs.io)
  assert.match(path.basename(r.file), /^heap-.*\.heapsnapshot$/)
  assert.equal(fs.statSync(r.file).size, r.bytes)
  assert.equal(fs.statSync(r.file).mode & 0o777, 0o600)
  assert.ok(r.durationMs >= 0)
  const cli = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'cprof.js'), 'snapshot', r.file, '--json'], { encoding: 'utf8' })
  assert.equal(cli.status, 0, cli.stderr)
  assert.ok(JSON.parse(cli.stdout).nodes > 1000)
  await waitFor('the log line', () => logs().includes(`cprof: wrote ${r.file} (snapshot,`))
})

test('cprof:cpu:start with a timeout: the profile stops itself and is written', async (t) => {
  const before = cprofFiles(dirs.env, '.cpuprofile')
  const r = await trigger(t, 'cprof-env', 'cprof:cpu:start', '400')
  assert.equal(r.stopsAfterMs, 400)
  const file = await waitFor('the profile file', () =>
    cprofFiles(dirs.env, '.cpuprofile').find((f) => !before.includes(f)))
  await sleep(100) // the file appears complete (rename), the log line follows
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(file, 'utf8')))
  assert.equal((await trigger(t, 'cprof-env', 'cprof:cpu:stop')).error.code, 'ERR_CPROF_NOT_STARTED')
})

test('the signal trigger under PM2: pm2 sendSignal SIGUSR2 twice writes a profile', async () => {
  const before = cprofFiles(dirs.io, '.cpuprofile')
  assert.equal(pm2('sendSignal', 'SIGUSR2', 'cprof-io').status, 0)
  await sleep(500)
  assert.equal(pm2('sendSignal', 'SIGUSR2', 'cprof-io').status, 0)
  const file = await waitFor('the profile file', () =>
    cprofFiles(dirs.io, '.cpuprofile').find((f) => !before.includes(f)))
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(file, 'utf8')))
  await waitFor('the log line', () => logs().includes(`cprof: wrote ${file}`))
})

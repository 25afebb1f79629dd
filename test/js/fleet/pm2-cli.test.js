'use strict'

// `cprof trigger` on PM2 cluster instances, for real (the pm2 devDependency,
// a PM2_HOME of this file's own). PM2's cluster mode forks its
// ProcessContainer with the app's variables inside one, pm2_env, so
// /proc/<pid>/environ has no CPROF_* of its own: the CLI must read what the
// process installed, as `cprof ps` does. Three apps, one instance each
// unless said:
//   cli-sig   CPROF_PROFILING=cpu, CPROF_SIGNAL=SIGURG, CPROF_DIR
//   cli-rec   CPROF_RECORDER=1 (no CPU toggle: its dump has the signal), 2 instances
//   cli-both  CPROF_PROFILING=1 beside CPROF_RECORDER=1, CPROF_HEAP_SIGNAL=SIGWINCH
// Every process announces itself in a run directory of this file's own.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')

const { assertCpuProfileSchema } = require('../helpers/schema.js')
const { ROOT, makeTmpDir, childEnv } = require('../helpers/util.js')
const { FIXTURES } = require('../helpers/util.js').fixturesIn(__dirname)
const { pm2Home, pm2Suite } = require('../helpers/pm2.js')

const CLI = path.join(ROOT, 'bin', 'cprof.js')
const home = makeTmpDir('cprof-pm2cli-')
const appDir = makeTmpDir('cprof-pm2cli-app-')
const runDir = path.join(makeTmpDir('cprof-pm2cli-run-'), 'run')
const dirs = { sig: makeTmpDir(), rec: makeTmpDir(), both: makeTmpDir() }

function env (extra = {}) {
  const e = childEnv({ CPROF_RUN_DIR: runDir, ...extra })
  for (const k of Object.keys(e)) if ((k.startsWith('CPROF_') && k !== 'CPROF_RUN_DIR') || k === 'io') delete e[k]
  return e
}

const { pm2, trigger: pm2Trigger } = pm2Home({ home, cwd: appDir, env: env(), keep: ['CPROF_RUN_DIR'] })

// Under ASan on a loaded machine a PM2 cluster start takes a minute.
const test = pm2Suite({ home, pm2, timeout: 240000, setUp })

function setUp () {
  fs.mkdirSync(path.join(appDir, 'node_modules'))
  fs.symlinkSync(ROOT, path.join(appDir, 'node_modules', 'cprof'), 'dir')
  const app = (name, instances, vars) => ({
    name,
    script: path.join(FIXTURES, 'fleet-pm2-app.js'),
    exec_mode: 'cluster',
    instances,
    node_args: '-r cprof/register',
    env: { CPROF_RUN_DIR: runDir, CPROF_INTERVAL: '1000', ...vars }
  })
  fs.writeFileSync(path.join(appDir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({
    apps: [
      app('cli-sig', 1, { CPROF_PROFILING: 'cpu', CPROF_SIGNAL: 'SIGURG', CPROF_DIR: dirs.sig }),
      app('cli-rec', 2, { CPROF_RECORDER: '1', CPROF_RECORDER_WINDOW: '500', CPROF_DIR: dirs.rec }),
      app('cli-both', 1, { CPROF_PROFILING: '1', CPROF_RECORDER: '1', CPROF_RECORDER_WINDOW: '500', CPROF_HEAP_SIGNAL: 'SIGWINCH', CPROF_DIR: dirs.both })
    ]
  }, null, 2)}\n`)
  const r = pm2('start', 'ecosystem.config.js')
  assert.equal(r.status, 0, r.describe())
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function cprof (args, extra) {
  return new Promise((resolve) => {
    const t0 = Date.now()
    const c = spawn(process.execPath, [CLI, ...args], { env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => { stdout += d })
    c.stderr.on('data', (d) => { stderr += d })
    c.on('close', (status) => resolve({
      status, stdout, stderr, ms: Date.now() - t0, describe: () => `cprof ${args.join(' ')}: status=${status}\n${stdout}\n${stderr}`
    }))
  })
}

// The announced entries of app `name`, once it has n instances up.
async function instances (name, n) {
  const end = Date.now() + 90000
  for (;;) {
    const r = await cprof(['ps', '--json', '--app', name])
    const rows = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l))
    if (rows.length >= n) return rows
    assert.ok(Date.now() < end, `${name}: ${rows.length} of ${n} instances announced; ${r.describe()}`)
    await sleep(300)
  }
}

test('cprof trigger <pid> on a PM2 cluster instance uses its CPROF_SIGNAL and CPROF_DIR (inside pm2_env)', async () => {
  const [inst] = await instances('cli-sig', 1)
  assert.equal(inst.triggers.signal, 'SIGURG')
  const r = await cprof(['trigger', String(inst.pid), '--duration', '1'])
  assert.equal(r.status, 0, r.describe())
  assert.match(r.stdout, new RegExp(`^sent SIGURG to ${inst.pid}: a CPU profile starts`, 'm'))
  const m = /^wrote (\S+\.cpuprofile): ([\d.]+) s of profile/m.exec(r.stdout)
  assert.ok(m, r.describe())
  assert.equal(path.dirname(m[1]), dirs.sig)
  assert.match(path.basename(m[1]), new RegExp(`^cpu-cli-sig\\.0-${inst.pid}-`))
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(m[1], 'utf8')))

  // A CLI that cannot see the process's entry (another run directory)
  // reads the same settings from pm2_env in /proc/<pid>/environ.
  const blind = await cprof(['trigger', String(inst.pid), '--duration', '1'], { CPROF_RUN_DIR: path.join(makeTmpDir(), 'run') })
  assert.equal(blind.status, 0, blind.describe())
  const b = /^wrote (\S+\.cpuprofile)/m.exec(blind.stdout)
  assert.ok(b, blind.describe())
  assert.equal(path.dirname(b[1]), dirs.sig)
})

test('the recorder holds the CPU signal: trigger --app --duration and trigger <pid> fail at once and name --dump', async () => {
  const rows = await instances('cli-rec', 2)
  for (const e of rows) {
    assert.equal(e.triggers.signal, null)
    assert.equal(e.triggers.dumpSignal, 'SIGUSR2')
  }
  // At once: well before the 60 s it was asked for, not after them and the
  // 30 s wait for files. A bound a defect breaks by 6x: a CLI's start on two
  // cores beside two hogs took 10.6 s here against a 10 s duration.
  const fan = await cprof(['trigger', '--app', 'cli-rec', '--duration', '60'])
  assert.equal(fan.status, 1, fan.describe())
  assert.ok(fan.ms < 60000, `failed after ${fan.ms} ms, not at once`)
  assert.match(fan.stderr, /no process of app "cli-rec" can take a cpu profile: nothing was signalled/)
  assert.match(fan.stderr, /cprof trigger --app cli-rec --dump/)
  assert.doesNotMatch(fan.stderr, /signalled \d process/)

  const one = await cprof(['trigger', String(rows[0].pid), '--duration', '60'])
  assert.equal(one.status, 1, one.describe())
  assert.ok(one.ms < 60000, `failed after ${one.ms} ms, not at once`)
  assert.match(one.stderr, new RegExp(`runs the flight recorder, and no CPU signal: .*cprof trigger ${rows[0].pid} --dump`))

  // --dump names the directory it writes into, which `cprof list` needs.
  await sleep(1200) // two windows
  const dump = await cprof(['trigger', String(rows[0].pid), '--dump'])
  assert.equal(dump.status, 0, dump.describe())
  assert.match(dump.stdout, new RegExp(`writes all it holds into ${dirs.rec} \\(\`cprof list ${dirs.rec}\` shows the file\\)`))
  const end = Date.now() + 30000
  while (!fs.readdirSync(dirs.rec).some((f) => f.endsWith('.cpuprofile'))) {
    assert.ok(Date.now() < end, `no dump in ${dirs.rec}`)
    await sleep(200)
  }
  const list = await cprof(['list', dirs.rec, '--json'])
  assert.ok(list.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).some((f) => f.why === 'dump'), list.describe())

  // cprof ps says which signal does what.
  const table = await cprof(['ps', '--app', 'cli-rec'])
  assert.equal(table.stdout.split('\n').filter((l) => /\scli-rec\s.*\sdump:SIGUSR2$/.test(l)).length, 2, table.stdout)
})

test('CPROF_PROFILING=1 beside CPROF_RECORDER=1: pm2 trigger cprof:cpu:start/stop profiles while the recorder records', async (t) => {
  const [inst] = await instances('cli-both', 1)
  assert.equal(inst.triggers.cpu, true, JSON.stringify(inst.triggers))
  assert.equal(inst.triggers.recorder, true)
  assert.ok(inst.triggers.pm2Actions, JSON.stringify(inst.triggers))
  // PM2 registers the actions a moment after the entry is written.
  let started
  const end = Date.now() + 60000
  for (;;) {
    try {
      started = (await pm2Trigger(t, 'cli-both', 'cprof:cpu:start'))[0]
      break
    } catch (err) {
      if (Date.now() > end) throw err
      await sleep(500)
    }
  }
  assert.equal(started.ok, true, JSON.stringify(started))
  await sleep(1500)
  const stopped = (await pm2Trigger(t, 'cli-both', 'cprof:cpu:stop', 'full'))[0]
  assert.equal(stopped.ok, true, JSON.stringify(stopped))
  assert.equal(path.dirname(stopped.files.cpuprofile), dirs.both)
  assert.ok(stopped.durationMs >= 1000, `${stopped.durationMs} ms`)
  assert.ok(stopped.summary.top.some((f) => f.functionName === 'hotWork'), JSON.stringify(stopped.summary.top.slice(0, 5)))
  // The recorder went on meanwhile: its dump covers the profile's span too.
  const dump = (await pm2Trigger(t, 'cli-both', 'cprof:dump', 'full'))[0]
  assert.equal(dump.ok, true, JSON.stringify(dump))
  assert.ok(dump.from <= stopped.startTime && dump.to >= stopped.startTime + stopped.durationMs,
    `dump ${dump.from}..${dump.to}, profile from ${stopped.startTime} for ${stopped.durationMs} ms`)
  assert.ok(dump.summary.top.some((f) => f.functionName === 'hotWork'), JSON.stringify(dump.summary.top.slice(0, 5)))
  const table = await cprof(['ps', '--app', 'cli-both'])
  assert.match(table.stdout, /\scli-both\s.*\sheap:SIGWINCH,dump:SIGUSR2$/m)
})

'use strict'

// Start-up is not a stall: an app whose start-up blocks 700 ms (its main
// module's body, as a large require() does) and which stalls 800 ms 1.5 s
// later writes one eventLoopDelay incident, for the stall, under every
// launcher: plain node with the preload, an ES module graph, node:cluster
// (primary and worker), and real PM2 in fork and cluster mode (whose
// cluster container loads the script in a later tick of the event loop).

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { ROOT, makeTmpDir, removeTmpDirs } = require('../helpers/util.js')
const { FIXTURES, runFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { PM2_BIN, NO_PM2, pm2Home, reapPm2 } = require('../helpers/pm2.js')

const REGISTER = path.join(ROOT, 'register.js')
const THRESHOLD = 300
const homes = []

after(() => {
  for (const { home, pm2 } of homes) {
    if (PM2_BIN && fs.existsSync(path.join(home, 'rpc.sock'))) pm2('kill')
    reapPm2(home)
  }
  removeTmpDirs()
})

const test = (name, fn) => nodeTest(name, { timeout: 240000 }, fn)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const env = (dir) => ({
  CPROF_ON_EVENT_LOOP_DELAY: String(THRESHOLD),
  CPROF_RECORDER_WINDOW: '1000',
  CPROF_DIR: dir
})

// The incident files in dir: { file, at (the stamp in its name, ms), self
// (ms of self time by function name) }.
function incidents (dir) {
  return fs.readdirSync(dir).filter((f) => /^cpu-incident-eventLoopDelay-.*\.cpuprofile$/.test(f)).map((f) => {
    const m = /-(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)\.(\d{3})Z\.cpuprofile$/.exec(f)
    const profile = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))
    const byId = new Map(profile.nodes.map((n) => [n.id, n]))
    const self = {}
    profile.samples.forEach((id, i) => {
      const name = byId.get(id).callFrame.functionName
      self[name] = (self[name] || 0) + profile.timeDeltas[i] / 1000
    })
    return { file: f, at: Date.UTC(m[1], m[2] - 1, m[3], m[4], m[5], m[6], m[7]), self }
  })
}

// One incident per stalling process, each fired after its stall began (the
// start-up is 1.5 s earlier) and holding it: stallingFunction's samples.
// The dump reaches 30 s back, so the start-up's slowStartup is in it too.
function assertOnlyTheStalls (dir, stalls, describe) {
  const found = incidents(dir)
  const brief = JSON.stringify(found.map((i) => ({ file: i.file, at: i.at, stallingFunction: i.self.stallingFunction })))
  assert.equal(found.length, stalls.length, `${brief}\n${describe()}`)
  for (const i of found) {
    assert.ok(stalls.some((s) => i.at >= s.stallAt), `${i.file} fired before the stall: ${brief}\n${describe()}`)
    assert.ok(i.self.stallingFunction >= 200, `${i.file} holds the stall: ${brief}`)
  }
}

// A child run, at most 3 times while an incident fired before the stall, or
// more fired than stalled: a
// process descheduled for 300 ms on a loaded machine is a real gap in its
// event loop, but not the case under test (test/js/incidents/incidents.test.js).
function runApp (script, args) {
  let r, dir
  for (let attempt = 0; attempt < 3; attempt++) {
    dir = makeTmpDir()
    r = runFixture(script, args, { env: { NODE_OPTIONS: `-r ${REGISTER}`, ...env(dir) }, timeout: 60000 })
    const stalls = r.json.filter((m) => m.stallAt)
    // (A firing at start-up, the case under test, fails all three.) Also
    // again when more fired than stalled: a process the machine stalled
    // after the stall (a node:cluster primary, load average 8+ here).
    const found = incidents(dir)
    const early = found.filter((i) => stalls.every((s) => i.at < s.stallAt))
    if (early.length === 0 && found.length <= stalls.length) break
  }
  assert.equal(r.status, 0, r.describe())
  return { r, dir, stalls: r.json.filter((m) => m.stallAt) }
}

test('plain node with the preload: the slow main module is not a stall, the stall after it fires', () => {
  const { r, dir, stalls } = runApp('startup-app.js', [])
  assert.equal(stalls.length, 1, r.describe())
  assertOnlyTheStalls(dir, stalls, r.describe)
  assert.match(r.stderr, new RegExp(`incident eventLoopDelay: \\d+ >= ${THRESHOLD}\\)`))
})

test('an ES module graph (loaded over several turns of the loop): its evaluation is not a stall', () => {
  const { r, dir, stalls } = runApp('startup-app.mjs', [])
  assert.equal(stalls.length, 1, r.describe())
  assertOnlyTheStalls(dir, stalls, r.describe)
})

test('node:cluster: neither the primary\'s nor the worker\'s start-up is a stall; the worker\'s stall fires', () => {
  const { r, dir, stalls } = runApp('startup-app.js', ['cluster'])
  assert.equal(r.json.filter((m) => m.startedAt).length, 2, r.describe())
  assert.equal(stalls.length, 1, 'only the worker stalls')
  assertOnlyTheStalls(dir, stalls, r.describe)
  assert.match(incidents(dir)[0].file, /-startup-app\.1-\d+-/, 'the worker\'s file')
})

// PM2: the apps' stdout is in PM2's log files; { stallAt } lines from there.
function pm2Stalls (home, name) {
  const dir = path.join(home, 'logs')
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir).filter((f) => f.startsWith(`${name}-out`))
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.startsWith('{"pid"')).map((l) => JSON.parse(l)).filter((m) => m.stallAt)
}

for (const mode of ['fork', 'cluster']) {
  test(`PM2 ${mode} mode: the start-up is not a stall; the stall 1.5 s later fires (not hidden by a false incident's cooldown)`, async (t) => {
    if (NO_PM2) return t.skip(NO_PM2)
    const home = makeTmpDir('cprof-pm2-startup-')
    const appDir = makeTmpDir('cprof-pm2-startup-app-')
    const out = makeTmpDir()
    const h = pm2Home({ home, cwd: appDir })
    homes.push({ home, pm2: h.pm2 })
    const name = `startup-${mode}`
    fs.writeFileSync(path.join(appDir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({
      apps: [{
        name,
        script: path.join(FIXTURES, 'startup-app.js'),
        args: 'stay',
        exec_mode: mode,
        instances: 1,
        autorestart: false,
        node_args: `-r ${REGISTER}`,
        env: env(out)
      }]
    }, null, 2)}\n`)
    for (let attempt = 0; ; attempt++) {
      for (const f of fs.readdirSync(out)) fs.rmSync(path.join(out, f), { force: true })
      const r = attempt === 0 ? h.pm2('start', 'ecosystem.config.js') : h.pm2('restart', name)
      assert.equal(r.status, 0, r.describe())
      const end = Date.now() + 60000
      while (incidents(out).length === 0 && Date.now() < end) await sleep(250)
      await sleep(2000) // a second incident would be written by now
      const stalls = pm2Stalls(home, name)
      const found = incidents(out)
      const early = found.filter((i) => stalls.every((s) => i.at < s.stallAt))
      if (early.length > 0 && attempt < 2) continue // the machine stalled the app itself: again
      assert.ok(stalls.length >= 1, h.logs())
      assertOnlyTheStalls(out, stalls.slice(-1), h.logs)
      assert.match(h.logs(), new RegExp(`cprof: wrote \\S+cpu-incident-eventLoopDelay-${name}\\.0-\\d+-\\S+ \\(cpu, [\\d.]+ s, \\d+ samples, incident eventLoopDelay: \\d+ >= ${THRESHOLD}`))
      break
    }
  })
}

test('startup(): what each launcher leaves to see, read the same way', () => {
  const { createStartup, isESModule } = require('../../../lib/incidents/startup.js')
  const dir = makeTmpDir()
  const cjs = path.join(dir, 'app.js')
  const mjs = path.join(dir, 'app.mjs')
  for (const f of [cjs, mjs]) fs.writeFileSync(f, '')
  const none = () => []
  const state = (o) => createStartup({ env: {}, argv: ['node'], cache: {}, exitListeners: none, ...o })()
  assert.equal(state({}), 'done', 'node -e, the REPL: no main module')
  assert.equal(state({ argv: ['node', cjs], cache: { [cjs]: {} } }), 'done', 'a CommonJS main in the cache')
  assert.equal(state({ argv: ['node', 'app.js'], cache: { [path.resolve('app.js')]: {} } }), 'done', 'relative, as node resolves it')
  assert.equal(state({ argv: ['node', mjs], exitListeners: () => [function handleProcessExit () {}] }), 'unsure',
    "node's ES module entry still running")
  assert.equal(state({ argv: ['node', mjs] }), 'done', "node's ES module entry settled")
  const container = path.join(dir, 'ProcessContainer.js')
  assert.equal(state({ env: { pm_exec_path: cjs }, argv: ['node', container], cache: { [container]: {} } }), 'pending',
    'PM2 cluster: the container is loaded, the script not yet')
  assert.equal(state({ env: { pm_exec_path: cjs }, argv: ['node', container], cache: { [container]: {}, [cjs]: {} } }), 'done')
  assert.equal(state({ env: { pm_exec_path: mjs }, argv: ['node', container] }), 'unsure', 'PM2 imports an ES module: never in the cache')
  const fork = path.join(dir, 'ProcessContainerFork.js')
  assert.equal(state({ env: { pm_exec_path: cjs }, argv: ['node', fork], cache: { [fork]: {}, [cjs]: {} } }), 'done', 'PM2 fork mode')
  const child = path.join(dir, 'server.js')
  assert.equal(state({ env: { pm_exec_path: '/usr/bin/npm' }, argv: ['node', child], cache: { [child]: {} } }), 'done',
    'a process the PM2 app spawned: its own main, not the inherited pm_exec_path')
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}')
  assert.equal(isESModule(cjs), true, '"type": "module"')
  assert.equal(isESModule(path.join(dir, 'x.cjs')), false)
})

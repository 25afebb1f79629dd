'use strict'

// No test writes outside its own temp dirs (issue 26): every test file's
// process and what it starts get a private TMPDIR (helpers/private-tmp.js),
// so a process announcing itself (-r cprof/register, cprof.init()) or
// writing a profile to cprof's default directory does it there, and one
// killed by a test leaves nothing in the user's real <tmpdir>/cprof-<uid>.
// The guard that keeps it so fails a test file that did leave something.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')

const { ROOT, makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util.js')
const { FIXTURES } = require('../helpers/util.js').fixturesIn(path.join(__dirname, '..', 'fleet')) // fleet-solo.js
const privateTmp = require('../helpers/private-tmp.js')

const REGISTER = path.join(ROOT, 'register.js')
const UID = process.geteuid()
const test = (name, fn) => nodeTest(name, { timeout: 120000, skip: process.platform !== 'linux' && 'run entries need /proc' }, fn)

after(removeTmpDirs)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor (pred, ms, what) {
  const end = Date.now() + ms
  while (!pred()) {
    if (Date.now() > end) throw new Error(`${what} within ${ms} ms`)
    await sleep(50)
  }
}

// An idle app with cprof's triggers on, started as tests start theirs:
// node -r cprof/register, the test's environment, no CPROF_DIR or CPROF_RUN_DIR.
function startApp (env) {
  const child = spawn(process.execPath, ['-r', REGISTER, path.join(FIXTURES, 'fleet-solo.js'), '60000', 'idle'], {
    env: env || childEnv({ CPROF_PROFILING: '1', CPROF_DIR: undefined, CPROF_RUN_DIR: undefined }),
    stdio: 'ignore'
  })
  return { child, exited: new Promise((resolve) => child.on('close', resolve)) }
}

test('a process a test starts with cprof on announces itself in the test\'s private TMPDIR; killed, it leaves nothing in the real <tmpdir>/cprof-<uid>/run', async () => {
  const mine = os.tmpdir()
  assert.notEqual(mine, privateTmp.real.tmp, 'the test process runs with a TMPDIR of its own')
  assert.equal(process.env.TMPDIR, mine)
  assert.equal(childEnv().TMPDIR, mine, 'children inherit it')
  assert.equal(process.env.XDG_RUNTIME_DIR, undefined, 'no XDG run directory: it would be the user\'s real one')

  const app = startApp()
  const entry = path.join(mine, `cprof-${UID}`, 'run', `${app.child.pid}.json`)
  try {
    await waitFor(() => fs.existsSync(entry), 30000, `no run entry at ${entry}`)
  } finally {
    app.child.kill('SIGKILL') // as tests do: nothing removes the entry
    await app.exited
  }
  assert.ok(fs.existsSync(entry), 'the killed process\'s entry is left, in the private directory')
  const real = privateTmp.defaultPlaces().runs.map((d) => path.join(d, `${app.child.pid}.json`))
  for (const file of real) assert.equal(fs.existsSync(file), false, `${file} must not exist`)
  assert.deepEqual(privateTmp.leftovers(mine), [])
})

// A script that loads the test helpers as a test file does, starts the app
// with `env(privateEnv, realTmp)` as its environment, waits for its entry
// and SIGKILLs it: what the guard says at its exit.
async function runGuarded (envExpr) {
  const realTmp = makeTmpDir('cprof-fake-real-') // stands for the user's real TMPDIR
  const script = path.join(makeTmpDir('cprof-guarded-'), 'guarded.js')
  fs.writeFileSync(script, `'use strict'
const path = require('node:path')
const fs = require('node:fs')
const { spawn } = require('node:child_process')
const { childEnv } = require(${JSON.stringify(path.join(__dirname, '..', 'helpers', 'util.js'))})
const real = ${JSON.stringify(realTmp)}
const env = childEnv({ CPROF_PROFILING: '1', CPROF_DIR: undefined, CPROF_RUN_DIR: undefined })
Object.assign(env, ${envExpr})
const child = spawn(process.execPath, ['-r', ${JSON.stringify(REGISTER)}, ${JSON.stringify(path.join(FIXTURES, 'fleet-solo.js'))}, '60000', 'idle'], { env, stdio: 'ignore' })
const entry = path.join(env.TMPDIR, 'cprof-${UID}', 'run', child.pid + '.json')
const end = Date.now() + 30000
const poll = setInterval(() => {
  if (!fs.existsSync(entry) && Date.now() < end) return
  clearInterval(poll)
  console.log(JSON.stringify({ pid: child.pid, announced: fs.existsSync(entry) }))
  child.kill('SIGKILL')
}, 50)
`)
  const env = childEnv({ TMPDIR: realTmp, CPROF_TEST_TMPDIR: undefined })
  const c = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  c.stdout.on('data', (d) => { stdout += d })
  c.stderr.on('data', (d) => { stderr += d })
  const status = await new Promise((resolve) => c.on('close', resolve))
  const report = JSON.parse(stdout.trim().split('\n').pop() || '{}')
  return { status, stderr, report, realTmp, describe: () => `status=${status}\n${stdout}\n${stderr}` }
}

test('the guard: a test file whose process announced itself in the real default run directory fails, naming the entry; one that did not passes', async () => {
  const leaky = await runGuarded('{ TMPDIR: real }')
  assert.equal(leaky.report.announced, true, leaky.describe())
  const entry = path.join(leaky.realTmp, `cprof-${UID}`, 'run', `${leaky.report.pid}.json`)
  assert.ok(fs.existsSync(entry), leaky.describe())
  assert.equal(leaky.status, 1, leaky.describe())
  assert.match(leaky.stderr, /wrote into the real default directories/)
  assert.ok(leaky.stderr.includes(entry), leaky.describe())

  const clean = await runGuarded('{}')
  assert.equal(clean.report.announced, true, clean.describe())
  assert.equal(clean.status, 0, clean.describe())
  assert.equal(fs.existsSync(path.join(clean.realTmp, `cprof-${UID}`)), false, 'nothing in the real TMPDIR')
  assert.deepEqual(fs.readdirSync(clean.realTmp), [], 'and the private directory was removed at exit')
})

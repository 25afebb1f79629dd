'use strict'

// The recorder under real PM2 (the pm2 devDependency, its own PM2_HOME):
// an app preloads cprof/register with CPROF_RECORDER=1; `pm2 trigger <app>
// cprof:dump [ms]` replies with the files and the summary.

const { test: nodeTest, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

const { assertCpuProfileSchema } = require('./helpers/schema.js')
const { ROOT, FIXTURES, makeTmpDir, removeTmpDirs, childEnv, reapPm2 } = require('./helpers/util.js')

let PM2_BIN = null
try {
  PM2_BIN = require.resolve('pm2/bin/pm2', { paths: [ROOT] })
} catch {}

const home = makeTmpDir('cprof-pm2rec-')
const appDir = makeTmpDir('cprof-pm2rec-app-')
const outDir = makeTmpDir()
const env = childEnv({ PM2_HOME: home, PM2_DISABLE_VERSION_CHECK: 'true', NO_COLOR: '1', FORCE_COLOR: '0' })
for (const k of Object.keys(env)) if (k.startsWith('CPROF_') || k === 'io') delete env[k]

// Bounds for a loaded 2-core machine under ASan (npm run test:asan preloads
// the sanitizer into every node, the PM2 CLI and daemon included: one CLI
// call then takes seconds). They are limits on a hang, not timings.
const CLI_TIMEOUT_MS = 60000
const EXIT_AFTER_REPLY_MS = 15000

function pm2 (...args) {
  const r = spawnSync(process.execPath, [PM2_BIN, ...args], { encoding: 'utf8', env, cwd: appDir, timeout: CLI_TIMEOUT_MS })
  r.describe = () => `pm2 ${args.join(' ')}: status=${r.status}\n${r.stdout}\n${r.stderr}`
  return r
}

let skip = PM2_BIN ? false : 'the pm2 package is not installed (npm install --include=dev)'

before(() => {
  if (skip) return
  fs.writeFileSync(path.join(home, 'touch'), String(Date.now()))
  const ping = pm2('ping')
  if (ping.status !== 0) {
    skip = `pm2 cannot run here: ${ping.describe()}`
    return
  }
  fs.writeFileSync(path.join(appDir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({
    apps: [{
      name: 'cprof-rec',
      script: path.join(FIXTURES, 'trigger-pm2-app.js'),
      node_args: `-r ${path.join(ROOT, 'register.js')}`,
      env: { CPROF_RECORDER: '1', CPROF_RECORDER_WINDOW: '300', CPROF_DIR: outDir, CPROF_FORMATS: 'pprof' }
    }]
  }, null, 2)}\n`)
  const r = pm2('start', 'ecosystem.config.js')
  assert.equal(r.status, 0, r.describe())
})

after(() => {
  if (PM2_BIN && fs.existsSync(path.join(home, 'rpc.sock'))) pm2('kill')
  reapPm2(home)
  removeTmpDirs()
})

const test = (name, fn) => nodeTest(name, { timeout: 240000 }, (t) => {
  if (skip) return t.skip(skip)
  return fn(t)
})
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function actions () {
  const r = pm2('jlist')
  try {
    const app = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))).find((p) => p.name === 'cprof-rec')
    return app && app.pm2_env.axm_actions ? app.pm2_env.axm_actions.map((a) => a.action_name) : []
  } catch {
    return []
  }
}

// `pm2 trigger <app> <action> [param]` → the app's reply (the JSON after
// `[cprof-rec:<id>:<namespace>]=`). The CLI exits once it has counted as many
// replies as the daemon says processes got the command; PM2 7 counts a reply
// that comes before that answer against 0 and then never exits
// (docs/triggers.md). cprof sends its replies 100 ms late for that, but a CLI
// starved of CPU can read both messages in one turn, in either order. The
// reply is what is under test here: a CLI still running EXIT_AFTER_REPLY_MS
// after printing it is stopped, and the test says so (a diagnostic).
function trigger (t, action, param) {
  const args = [PM2_BIN, 'trigger', 'cprof-rec', action, ...(param === undefined ? [] : [param])]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, cwd: appDir })
    let stdout = ''
    let stderr = ''
    let reply = null
    let stoppedAfterReply = false
    let exitTimer = null
    const hang = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS)
    const describe = (how) => `pm2 ${args.slice(1).join(' ')}: ${how}\n${stdout}\n${stderr}`
    child.stderr.on('data', (d) => { stderr += d })
    child.stdout.on('data', (d) => {
      stdout += d
      const line = stdout.split('\n').slice(0, -1).find((l) => l.startsWith('[cprof-rec:'))
      if (reply || !line) return
      reply = JSON.parse(line.slice(line.indexOf(']=') + 2))
      exitTimer = setTimeout(() => {
        stoppedAfterReply = true
        child.kill('SIGKILL')
      }, EXIT_AFTER_REPLY_MS)
    })
    child.on('close', (code, signal) => {
      clearTimeout(hang)
      clearTimeout(exitTimer)
      if (!reply) return reject(new Error(describe(`no reply (exit code ${code}, signal ${signal})`)))
      if (stoppedAfterReply) {
        const order = stdout.indexOf('[cprof-rec:') < stdout.indexOf('processes have received command')
          ? 'the reply came before the daemon\'s answer (PM2\'s race)'
          : 'the daemon\'s answer came first'
        t.diagnostic(`pm2 trigger ${action}: the CLI printed the reply but had not exited ${EXIT_AFTER_REPLY_MS} ms later (${order}); stopped it`)
      } else if (code !== 0) {
        return reject(new Error(describe(`exit code ${code}, signal ${signal}`)))
      }
      resolve(reply)
    })
  })
}

test('pm2 trigger <app> cprof:dump [ms]: the reply names the files and gives the summary', async (t) => {
  const end = Date.now() + 60000
  while (!actions().includes('cprof:dump')) {
    assert.ok(Date.now() < end, `cprof:dump never registered: ${actions()}`)
    await sleep(200)
  }
  await sleep(1500) // a few windows
  const r = await trigger(t, 'cprof:dump', '600')
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.kind, 'cpu')
  assert.ok(r.windows >= 2 && r.windows <= 4, `windows: ${r.windows}`)
  assert.ok(r.to - r.from >= 600, `${r.to - r.from} ms`)
  assert.equal(path.dirname(r.files.cpuprofile), outDir)
  assert.ok(fs.existsSync(r.files.pprof))
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(r.files.cpuprofile, 'utf8')))
  assert.ok(r.summary.top.some((f) => f.url.endsWith('/trigger-pm2-app.js')), JSON.stringify(r.summary.top.slice(0, 5)))
  const all = await trigger(t, 'cprof:dump')
  assert.equal(all.ok, true)
  assert.ok(all.windows > r.windows)
  const bad = await trigger(t, 'cprof:dump', 'soon')
  assert.equal(bad.ok, false)
  assert.equal(bad.error.code, 'ERR_CPROF_INVALID_ARG')
})

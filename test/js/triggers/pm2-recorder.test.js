'use strict'

// The recorder under real PM2 (the pm2 devDependency, its own PM2_HOME):
// an app preloads cprof/register with CPROF_RECORDER=1; `pm2 trigger <app>
// cprof:dump [ms]` replies with the files and the summary.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { assertCpuProfileSchema } = require('../helpers/schema.js')
const { ROOT, makeTmpDir } = require('../helpers/util.js')
const { FIXTURES } = require('../helpers/util.js').fixturesIn(__dirname)
const { pm2Home, pm2Suite } = require('../helpers/pm2.js')

const home = makeTmpDir('cprof-pm2rec-')
const appDir = makeTmpDir('cprof-pm2rec-app-')
const outDir = makeTmpDir()
const { pm2, trigger: pm2Trigger } = pm2Home({ home, cwd: appDir })

const test = pm2Suite({ home, pm2, timeout: 240000, setUp })

function setUp () {
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
}

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

// `pm2 trigger cprof-rec <action> [param]` → the app's reply (helpers/pm2.js).
async function trigger (t, action, param) {
  return (await pm2Trigger(t, 'cprof-rec', action, param))[0]
}

test('pm2 trigger <app> cprof:dump [ms]: the reply names the files and gives the summary', async (t) => {
  const end = Date.now() + 60000
  while (!actions().includes('cprof:dump')) {
    assert.ok(Date.now() < end, `cprof:dump never registered: ${actions()}`)
    await sleep(200)
  }
  await sleep(1500) // a few windows
  const r = await trigger(t, 'cprof:dump', '600 full')
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

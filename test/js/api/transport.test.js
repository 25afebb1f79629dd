'use strict'
// Both inspector transports produce the same kind of profile, and the raw
// one is never used where it would print a deprecation warning in the app.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { spawnSync } = require('node:child_process')
const { makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util')
const { assertCpuProfileSchema } = require('../helpers/schema')

test.after(removeTmpDirs)

const script = `
const cprof = require(${JSON.stringify(require.resolve('../../..'))})
function spinHot () { let x = 0; for (let i = 0; i < 3e5; i++) x = (x + i * i) % 1000003; return x }
;(async () => {
  await cprof.start({ interval: 1000, dir: process.argv[1] })
  const end = Date.now() + 400; let s = 0
  while (Date.now() < end) s += spinHot()
  const r = await cprof.stop()
  console.log(JSON.stringify(r))
})()`

function runChild (args, env) {
  const dir = makeTmpDir()
  const out = spawnSync(process.execPath, [...args, '-e', script, dir], {
    env: childEnv(env), encoding: 'utf8', timeout: 30000
  })
  assert.equal(out.status, 0, out.stderr)
  return { result: JSON.parse(out.stdout.trim().split('\n').pop()), stderr: out.stderr }
}

function assertGood (result) {
  assert.ok(result.samples > 10)
  assertCpuProfileSchema(JSON.parse(fs.readFileSync(result.files.cpuprofile, 'utf8')))
  assert.ok(result.summary.top.some((f) => f.functionName === 'spinHot'),
    'the hot function is in the summary')
}

for (const [name, args, env] of [
  ['the raw Connection (default)', [], {}],
  ['node:inspector Session (CPROF_TRANSPORT=session)', [], { CPROF_TRANSPORT: 'session' }],
  ['--pending-deprecation selects the Session', ['--pending-deprecation'], {}],
  ['NODE_PENDING_DEPRECATION=1 selects the Session', [], { NODE_PENDING_DEPRECATION: '1' }]
]) {
  test(`${name}: a valid profile, and no deprecation warning in the app`, () => {
    const { result, stderr } = runChild(args, env)
    assertGood(result)
    assert.doesNotMatch(stderr, /DEP0111|DeprecationWarning/)
  })
}

'use strict'

// What the two example test files share: the example server on a free port,
// and a demo of examples/ run end to end, shortened, with the checks every
// demo run must pass.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')
const { spawnSync } = require('node:child_process')

const { makeTmpDir, ROOT } = require('./util.js')
const { createServer } = require('../../../examples/server.js')

const EXAMPLES = path.join(ROOT, 'examples')

// Calls fn(base url) with the example server listening on loopback.
async function withServer (fn) {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  try {
    return await fn(`http://127.0.0.1:${server.address().port}`)
  } finally {
    server.close()
    server.closeAllConnections()
  }
}

// The demos' load needs autocannon (a devDependency): true when the test
// was skipped for want of it.
function skipWithoutAutocannon (t) {
  try {
    require.resolve('autocannon', { paths: [EXAMPLES] })
    return false
  } catch {
    t.skip('autocannon is not installed (npm install)')
    return true
  }
}

// Runs examples/<script> with a 3 s load and a 1.5 s profile, checks that
// it succeeded, drove load and wrote a .<ext> file into a fresh CPROF_DIR;
// returns its output, the table row under the header matching headerRe, and
// a description of the run for assertion messages.
function runDemo (script, { headerRe, ext }) {
  const dir = makeTmpDir()
  const r = spawnSync(process.execPath, [path.join(EXAMPLES, script)], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30000,
    env: {
      ...process.env,
      CPROF_DIR: dir,
      CPROF_DEMO_LOAD_MS: '3000',
      CPROF_DEMO_PROFILE_MS: '1500',
      CPROF_DEMO_DELAY_MS: '500'
    }
  })
  const describe = `status=${r.status} signal=${r.signal}\n${r.stdout}\n${r.stderr}`
  assert.equal(r.status, 0, describe)
  assert.match(r.stdout, /load: \d+ requests .* requests\/s/)
  const lines = r.stdout.split('\n')
  const header = lines.findIndex((l) => headerRe.test(l))
  assert.ok(header >= 0, describe)
  const m = new RegExp(`profile written to (\\S+\\.${ext})`).exec(r.stdout)
  assert.ok(m, describe)
  assert.equal(path.dirname(m[1]), dir)
  assert.ok(fs.existsSync(m[1]))
  return { stdout: r.stdout, top: lines[header + 1], describe }
}

module.exports = { EXAMPLES, withServer, skipWithoutAutocannon, runDemo }

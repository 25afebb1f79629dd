'use strict'

// docs/labels.md's hooks for express and fastify, run as written on the real
// frameworks (issue 41): each route's function spends >= 95 % of its self time
// under its own route *pattern* (`/users/:id`, never `/users/7`), by
// `cprof report --by route`, and the method label is there; go tool pprof
// -tags lists the same patterns in the pprof.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { ROOT, UNDER_ASAN, makeTmpDir, removeTmpDirs } = require('../helpers/util.js')
const { runFixture } = require('../helpers/util.js').fixturesIn(__dirname)

after(removeTmpDirs)

const BIN = path.join(ROOT, 'bin', 'cprof.js')
const haveGo = !spawnSync('go', ['version'], { encoding: 'utf8' }).error

function report (...args) {
  const r = spawnSync(process.execPath, [BIN, 'report', ...args, '--json'], { encoding: 'utf8', timeout: 60000 })
  assert.equal(r.status, 0, r.stderr)
  return JSON.parse(r.stdout)
}

for (const framework of ['express', 'fastify']) {
  test(`${framework}: the documented hook labels each request by its route pattern and method`, { timeout: 180000 }, () => {
    const dir = makeTmpDir()
    const run = runFixture('labels-frameworks.js', [framework, dir, UNDER_ASAN ? '4000' : '2000'], { timeout: 150000 })
    const out = run.json.find((o) => o.result || o.fatal)
    assert.ok(out && out.result, run.describe())
    const { files } = out.result
    assert.ok(files.labels && files.pprof, JSON.stringify(files))

    const by = report(files.cpuprofile, '--by', 'route')
    const routes = by.values.map((v) => v.value)
    assert.ok(routes.includes('/users/:id') && routes.includes('/orders'), routes.join(' '))
    assert.ok(!routes.some((r) => /^\/users\/\d/.test(r)), `a raw URL became a label: ${routes.join(' ')}`)
    const fn = (name) => by.functions.find((f) => f.name.startsWith(`${name} (`))
    const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0)
    for (const [name, route] of [['fnA', '/users/:id'], ['fnB', '/orders']]) {
      const f = fn(name)
      assert.ok(f && sum(f.self) > 0, `${name}: ${JSON.stringify(by.functions.slice(0, 5))}`)
      assert.ok(f.self[route] >= 0.95 * sum(f.self), `${name} under ${route}: ${JSON.stringify(f)}`)
    }
    const methods = report(files.cpuprofile, '--by', 'method').values.map((v) => v.value)
    assert.ok(methods.includes('GET'), methods.join(' '))

    if (haveGo) {
      const go = spawnSync('go', ['tool', 'pprof', '-tags', files.pprof], { encoding: 'utf8', timeout: 60000 })
      assert.equal(go.status, 0, go.stderr)
      assert.match(go.stdout, /route: Total/)
      assert.match(go.stdout, /\/users\/:id/)
      assert.match(go.stdout, /\/orders/)
    }
  })
}

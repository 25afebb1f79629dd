'use strict'

// cprof leaks --holders (docs/cli.md, cprof leaks): beside the growing
// allocation sites, what holds what grew, from two heap snapshots of the
// process through the guarded snapshot path and the diff in C. Two
// fixtures under the preload with 1 s heap windows (fixtures/holders-app.js):
// 'etag', where the site and the holder differ (a page built by
// concatenation, flattened by crypto's hash.update() in etagOf, cached in a
// module-level Map renderCache that never evicts): the site is update /
// etagOf, the holder renderCache → Map; 'push', where they coincide
// (remember() pushes into the array sessions). Every wait is on what the
// process's entry reports (a growing site), not on wall clock; the heaps
// stay small (a few MB; snapshots of ~6 MB).

const { describe, test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { makeTmpDir, removeTmpDirs, cprofAsync } = require('../helpers/util.js')
const { startFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const { holderOf, holders, cost } = require('../../../lib/incidents/holders-sum')
const { pickInstance, diskShort } = require('../../../lib/cli/leaks-holders')
const { command: leaksCommand } = require('../../../lib/cli/leaks')
const { readNumber } = require('../../../lib/cli/kit')

const ROOT = path.join(__dirname, '..', '..', '..')
const REGISTER = path.join(ROOT, 'register.js')
const WAIT_MS = 150_000 // wall clock, for a loaded machine
const MIB = 1024 * 1024
const children = []
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  removeTmpDirs()
})

// The fixture under the preload, its recorder on with 1 s heap windows,
// announcing itself in its own run directory.
function start (mode) {
  const dir = makeTmpDir(`cprof-holders-${mode}-`)
  const env = {
    CPROF_DIR: path.join(dir, 'out'),
    CPROF_RUN_DIR: path.join(dir, 'run'),
    CPROF_APP: `holders-${mode}`,
    CPROF_RECORDER: '1',
    CPROF_RECORDER_HEAP: '1',
    CPROF_RECORDER_WINDOW: '1000',
    CPROF_RECORDER_HEAP_WINDOW: '1000',
    NODE_OPTIONS: `-r ${REGISTER}`,
    HOLDERS_APP_MS: String(WAIT_MS)
  }
  const f = startFixture('holders-app.js', [mode], { env })
  children.push(f.child)
  // The CLI's own environment: the run directory only (not the preload)
  return { f, env: { CPROF_RUN_DIR: env.CPROF_RUN_DIR }, out: env.CPROF_DIR }
}

// Polls cprof leaks --json until the process's heap trend has a growing site.
async function growingSite (pid, env) {
  for (const end = Date.now() + WAIT_MS; Date.now() < end;) {
    const r = await cprofAsync(['leaks', String(pid), '--json'], { env })
    const t = r.status === 0 && JSON.parse(r.stdout.split('\n')[0]).trend
    if (t && t.top.length) return t.top[0]
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  assert.fail(`no growing site in process ${pid} within ${WAIT_MS} ms`)
}

const snapshotsIn = (dir) => fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /heapsnapshot|^\.cprof-snapshot-/.test(f)) : []

describe('cprof leaks --holders', { concurrency: true, timeout: WAIT_MS + 120_000 }, () => {
  test('site and holder differ: a page flattened by hash.update() in etagOf, cached in renderCache: --holders names renderCache → Map', async () => {
    const { f, env, out } = start('etag')
    await f.waitForLine((l) => l === 'ready', WAIT_MS)
    const site = await growingSite(f.child.pid, env)
    // The allocation site is where the flat copy was made, not the cache.
    assert.match(site.functionName, /^(update|etagOf)$/, JSON.stringify(site))
    const r = await cprofAsync(['leaks', String(f.child.pid), '--holders', '--interval', '3'], { env, timeout: WAIT_MS })
    assert.equal(r.status, 0, r.stderr)
    // Said before the first snapshot: the pause, the memory, the disk.
    assert.match(r.stderr, /^cprof leaks: --holders takes two heap snapshots of process \d+, 3 s apart, in /)
    assert.match(r.stderr, /\n {2}its heap: about [\d.]+ [KM]iB \(V8's used heap at its last recorder window; RSS [\d.]+ MiB\)\n/)
    assert.match(r.stderr, /\n {2}each snapshot pauses it about [\d.–]+ s .* raises its RSS by up to .* writes a file of /)
    assert.match(r.stderr, /\n {2}disk: about [\d.]+ [KM]iB free .*deleted once compared/s)
    assert.ok(r.stderr.indexOf('its heap: about') < r.stderr.indexOf('snapshot A:'))
    // The sites, allocated at; then the holders, renderCache first.
    assert.match(r.stdout, /\nallocated at \(the heap trend: where V8 allocated the growing bytes\):\n.*ALLOCATED AT\n.* (update|etagOf) /)
    assert.match(r.stdout, /\nheld by \(retainer paths of the objects new in the second snapshot\): heap snapshots [\d.]+ s apart .*\n +NEW +SHALLOW +RATE +HELD BY: NEW OBJECTS\n +\+[\d,]+ +\+[\d.]+ [KM]iB +\+[\d.]+ [KM]iB\/min +renderCache → Map: .*\(string\)/)
    assert.match(r.stdout, /\n {4}.* → renderCache → Map → table → \(array\) → \[\] → Object/)
    // Deleted afterwards: nothing left in the process's directory.
    assert.deepEqual(snapshotsIn(out), [])
  })

  test('site and holder coincide: remember() pushes into sessions: --holders --json names sessions → Array; --keep keeps both snapshots', async () => {
    const { f, env, out } = start('push')
    await f.waitForLine((l) => l === 'ready', WAIT_MS)
    const site = await growingSite(f.child.pid, env)
    assert.equal(site.functionName, 'remember')
    const r = await cprofAsync(['leaks', '--app', 'holders-push', '--holders', '--interval', '3', '--keep', '--json'], { env, timeout: WAIT_MS })
    assert.equal(r.status, 0, r.stderr)
    const lines = r.stdout.trim().split('\n')
    assert.equal(lines.length, 1)
    const j = JSON.parse(lines[0])
    assert.equal(j.pid, f.child.pid)
    assert.equal(j.measures, 'allocation site')
    assert.equal(j.trend.top[0].functionName, 'remember')
    const h = j.holders
    assert.equal(h.holders[0].holder, 'sessions → Array')
    assert.ok(h.holders[0].classes.some((c) => c.class === 'Object'), JSON.stringify(h.holders[0]))
    assert.ok(h.holders[0].selfSize > 0 && h.holders[0].count > 0)
    assert.ok(h.intervalMs >= 3000)
    assert.equal(h.kept, true)
    assert.equal(h.snapshots.length, 2)
    for (const s of h.snapshots) {
      assert.ok(fs.existsSync(s.file), s.file)
      assert.equal(path.dirname(s.file), out)
      assert.ok(s.bytes > 0 && s.durationMs > 0)
    }
    assert.deepEqual(snapshotsIn(out).sort(), h.snapshots.map((s) => path.basename(s.file)).sort())
  })
})

test('cprof leaks: --interval, --keep, --dir only with --holders; --interval is seconds > 0', async () => {
  const r = await cprofAsync(['leaks', '1', '--keep'])
  assert.equal(r.status, 2)
  assert.match(r.stderr, /^cprof leaks: --keep goes with --holders\n/)
  const i = await cprofAsync(['leaks', '1', '--holders', '--interval', '0'])
  assert.equal(i.status, 2)
  assert.match(i.stderr, /--interval must be a number of seconds > 0 and <= 3600, got "0"/)
  const interval = leaksCommand.options.get('interval')
  assert.equal(interval.default, 30)
  assert.equal(readNumber(interval, '2.5'), 2.5)
  for (const bad of ['-1', '1e3', '3601']) assert.throws(() => readNumber(interval, bad), /--interval must be a number of seconds/)
})

// The holder of an object from its retainer path: the named edge before the
// path's last index step; else the last named edge before the object.
const step = (edge, edgeType, cls, extra = {}) => ({ edge, edgeType, class: cls, type: 'object', ...extra })
test('holderOf: the variable or property of the collection the objects are entries of', () => {
  const ctx = [step('2', 'shortcut', 'global'), step('serve', 'property', 'Function', { type: 'closure', name: 'serve' }),
    step('context', 'internal', 'system / Context')]
  assert.equal(holderOf([...ctx, step('renderCache', 'context', 'Map'), step('table', 'internal', '(array)', { type: 'array' }),
    step('1058', 'internal', 'Object'), step('html', 'property', '(string)', { type: 'string' })]), 'renderCache → Map')
  assert.equal(holderOf([...ctx, step('sessions', 'context', 'Array'), step('elements', 'internal', '(array)', { type: 'array' }),
    step('7', 'element', 'Object')]), 'sessions → Array')
  // No index: the last named edge before the object
  assert.equal(holderOf([...ctx, step('config', 'context', 'Object'), step('banner', 'property', '(string)')]), 'config → Object')
  assert.equal(holderOf([step('1', 'element', '(GC roots)')]), null)
  // holders(): grouped by holder, V8's own objects left out, largest first, a rate per minute
  const diff = {
    added: {
      groups: [
        { path: 'a → renderCache → Map → table → (array) → [] → Object', count: 10, selfSize: 400, example: { path: [...ctx, step('renderCache', 'context', 'Map'), step('table', 'internal', '(array)'), step('3', 'internal', 'Object')] } },
        { path: 'a → renderCache → Map → table → (array) → [] → Object → html → (string)', count: 10, selfSize: 60_000, example: { path: [...ctx, step('renderCache', 'context', 'Map'), step('table', 'internal', '(array)'), step('3', 'internal', 'Object'), step('html', 'property', '(string)')] } },
        { path: 'a → f() → (compiled code)', count: 50, selfSize: 90_000, example: { path: [...ctx, step('code', 'internal', '(compiled code)')] } },
        { path: 'a → other → Array → [] → Object', count: 1, selfSize: 40, example: { path: [...ctx, step('other', 'context', 'Array'), step('0', 'element', 'Object')] } }
      ]
    }
  }
  const hs = holders(diff, 30_000)
  assert.deepEqual(hs.map((h) => [h.holder, h.count, h.selfSize, h.perMinute]), [['renderCache → Map', 20, 60_400, 120_800], ['other → Array', 1, 40, 80]])
  assert.deepEqual(hs[0].classes.map((c) => c.class), ['(string)', 'Object'])
  assert.match(hs[0].path, /html → \(string\)$/)
})

test('cost: the pause, memory, file and disk of two snapshots by the measured rules; --app snapshots the fastest-growing instance; too little disk refuses before any pause', async () => {
  const c = cost(100 * MIB, 2)
  assert.deepEqual(c.pauseMs, [4000, 8000]) // 40–80 ms per MiB
  assert.deepEqual(c.rss, [800 * MIB, 2200 * MIB])
  assert.deepEqual(c.file, [Math.round(130 * MIB), Math.round(220 * MIB)])
  assert.equal(c.disk, Math.round(420 * MIB)) // the first file kept while the second needs twice the heap free
  assert.deepEqual(cost(1 * MIB).pauseMs, [500, 500]) // measured floor
  const e = (pid, perMinute) => ({ pid, recorder: perMinute === null ? null : { heapTrend: { windows: 10, perMinute } } })
  assert.equal(pickInstance([e(1, 10), e(2, 500), e(3, null), e(4, 20)]).pid, 2)
  assert.equal(pickInstance([e(3, null), e(1, -5)]).pid, 1)
  const statfs = (free) => async () => ({ bavail: free / 4096, bsize: 4096 })
  assert.equal(await diskShort('/srv/p', c.disk, statfs(400 * MIB)), '/srv/p has 400.0 MiB free, below the 420.0 MiB the two snapshots need (the first file, then twice the heap free for the second)')
  assert.equal(await diskShort('/srv/p', c.disk, statfs(500 * MIB)), null)
  assert.equal(await diskShort('/srv/p', c.disk, async () => { throw new Error('ENOSYS') }), null) // unknown: the process checks
})

'use strict'

// cprof snapshot on the leak shape that is worst for a dominator tree: a
// singly linked list, globalThis.list = head, each Entry one level deeper
// (fixtures/snapshot-list.js writes a real Node snapshot of it). A million
// entries (about 90 MB; 200,000 under ASan, whose build is 5-10x slower)
// must be read in seconds: the test's timeout is generous, a quadratic
// step (the old dominator iteration: 255 s for 200,000) still misses it.
// The head must retain the whole list, and DevTools' worker must agree on
// it on a smaller list.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const { makeTmpDir, removeTmpDirs, childEnv, UNDER_ASAN } = require('../helpers/util.js')
const { runFixture } = require('../helpers/util.js').fixturesIn(__dirname)

after(removeTmpDirs)

const BIN = path.join(__dirname, '..', '..', '..', 'bin', 'cprof.js')
const BIG = UNDER_ASAN ? 200000 : 1000000
const SMALL = 20000
const TIMEOUT = 600000

function listSnapshot (n) {
  const dir = makeTmpDir('cprof-snapshot-list-')
  const r = runFixture('snapshot-list.js', [path.join(dir, 'list.heapsnapshot'), String(n)], { timeout: TIMEOUT })
  assert.equal(r.status, 0, r.describe())
  assert.equal(r.json[0].entries, n)
  return r.json[0].file
}

function report (file) {
  const r = spawnSync(process.execPath, [BIN, 'snapshot', file, '--json', '--top', '10'], { encoding: 'utf8', timeout: TIMEOUT, env: childEnv() })
  if (r.error) throw r.error
  assert.equal(r.status, 0, r.stderr)
  return JSON.parse(r.stdout)
}

// The head and its next: the Entries with the largest retained sizes.
function headAndNext (out) {
  const entries = out.objects.filter((o) => o.class === 'Entry')
  assert.ok(entries.length >= 2, 'the list\'s first Entries are among the largest objects')
  return entries
}

test(`cprof snapshot on a ${BIG.toLocaleString('en')}-entry linked list: the head retains the whole list`, () => {
  const file = listSnapshot(BIG)
  let out
  try {
    out = report(file)
  } finally {
    fs.rmSync(file, { force: true }) // about 90 MB: not left until the suite ends
  }
  const cls = out.classes.find((c) => c.name === 'Entry')
  const [head, next] = headAndNext(out)
  assert.equal(cls.count, BIG)
  assert.equal(cls.selfSize, BIG * head.selfSize, 'every Entry has the head\'s size')
  // The head dominates every Entry: the class's retained size (Entries no
  // other Entry holds) is the head's alone.
  assert.equal(cls.retainedSize, head.retainedSize)
  // Past the head the list holds nothing but Entries: the rest is exact.
  assert.equal(next.retainedSize, (BIG - 1) * head.selfSize)
  // The head also holds what only the list reaches (class Entry's
  // function, its maps): a few KB, whatever the length.
  const extra = head.retainedSize - cls.selfSize
  assert.ok(extra >= 0 && extra < 64 * 1024, `head retains ${head.retainedSize}, the Entries are ${cls.selfSize}`)
  assert.equal(head.path.at(-1).edge, 'list', 'globalThis.list')
  assert.equal(next.path.at(-1).edge, 'next')
})

test(`cprof snapshot agrees with DevTools' worker on the head of a ${SMALL.toLocaleString('en')}-entry list`, async (t) => {
  const { devtools, FRONTEND } = require('../../../scripts/devtools-snapshot.js')
  if (!fs.existsSync(path.join(FRONTEND, 'front_end'))) {
    t.skip(`no chrome-devtools-frontend package at ${FRONTEND} (see scripts/devtools-snapshot.js)`)
    return
  }
  const file = listSnapshot(SMALL)
  const [head, next] = headAndNext(report(file))
  const theirs = await devtools(file, 10)
  const byId = new Map(theirs.objects.map((o) => [o.id, o.retainedSize]))
  assert.equal(byId.get(head.id), head.retainedSize, 'the head\'s retained size')
  assert.equal(byId.get(next.id), next.retainedSize, 'its next\'s')
  assert.ok(head.retainedSize >= SMALL * head.selfSize)
})

'use strict'

// Issue 29: a heap snapshot asked for from outside a running app:
// `cprof trigger <pid> --snapshot` (a request in the process's run
// directory, carried by its cprof signal), `cprof trigger --app NAME
// --snapshot`, and the guard rails (one at a time, ERR_CPROF_BUSY; the heap
// against the free disk, ERR_CPROF_NO_SPACE). Real processes under
// -r cprof/register (test/js/triggers/fixtures/snapshot-app.js); the PM2
// action is in pm2.test.js, the request file's security in
// test/js/api/security.test.js.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawn } = require('node:child_process')

const { ROOT, makeTmpDir, removeTmpDirs, childEnv, jsonLines, cprofAsync } = require('../helpers/util.js')
const { FIXTURES } = require('../helpers/util.js').fixturesIn(__dirname)
const { noSpace } = require('../../../lib/triggers/snapshot-trigger.js')
const { room } = require('../../../lib/snapshot.js')

const children = []
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
  removeTmpDirs()
})

// No test may hang the suite: each has a time limit (a failure, not a timing check).
const test = (name, fn) => nodeTest(name, { timeout: 120000 }, fn)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const WROTE = /^sent SIGUSR2 to (\d+): it wrote a heap snapshot: (\S+\.heapsnapshot) \(([\d.]+) MB, ([\d.]+) s\)$/m

// node [-r register.js] snapshot-app.js [mb]; resolves { child, pid, dir, stderr() }.
async function startApp ({ preload = true, mb = 1, env = {} } = {}) {
  const dir = makeTmpDir()
  const args = [...(preload ? ['-r', path.join(ROOT, 'register.js')] : []), path.join(FIXTURES, 'snapshot-app.js'), String(mb)]
  const child = spawn(process.execPath, args, {
    env: childEnv({ ...(preload ? { CPROF_PROFILING: '1', CPROF_DIR: dir } : {}), ...env }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const end = Date.now() + 30000
  while (!jsonLines(stdout).some((l) => l.ready)) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`the app did not start: ${stdout}\n${stderr}`)
    await sleep(50)
  }
  await sleep(300) // its run-directory entry is written through the thread pool
  return { child, pid: child.pid, dir, stderr: () => stderr }
}

async function waitFor (what, fn, ms = 15000) {
  const end = Date.now() + ms
  for (;;) {
    const v = fn()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

test('cprof trigger <pid> --snapshot: the warning first, then the file (path, MB, s) cprof snapshot reads', async () => {
  const app = await startApp()
  const r = await cprofAsync(['trigger', String(app.pid), '--snapshot'], { timeout: 100000 })
  assert.equal(r.status, 0, r.describe())
  assert.match(r.stderr, /a heap snapshot pauses process \d+ while V8 walks and writes its heap/)
  assert.match(r.stderr, /needs memory beside it/)
  const m = WROTE.exec(r.stdout)
  assert.ok(m, r.describe())
  const file = m[2]
  assert.equal(Number(m[1]), app.pid)
  assert.equal(path.dirname(file), app.dir, 'into the directory the app is configured with')
  assert.equal((fs.statSync(file).size / 1048576).toFixed(1), m[3])
  assert.equal(fs.statSync(file).mode & 0o777, 0o600)
  const rep = await cprofAsync(['snapshot', file, '--json'], { timeout: 100000 })
  assert.equal(rep.status, 0, rep.describe())
  const held = JSON.parse(rep.stdout).classes.find((c) => c.name === 'SnapshotHeldThing')
  assert.ok(held, 'the snapshot names the objects the app holds')
  assert.equal(held.count, 1000)
  // The app's own line, as its other triggers give; its CPU toggle did not fire.
  await waitFor('the app\'s log line', () => app.stderr().includes(`cprof: wrote ${file} (snapshot,`))
  assert.deepEqual(fs.readdirSync(app.dir).filter((f) => !f.endsWith('.heapsnapshot')), [], 'no CPU profile started, nothing else left')

  // --dir: into another directory, checked by the app.
  const other = makeTmpDir()
  const r2 = await cprofAsync(['trigger', String(app.pid), '--snapshot', '--dir', other], { timeout: 100000 })
  assert.equal(r2.status, 0, r2.describe())
  assert.equal(path.dirname(WROTE.exec(r2.stdout)[2]), other)
  // The CPU signal still toggles a profile once no request is there.
  app.child.kill('SIGUSR2')
  await sleep(300)
  app.child.kill('SIGUSR2')
  await waitFor('the CPU profile', () => fs.readdirSync(app.dir).find((f) => f.endsWith('.cpuprofile')))
  app.child.kill()
})

test('a second --snapshot while one is being written is refused (ERR_CPROF_BUSY); the first is written', async () => {
  const app = await startApp({ mb: 120 })
  const first = cprofAsync(['trigger', String(app.pid), '--snapshot'], { timeout: 100000 })
  // The snapshot is under way once its private directory is there.
  await waitFor('the snapshot to start', () => fs.readdirSync(app.dir).some((f) => f.startsWith('.cprof-snapshot-')), 60000)
  const second = await cprofAsync(['trigger', String(app.pid), '--snapshot'], { timeout: 100000 })
  const one = await first
  assert.equal(one.status, 0, one.describe())
  assert.match(one.stdout, WROTE)
  assert.equal(second.status, 1, second.describe())
  // Refused as busy: by the app (ERR_CPROF_BUSY), or, when the first
  // snapshot's heap walk holds its event loop past the CLI's 30 s wait (a
  // loaded machine), by the CLI, which names the app as busy. Either way one file.
  assert.match(second.stderr, /no snapshot: (ERR_CPROF_BUSY: a heap snapshot is already being written|it did not take the request within 30 s \(removed\): it may be busy)/)
  assert.equal(fs.readdirSync(app.dir).filter((f) => f.endsWith('.heapsnapshot')).length, 1)
  app.child.kill()
})

test('--snapshot to a process without cprof: a clear error, and no signal (SIGUSR2 would kill it)', async () => {
  const app = await startApp({ preload: false })
  const r = await cprofAsync(['trigger', String(app.pid), '--snapshot'], { timeout: 60000 })
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, new RegExp(`process ${app.pid} does not run cprof: it has no entry in a run directory`))
  assert.doesNotMatch(r.stdout, /sent/)
  await sleep(200)
  assert.equal(app.child.exitCode, null, 'still running')
  assert.equal(app.child.signalCode, null)
  const gone = await cprofAsync(['trigger', '999999999', '--snapshot'], { timeout: 60000 })
  assert.equal(gone.status, 1)
  assert.match(gone.stderr, /no process 999999999/)
  app.child.kill()
})

test('cprof trigger --app NAME --snapshot: every instance, one after the other', async () => {
  const name = `snap-${crypto.randomBytes(4).toString('hex')}`
  const apps = [await startApp({ env: { CPROF_APP: name } }), await startApp({ env: { CPROF_APP: name } })]
  const r = await cprofAsync(['trigger', '--app', name, '--snapshot', '--json'], { timeout: 100000 })
  assert.equal(r.status, 0, r.describe())
  assert.match(r.stderr, /pauses each of the 2 processes of app "snap-[0-9a-f]+", one at a time/)
  const got = JSON.parse(r.stdout)
  assert.deepEqual(got.map((g) => g.pid).sort(), apps.map((a) => a.pid).sort())
  for (const g of got) {
    const a = apps.find((x) => x.pid === g.pid)
    assert.equal(path.dirname(g.file), a.dir)
    assert.equal(fs.statSync(g.file).size, g.bytes)
  }
  const none = await cprofAsync(['trigger', '--app', `${name}-none`, '--snapshot'], { timeout: 60000 })
  assert.equal(none.status, 1)
  assert.match(none.stderr, /no process of app .* runs cprof/)
  for (const a of apps) a.child.kill()
})

test('--snapshot usage: what it does not go with', async () => {
  for (const args of [['1', '--snapshot', '--heap'], ['1', '--snapshot', '--dump'], ['1', '--snapshot', '--duration', '2'],
    ['1', '--snapshot', '--signal', 'SIGUSR2'], ['--app', 'x', '--snapshot', '--dir', '/tmp']]) {
    const r = await cprofAsync(['trigger', ...args], { timeout: 60000 })
    assert.equal(r.status, 2, r.describe())
    assert.match(r.stderr, /--snapshot does not go with|--dir and --force act on one process/)
  }
  const help = await cprofAsync(['trigger', '--help'], { timeout: 60000 })
  assert.match(help.stdout, /--snapshot .*heap snapshot/)
  assert.match(help.stdout, /PAUSES/)
})

test('the disk check: free space below twice the heap in use is refused (ERR_CPROF_NO_SPACE)', async () => {
  const MIB = 1024 * 1024
  const deps = (free, heap) => ({ freeBytes: async () => free, heapBytes: () => heap })
  const why = await room('/some/dir', deps(1.5 * MIB, MIB))
  assert.match(why, /^\/some\/dir has 1\.5 MiB free, below twice the 1\.0 MiB heap in use/)
  assert.throws(() => { throw noSpace(why) }, {
    code: 'ERR_CPROF_NO_SPACE',
    message: /^no heap snapshot written: \/some\/dir has 1\.5 MiB free, below twice .*Free disk space or point dir/
  })
  assert.equal(await room('/some/dir', deps(2 * MIB, MIB)), null, 'it fits')
  assert.equal(await room('/some/dir', { freeBytes: async () => { throw new Error('ENOSYS') }, heapBytes: () => 1 << 30 }), null,
    'no statfs: the write says')
})

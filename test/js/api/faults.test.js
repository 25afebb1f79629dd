'use strict'

// Fault injection: each fault runs in its own child process (an app with an
// HTTP server, test/js/api/fixtures/fault-*.js). For each: no crash, no hang,
// a clear error code, the app keeps serving, no partial file under a final
// name, and the process exits with the app's own code.
//
// Some faults need root (a private mount namespace with a tmpfs, or a child
// running as another user); without it they are skipped with the reason.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const {
  ROOT,
  makeTmpDir,
  removeTmpDirs,
  childEnv,
  jsonLines,
  assertCprofErrorInfo
} = require('../helpers/util.js')
const { FIXTURES, runFixture, startFixture } = require('../helpers/util.js').fixturesIn(__dirname)
const cprof = require('../../..')

after(removeTmpDirs)

// No test may hang the suite: each has a time limit (a failure, not a timing check).
const test = (name, opts, fn) => nodeTest(name, { timeout: 120000, ...opts }, fn)

const merged = (r) => Object.assign({}, ...r.json)
const isRoot = process.getuid && process.getuid() === 0

// Final files are complete JSON; cprof's temp files start with a dot.
function assertNoPartialFinal (listing, what) {
  assert.ok(listing, `${what}: a listing`)
  for (const f of listing.finals) {
    assert.ok(f.complete, `${what}: ${f.name} is under a final name but is not a complete profile`)
    assert.equal(f.mode, 0o600, `${what}: ${f.name} has mode 0600`)
  }
}

function assertServed (out, what) {
  assert.match(String(out.served), /^ok \d+$/, `${what}: the app answered a request after the fault (${out.served})`)
}

function assertIoFailure (out, what) {
  assertCprofErrorInfo(out.error, 'ERR_CPROF_IO')
  assert.ok(out.error.result && out.error.result.summary, `${what}: err.result carries the summary`)
  assert.ok(!out.error.result.files || Object.keys(out.error.result.files).length === 0, `${what}: no file is reported`)
  assert.equal(out.stopAgain.code, 'ERR_CPROF_NOT_STARTED', `${what}: the profiler is idle after the failure`)
  assertServed(out, what)
}

// ---- the output directory ----

for (const kind of ['cpu', 'heap']) {
  test(`${kind}: the output dir is replaced by a regular file mid-profile → ERR_CPROF_IO, the file untouched`, {}, () => {
    const dir = path.join(makeTmpDir(), 'out')
    fs.mkdirSync(dir)
    const r = runFixture('fault-dir.js', ['replace-with-file', dir, kind], { timeout: 60000 })
    assert.equal(r.status, 0, r.describe())
    const out = merged(r)
    assertIoFailure(out, 'replace-with-file')
    assert.match(out.error.message, /not a directory/i, out.error.message)
    assert.equal(out.again.error, undefined, `a profile works once the dir is back: ${r.describe()}`)
    assertNoPartialFinal(out.again.listing, 'after repair')
  })
}

test('cpu: a parent of the output dir becomes a regular file mid-profile → ERR_CPROF_IO', {}, () => {
  const dir = path.join(makeTmpDir(), 'parent', 'out')
  fs.mkdirSync(dir, { recursive: true })
  const r = runFixture('fault-dir.js', ['parent-is-file', dir], { timeout: 60000 })
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assertIoFailure(out, 'parent-is-file')
  assert.match(out.error.message, /not a directory/i, out.error.message)
  assert.deepEqual(out.listing.finals, [])
  assert.equal(out.again.error, undefined, `a profile works once the dir is back: ${r.describe()}`)
})

test('cpu: the output dir is removed mid-profile → cprof creates it again (0700) and writes the file', {}, () => {
  const dir = path.join(makeTmpDir(), 'out')
  fs.mkdirSync(dir)
  const r = runFixture('fault-dir.js', ['remove', dir], { timeout: 60000 })
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.error, undefined, r.describe())
  assert.ok(out.stopped.file && fs.existsSync(out.stopped.file), r.describe())
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700)
  assertNoPartialFinal(out.listing, 'remove')
  assert.deepEqual(out.listing.temps, [])
  assertServed(out, 'remove')
})

// chmod does not stop root: the child runs as nobody when the test is root.
test('cpu: the output dir turns read-only (chmod 0500, as a non-root user) mid-profile → ERR_CPROF_IO', {}, (t) => {
  const base = makeTmpDir()
  const dir = path.join(base, 'out')
  fs.mkdirSync(dir)
  let uid
  if (isRoot) {
    uid = 65534
    fs.chmodSync(base, 0o755)
    fs.chownSync(dir, uid, uid)
    const probe = spawnSync(process.execPath, ['-e', '0'], { uid, gid: uid })
    if (probe.status !== 0) {
      t.skip('cannot run node as uid 65534 here')
      return
    }
  }
  const script = path.join(FIXTURES, 'fault-dir.js')
  const r = spawnSync(process.execPath, [script, 'chmod', dir], {
    encoding: 'utf8',
    timeout: 60000,
    env: childEnv({ HOME: base }),
    ...(uid !== undefined ? { uid, gid: uid } : {})
  })
  const describe = () => `status=${r.status} signal=${r.signal}\n${r.stdout}\n${r.stderr}`
  assert.equal(r.status, 0, describe())
  const out = Object.assign({}, ...jsonLines(r.stdout))
  assertIoFailure(out, 'chmod')
  assert.match(out.error.message, /permission denied/i)
  assert.deepEqual(out.listing.finals, [])
  assert.deepEqual(out.listing.temps, [])
  assert.equal(out.again.error, undefined, describe())
})

// A private mount namespace (unshare -m) with a tmpfs on dir: the mount dies
// with the child, whatever happens. Needs root (CAP_SYS_ADMIN).
// unshare, sh and mount run without the sanitizer preload of `npm run
// test:asan` (their own leaks are not ours); node gets it back.
function plainEnv () {
  const env = childEnv({ CPROF_CHILD_PRELOAD: process.env.LD_PRELOAD || '' })
  delete env.LD_PRELOAD
  return env
}

function mountNamespaceAvailable () {
  if (!isRoot) return false
  const r = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c',
    'd=$(mktemp -d) && mount -t tmpfs -o size=64k cprof-probe "$d" && umount "$d" && rmdir "$d"'],
  { timeout: 10000, env: plainEnv() })
  return r.status === 0
}
const MOUNT_NS = mountNamespaceAvailable()

function runInTmpfs (sizeKb, dir, args, fixture = 'fault-dir.js') {
  const script = path.join(FIXTURES, fixture)
  const r = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c',
    `mount -t tmpfs -o size=${sizeKb}k,mode=0700 cprof-fault "$1" && shift && exec env LD_PRELOAD="$CPROF_CHILD_PRELOAD" "$@"`,
    'sh', dir, process.execPath, script, ...args], { encoding: 'utf8', timeout: 90000, env: plainEnv() })
  r.json = jsonLines(r.stdout || '')
  r.describe = () => `status=${r.status} signal=${r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`
  return r
}

for (const kind of ['cpu', 'heap']) {
  test(`${kind}: the output dir's file system is remounted read-only mid-profile → ERR_CPROF_IO (EROFS)`, {}, (t) => {
    if (!MOUNT_NS) return t.skip('needs root and unshare -m + mount -t tmpfs')
    const dir = makeTmpDir()
    const r = runInTmpfs(4096, dir, ['remount-ro', dir, kind])
    assert.equal(r.status, 0, r.describe())
    const out = merged(r)
    assertIoFailure(out, 'remount-ro')
    assert.match(out.error.message, /read-only file system/i)
    assert.deepEqual(out.listing.finals, [], 'nothing under a final name')
    assert.deepEqual(out.listing.temps, [], 'no temp file')
    assert.equal(out.again.error, undefined, `after remount rw a profile works: ${r.describe()}`)
    assertNoPartialFinal(out.again.listing, 'after remount rw')
    assert.deepEqual(fs.readdirSync(dir), [], 'the tmpfs was private to the child')
  })

  test(`${kind}: the disk is full (a 1 MB tmpfs filled up) → ERR_CPROF_IO (ENOSPC), no temp file left`, {}, (t) => {
    if (!MOUNT_NS) return t.skip('needs root and unshare -m + mount -t tmpfs (ulimit -f is tested in errors.test.js)')
    const dir = makeTmpDir()
    const r = runInTmpfs(1024, dir, ['full', dir, kind])
    assert.equal(r.status, 0, r.describe())
    const out = merged(r)
    assertIoFailure(out, 'full')
    assert.match(out.error.message, /no space left/i)
    assert.deepEqual(out.listing.finals.map((f) => f.name), ['filler'], 'nothing under a final name but the filler')
    assert.deepEqual(out.listing.temps, [], 'the temp file was removed')
    assert.equal(out.again.error, undefined, `with room again a profile works: ${r.describe()}`)
    assertNoPartialFinal(out.again.listing, 'after freeing space')
  })
}

// Issue 32: the recorder's store on a full disk. Retention runs only after a
// window is written, so without room the old windows stayed and every new
// one failed. Now the oldest store files make room: the newest windows are
// the ones kept, nothing else on the disk is touched.
test('recorder store on a full disk (a 4 MB tmpfs filled up): the oldest windows make room, the newest are kept, the app runs on', {}, (t) => {
  if (!MOUNT_NS) return t.skip('needs root and unshare -m + mount -t tmpfs')
  const dir = makeTmpDir()
  const r = runInTmpfs(4096, dir, [dir], 'fault-store.js')
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.fatal, undefined, r.describe())
  assert.deepEqual(out.errors, [], 'no window failed')
  assert.equal(out.status.failed, 0)
  const after = out.windows.filter((w) => w.from >= out.fillAt)
  assert.ok(after.length >= 5, `windows written after the disk filled: ${after.length}`)
  for (const w of after) assert.ok(w.files.cpuprofile && w.files.pprof, `window ${w.seq} stored: ${JSON.stringify(w)}`)
  // Evictions are counted, per window and in status().
  const evicted = out.windows.reduce((n, w) => n + w.evictedForSpace, 0)
  assert.ok(evicted >= 2, `store files evicted for space: ${evicted}`)
  assert.equal(out.status.evictedForSpace, evicted)
  assert.ok(out.windows.every((w) => w.pruned === 0), 'no retention limits: only the full disk evicts')
  // What is left: both files of each of the newest windows, none older.
  const byEnd = out.windows.slice().sort((a, b) => a.to - b.to)
  const kept = byEnd.filter((w) => out.store.includes(path.basename(w.files.cpuprofile)))
  assert.ok(kept.length >= 2, `windows kept: ${kept.length}`)
  assert.deepEqual(kept, byEnd.slice(byEnd.length - kept.length), 'the kept windows are the newest ones')
  assert.ok(kept.length < byEnd.length, 'the oldest windows were evicted')
  assert.deepEqual(out.store.slice().sort(), kept.flatMap((w) => [w.files.cpuprofile, w.files.pprof].map((f) => path.basename(f))).sort(),
    'the store holds exactly those windows\' files, no temp file')
  assert.equal(out.filler.after, out.filler.before, 'a file that is not the store\'s is never touched')
  assert.match(out.served, /^ok \d+$/, 'the app kept serving')
})

// ---- the process ends while cprof works ----

function startChild (args) {
  const c = startFixture('fault-exit.js', args)
  // Resolves true once the child printed { key }, false after ms or at its end.
  const printed = (key) => jsonLines(c.stdout()).some((o) => o[key] !== undefined)
  const line = (key, ms = 60000) => new Promise((resolve) => {
    const done = (v) => {
      clearTimeout(timer)
      c.child.stdout.off('data', check)
      resolve(v)
    }
    const timer = setTimeout(() => done(false), ms)
    const check = () => { if (printed(key)) done(true) }
    c.child.stdout.on('data', check)
    c.child.once('close', () => done(printed(key)))
    check()
  })
  return { ...c, line }
}

const describeExit = (e) => `status=${e.status} signal=${e.signal}\n--- stdout\n${e.stdout}\n--- stderr\n${e.stderr}`

function listing (dir) {
  const names = fs.existsSync(dir) ? fs.readdirSync(dir) : []
  const finals = names.filter((n) => !n.startsWith('.'))
  const temps = names.filter((n) => n.startsWith('.'))
  for (const n of finals) JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) // complete, or this throws
  return { finals, temps }
}

test('SIGTERM while profiling, no handler: the process dies of SIGTERM as without cprof; no file', {}, async () => {
  const dir = makeTmpDir()
  const c = startChild(['signal-profiling', dir])
  assert.ok(await c.line('ready'), 'the child got ready')
  c.child.kill('SIGTERM')
  const e = await c.exited
  assert.equal(e.signal, 'SIGTERM', describeExit(e))
  assertServed(Object.assign({}, ...e.json), 'before SIGTERM')
  assert.deepEqual(listing(dir), { finals: [], temps: [] })
})

test("SIGTERM with the app's own handler (stop the profile, exit 42): exit code 42 and a complete file", {}, async () => {
  const dir = makeTmpDir()
  const c = startChild(['handler-profiling', dir])
  assert.ok(await c.line('ready'), 'the child got ready')
  c.child.kill('SIGTERM')
  const e = await c.exited
  assert.equal(e.status, 42, describeExit(e))
  const out = Object.assign({}, ...e.json)
  assert.ok(out.stoppedOnSigterm, describeExit(e))
  const l = listing(dir)
  assert.deepEqual(l.finals, [path.basename(out.stoppedOnSigterm)])
  assert.deepEqual(l.temps, [])
})

test('process.exit(7) while profiling: exit code 7, no file', {}, async () => {
  const dir = makeTmpDir()
  const e = await startChild(['exit-profiling', dir]).exited
  assert.equal(e.status, 7, describeExit(e))
  assert.deepEqual(listing(dir), { finals: [], temps: [] })
})

for (const mode of ['exit-writing', 'exit-heap-writing']) {
  test(`process.exit(6) right after ${mode === 'exit-writing' ? '' : 'heap.'}stop() (profile being written): exit code 6; the file is complete, no temp file`, {}, async () => {
    const dir = makeTmpDir()
    const e = await startChild([mode, dir]).exited
    assert.equal(e.status, 6, describeExit(e))
    const out = Object.assign({}, ...e.json)
    assert.equal(out.unexpected, undefined, 'the promise cannot settle after exit')
    const l = listing(dir)
    // libuv joins its threads at exit: cprof's job finishes its write first.
    assert.ok(l.finals.length <= 1, JSON.stringify(l))
    assert.deepEqual(l.temps, [], 'no temp file')
  })
}

test('an uncaught exception right after stop() (profile being written): exit code 1 as without cprof; no partial file', {}, async () => {
  const dir = makeTmpDir()
  const e = await startChild(['throw-writing', dir]).exited
  assert.equal(e.status, 1, describeExit(e))
  assert.match(e.stderr, /boom from the app/)
  const l = listing(dir)
  assert.ok(l.finals.length <= 1)
  assert.deepEqual(l.temps, [])
})

// True once every thread of pid is in the stopped state (Linux /proc).
function waitStopped (pid, ms = 2000) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    try {
      const tasks = fs.readdirSync(`/proc/${pid}/task`)
      const states = tasks.map((t) => {
        const stat = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8')
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
      })
      if (states.every((st) => st === 'T' || st === 't')) return true
    } catch {
      return false
    }
  }
  return false
}

// The write is short and starts right after stop(): the child itself
// watches for its temp file and freezes (SIGSTOP) the moment it is there;
// here every thread is checked to be stopped and the directory to show a
// write in progress (temp file present, final name absent), then the child
// is killed. A killed process cannot clean up: its temp file stays; the
// final name never holds a partial file.
for (const signal of ['SIGTERM', 'SIGKILL']) {
  test(`${signal} while the profile is being written: dies of ${signal}; nothing under the final name (the temp file stays)`, {}, async (t) => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      const dir = makeTmpDir()
      const c = startChild(['signal-writing', dir, String(1000 + 1000 * attempt)])
      await Promise.race([c.line('freezing'), c.line('missed'), c.exited])
      const said = Object.assign({}, ...jsonLines(c.stdout()))
      let frozen = null
      if (said.freezing && waitStopped(c.child.pid)) frozen = fs.readdirSync(dir)
      c.child.kill(signal)
      c.child.kill('SIGCONT')
      const e = await c.exited
      const midWrite = frozen !== null && frozen.some((n) => n.startsWith('.')) && !frozen.some((n) => !n.startsWith('.'))
      if (!midWrite) {
        t.diagnostic(`attempt ${attempt}: missed the write window (${JSON.stringify(said.missed || frozen)}); again`)
        continue
      }
      assert.equal(e.signal, signal, describeExit(e))
      const l = listing(dir)
      assert.deepEqual(l.finals, [], 'no file under a final name')
      assert.ok(l.temps.length <= 1, JSON.stringify(l))
      t.diagnostic(`frozen mid-write with ${JSON.stringify(frozen)}; after ${signal}: ${l.temps.length} temp file left (${l.temps.join(', ')})`)
      // The temp file names its writer; once stale, the next writer there removes it (issue 36).
      for (const name of l.temps) {
        assert.ok(name.includes(`.${c.child.pid}.`), `${name} names pid ${c.child.pid}`)
        const old = (Date.now() - 2 * 60 * 1000) / 1000
        fs.utimesSync(path.join(dir, name), old, old)
      }
      const next = await cprof.profile({ duration: 20, dir })
      assert.deepEqual(listing(dir).temps, [], 'the next profile in the directory removed the stale temp file')
      assert.ok(fs.existsSync(next.files.cpuprofile))
      return
    }
    t.skip('the write window was missed 5 times (a very loaded machine)')
  })
}

// Issue 36: a writer killed mid-write (above) cannot remove its temp file;
// the name carries its pid, so the next writer in the directory removes the
// ones of dead processes once untouched for a minute: stop()/profile() (the
// C writer's .<name>.<pid>.<12 random>), recorder dumps and their marks
// (.<stem>.marks.json.<pid>.<8 hex>), cprof html's output.
test('issue 36: temp files left by killed writers (a dead pid, untouched for a minute) are removed by the next writer in the directory; nothing else is', {}, async () => {
  const dead = spawnSync(process.execPath, ['-e', '0']).pid // gone once spawnSync returns
  const live = process.ppid
  const old = (Date.now() - 2 * 60 * 1000) / 1000
  function plant (dir) {
    const names = {
      stale: [`.cpu-1-x.cpuprofile.${dead}.AbCdEf012345`, `.cpu-1-x.pb.gz.${dead}.zyxWVU987654`, `.cpu-1-x.marks.json.${dead}.0123abcd`],
      kept: [
        `.cpu-2-x.cpuprofile.${live}.AbCdEf012345`, // its writer lives
        `.notes.${dead}.txt`, // not a name cprof writes
        `.cpu-3-x.cpuprofile.${dead}.short`, // nor this
        `.cpu-4-x.marks.json.${dead}.89abcdef` // fresh: touched below, not backdated
      ]
    }
    for (const n of [...names.stale, ...names.kept]) fs.writeFileSync(path.join(dir, n), 'partial', { mode: 0o600 })
    for (const n of [...names.stale, ...names.kept.slice(0, 3)]) fs.utimesSync(path.join(dir, n), old, old)
    return names
  }
  const dotted = (dir) => fs.readdirSync(dir).filter((n) => n.startsWith('.')).sort()

  const a = makeTmpDir()
  const inA = plant(a)
  await cprof.profile({ duration: 20, dir: a })
  assert.deepEqual(dotted(a), [...inA.kept].sort())

  const b = makeTmpDir()
  const inB = plant(b)
  cprof.recorder.start({ window: 100 })
  try {
    await new Promise((resolve) => setTimeout(resolve, 250))
    const d = await cprof.recorder.dump({ dir: b, formats: ['html'] })
    assert.ok(d.files.marks, JSON.stringify(d.files))
  } finally {
    await cprof.recorder.stop()
  }
  assert.deepEqual(dotted(b), [...inB.kept].sort())

  const c = makeTmpDir()
  const inC = plant(c)
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'cprof.js'), 'html', path.join(a, fs.readdirSync(a).find((n) => n.endsWith('.cpuprofile'))), '-o', path.join(c, 'page.html')], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(dotted(c), [...inC.kept].sort())
})

// ---- someone else uses the inspector ----

test('another in-process inspector.Session profiles at the same time: both profiles are complete', {}, () => {
  const dir = makeTmpDir()
  const r = runFixture('fault-inspector.js', ['session', dir], { timeout: 60000 })
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.error, undefined, r.describe())
  assert.equal(out.cprof.length, 2)
  for (const p of out.cprof) assert.ok(p.samples > 0 && fs.existsSync(p.file))
  for (const p of out.other) assert.ok(p.samples > 0 && p.nodes > 1, JSON.stringify(out.other))
  assertServed(out, 'session')
})

test('a debugger attached over --inspect (WebSocket) profiles at the same time: both profiles are complete', {}, () => {
  const dir = makeTmpDir()
  const r = runFixture('fault-inspector.js', ['websocket', dir], { timeout: 60000, execArgv: ['--inspect=127.0.0.1:0'] })
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.error, undefined, r.describe())
  assert.ok(out.cprof[0].samples > 0 && fs.existsSync(out.cprof[0].file))
  assert.ok(out.other[0].samples > 0, JSON.stringify(out.other))
  assertServed(out, 'websocket')
})

test('--inspect active with nobody attached: cprof profiles as usual', {}, () => {
  const dir = makeTmpDir()
  const r = runFixture('fault-inspector.js', ['inspect', dir], { timeout: 60000, execArgv: ['--inspect=127.0.0.1:0'] })
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.inspectorUrl, true)
  assert.ok(out.cprof[0].samples > 0 && fs.existsSync(out.cprof[0].file), r.describe())
})

// ---- the API used in odd ways ----

test('stop() twice at once (CPU and heap): one resolves, the other rejects with ERR_CPROF_NOT_STARTED', {}, () => {
  const dir = makeTmpDir()
  const r = runFixture('fault-api.js', ['double-stop', dir], { timeout: 60000 })
  assert.equal(r.status, 0, r.describe())
  const { results } = merged(r)
  for (const [a, b] of [[results[0], results[1]], [results[2], results[3]]]) {
    assert.equal(a.ok, true, JSON.stringify(results))
    assert.ok(fs.existsSync(a.file))
    assert.equal(b.ok, false)
    assertCprofErrorInfo(b.error, 'ERR_CPROF_NOT_STARTED')
  }
  assertServed(merged(r), 'double-stop')
})

test("start() from inside a 'profile' listener chains profiles; stop() there with nothing running rejects cleanly", {}, () => {
  const dir = makeTmpDir()
  const r = runFixture('fault-api.js', ['listener-restart', dir], { timeout: 60000 })
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.equal(out.restartError, undefined, r.describe())
  assert.equal(out.results.files.length, 3)
  for (const f of out.results.files) assert.ok(fs.existsSync(f), f)
  for (const s of out.results.stopsInListener) {
    // The first listener already started the next profile: this stop() stops
    // it (a valid outcome), or there was nothing to stop.
    if (!s.ok) assertCprofErrorInfo(s.error, 'ERR_CPROF_NOT_STARTED')
  }
  assert.equal(out.running.cpu.ok, false, 'nothing left running')
  assertServed(out, 'listener-restart')
})

test("stop() and start() of the other kind from inside 'profile' listeners", {}, () => {
  const dir = makeTmpDir()
  const r = runFixture('fault-api.js', ['listener-stop', dir], { timeout: 60000 })
  assert.equal(r.status, 0, r.describe())
  const out = merged(r)
  assert.ok(fs.existsSync(out.results.cpu))
  assert.equal(out.results.heap.ok, true, r.describe())
  assert.equal(out.results.again.ok, true, r.describe())
  assert.equal(out.running.cpu.ok, false)
  assert.equal(out.running.heap.ok, false)
  assertServed(out, 'listener-stop')
})

// ---- worker threads ----

for (const mode of ['profiling', 'writing']) {
  test(`4 workers load cprof at once and are terminated mid-${mode === 'writing' ? 'write' : 'profile'}: the app goes on, exit code 3`, {}, () => {
    const dir = makeTmpDir()
    const r = runFixture('fault-workers.js', [mode, dir, '4'], { timeout: 90000 })
    assert.equal(r.status, 3, r.describe())
    const out = merged(r)
    assert.equal(out.workerError, undefined, r.describe())
    assert.equal(out.workers.codes.length, 4)
    for (const code of out.workers.codes) assert.equal(code, 1, 'terminate() ends a worker with code 1')
    assert.ok(out.main.samples > 0 && fs.existsSync(out.main.file), r.describe())
    assertServed(out, `workers ${mode}`)
    assertNoPartialFinal(out.listing, `workers ${mode}`)
    assert.deepEqual(out.listing.temps, [], 'a terminated worker leaves no temp file')
  })
}

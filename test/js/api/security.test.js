'use strict'

// Another local user against cprof (issue 20): a default directory planted
// in the shared temp directory, symlinks planted at every name cprof could
// predict, and reading a heap snapshot while it is written. The victim and
// the attacker are two throwaway non-root users created here (so root's
// permission bypass hides nothing); the victim runs a copy of cprof
// (fixtures/security-victim.js) with its own TMPDIR, a 1777 directory like
// /tmp, so nothing collides with other tests.

const { test: nodeTest, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

// System tools (useradd, id, chmod, userdel) run without the sanitizer
// preload that `npm run test:asan` gives this process: they are not ours.
const TOOL_ENV = Object.fromEntries(Object.entries(process.env)
  .filter(([k]) => !['LD_PRELOAD', 'ASAN_OPTIONS', 'LSAN_OPTIONS', 'UBSAN_OPTIONS'].includes(k)))
function sys (cmd, args, opts = {}) {
  return spawnSync(cmd, args, { ...opts, env: TOOL_ENV })
}

const { ROOT, childEnv, jsonLines, makeTmpDir, removeTmpDirs } = require('../helpers/util.js')
const { FIXTURES } = require('../helpers/util.js').fixturesIn(__dirname)
const cprof = require('../../..')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const test = (name, fn) => nodeTest(name, { timeout: 120000, skip: SKIP }, fn)

function whySkip () {
  if (typeof process.geteuid !== 'function') return 'needs POSIX users'
  if (process.geteuid() !== 0) {
    return 'needs root: it creates two throwaway users and runs node as each (spawn uid/gid)'
  }
  if (sys('useradd', ['--help']).error) return 'needs useradd (Debian: apt-get install passwd)'
  return false
}
const SKIP = whySkip()

const users = {} // victim, attacker: { name, uid, gid }
let base // a directory of our own: users' TMPDIRs, planted dirs, the cprof copy
let pkg // the copy of cprof every user can read

function addUser (role) {
  const name = `cprof${role[0]}${process.pid}`.slice(0, 31)
  const r = sys('useradd', ['-M', '-U', '-s', '/usr/sbin/nologin', name], { encoding: 'utf8' })
  assert.equal(r.status, 0, `useradd ${name}: ${r.stderr}`)
  const id = (flag) => Number(sys('id', [flag, name], { encoding: 'utf8' }).stdout.trim())
  users[role] = { name, uid: id('-u'), gid: id('-g') }
  assert.ok(users[role].uid > 0 && users[role].gid > 0, `${name}: ${JSON.stringify(users[role])}`)
}

// lib/, package.json, its dependencies and the addon, readable by everyone: the repository
// itself may sit in a directory other users cannot enter.
function copyCprof () {
  pkg = path.join(base, 'pkg')
  fs.cpSync(path.join(ROOT, 'lib'), path.join(pkg, 'lib'), { recursive: true })
  fs.cpSync(path.join(ROOT, 'bin'), path.join(pkg, 'bin'), { recursive: true }) // the CLI, run as a user (issue 32)
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'))
  // Its runtime dependencies: lib/native.js loads the addon through node-gyp-build.
  for (const dep of Object.keys(require(path.join(ROOT, 'package.json')).dependencies || {})) {
    const from = path.dirname(require.resolve(`${dep}/package.json`, { paths: [ROOT] }))
    fs.cpSync(from, path.join(pkg, 'node_modules', dep), { recursive: true })
  }
  const addon = process.env.CPROF_ADDON
    ? path.resolve(process.env.CPROF_ADDON)
    : path.join(ROOT, 'build', 'Release', 'cprof.node')
  fs.mkdirSync(path.join(pkg, 'build', 'Release'), { recursive: true })
  fs.copyFileSync(addon, path.join(pkg, 'build', 'Release', 'cprof.node'))
  for (const f of ['security-victim.js', 'security-attacker.js']) {
    fs.copyFileSync(path.join(FIXTURES, f), path.join(pkg, f))
  }
  sys('chmod', ['-R', 'a+rX', pkg])
}

before(() => {
  if (SKIP) return
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-security-'))
  fs.chmodSync(base, 0o755)
  addUser('victim')
  addUser('attacker')
  copyCprof()
})

function cleanUp () {
  removeTmpDirs()
  if (base) fs.rmSync(base, { recursive: true, force: true })
  for (const [role, u] of Object.entries(users)) {
    sys('userdel', [u.name])
    delete users[role]
  }
}
after(cleanUp)
process.on('exit', cleanUp) // also when the file ends without reaching after()

// A fresh shared temp directory (1777, like /tmp) for one test.
let tmpCount = 0
function sharedTmp () {
  const dir = path.join(base, `tmp${tmpCount++}`)
  fs.mkdirSync(dir)
  fs.chmodSync(dir, 0o1777)
  return dir
}

// What the attacker made: owned by them, as if they had run mkdir / ln -s.
function plantDir (dir, mode = 0o777) {
  fs.mkdirSync(dir)
  fs.chmodSync(dir, mode)
  fs.chownSync(dir, users.attacker.uid, users.attacker.gid)
}
function plantSymlink (target, at) {
  fs.symlinkSync(target, at)
  fs.lchownSync(at, users.attacker.uid, users.attacker.gid)
}
function plantFile (file, text) {
  fs.writeFileSync(file, text)
  fs.chmodSync(file, 0o666) // the victim could write it, if cprof followed a link to it
  fs.chownSync(file, users.attacker.uid, users.attacker.gid)
}

// Runs a fixture as a user. Returns { child, line(pred), exited }.
function runAs (role, script, args, { tmpdir, ipc = false } = {}) {
  const u = users[role]
  const env = childEnv({ TMPDIR: tmpdir, HOME: tmpdir, CPROF_PKG: pkg, CPROF_DIR: undefined, CPROF_ADDON: undefined })
  if (ipc) env.pm_id = '0' // what makes cprof believe it runs under PM2
  const child = spawn(process.execPath, [path.join(pkg, script), ...args], {
    uid: u.uid,
    gid: u.gid,
    cwd: tmpdir,
    env,
    stdio: ['pipe', 'pipe', 'pipe', ...(ipc ? ['ipc'] : [])]
  })
  const out = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (d) => { out.stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { out.stderr += d })
  const describe = () => `--- stdout\n${out.stdout}\n--- stderr\n${out.stderr}`
  // A fixture that hangs fails its test instead of holding the file open.
  const killer = setTimeout(() => child.kill('SIGKILL'), 100000)
  const exited = new Promise((resolve) => {
    child.on('close', (status, signal) => {
      clearTimeout(killer)
      resolve({ status, signal, ...out, json: jsonLines(out.stdout), describe })
    })
  })
  function line (pred, ms = 60000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { child.stdout.off('data', check); reject(new Error(`no such line in ${ms} ms\n${describe()}`)) }, ms)
      function check () {
        const hit = jsonLines(out.stdout).find(pred)
        if (hit === undefined) return
        clearTimeout(timer)
        child.stdout.off('data', check)
        resolve(hit)
      }
      child.stdout.on('data', check)
      check()
    })
  }
  return { child, line, exited, describe }
}

// The victim in one mode, traps planted by plant(pid) once its pid is known.
async function victim (mode, { tmpdir, opts = {}, plant = () => {}, ipc = false, drive } = {}) {
  const v = runAs('victim', 'security-victim.js', [mode, JSON.stringify(opts)], { tmpdir, ipc })
  const { pid } = await v.line((o) => o.ready)
  plant(pid)
  v.child.stdin.end('go\n')
  if (drive) await drive(v)
  const r = await v.exited
  assert.equal(r.status, 0, r.describe())
  const steps = Object.fromEntries(r.json.filter((o) => o.step).map((o) => [o.step, o]))
  const alive = r.json.find((o) => o.alive)
  assert.ok(alive && alive.ticks > 10, `the app kept running: ${r.describe()}`)
  return { steps, r }
}

function assertRefused (step, dir, why) {
  assert.ok(step && step.error, `refused: ${JSON.stringify(step)}`)
  assert.equal(step.error.code, 'ERR_CPROF_IO', JSON.stringify(step))
  assert.ok(step.error.message.includes(`refusing to write into ${dir}: it ${why}`), step.error.message)
  assert.match(step.error.message, /Remove it, or pass dir \(or set CPROF_DIR\) to a directory you own/)
}

function tree (dir) {
  return fs.readdirSync(dir, { recursive: true }).sort()
}

// The attack on the default directory, each way of planting it, each way of
// starting a profile: the API, a signal, a PM2 action.
const PLANTS = {
  'a 0777 directory of theirs': {
    plant: (victimDir) => { plantDir(victimDir) },
    why: (victimDir) => `is owned by another user (uid ${users.attacker.uid}, you are uid ${users.victim.uid})`
  },
  'a symlink to a 0777 directory of theirs': {
    plant: (victimDir, tmp) => {
      plantDir(path.join(tmp, 'attacker-dir'))
      plantSymlink(path.join(tmp, 'attacker-dir'), victimDir)
    },
    why: () => 'is a symbolic link, not a directory'
  }
}

for (const [how, { plant, why }] of Object.entries(PLANTS)) {
  test(`default dir planted as ${how}: profiles, snapshots, recorder dumps, signal, incident and PM2 triggers refuse, nothing is written, the app runs on`, async () => {
    const tmp = sharedTmp()
    const victimDir = path.join(tmp, `cprof-${users.victim.uid}`)
    plant(victimDir, tmp)
    const before = tree(tmp)

    const api = await victim('api', { tmpdir: tmp })
    for (const s of ['cpu', 'heap', 'snapshot']) assertRefused(api.steps[s], victimDir, why(victimDir))

    const sig = await victim('signal', { tmpdir: tmp })
    assertRefused(sig.steps['signal-cpu'], victimDir, why(victimDir))
    // The fleet's run directory (<tmp>/cprof-<uid>/run) is refused by the same rule.
    const announce = sig.steps.announce.errors
    assert.equal(announce.length, 1, JSON.stringify(announce))
    assert.equal(announce[0].code, 'ERR_CPROF_IO')
    assert.ok(announce[0].message.includes(`refusing to use ${victimDir} as cprof's run directory: it ${why(victimDir)}`), announce[0].message)
    assert.match(sig.steps['signal-heap'].stderr, /^cprof: ERR_CPROF_IO: refusing to write into /)

    const replies = {}
    await victim('pm2', {
      tmpdir: tmp,
      ipc: true,
      drive: async (v) => {
        await v.line((o) => o.step === 'initialized')
        const reply = (name) => new Promise((resolve) => {
          const on = (m) => {
            if (m && m.type === 'axm:reply' && m.data.action_name === name) {
              v.child.off('message', on)
              resolve(m.data.return)
            }
          }
          v.child.on('message', on)
        })
        // As `pm2 trigger <app> <action>` sends them.
        for (const name of ['cprof:cpu:start', 'cprof:cpu:stop', 'cprof:heap:snapshot']) {
          const got = reply(name)
          v.child.send(name)
          replies[name] = await got
        }
        v.child.send({ fixture: 'done' })
      }
    })
    assert.equal(replies['cprof:cpu:start'].ok, true, JSON.stringify(replies))
    for (const name of ['cprof:cpu:stop', 'cprof:heap:snapshot']) {
      assert.equal(replies[name].ok, false, JSON.stringify(replies[name]))
      assertRefused(replies[name], victimDir, why(victimDir))
    }

    // The flight recorder's dumps: the API, the dump signal, an incident
    // (counted as failed), the PM2 action.
    const rec = await victim('recorder', { tmpdir: tmp })
    assertRefused(rec.steps['recorder-dump'], victimDir, why(victimDir))
    assertRefused(rec.steps['dump-signal'], victimDir, why(victimDir))
    const inc = rec.steps.incident
    assert.ok(inc.incidents.fired >= 1 && inc.incidents.failed === inc.incidents.fired, JSON.stringify(inc))
    assert.equal(inc.errors.length, inc.incidents.failed, JSON.stringify(inc))
    for (const e of inc.errors) assertRefused({ error: e }, victimDir, why(victimDir))

    let dumpReply
    await victim('pm2', {
      tmpdir: tmp,
      ipc: true,
      opts: { recorder: true },
      drive: async (v) => {
        await v.line((o) => o.step === 'initialized')
        await new Promise((resolve) => setTimeout(resolve, 600)) // a few finished windows
        dumpReply = await new Promise((resolve) => {
          const on = (m) => {
            if (m && m.type === 'axm:reply' && m.data.action_name === 'cprof:dump') {
              v.child.off('message', on)
              resolve(m.data.return)
            }
          }
          v.child.on('message', on)
          v.child.send('cprof:dump')
        })
        v.child.send({ fixture: 'done' })
      }
    })
    assert.equal(dumpReply.ok, false, JSON.stringify(dumpReply))
    assertRefused(dumpReply, victimDir, why(victimDir))

    assert.deepEqual(tree(tmp), before, 'nothing was written into the planted directory')
  })
}

test('default dir: created 0700 and used when nobody planted it (the control case)', async () => {
  const tmp = sharedTmp()
  const { steps } = await victim('api', { tmpdir: tmp })
  const victimDir = path.join(tmp, `cprof-${users.victim.uid}`)
  const st = fs.lstatSync(victimDir)
  assert.ok(st.isDirectory())
  assert.equal(st.uid, users.victim.uid)
  assert.equal(st.mode & 0o7777, 0o700)
  for (const s of ['cpu', 'heap', 'snapshot']) {
    assert.ok(steps[s].ok, JSON.stringify(steps[s]))
    for (const file of Object.values(steps[s].files)) {
      assert.equal(path.dirname(file), victimDir)
      const f = fs.lstatSync(file)
      assert.ok(f.isFile())
      assert.equal(f.mode & 0o7777, 0o600)
      assert.equal(f.uid, users.victim.uid)
    }
  }
  assert.equal(tree(victimDir).length, 3, `no temp file or directory is left: ${tree(victimDir)}`)
})

// Every name cprof could predict for name 'victim' in a directory the
// victim chose and others can write: the final names of the profile, its
// derived formats and the snapshot, and the temp names earlier versions
// used. Half the links point at files the victim could write, half at
// names that do not exist yet (a write through them would create a file).
function plantNameTraps (dir, pid, decoys) {
  const names = ['victim.cpuprofile', 'victim.heapprofile', 'victim.heapsnapshot', 'victim.pb.gz',
    'victim.folded', 'victim.svg', 'victim.txt', 'victim.html', `.victim.heapsnapshot.${pid}.tmp`]
  const traps = []
  names.forEach((name, i) => {
    const target = path.join(decoys, `target-${i}`)
    if (i % 2 === 0) plantFile(target, `attacker's file ${i}\n`)
    plantSymlink(target, path.join(dir, name))
    traps.push({ name, target, existed: i % 2 === 0 })
  })
  return traps
}

for (const [kind, mode] of [['sticky, like /tmp', 0o1777], ['not sticky', 0o777]]) {
  test(`symlinks planted at every predictable name in a shared dir (${kind}) are never followed`, async () => {
    const tmp = sharedTmp()
    const decoys = path.join(tmp, 'decoys')
    plantDir(decoys)
    const shared = path.join(tmp, 'shared')
    fs.mkdirSync(shared)
    fs.chmodSync(shared, mode)
    let traps
    const { steps } = await victim('api', {
      tmpdir: tmp,
      opts: { dir: shared, name: 'victim', formats: ['pprof', 'folded', 'svg', 'txt', 'html'] },
      plant: (pid) => { traps = plantNameTraps(shared, pid, decoys) }
    })
    for (const t of traps) {
      if (t.existed) {
        assert.equal(fs.readFileSync(t.target, 'utf8'), `attacker's file ${traps.indexOf(t)}\n`, `${t.name}'s target is unchanged`)
      } else {
        assert.equal(fs.existsSync(t.target), false, `nothing was created through ${t.name}`)
      }
    }
    assert.deepEqual(tree(decoys).filter((n) => !/^target-\d+$/.test(n)), [])
    for (const s of ['cpu', 'heap', 'snapshot']) {
      const step = steps[s]
      if (mode === 0o777) {
        // Nothing stops the rename there: the link is replaced by the file.
        assert.ok(step.ok, JSON.stringify(step))
        if (s === 'cpu') assert.deepEqual(Object.keys(step.files).sort(), ['cpuprofile', 'folded', 'html', 'pprof', 'svg', 'txt'])
        for (const file of Object.values(step.files)) {
          const st = fs.lstatSync(file)
          assert.ok(st.isFile(), `${file} is the victim's regular file`)
          assert.equal(st.uid, users.victim.uid)
          assert.equal(st.mode & 0o777, 0o600)
        }
      } else if (step.error) {
        // The sticky bit forbids replacing another user's link: a refusal.
        assert.equal(step.error.code, 'ERR_CPROF_IO', JSON.stringify(step))
      }
    }
    // No temp file or private directory is left behind.
    assert.deepEqual(fs.readdirSync(shared).filter((n) => n.startsWith('.') && !traps.some((t) => t.name === n)), [])
  })
}

test('while a large heap snapshot is being written, another user cannot open it', async () => {
  const tmp = sharedTmp()
  const shared = path.join(tmp, 'shared') // a directory both users can write, like /tmp
  fs.mkdirSync(shared)
  fs.chmodSync(shared, 0o1777)
  const spy = runAs('attacker', 'security-attacker.js', [shared, 'big.heapsnapshot', '90000'], { tmpdir: tmp })
  await spy.line((o) => o.ready)
  const { steps } = await victim('bigsnapshot', { tmpdir: tmp, opts: { dir: shared, name: 'big', objects: 100000 } })
  const r = await spy.exited
  assert.equal(r.status, 0, r.describe())
  const report = r.json.find((o) => o.seen)
  assert.ok(steps.snapshot.ok, JSON.stringify(steps.snapshot))
  const file = steps.snapshot.files.heapsnapshot
  assert.equal(file, path.join(shared, 'big.heapsnapshot'))
  const st = fs.lstatSync(file)
  assert.equal(st.mode & 0o777, 0o600)
  assert.ok(st.size > 5e6, `a large snapshot: ${st.size} bytes`)
  // The attacker could neither open a file nor list the private directory
  // the snapshot was written in, which it saw: it watched the write.
  assert.deepEqual(report.opened, [], JSON.stringify(report))
  assert.deepEqual(report.listed, [], JSON.stringify(report))
  assert.ok(report.seen.some((n) => /^\.cprof-snapshot-[^/]+$/.test(n)),
    `the attacker saw the write in progress: ${JSON.stringify(report)}`)
  assert.ok(report.refused.EACCES > 0, JSON.stringify(report))
})

// The same checks without a second user, so they run for anyone: the
// default directory must be a real directory, private to its owner.
nodeTest('default dir that is a symlink, or writable by group or others: profiles, snapshots and recorder dumps refused in-process too', async () => {
  const saved = { TMPDIR: process.env.TMPDIR, CPROF_DIR: process.env.CPROF_DIR }
  const tmp = makeTmpDir('cprof-security-own-')
  process.env.TMPDIR = tmp // os.tmpdir() reads it at each call
  delete process.env.CPROF_DIR
  const own = path.join(tmp, `cprof-${process.geteuid()}`)
  const elsewhere = path.join(tmp, 'elsewhere')
  fs.mkdirSync(elsewhere, { mode: 0o700 })
  try {
    const cases = [
      ['is a symbolic link, not a directory', () => fs.symlinkSync(elsewhere, own)],
      ['can be written by other users (mode 0777)', () => { fs.mkdirSync(own); fs.chmodSync(own, 0o777) }],
      ['can be written by its group (mode 0770)', () => { fs.mkdirSync(own); fs.chmodSync(own, 0o770) }]
    ]
    for (const [why, plant] of cases) {
      fs.rmSync(own, { recursive: true, force: true })
      plant()
      const want = (err) => {
        assert.equal(err.code, 'ERR_CPROF_IO')
        assert.ok(err.message.startsWith(`refusing to write into ${own}: it ${why}`), err.message)
        return true
      }
      await assert.rejects(cprof.heap.snapshot(), want)
      await cprof.start({ formats: ['pprof'] })
      await assert.rejects(cprof.stop(), (err) => want(err) && err.result.samples >= 0)
      await cprof.heap.start()
      await assert.rejects(cprof.heap.stop(), want)
      cprof.recorder.start({ window: 100 })
      await new Promise((resolve) => setTimeout(resolve, 300))
      await assert.rejects(cprof.recorder.dump({ formats: ['pprof'] }), want)
      await cprof.recorder.stop()
      await assert.rejects(cprof.recorder.dump(), want) // the last dump after stop()
      assert.deepEqual(fs.readdirSync(own), [], `nothing written: ${why}`)
    }
    // Made private again: used as it is.
    fs.chmodSync(own, 0o700)
    const file = await cprof.heap.snapshot()
    assert.equal(path.dirname(file), own)
    const dump = await cprof.recorder.dump()
    assert.equal(path.dirname(dump.files.cpuprofile), own)
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
})

// The race lib/snapshot.js closes: in a shared directory that is not sticky,
// another user renames the fresh private directory away and puts a symlink
// to a directory of theirs at its name, between mkdtemp and the write. Done
// here from inside Node's writer call, so the moment is exact; no second
// user needed (the write would follow the link whoever planted it).
nodeTest('heap snapshot: its private directory swapped for a symlink just before the write: nothing goes through the link', {
  skip: process.platform !== 'linux' && 'the write goes through /proc/self/fd (Linux)'
}, async () => {
  const v8 = require('node:v8')
  const real = v8.writeHeapSnapshot
  const shared = makeTmpDir('cprof-security-swap-')
  fs.chmodSync(shared, 0o777)
  const theirs = makeTmpDir('cprof-security-theirs-')
  let used, moved, inTheirs
  v8.writeHeapSnapshot = function (file, ...rest) {
    used = file
    const priv = fs.readdirSync(shared).find((n) => n.startsWith('.cprof-snapshot-'))
    moved = path.join(shared, 'moved-away')
    fs.renameSync(path.join(shared, priv), moved)
    fs.symlinkSync(theirs, path.join(shared, priv))
    const r = real.call(this, file, ...rest)
    inTheirs = fs.readdirSync(theirs) // before cprof renames the file away
    return r
  }
  let file
  try {
    file = await cprof.heap.snapshot({ dir: shared, name: 'victim' })
  } finally {
    v8.writeHeapSnapshot = real
  }
  assert.deepEqual(inTheirs, [], 'nothing was written through the symlink')
  assert.deepEqual(fs.readdirSync(theirs), [])
  assert.match(used, /^\/proc\/self\/fd\/\d+\/victim\.heapsnapshot$/)
  assert.equal(file, path.join(shared, 'victim.heapsnapshot'))
  const st = fs.lstatSync(file)
  assert.ok(st.isFile())
  assert.equal(st.mode & 0o777, 0o600)
  const head = Buffer.alloc(12)
  const fd = fs.openSync(file, 'r')
  fs.readSync(fd, head, 0, 12, 0)
  fs.closeSync(fd)
  assert.equal(head.toString(), '{"snapshot":')
  assert.deepEqual(fs.readdirSync(moved), [], 'the renamed private directory holds no temp file')
  // The planted link is left alone (it is not ours), not followed to delete anything.
  assert.ok(fs.existsSync(theirs))
})

// A private run directory (<tmp>/cprof-<uid>/run) and, elsewhere, a file
// of the user's own (0644) that a planted link at a request's name points at.
function requestDirs (victimText) {
  const me = process.geteuid()
  const dir = path.join(makeTmpDir(), `cprof-${me}`, 'run')
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const victim = path.join(makeTmpDir(), 'victim.json')
  fs.writeFileSync(victim, victimText)
  fs.chmodSync(victim, 0o644)
  return { dumpRequest: require('../../../lib/triggers/dump-request.js'), me, dir, victim }
}

// The dump request (lib/triggers/dump-request.js): a file in the process's own run
// directory, checked on its descriptor by both sides. No second user
// needed: a planted symlink is never followed whoever planted it.
nodeTest('dump request (<run dir>/dump-<pid>.json): a symlink at its name is never written through nor read; a run directory not private is refused', {
  skip: process.platform !== 'linux' && 'the run directory is read through /proc/self/fd (Linux)'
}, () => {
  const { dumpRequest, me, dir, victim } = requestDirs('{"last": 5}\n')

  // `cprof trigger --dump --last`: the link is replaced by a new 0600 file.
  const file = path.join(dir, 'dump-12345.json')
  fs.symlinkSync(victim, file)
  assert.equal(dumpRequest.put(dir, 12345, 3000, me), file)
  assert.equal(fs.readFileSync(victim, 'utf8'), '{"last": 5}\n')
  const st = fs.lstatSync(file)
  assert.ok(st.isFile())
  assert.equal(st.mode & 0o777, 0o600)
  const written = JSON.parse(fs.readFileSync(file, 'utf8'))
  assert.equal(written.last, 3000)
  assert.ok(Math.abs(written.at - Date.now()) < 5000, 'it carries its creation time')
  assert.equal(dumpRequest.remove(dir, 12345, me), true, 'a request not taken is removed')
  assert.equal(dumpRequest.remove(dir, 12345, me), false)

  // The app side: a symlink at its name is refused, not read; the link
  // goes, the file it points at stays.
  const own = path.join(dir, `dump-${process.pid}.json`)
  fs.symlinkSync(victim, own)
  assert.throws(() => dumpRequest.take(dir, process.pid), { code: 'ERR_CPROF_INVALID_ARG', message: /refusing the dump request .*not a regular file/ })
  assert.equal(fs.existsSync(own), false)
  assert.equal(fs.readFileSync(victim, 'utf8'), '{"last": 5}\n')
  // A regular request of our own still works, and is taken.
  dumpRequest.put(dir, process.pid, 7000, me)
  assert.equal(dumpRequest.take(dir, process.pid), 7000)
  assert.equal(fs.existsSync(own), false)
  assert.equal(dumpRequest.take(dir, process.pid), undefined, 'no request: dump all')
  assert.deepEqual(fs.readdirSync(dir), [], 'no temp file is left')
  // One left by a CLI killed before it could remove it (issue 32): past
  // MAX_AGE_MS, or without its time (an older CLI's), the next plain dump
  // ignores and deletes it instead of dumping only that stale --last.
  dumpRequest.put(dir, process.pid, 2000, me)
  assert.equal(dumpRequest.take(dir, process.pid, Date.now() + dumpRequest.MAX_AGE_MS + 1000), undefined, 'stale: dump all')
  assert.equal(fs.existsSync(own), false, 'the stale request is deleted')
  fs.writeFileSync(own, '{"last": 2000}\n', { mode: 0o600 })
  assert.equal(dumpRequest.take(dir, process.pid), undefined, 'no creation time: stale')
  assert.equal(fs.existsSync(own), false)
  dumpRequest.put(dir, process.pid, 2000, me)
  assert.equal(dumpRequest.take(dir, process.pid, Date.now() + 1000), 2000, 'a second old: still good')

  // A run directory that is not private, or reached through a symlinked
  // cprof-<uid>, takes no request.
  fs.chmodSync(dir, 0o777)
  assert.throws(() => dumpRequest.put(dir, 12345, 1000, me), { code: 'ERR_CPROF_IO', message: /can be written by other users \(mode 0777\)/ })
  fs.chmodSync(dir, 0o700)
  const linked = path.join(makeTmpDir(), `cprof-${me}`)
  fs.symlinkSync(path.dirname(dir), linked)
  assert.throws(() => dumpRequest.put(path.join(linked, 'run'), 12345, 1000, me), { code: 'ERR_CPROF_IO', message: /is a symbolic link, not a directory/ })
  assert.deepEqual(fs.readdirSync(dir), [])
})

// Issue 29: the snapshot request (<run dir>/snapshot-<pid>.json), under the
// same rules as the dump's: a symlink at its name is neither written through
// nor read, a file of another user is refused, a pending fresh request of
// another CLI is not replaced (ERR_CPROF_BUSY), a stale one is.
nodeTest('snapshot request (<run dir>/snapshot-<pid>.json): a symlink or another user\'s file is refused; a pending one is not replaced', {
  skip: process.platform !== 'linux' && 'the run directory is read through /proc/self/fd (Linux)'
}, () => {
  const { dumpRequest, me, dir, victim } = requestDirs('{"id": "x"}\n')

  // The CLI side: a (dangling or not) link at the name is replaced, not followed.
  const file = path.join(dir, 'snapshot-12345.json')
  fs.symlinkSync(victim, file)
  const id = dumpRequest.putSnapshot(dir, 12345, me, '/var/tmp/snaps')
  assert.match(id, /^[0-9a-f]{16}$/)
  assert.equal(fs.readFileSync(victim, 'utf8'), '{"id": "x"}\n')
  const st = fs.lstatSync(file)
  assert.ok(st.isFile())
  assert.equal(st.mode & 0o777, 0o600)
  assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8'))).sort(), ['at', 'dir', 'id'])
  // A second CLI while that one waits, untaken: refused, the first kept.
  assert.throws(() => dumpRequest.putSnapshot(dir, 12345, me), { code: 'ERR_CPROF_BUSY', message: /another heap snapshot request/ })
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).id, id)
  // Only its own request: a CLI whose request the app took long ago leaves
  // a later CLI's request alone (a loaded run removed it and said "not taken").
  assert.equal(dumpRequest.removeSnapshot(dir, 12345, me, 'another-id'), false)
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).id, id)
  assert.equal(dumpRequest.removeSnapshot(dir, 12345, me, id), true)
  assert.equal(dumpRequest.removeSnapshot(dir, 12345, me, id), false)
  // A stale one (a CLI killed before it could remove it) is replaced.
  fs.writeFileSync(file, JSON.stringify({ id: 'old', at: Date.now() - dumpRequest.MAX_AGE_MS - 1000 }), { mode: 0o600 })
  const id2 = dumpRequest.putSnapshot(dir, 12345, me)
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).id, id2)
  dumpRequest.removeSnapshot(dir, 12345, me)

  // The app side: a symlink is refused, not read; the link goes, its target stays.
  const own = path.join(dir, `snapshot-${process.pid}.json`)
  fs.symlinkSync(victim, own)
  assert.throws(() => dumpRequest.takeSnapshot(dir, process.pid), { code: 'ERR_CPROF_INVALID_ARG', message: /refusing the snapshot request .*not a regular file/ })
  assert.equal(fs.existsSync(own), false)
  assert.equal(fs.readFileSync(victim, 'utf8'), '{"id": "x"}\n')
  // Another user's file (root can make one): refused, deleted.
  if (me === 0) {
    fs.writeFileSync(own, JSON.stringify({ id: 'theirs', at: Date.now() }), { mode: 0o600 })
    fs.chownSync(own, 65534, 65534)
    assert.throws(() => dumpRequest.takeSnapshot(dir, process.pid), { code: 'ERR_CPROF_INVALID_ARG', message: /not a regular file of this process's user/ })
    assert.equal(fs.existsSync(own), false)
  }
  // A dir that is not absolute is refused; a good request is taken once.
  fs.writeFileSync(own, JSON.stringify({ id: 'rel', dir: 'elsewhere', at: Date.now() }), { mode: 0o600 })
  assert.throws(() => dumpRequest.takeSnapshot(dir, process.pid), { code: 'ERR_CPROF_INVALID_ARG', message: /"dir" must be an absolute path/ })
  const mine = dumpRequest.putSnapshot(dir, process.pid, me, '/var/tmp/snaps')
  assert.deepEqual(dumpRequest.takeSnapshot(dir, process.pid), { id: mine, dir: '/var/tmp/snaps' })
  assert.equal(dumpRequest.takeSnapshot(dir, process.pid), undefined, 'taken: gone')
  dumpRequest.putSnapshot(dir, process.pid, me)
  assert.equal(dumpRequest.takeSnapshot(dir, process.pid, Date.now() + dumpRequest.MAX_AGE_MS + 1000), undefined, 'stale: ignored')
  assert.deepEqual(fs.readdirSync(dir), [], 'no temp file is left')

  // A run directory that is not private takes no request.
  fs.chmodSync(dir, 0o777)
  assert.throws(() => dumpRequest.putSnapshot(dir, 12345, me), { code: 'ERR_CPROF_IO', message: /can be written by other users \(mode 0777\)/ })
  fs.chmodSync(dir, 0o700)
})

// ---- Issue 32: root's `cprof trigger` against other users' processes ----

const CLI = path.join(ROOT, 'bin', 'cprof.js')

// The CLI as root (this process's user), or as a throwaway user (role) from the copy.
function cli (args, { env = {}, role } = {}) {
  const u = role && users[role]
  const e = childEnv({ CPROF_RUN_DIR: undefined, XDG_RUNTIME_DIR: undefined, CPROF_DIR: undefined, ...env })
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [u ? path.join(pkg, 'bin', 'cprof.js') : CLI, ...args],
      { env: e, cwd: base, stdio: ['ignore', 'pipe', 'pipe'], ...(u ? { uid: u.uid, gid: u.gid } : {}) })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => { stdout += d })
    c.stderr.on('data', (d) => { stderr += d })
    c.on('close', (status) => resolve({ status, stdout, stderr, describe: () => `cprof ${args.join(' ')}: status=${status}\n${stdout}\n${stderr}` }))
  })
}

// A Node process of role that catches SIGUSR2 (as cprof's trigger would)
// and says so on stdout: what a signal sent to it did.
async function listener (role, env = {}) {
  const u = users[role]
  const src = "process.on('SIGUSR2', () => console.log('got SIGUSR2')); console.log('ready'); setInterval(() => {}, 1000)"
  const child = spawn(process.execPath, ['-e', src], { uid: u.uid, gid: u.gid, cwd: base, env: childEnv(env), stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  await new Promise((resolve) => { const on = () => { if (out.includes('ready')) { child.stdout.off('data', on); resolve() } }; child.stdout.on('data', on) })
  const exited = new Promise((resolve) => child.on('close', (status, signal) => resolve({ status, signal })))
  return { child, out: () => out, exited }
}

function startTimeOf (pid) {
  const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[22 - 3]
}

// An entry as lib/fleet/announce.js writes it, for process pid, naming
// signal; extra: fields added or replaced.
function entryFor (pid, app, signal, extra = {}) {
  return JSON.stringify({
    v: 1, pid, ppid: 1, startTime: startTimeOf(pid), app, role: null, instance: null,
    triggers: { cpu: true, heap: false, signal, heapSignal: null, recorder: false, dumpSignal: null },
    running: { cpu: null, heap: null }, last: { cpu: null, heap: null, dump: null }, updated: Date.now(), ...extra
  })
}

// A root-owned directory of this test's own (the stand-in for one only root can write).
let rootCount = 0
function rootDir (...parts) {
  const dir = path.join(base, `root${rootCount++}`, ...parts)
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}

test('issue 32: another user plants <tmpdir>/cprof-0 as a symlink: root\'s cprof ps and trigger --app refuse it, the SIGKILL its entry names is never sent', async () => {
  const tmp = sharedTmp()
  // The symlink points at a directory whose run/ passes a by-path check of
  // the last component (root's, 0700): the stand-in for /run, or for the
  // moment the attacker flips the link between check and read.
  const decoy = rootDir('run')
  const target = await listener('victim')
  fs.writeFileSync(path.join(decoy, `${target.child.pid}.json`), entryFor(target.child.pid, 'planted32', 'SIGKILL'), { mode: 0o600 })
  const link = path.join(tmp, 'cprof-0')
  plantSymlink(path.dirname(decoy), link)
  try {
    const ps = await cli(['ps', '--app', 'planted32'], { env: { TMPDIR: tmp } })
    assert.equal(ps.status, 0, ps.describe())
    assert.ok(ps.stderr.includes(`ignoring ${link}: it is a symbolic link, not a directory`), ps.describe())
    assert.doesNotMatch(ps.stdout, /planted32/)
    const t = await cli(['trigger', '--app', 'planted32'], { env: { TMPDIR: tmp } })
    assert.equal(t.status, 1, t.describe())
    assert.match(t.stderr, /no process of app "planted32" runs cprof/)
    await sleep(300)
    assert.deepEqual([target.child.exitCode, target.child.signalCode], [null, null], 'the victim\'s process survives')
  } finally {
    target.child.kill('SIGKILL')
    await target.exited
  }
})

test('issue 32: in root\'s own run directory, an entry another user owns is not trusted, one naming SIGKILL is not sent; one of the process\'s own user is', async () => {
  const dir = rootDir('cprof-0', 'run')
  const env = { CPROF_RUN_DIR: dir }
  const a = await listener('victim') // named by an entry the attacker owns
  const b = await listener('victim') // named by root's own entry, with SIGKILL
  const entryA = path.join(dir, `${a.child.pid}.json`)
  try {
    fs.writeFileSync(entryA, entryFor(a.child.pid, 'owned32', 'SIGUSR2'), { mode: 0o600 })
    fs.chownSync(entryA, users.attacker.uid, users.attacker.gid)
    fs.writeFileSync(path.join(dir, `${b.child.pid}.json`), entryFor(b.child.pid, 'owned32', 'SIGKILL'), { mode: 0o600 })
    const t = await cli(['trigger', '--app', 'owned32'], { env })
    assert.equal(t.status, 1, t.describe())
    assert.ok(t.stderr.includes(`ignoring ${entryA}: it is owned by another user (uid ${users.attacker.uid}, you are uid 0)`), t.describe())
    assert.match(t.stderr, new RegExp(`process ${b.child.pid} was not signalled: its announced signal: SIGKILL cannot be a cprof trigger`))
    await sleep(300)
    assert.equal(a.out(), 'ready\n', 'the attacker\'s entry sent nothing')
    assert.deepEqual([b.child.exitCode, b.child.signalCode], [null, null], 'the SIGKILL entry\'s process survives')

    // The same entry owned by the user the process runs as: root trusts it.
    fs.chownSync(entryA, users.victim.uid, users.victim.gid)
    fs.rmSync(path.join(dir, `${b.child.pid}.json`))
    const ok = await cli(['trigger', '--app', 'owned32'], { env })
    assert.equal(ok.status, 0, ok.describe())
    const end = Date.now() + 10000
    while (!a.out().includes('got SIGUSR2') && Date.now() < end) await sleep(50)
    assert.equal(a.out(), 'ready\ngot SIGUSR2\n')
  } finally {
    for (const p of [a, b]) p.child.kill('SIGKILL')
    await Promise.all([a.exited, b.exited])
  }
})

// The victim's app with the flight recorder (fixture mode serve), its
// TMPDIR tmp; stop() ends it and returns its result.
async function recorderApp (tmp, plant = () => {}, opts = {}) {
  const v = runAs('victim', 'security-victim.js', ['serve', JSON.stringify(opts)], { tmpdir: tmp })
  const { pid } = await v.line((o) => o.ready)
  plant(pid)
  v.child.stdin.write('go\n')
  await v.line((o) => o.step === 'initialized')
  return {
    pid,
    async stop () {
      v.child.stdin.end()
      const r = await v.exited
      assert.equal(r.status, 0, r.describe())
      return r
    }
  }
}

// The run directory's names once no atomic write is under way: the app
// rewrites its <pid>.json (a temp file renamed into place) as it records,
// so a temp name may be seen for a moment; one still there after 10 s is
// a leftover, and the assertion sees it.
async function runFiles (runDir) {
  for (let i = 0; i < 100; i++) {
    const names = fs.readdirSync(runDir)
    if (!names.some((n) => n.endsWith('.tmp'))) return names
    await sleep(100)
  }
  return fs.readdirSync(runDir)
}

// The recording a --dump --last CLI run says it wrote: its span (ms) and owner.
function dumpSaid (r, seconds) {
  const m = new RegExp(`its flight recorder wrote the last ${seconds} s \\(([\\d.]+) s of recording in whole windows\\): (\\S+)$`, 'm').exec(r.stdout)
  assert.ok(m, r.describe())
  const prof = JSON.parse(fs.readFileSync(m[2], 'utf8'))
  return { file: m[2], spanMs: (prof.endTime - prof.startTime) / 1000, uid: fs.statSync(m[2]).uid }
}

test('issue 32: root\'s trigger <pid of another user> --dump --last 1 gets the last second; no file is left that blocks the owner; a request planted at the old name changes nothing', async () => {
  const tmp = sharedTmp()
  let planted
  const app = await recorderApp(tmp, (pid) => {
    // What any local user could plant where earlier versions put the request.
    planted = path.join(tmp, `cprof-dump-${pid}.json`)
    plantFile(planted, '{"last": 60000}\n')
  })
  try {
    await sleep(3000) // 3 s recorded: "all it holds" would be about that
    const r = await cli(['trigger', String(app.pid), '--dump', '--last', '1'], { env: { TMPDIR: tmp } })
    assert.equal(r.status, 0, r.describe())
    const d = dumpSaid(r, 1)
    assert.ok(d.spanMs >= 900 && d.spanMs < 2000, `the last 1 s in 250 ms windows, not all 3 s: ${d.spanMs} ms`)
    assert.equal(d.uid, users.victim.uid)
    const runDir = path.join(tmp, `cprof-${users.victim.uid}`, 'run')
    assert.deepEqual(await runFiles(runDir), [`${app.pid}.json`], 'the request was taken, nothing is left')

    // The owner's own --last right after works (no leftover blocks it).
    const own = await cli(['trigger', String(app.pid), '--dump', '--last', '1'], { role: 'victim', env: { TMPDIR: tmp } })
    assert.equal(own.status, 0, own.describe())
    const o = dumpSaid(own, 1)
    assert.ok(o.spanMs < 2000, `${o.spanMs} ms`)
    assert.deepEqual(await runFiles(runDir), [`${app.pid}.json`])
    // Another user cannot pass one (nor signal the process).
    const other = await cli(['trigger', String(app.pid), '--dump', '--last', '1'], { role: 'attacker', env: { TMPDIR: tmp } })
    assert.equal(other.status, 1, other.describe())
    assert.match(other.stderr, new RegExp(`cannot signal process ${app.pid}: not permitted \\(it runs as uid ${users.victim.uid}`))
    assert.deepEqual(await runFiles(runDir), [`${app.pid}.json`])
    // The planted file was neither read nor removed.
    assert.equal(fs.readFileSync(planted, 'utf8'), '{"last": 60000}\n')
    assert.equal(fs.lstatSync(planted).uid, users.attacker.uid)
  } finally {
    const r = await app.stop()
    assert.deepEqual(r.json.find((x) => x.step === 'errors').errors, [], 'the app reported no error')
  }
})

// init({ dumpSignal }) in code is in the process's entry only, not in its
// environment: root reads it from the owner's run directory.
test('issue 32: root\'s --dump and --dump --last to another user\'s process send the dump signal it announced (SIGURG set in code), not SIGUSR2', async () => {
  const tmp = sharedTmp()
  const app = await recorderApp(tmp, () => {}, { init: { recorder: { window: 250 }, dumpSignal: 'SIGURG' } })
  try {
    await sleep(1500)
    const r = await cli(['trigger', String(app.pid), '--dump', '--last', '1'], { env: { TMPDIR: tmp } })
    assert.equal(r.status, 0, r.describe())
    assert.match(r.stdout, new RegExp(`^sent SIGURG to ${app.pid}: its flight recorder wrote the last 1 s`))
    assert.equal(dumpSaid(r, 1).uid, users.victim.uid)
    const all = await cli(['trigger', String(app.pid), '--dump'], { env: { TMPDIR: tmp } })
    assert.equal(all.status, 0, all.describe())
    assert.match(all.stdout, new RegExp(`^sent SIGURG to ${app.pid}: its flight recorder writes all it holds`))
  } finally {
    const r = await app.stop()
    assert.deepEqual(r.json.find((x) => x.step === 'errors').errors, [], 'the app reported no error')
  }
})

test('issue 32: --dump --last to a process whose run directory was planted fails truthfully and sends nothing', async () => {
  const tmp = sharedTmp()
  plantDir(path.join(tmp, `cprof-${users.victim.uid}`)) // so the victim cannot announce itself
  const app = await recorderApp(tmp)
  let r
  try {
    await sleep(600)
    r = await cli(['trigger', String(app.pid), '--dump', '--last', '1'], { env: { TMPDIR: tmp } })
  } finally {
    await app.stop()
  }
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, new RegExp(`cannot pass --last to process ${app.pid}: it has no entry in a run directory of its user.*Nothing was sent`))
  assert.equal(r.stdout, '')
  assert.deepEqual(fs.readdirSync(path.join(tmp, `cprof-${users.victim.uid}`)), [], 'nothing was written into the planted directory')
})

// cprof ui with no directory (issue 32): the default directory is checked as
// the writers check it, so the victim's dashboard never serves a directory
// the attacker planted (with profiles of theirs in it).
for (const [how, { plant, why }] of Object.entries(PLANTS)) {
  test(`cprof ui with no dir: the default dir planted as ${how} is refused, nothing is served`, async () => {
    const tmp = sharedTmp()
    const victimDir = path.join(tmp, `cprof-${users.victim.uid}`)
    plant(victimDir, tmp)
    const theirs = fs.realpathSync(victimDir)
    plantFile(path.join(theirs, 'cpu-1-20260101T000000.000Z.cpuprofile'), fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'small.cpuprofile'), 'utf8'))
    const before = tree(tmp)
    const script = path.join(pkg, 'ui-victim.js')
    fs.writeFileSync(script, "require('./lib/cli/ui.js').run(process.argv.slice(2)).then((c) => { process.exitCode = c })\n")
    fs.chmodSync(script, 0o644)
    const child = spawn(process.execPath, [script], {
      uid: users.victim.uid,
      gid: users.victim.gid,
      cwd: tmp,
      env: childEnv({ TMPDIR: tmp, HOME: tmp, CPROF_DIR: undefined, CPROF_RUN_DIR: path.join(tmp, 'no-run') }),
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d
      if (/^http:/m.test(stdout)) child.kill('SIGINT') // served: the failure below says so
    })
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
    const killer = setTimeout(() => child.kill('SIGKILL'), 60000)
    const code = await new Promise((resolve) => child.on('close', resolve))
    clearTimeout(killer)
    assert.equal(stdout, '', 'nothing served')
    assert.equal(code, 1, stderr)
    assert.ok(stderr.startsWith(`cprof ui: ERR_CPROF_IO: refusing to serve ${victimDir}: it ${why(victimDir)}, `), stderr)
    assert.deepEqual(tree(tmp), before, 'nothing was written into the planted directory')
  })
}

// Issue 32, item 1: an interrupted `cprof attach` left the target's
// inspector open for good, and another local user connected and ran code
// as the target's user. The victim runs a plain node server and attaches
// to it; the attacker tries the inspector port while it is attached (it
// can: the documented window) and after the victim's attach was killed
// with SIGKILL, when it must find nothing listening.
const TARGET_JS = `require('node:http').createServer((q, s) => s.end('ok'))
  .listen(0, '127.0.0.1', function () { console.log(JSON.stringify({ port: this.address().port })) })
`
// node attach-intruder.js <port>: { ran: uid } if it ran code through the
// inspector there, else { refused: code }.
const INTRUDER_JS = `const http = require('node:http')
const WebSocket = require('ws')
const port = Number(process.argv[2])
const say = (o) => { console.log(JSON.stringify(o)); process.exit(0) }
http.get({ host: '127.0.0.1', port, path: '/json/list' }, (res) => {
  let body = ''
  res.on('data', (d) => { body += d }).on('end', () => {
    const ws = new WebSocket(JSON.parse(body)[0].webSocketDebuggerUrl)
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: 'process.getuid()' } })))
    ws.on('message', (m) => say({ ran: JSON.parse(m).result.result.value }))
    ws.on('error', (e) => say({ refused: e.code || e.message }))
  })
}).on('error', (e) => say({ refused: e.code }))
`

function spawnAs (role, args, cwd) {
  const u = users[role]
  const child = spawn(process.execPath, args, {
    uid: u.uid, gid: u.gid, cwd, env: childEnv({ TMPDIR: cwd, HOME: cwd, CPROF_DIR: undefined }), stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const killer = setTimeout(() => child.kill('SIGKILL'), 100000)
  const exited = new Promise((resolve) => child.on('close', (status) => { clearTimeout(killer); resolve(status) }))
  const until = async (re, ms = 30000) => {
    const end = Date.now() + ms
    while (Date.now() < end) {
      const m = re.exec(re === STDOUT_PORT ? stdout : stderr)
      if (m) return m
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`no ${re} in ${ms} ms\n--- stdout\n${stdout}\n--- stderr\n${stderr}`)
  }
  return { child, exited, until }
}
const STDOUT_PORT = /\{"port":(\d+)\}/

function inspectorListens (port) {
  return ['/proc/net/tcp', '/proc/net/tcp6'].some((f) => fs.readFileSync(f, 'utf8').split('\n').slice(1)
    .some((l) => { const c = l.trim().split(/\s+/); return c[3] === '0A' && parseInt(c[1].split(':')[1], 16) === port }))
}

test('cprof attach killed with SIGKILL: another user can no longer reach the target\'s inspector and run code as its user', async () => {
  const tmp = sharedTmp()
  for (const [name, text] of [['attach-target.js', TARGET_JS], ['attach-intruder.js', INTRUDER_JS]]) fs.writeFileSync(path.join(pkg, name), text)
  sys('chmod', ['-R', 'a+rX', pkg])
  const out = path.join(tmp, 'victim-out')
  fs.mkdirSync(out, { mode: 0o700 })
  fs.chownSync(out, users.victim.uid, users.victim.gid)
  const inspectPort = await new Promise((resolve) => {
    const s = require('node:net').createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
  const target = spawnAs('victim', [`--inspect-port=${inspectPort}`, path.join(pkg, 'attach-target.js')], tmp)
  try {
    await target.until(STDOUT_PORT)
    const attach = spawnAs('victim', [path.join(pkg, 'bin', 'cprof.js'), 'attach', String(target.child.pid), '--duration', '30', '--dir', out], tmp)
    await attach.until(/inspector is open on 127\.0\.0\.1:\d+/)
    const intrude = () => {
      const r = sys(process.execPath, [path.join(pkg, 'attach-intruder.js'), String(inspectPort)], {
        uid: users.attacker.uid, gid: users.attacker.gid, cwd: tmp, encoding: 'utf8', timeout: 30000
      })
      return JSON.parse(r.stdout.trim().split('\n').pop() || '{}')
    }
    // While attached the port is open to any local user: the documented window.
    assert.deepEqual(intrude(), { ran: users.victim.uid })
    attach.child.kill('SIGKILL')
    await attach.exited
    const end = Date.now() + 10000
    while (inspectorListens(inspectPort) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(inspectorListens(inspectPort), false, 'the inspector still listens 10 s after cprof attach was killed')
    assert.deepEqual(intrude(), { refused: 'ECONNREFUSED' })
  } finally {
    target.child.kill('SIGKILL')
    await target.exited
  }
})

// Issue 36, item 1: `node --inspect-port 0.0.0.0:P app.js` (the value as
// the next argument) was not seen as configured off loopback: attach sent
// SIGUSR1, waited on 127.0.0.1:9229, gave up, and nothing closed the
// inspector open on every interface: another user ran code as the victim.
test('issue 36: --inspect-port 0.0.0.0:P (space form): the victim\'s attach refuses before the signal, the attacker finds nothing to connect to', async () => {
  const tmp = sharedTmp()
  for (const [name, text] of [['attach-target.js', TARGET_JS], ['attach-intruder.js', INTRUDER_JS]]) fs.writeFileSync(path.join(pkg, name), text)
  sys('chmod', ['-R', 'a+rX', pkg])
  const out = path.join(tmp, 'victim-out')
  fs.mkdirSync(out, { mode: 0o700 })
  fs.chownSync(out, users.victim.uid, users.victim.gid)
  const inspectPort = await new Promise((resolve) => {
    const s = require('node:net').createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
  const target = spawnAs('victim', ['--inspect-port', `0.0.0.0:${inspectPort}`, path.join(pkg, 'attach-target.js')], tmp)
  try {
    await target.until(STDOUT_PORT)
    const r = await cli(['attach', String(target.child.pid), '--duration', '1', '--wait', '2', '--dir', out], { role: 'victim' })
    await sleep(500)
    const intrude = sys(process.execPath, [path.join(pkg, 'attach-intruder.js'), String(inspectPort)], {
      uid: users.attacker.uid, gid: users.attacker.gid, cwd: tmp, encoding: 'utf8', timeout: 30000
    })
    assert.deepEqual(JSON.parse(intrude.stdout.trim().split('\n').pop() || '{}'), { refused: 'ECONNREFUSED' }, r.describe())
    assert.equal(inspectorListens(inspectPort), false, 'the inspector opened')
    assert.equal(r.status, 1, r.describe())
    assert.ok(r.stderr.includes(`inspector is configured to open on 0.0.0.0:${inspectPort}, every interface`), r.describe())
  } finally {
    target.child.kill('SIGKILL')
    await target.exited
  }
})

// Another user's process: its fds (and so its sockets) cannot be read;
// attach says so, and what to do, instead of "not Node.js".
test('issue 36: cprof attach to another user\'s node process: ERR_CPROF_ATTACH naming the permission and what to do, nothing sent', async () => {
  const tmp = sharedTmp()
  fs.writeFileSync(path.join(pkg, 'attach-target.js'), TARGET_JS)
  sys('chmod', ['-R', 'a+rX', pkg])
  const target = spawnAs('victim', [path.join(pkg, 'attach-target.js')], tmp)
  try {
    await target.until(STDOUT_PORT)
    const r = await cli(['attach', String(target.child.pid), '--duration', '1', '--wait', '2'], { role: 'attacker', env: { TMPDIR: tmp } })
    assert.equal(r.status, 1, r.describe())
    assert.match(r.stderr, new RegExp(`ERR_CPROF_ATTACH: cannot read /proc/${target.child.pid}/\\S+ \\((EACCES|EPERM)\\): process ` +
      `${target.child.pid} runs as uid ${users.victim.uid}, you are uid ${users.attacker.uid}.*Nothing was sent\\. ` +
      'Run cprof attach as that user \\(or as root\\)'))
    assert.equal(target.child.exitCode, null)
  } finally {
    target.child.kill('SIGKILL')
    await target.exited
  }
})

// ---- Issue 36: bounded reads and clear errors ----

// A recorder's heap trend as an entry announces it (status().heap.trend), one growing site.
function trendFor (since) {
  const at = Date.now()
  return {
    running: true, windows: 10, from: at - 5000, to: at,
    heapTrend: {
      growing: true, windows: 10, from: at - 5000, to: at, live: 4 << 20, perMinute: 2 << 20, since: at - 5000, sites: 3, growingSites: 1,
      top: [{ functionName: 'grow36', url: '/srv/app.js', line: 7, live: 3 << 20, perMinute: 2 << 20, since, share: 0.9 }]
    }
  }
}

test('issue 36: a run-directory entry over 256 KiB, planted by the process\'s owner, is not read: root\'s trigger --dump --last, leaks and the owner\'s ps skip it with one line', async () => {
  const dir = path.join(base, `run36-${tmpCount++}`)
  fs.mkdirSync(dir, { mode: 0o700 })
  fs.chownSync(dir, users.victim.uid, users.victim.gid)
  const p = await listener('victim', { CPROF_RUN_DIR: dir })
  const entry = path.join(dir, `${p.child.pid}.json`)
  try {
    // Valid JSON, every field right, the recorder said to run: only its size is wrong.
    const body = entryFor(p.child.pid, 'big36', 'SIGUSR2', { recorder: { running: true, windows: 3 }, pad: 'x'.repeat(2 << 20) })
    fs.writeFileSync(entry, body, { mode: 0o600 })
    fs.chownSync(entry, users.victim.uid, users.victim.gid)
    const line = `ignoring ${entry}: it is ${Buffer.byteLength(body)} bytes, more than the 262144 an entry can be`
    const t = await cli(['trigger', String(p.child.pid), '--dump', '--last', '1'])
    assert.equal(t.status, 1, t.describe())
    assert.ok(t.stderr.includes(line), t.describe())
    assert.match(t.stderr, new RegExp(`cannot pass --last to process ${p.child.pid}: it has no entry`))
    const l = await cli(['leaks', String(p.child.pid)])
    assert.equal(l.status, 1, l.describe())
    assert.ok(l.stderr.includes(line), l.describe())
    const ps = await cli(['ps', '--app', 'big36'], { role: 'victim', env: { CPROF_RUN_DIR: dir } })
    assert.equal(ps.status, 0, ps.describe())
    assert.ok(ps.stderr.includes(line), ps.describe())
    assert.doesNotMatch(ps.stdout, /big36/)
    assert.ok(fs.existsSync(entry), 'the live process\'s entry is skipped, not pruned')
    await sleep(300)
    assert.equal(p.out(), 'ready\n', 'nothing was sent')
  } finally {
    p.child.kill('SIGKILL')
    await p.exited
  }
})

test('issue 36: an entry field of the wrong type (since: "x") is skipped and named by leaks and ps; the other instance is printed', async () => {
  const dir = rootDir('cprof-0', 'run')
  const env = { CPROF_RUN_DIR: dir }
  const a = await listener('victim')
  const b = await listener('victim')
  const entryB = path.join(dir, `${b.child.pid}.json`)
  try {
    fs.writeFileSync(path.join(dir, `${a.child.pid}.json`), entryFor(a.child.pid, 'typed36', 'SIGUSR2', { recorder: trendFor(Date.now() - 5000) }), { mode: 0o600 })
    fs.writeFileSync(entryB, entryFor(b.child.pid, 'typed36', 'SIGUSR2', { recorder: trendFor('x') }), { mode: 0o600 })
    const line = `ignoring ${entryB}: its field recorder.heapTrend.top[0].since has the wrong type`
    const app = await cli(['leaks', '--app', 'typed36'], { env })
    assert.equal(app.status, 0, app.describe())
    assert.ok(app.stderr.includes(line), app.describe())
    assert.match(app.stdout, new RegExp(`^pid ${a.child.pid} \\(typed36\\): live heap 4\\.0 MiB, growing`))
    assert.match(app.stdout, /grow36 \/srv\/app\.js:7/)
    assert.doesNotMatch(app.stdout, new RegExp(`pid ${b.child.pid}`))
    const one = await cli(['leaks', String(b.child.pid)], { env })
    assert.equal(one.status, 1, one.describe())
    assert.ok(one.stderr.includes(line), one.describe())
    assert.match(one.stderr, new RegExp(`process ${b.child.pid}'s run-directory entry cannot be used`))
    const ps = await cli(['ps', '--app', 'typed36'], { env })
    assert.equal(ps.status, 0, ps.describe())
    assert.ok(ps.stderr.includes(line), ps.describe())
    assert.match(ps.stdout, new RegExp(`\\n *${a.child.pid} `))
    assert.doesNotMatch(ps.stdout, new RegExp(`\\n *${b.child.pid} `))
  } finally {
    for (const p of [a, b]) p.child.kill('SIGKILL')
    await Promise.all([a.exited, b.exited])
  }
})

test('issue 36: root\'s cprof leaks <pid of another user> reads the owner\'s run directory; a process running recorder.start({ heap: true }) without init() is told apart', async () => {
  const tmp = sharedTmp()
  const app = await recorderApp(tmp, () => {}, { init: { recorder: { window: 250, heap: true, heapWindow: 250 } } })
  const bare = await recorderApp(sharedTmp(), () => {}, { recorderOnly: { window: 250, heap: true, heapWindow: 250 } })
  try {
    let r
    // The entry carries a trend once the recorder has heap windows: wait for those, not for a time.
    for (const end = Date.now() + 60000; Date.now() < end;) {
      r = await cli(['leaks', String(app.pid)], { env: { TMPDIR: tmp } })
      if (r.status === 0) break
      assert.doesNotMatch(r.stderr, /does not run cprof/, r.describe())
      await sleep(300)
    }
    assert.equal(r.status, 0, r.describe())
    assert.match(r.stdout, new RegExp(`^pid ${app.pid} \\(.*\\): live heap `), r.describe())
    const n = await cli(['leaks', String(bare.pid)])
    assert.equal(n.status, 1, n.describe())
    assert.match(n.stderr, new RegExp(`process ${bare.pid} has cprof loaded but no run-directory entry: it uses cprof .* without cprof\\.init\\(\\)`), n.describe())
    assert.match(n.stderr, /Call cprof\.init\(\) in it/)
  } finally {
    await app.stop()
    await bare.stop()
  }
})

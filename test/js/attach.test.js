'use strict'

// cprof attach, for real: a plain `node` running examples/server.js (no
// cprof loaded) under HTTP load is attached to through SIGUSR1 and its
// inspector; afterwards its inspector port must be closed again (checked in
// /proc/net/tcp directly), the server must still answer, and it must end on
// its own with the exit code it sets. And the refusals, where nothing may be
// sent: not node, an inspector already open.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const net = require('node:net')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

const { ROOT, FIXTURES, makeTmpDir, removeTmpDirs, childEnv } = require('./helpers/util.js')

const CLI = path.join(ROOT, 'bin', 'cprof.js')
const servers = []
// A failed test must not leave its server running (its pipes would keep
// this file, and the runner, waiting).
after(() => {
  for (const c of servers) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  removeTmpDirs()
})

function freePort () {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

// Ports in TCP_LISTEN state (0A), from /proc/net/tcp{,6}: independent of lib/fleet/procfs.js.
function listening (port) {
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = ''
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const c = line.trim().split(/\s+/)
      if (c[3] === '0A' && parseInt(c[1].split(':')[1], 16) === port) return true
    }
  }
  return false
}

function startServer (nodeArgs, appArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, path.join(FIXTURES, 'attach-server.js'), ...appArgs], {
    env: childEnv(), stdio: ['ignore', 'pipe', 'pipe']
  })
  servers.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const exited = new Promise((resolve) => child.on('close', (status, signal) => resolve({ status, signal })))
  const port = new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 15000)
    child.stdout.on('data', () => {
      const m = /\{"port":(\d+)\}/.exec(stdout)
      if (m) {
        clearTimeout(t)
        resolve(Number(m[1]))
      }
    })
  })
  return { child, exited, port, out: () => stdout, err: () => stderr }
}

function get (port, p) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
    }).on('error', reject)
  })
}

// Keeps /hash busy until stopped: the hot route.
function load (port) {
  let on = true
  const loop = async () => {
    while (on) await get(port, '/hash').catch(() => {})
  }
  const runs = [loop(), loop()]
  return async () => {
    on = false
    await Promise.all(runs)
  }
}

function cprof (args, timeout = 60000, env = {}) {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => { stdout += d })
    c.stderr.on('data', (d) => { stderr += d })
    const t = setTimeout(() => c.kill(), timeout)
    c.on('close', (status) => {
      clearTimeout(t)
      resolve({ status, stdout, stderr, describe: () => `status=${status}\n${stdout}\n${stderr}` })
    })
  })
}

test('attach profiles a plain node server under load: the hot route on top, the port closed after, the app unchanged', { timeout: 90000 }, async () => {
  const inspectPort = await freePort()
  const srv = startServer([`--inspect-port=${inspectPort}`])
  const port = await srv.port
  const stop = load(port)
  const dir = makeTmpDir()
  const r = await cprof(['attach', String(srv.child.pid), '--duration', '2', '--interval', '1000', '--dir', dir, '--formats', 'pprof', '--json'])
  await stop()
  assert.equal(r.status, 0, r.describe())
  const res = JSON.parse(r.stdout)
  assert.equal(res.port, inspectPort)
  assert.equal(res.closed, true)
  assert.equal(res.kind, 'cpu')
  assert.ok(res.samples > 100, r.describe())
  // The /hash route's work on top: hashPayload, or handleRequest when V8
  // had already inlined hashPayload into it before the profile started
  // (a profile started in a running process can show that; docs/api.md).
  const named = res.summary.top.filter((f) => !f.functionName.startsWith('('))
  assert.ok(['hashPayload', 'handleRequest'].includes(named[0].functionName), r.describe())
  assert.match(named[0].url, /examples\/server\.js$/)
  // Real files: the .cpuprofile parses as V8's format; the pprof is gzip'd.
  const [cpuprofile, pprof] = res.files
  assert.match(path.basename(cpuprofile), new RegExp(`^cpu-${srv.child.pid}-\\d{8}T\\d{6}\\.\\d{3}Z\\.cpuprofile$`))
  assert.equal(fs.statSync(cpuprofile).mode & 0o777, 0o600)
  const profile = JSON.parse(fs.readFileSync(cpuprofile, 'utf8'))
  assert.ok(Array.isArray(profile.nodes) && profile.samples.length === res.samples)
  assert.deepEqual([...fs.readFileSync(pprof).subarray(0, 2)], [0x1f, 0x8b])
  // The inspector port is closed again, the server still serves, and ends as it would have.
  assert.equal(listening(inspectPort), false, `port ${inspectPort} still listens`)
  assert.equal(await get(port, '/'), 200)
  await get(port, '/quit')
  const end = await srv.exited
  assert.deepEqual(end, { status: 3, signal: null }, srv.err())
})

test('attach --heap: a heap sampling profile of the running process', { timeout: 60000 }, async () => {
  const inspectPort = await freePort()
  const srv = startServer([`--inspect-port=${inspectPort}`])
  const port = await srv.port
  const stop = load(port)
  const dir = makeTmpDir()
  const r = await cprof(['attach', String(srv.child.pid), '--heap', '--duration', '1', '--interval', '4096', '--dir', dir, '--json'])
  await stop()
  assert.equal(r.status, 0, r.describe())
  const res = JSON.parse(r.stdout)
  assert.equal(res.kind, 'heap')
  assert.equal(res.closed, true)
  assert.ok(res.samples > 0)
  assert.match(res.files[0], /\.heapprofile$/)
  assert.equal(listening(inspectPort), false)
  await get(port, '/quit')
  assert.deepEqual(await srv.exited, { status: 3, signal: null })
})

test('attach finds the port of a process started with --inspect-port=0 (the kernel picks it)', { timeout: 60000 }, async () => {
  const srv = startServer(['--inspect-port=0'])
  const port = await srv.port
  const stop = load(port)
  const r = await cprof(['attach', String(srv.child.pid), '--duration', '1', '--dir', makeTmpDir(), '--json'])
  await stop()
  assert.equal(r.status, 0, r.describe())
  const res = JSON.parse(r.stdout)
  assert.ok(res.port > 0 && res.port !== port, r.describe())
  assert.equal(res.closed, true)
  assert.equal(listening(res.port), false)
  await get(port, '/quit')
  assert.deepEqual(await srv.exited, { status: 3, signal: null })
})

test('attach refuses a process that is not node, and sends nothing', async () => {
  const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' })
  try {
    const r = await cprof(['attach', String(sleeper.pid), '--duration', '1'])
    assert.equal(r.status, 1, r.describe())
    assert.match(r.stderr, /ERR_CPROF_ATTACH: process \d+ is not Node\.js/)
    assert.equal(sleeper.exitCode, null, 'sleep is still running: no SIGUSR1 reached it')
    assert.equal(spawnSync('kill', ['-0', String(sleeper.pid)]).status, 0)
  } finally {
    sleeper.kill()
  }
})

test('attach refuses when the inspector is already open (someone\'s debugger), and sends nothing', { timeout: 30000 }, async () => {
  const inspectPort = await freePort()
  const srv = startServer([`--inspect=127.0.0.1:${inspectPort}`])
  const port = await srv.port
  const r = await cprof(['attach', String(srv.child.pid), '--duration', '1'])
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, new RegExp(`ERR_CPROF_ATTACH: an inspector already listens on 127\\.0\\.0\\.1:${inspectPort}`))
  assert.doesNotMatch(srv.err(), /Debugger attached/)
  assert.equal(listening(inspectPort), true, 'the debugger it had stays as it was')
  await get(port, '/quit')
  assert.deepEqual(await srv.exited, { status: 3, signal: null })
})

test('attach on an app that handles SIGUSR1 itself: no inspector opens, it says why, exit 1', { timeout: 30000 }, async () => {
  const inspectPort = await freePort()
  const srv = startServer([`--inspect-port=${inspectPort}`], ['handle-usr1'])
  const port = await srv.port
  const r = await cprof(['attach', String(srv.child.pid), '--duration', '1', '--wait', '2'])
  assert.equal(r.status, 1, r.describe())
  assert.match(r.stderr, /did not open its inspector .* handle SIGUSR1 itself/)
  assert.match(srv.out(), /\{"usr1":true\}/, 'the app got its signal')
  assert.equal(listening(inspectPort), false)
  await get(port, '/quit')
  assert.deepEqual(await srv.exited, { status: 3, signal: null })
})

// With no --dir, attach writes into cprof's default directory,
// <tmpdir>/cprof-<uid>: one someone else could have planted must be refused
// (docs/reliability.md) before anything is sent to the target.
test('attach with no --dir: a default dir that is a symlink or writable by others is refused before attaching; a private one is used', { timeout: 90000 }, async () => {
  const tmp = makeTmpDir('cprof-attach-own-')
  const own = path.join(tmp, `cprof-${process.geteuid()}`)
  const elsewhere = path.join(tmp, 'elsewhere')
  fs.mkdirSync(elsewhere, { mode: 0o700 })
  const env = { TMPDIR: tmp, CPROF_DIR: undefined }
  // An app that reports SIGUSR1: proof that nothing was sent.
  const srv = startServer([`--inspect-port=${await freePort()}`], ['handle-usr1'])
  const port = await srv.port
  const cases = [
    ['is a symbolic link, not a directory', () => fs.symlinkSync(elsewhere, own)],
    ['can be written by other users (mode 0777)', () => { fs.mkdirSync(own); fs.chmodSync(own, 0o777) }]
  ]
  for (const [why, plant] of cases) {
    fs.rmSync(own, { recursive: true, force: true })
    plant()
    const r = await cprof(['attach', String(srv.child.pid), '--duration', '1', '--formats', 'pprof'], 60000, env)
    assert.equal(r.status, 1, r.describe())
    assert.ok(r.stderr.includes(`cprof attach: ERR_CPROF_IO: refusing to write into ${own}: it ${why}`), r.describe())
    assert.match(r.stderr, /Remove it, or pass --dir \(or set CPROF_DIR\) to a directory you own/)
    assert.deepEqual(fs.readdirSync(own), [], why)
  }
  assert.deepEqual(fs.readdirSync(elsewhere), [])
  assert.equal(await get(port, '/'), 200)
  assert.doesNotMatch(srv.out(), /"usr1"/, 'no SIGUSR1 reached the app')
  await get(port, '/quit')
  assert.deepEqual(await srv.exited, { status: 3, signal: null })

  // Made private again: the profile and its pprof go there, 0600.
  fs.chmodSync(own, 0o700)
  const inspectPort = await freePort()
  const plain = startServer([`--inspect-port=${inspectPort}`])
  const plainPort = await plain.port
  const r = await cprof(['attach', String(plain.child.pid), '--duration', '1', '--formats', 'pprof', '--json'], 60000, env)
  assert.equal(r.status, 0, r.describe())
  const res = JSON.parse(r.stdout)
  assert.equal(res.files.length, 2)
  for (const file of res.files) {
    assert.equal(path.dirname(file), own)
    assert.equal(fs.lstatSync(file).mode & 0o777, 0o600)
  }
  assert.equal(listening(inspectPort), false)
  await get(plainPort, '/quit')
  assert.deepEqual(await plain.exited, { status: 3, signal: null })
})

test('attach: usage errors exit 2', async () => {
  for (const args of [['attach'], ['attach', 'abc'], ['attach', '1', '--duration', '0'], ['attach', '1', '--formats', 'png']]) {
    const r = await cprof(args)
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.describe()}`)
  }
})

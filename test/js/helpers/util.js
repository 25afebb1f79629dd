'use strict'

// Shared test plumbing: temp dirs that are removed after the file's tests,
// running fixture scripts in child processes, and small assertions.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

// First: a private TMPDIR for this test file and every process it starts,
// so nothing lands in the user's real <tmpdir>/cprof-<uid> (private-tmp.js).
require('./private-tmp.js').setUp()

const ROOT = path.resolve(__dirname, '..', '..', '..')
// The fixtures no one folder owns (test/js/README.md); each folder's own
// are in <folder>/fixtures/ (fixturesIn).
const FIXTURES = path.resolve(__dirname, '..', 'fixtures')

// cpu-<pid>-<YYYYMMDDTHHMMSS.mmmZ>.cpuprofile
const DEFAULT_NAME_RE = /^cpu-(\d+)-(\d{8}T\d{6}\.\d{3}Z)\.cpuprofile$/
// In a worker thread the name may also carry the thread id: cpu-<pid>-w<threadId>-<stamp>.
const WORKER_NAME_RE = /^cpu-(\d+)(?:-w(\d+))?-(\d{8}T\d{6}\.\d{3}Z)\.cpuprofile$/

const tmpDirs = []

// A fresh directory under os.tmpdir(); call removeTmpDirs() in after().
function makeTmpDir (prefix = 'cprof-test-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  tmpDirs.push(dir)
  return dir
}

function removeTmpDirs () {
  for (const dir of tmpDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

// Also when a test file ends without reaching its after() hooks.
process.on('exit', removeTmpDirs)

// Keeps the CPU busy for `ms` milliseconds in a named function.
function burnCpu (ms) {
  const end = Date.now() + ms
  let x = 0
  while (Date.now() < end) {
    for (let i = 0; i < 10000; i++) x = (x + i * i) % 1000003
  }
  return x
}

function childEnv (extra = {}) {
  const env = { ...process.env, ...extra }
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k]
  // Fixtures are plain scripts, not test files: drop the runner's marker.
  delete env.NODE_TEST_CONTEXT
  return env
}

// Parses every line of stdout that looks like a JSON object.
function jsonLines (stdout) {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
}

function describeRun (r) {
  return `status=${r.status} signal=${r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`
}

// Runs test/js/fixtures/<name> (or the fixture at an absolute path) in a
// child node and waits for it.
function runFixture (name, args = [], { env, timeout = 20000, execArgv = [], shell } = {}) {
  const script = path.resolve(FIXTURES, name)
  let r
  if (shell) {
    // `shell` is a prefix run by /bin/sh before exec'ing node (e.g. 'ulimit -f 1').
    r = spawnSync('/bin/sh', ['-c', `${shell} && exec "$@"`, 'sh', process.execPath, ...execArgv, script, ...args], {
      encoding: 'utf8',
      timeout,
      env: childEnv(env)
    })
  } else {
    r = spawnSync(process.execPath, [...execArgv, script, ...args], {
      encoding: 'utf8',
      timeout,
      env: childEnv(env)
    })
  }
  if (r.error && r.error.code !== 'ETIMEDOUT') throw r.error
  r.timedOut = Boolean(r.error && r.error.code === 'ETIMEDOUT')
  r.json = jsonLines(r.stdout || '')
  r.describe = () => describeRun(r)
  return r
}

// Starts a fixture without waiting; returns { child, exited, waitForLine, stdout() }.
// exited resolves { status, signal, stdout, stderr, json } at the child's end.
function startFixture (name, args = [], { env } = {}) {
  const child = spawn(process.execPath, [path.resolve(FIXTURES, name), ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const exited = new Promise((resolve) => {
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr, json: jsonLines(stdout) }))
  })
  const waitForLine = (pred, ms = 10000) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no such line within ${ms} ms; stdout: ${stdout}; stderr: ${stderr}`)), ms)
      const check = () => {
        const line = stdout.split('\n').find(pred)
        if (line !== undefined) {
          clearTimeout(timer)
          child.stdout.off('data', check)
          resolve(line)
        }
      }
      child.stdout.on('data', check)
      check()
    })
  return { child, exited, waitForLine, stdout: () => stdout }
}

// Runs bin/cprof.js without blocking this process (a test may need to serve
// or load the target meanwhile); resolves { status, stdout, stderr,
// describe() }. timeout (ms), if given, kills a CLI that hangs.
function cprofAsync (args, { env = {}, timeout } = {}) {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [path.join(ROOT, 'bin', 'cprof.js'), ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => { stdout += d })
    c.stderr.on('data', (d) => { stderr += d })
    const t = timeout === undefined ? null : setTimeout(() => c.kill(), timeout)
    c.on('close', (status) => {
      clearTimeout(t)
      resolve({ status, stdout, stderr, describe: () => `cprof ${args.join(' ')} → status ${status}\n${stdout}\n${stderr}` })
    })
  })
}

// Asserts that `err` is an Error with the given cprof code and a message.
function assertCprofError (err, code) {
  assert.ok(err instanceof Error, `expected an Error, got ${String(err)}`)
  assert.equal(err.code, code, `expected code ${code}, got ${err.code}: ${err.message}`)
  assert.equal(typeof err.message, 'string')
  assert.ok(err.message.length > 0, 'the error must have a message')
}

// Same check for errors serialised by a fixture ({ name, message, code }).
function assertCprofErrorInfo (info, code) {
  assert.ok(info, `expected an error, got ${JSON.stringify(info)}`)
  assert.equal(info.code, code, `expected code ${code}, got ${JSON.stringify(info)}`)
  assert.equal(typeof info.message, 'string')
  assert.ok(info.message.length > 0, 'the error must have a message')
}

function fileMode (file) {
  return fs.statSync(file).mode & 0o777
}

// The fixtures of the test files in dir, beside them in <dir>/fixtures/:
// its FIXTURES, and runFixture and startFixture taking a name there.
function fixturesIn (dir) {
  const own = path.join(dir, 'fixtures')
  return {
    FIXTURES: own,
    runFixture: (name, ...rest) => runFixture(path.resolve(own, name), ...rest),
    startFixture: (name, ...rest) => startFixture(path.resolve(own, name), ...rest)
  }
}

// Whether a value the C core printed as "<ms> ms" to 2 decimals is `ms`:
// C's printf rounds an exact half to even, toFixed() rounds it up, so the
// numbers are compared, not the strings.
function printedMs (text, label, ms) {
  const m = new RegExp(`${label} ([\\d.]+) ms`).exec(text)
  return m !== null && Math.abs(Number(m[1]) - ms) <= 0.005 + 1e-9
}

// Whether this process runs under AddressSanitizer (npm run test:asan
// preloads libasan into node): freed memory waits in its quarantine and
// counts in RSS there.
const UNDER_ASAN = /libasan/.test(process.env.LD_PRELOAD || '')

module.exports = {
  UNDER_ASAN,
  printedMs,
  ROOT,
  FIXTURES,
  DEFAULT_NAME_RE,
  WORKER_NAME_RE,
  makeTmpDir,
  removeTmpDirs,
  burnCpu,
  childEnv,
  runFixture,
  startFixture,
  fixturesIn,
  cprofAsync,
  jsonLines,
  assertCprofError,
  assertCprofErrorInfo,
  fileMode
}

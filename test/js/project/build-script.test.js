'use strict'

// scripts/build.js rebuilds atomically (docs/install.md, "Rebuilding is
// atomic"): it compiles in build/stage-<pid> and renames the addon over
// build/<config>/cprof.node, so build/Release/cprof.node never goes missing.
// A stand-in for node-gyp (npm_config_node_gyp, as npm sets it) does what
// `node-gyp rebuild` does to its directory — deletes build/, then writes the
// addon after a while — so this runs in a second, without a compile; the
// real compile under a loop of loading processes is in npm run test:prebuild
// (test/prebuild/rebuild-loop.js).

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawn, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { ROOT } = require('../helpers/util.js')

const hasCjson = spawnSync('pkg-config', ['--exists', 'libcjson']).status === 0
const skip = hasCjson ? false : 'needs pkg-config and libcjson-dev (the setup line)'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-build-script-'))
after(() => fs.rmSync(tmp, { recursive: true, force: true }))

// node-gyp rebuild, as far as the build directory is concerned: build/ gone,
// then, 300 ms on, build/<Release|Debug>/cprof.node ("new <cwd>"), or exit 1
// when FAKE_GYP_FAIL is set.
const FAKE_GYP = `
const fs = require('fs')
const args = process.argv.slice(2)
if (args[0] !== 'rebuild') process.exit(2)
fs.rmSync('build', { recursive: true, force: true })
setTimeout(() => {
  if (process.env.FAKE_GYP_FAIL) process.exit(1)
  const dir = 'build/' + (args.includes('--debug') ? 'Debug' : 'Release')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(dir + '/cprof.node', 'new ' + process.cwd())
}, 300)
`

let n = 0
function scratch () {
  const dir = path.join(tmp, `pkg-${n++}`)
  fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true })
  fs.mkdirSync(path.join(dir, 'src', 'core'), { recursive: true })
  fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true })
  fs.copyFileSync(path.join(ROOT, 'scripts', 'build.js'), path.join(dir, 'scripts', 'build.js'))
  fs.writeFileSync(path.join(dir, 'binding.gyp'), '{}\n')
  fs.writeFileSync(path.join(dir, 'src', 'core', 'a.c'), '/* a source */\n')
  fs.writeFileSync(path.join(dir, 'build', 'Release', 'cprof.node'), 'old')
  fs.writeFileSync(path.join(tmp, 'fake-gyp.js'), FAKE_GYP)
  return dir
}

// Runs scripts/build.js in dir (as `npm run build` does) while reading
// build/Release/cprof.node as fast as the event loop turns.
function buildWhileReading (dir, env = {}) {
  const file = path.join(dir, 'build', 'Release', 'cprof.node')
  const seen = new Map()
  let reading = true
  const read = () => {
    let content
    try {
      content = fs.readFileSync(file, 'utf8')
      if (content.startsWith('new ')) content = 'new'
    } catch (err) {
      content = err.code
    }
    seen.set(content, (seen.get(content) || 0) + 1)
    if (reading) setImmediate(read)
  }
  read()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(dir, 'scripts', 'build.js')], {
      cwd: dir,
      env: { ...process.env, npm_lifecycle_event: 'build', npm_config_node_gyp: path.join(tmp, 'fake-gyp.js'), CPROF_SANITIZE: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    child.stdout.on('data', (d) => { out += d })
    child.stderr.on('data', (d) => { out += d })
    child.on('close', (status) => {
      reading = false
      resolve({ status, out, seen: Object.fromEntries(seen) })
    })
  })
}

test('scripts/build.js: build/Release/cprof.node is the old or the new addon throughout a rebuild, never missing', { skip }, async () => {
  const dir = scratch()
  fs.mkdirSync(path.join(dir, 'build', 'Debug'))
  fs.writeFileSync(path.join(dir, 'build', 'Debug', 'cprof.node'), 'old debug')
  // A stage left by a build that was killed (a pid no process has).
  fs.mkdirSync(path.join(dir, 'build', 'stage-999999999'))
  const r = await buildWhileReading(dir)
  assert.equal(r.status, 0, r.out)
  assert.ok(Object.keys(r.seen).every((k) => k === 'old' || k === 'new'), `what the readers found: ${JSON.stringify(r.seen)}`)
  assert.ok(r.seen.old > 0, 'the readers ran during the build')
  const built = fs.readFileSync(path.join(dir, 'build', 'Release', 'cprof.node'), 'utf8')
  // Compiled in the stage, not in the package directory itself.
  assert.match(built, /^new .*[/]build[/]stage-\d+$/)
  assert.match(r.out, /cprof: built build\/Release\/cprof\.node \(compiled in build\/stage-\d+, renamed into place\)/)
  assert.deepEqual(fs.readdirSync(path.join(dir, 'build')).sort(), ['Debug', 'Release'])
  assert.ok(!fs.existsSync(path.join(dir, 'build', 'Debug', 'cprof.node')), 'the Debug addon (older) is removed, as node-gyp rebuild did')
  // The stage had a copy of the sources.
  assert.equal(fs.readFileSync(path.join(dir, 'src', 'core', 'a.c'), 'utf8'), '/* a source */\n')
})

test('scripts/build.js: a failed compile leaves the old addon in place and no stage', { skip }, async () => {
  const dir = scratch()
  const r = await buildWhileReading(dir, { FAKE_GYP_FAIL: '1' })
  assert.equal(r.status, 1)
  assert.deepEqual(Object.keys(r.seen), ['old'], `what the readers found: ${JSON.stringify(r.seen)}`)
  assert.equal(fs.readFileSync(path.join(dir, 'build', 'Release', 'cprof.node'), 'utf8'), 'old')
  assert.deepEqual(fs.readdirSync(path.join(dir, 'build')), ['Release'])
})

test('scripts/build.js: CPROF_SANITIZE builds build/Debug/cprof.node and removes the Release one', { skip }, async () => {
  const dir = scratch()
  const r = await buildWhileReading(dir, { CPROF_SANITIZE: '1' })
  assert.equal(r.status, 0, r.out)
  assert.match(fs.readFileSync(path.join(dir, 'build', 'Debug', 'cprof.node'), 'utf8'), /^new /)
  assert.ok(!fs.existsSync(path.join(dir, 'build', 'Release', 'cprof.node')))
  // Until the rename, readers had the old Release addon.
  assert.ok(!r.seen.ENOENT || r.seen.old > 0, JSON.stringify(r.seen))
})

test('scripts/build.js: a build directory it cannot write says so, in one line', { skip }, async () => {
  const dir = scratch()
  fs.rmSync(path.join(dir, 'build'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'build'), 'not a directory')
  const r = await buildWhileReading(dir)
  assert.equal(r.status, 1)
  assert.match(r.out, /^cprof: cannot build in \S+[/]build \(E[A-Z]+: .*\): make the package directory writable by this user, or run the install as its owner$/m)
  assert.doesNotMatch(r.out, /\n\s+at /, 'no stack trace')
})

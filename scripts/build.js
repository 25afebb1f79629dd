'use strict'
// npm install → this script.
//
// From the npm package: use the prebuilt addon for this platform
// (prebuilds/, see scripts/prebuild.js) when one matches and loads here;
// nothing is compiled and no compiler or system package is needed.
// Otherwise — no matching prebuild, one that does not load (an older glibc),
// `npm install --build-from-source`, a git checkout (developers build what
// they edit) or `npm run build` — compile from source: check the system
// packages, then node-gyp with the headers of the running Node when it ships
// them (no header download), in build/stage-<pid>, the addon renamed into
// place after (a rebuild is atomic: see compile below).
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')

function fail (line) {
  process.stderr.write(`cprof: ${line}\n`)
  process.exit(1)
}

function buildFromSourceAsked () {
  if (process.env.npm_config_build_from_source === 'true') return 'npm install --build-from-source'
  if (process.env.npm_lifecycle_event === 'build') return 'npm run build'
  if (process.env.CPROF_SANITIZE) return 'CPROF_SANITIZE'
  if (fs.existsSync(path.join(ROOT, '.git'))) return 'a git checkout'
  return null
}

// The prebuild node-gyp-build would pick for this platform, arch and libc
// (LIBC=musl or /etc/alpine-release: musl), if it loads in a child process:
// a binary this machine's C library cannot load (too old a glibc, a musl
// system node-gyp-build takes for glibc) must not be chosen over a compile.
function usablePrebuild () {
  process.env.PREBUILDS_ONLY = '1'
  let file
  try {
    file = require('node-gyp-build').resolve(ROOT)
  } catch (err) {
    process.stderr.write(`cprof: no prebuilt addon for this platform (${err.message.split('\n')[0]}); compiling from source\n`)
    return null
  }
  const r = spawnSync(process.execPath, ['-e', 'require(process.argv[1])', file], { encoding: 'utf8' })
  if (r.status === 0) return file
  const why = (r.stderr || '').split('\n').find((l) => /Error/.test(l)) || `exit ${r.status}`
  process.stderr.write(`cprof: the prebuilt ${path.relative(ROOT, file)} does not load here (${why.trim()}); compiling from source\n`)
  return null
}

// The addon is compiled elsewhere and renamed into place, so a rebuild is
// atomic: `node-gyp rebuild` in this directory would delete build/ first and,
// for the minute or two the compile takes, every process loading cprof from
// here would find no addon (ERR_CPROF_NOT_BUILT in a clone, which has no
// prebuilds). Instead: binding.gyp and src/ are copied into
// build/stage-<pid>/ (the same file system, ignored by git and npm), node-gyp
// rebuilds there, and the result is rename(2)d over build/<Release|Debug>/cprof.node:
// a process loading cprof meanwhile gets the old addon or the new one, and
// one that has the old one loaded keeps it (its inode lives on). As
// `node-gyp rebuild` did, the other configuration's addon is removed after,
// so what was built last is what loads (node-gyp-build prefers Release).
function stageDir (pid) {
  return path.join(ROOT, 'build', `stage-${pid}`)
}

// Stages left by a build that was killed: their process is gone.
function removeStaleStages () {
  let names = []
  try {
    names = fs.readdirSync(path.join(ROOT, 'build'))
  } catch {
    return
  }
  for (const name of names) {
    const m = /^stage-(\d+)$/.exec(name)
    if (!m || Number(m[1]) === process.pid) continue
    try {
      process.kill(Number(m[1]), 0)
    } catch (err) {
      if (err.code === 'ESRCH') fs.rmSync(path.join(ROOT, 'build', name), { recursive: true, force: true })
    }
  }
}

function removeStage (stage) {
  try {
    fs.rmSync(stage, { recursive: true, force: true })
  } catch {}
}

function compile () {
  const pc = spawnSync('pkg-config', ['--exists', 'libcjson'])
  if (pc.error) fail('pkg-config is missing: sudo apt-get install -y pkg-config libcjson-dev')
  if (pc.status !== 0) fail('cJSON is missing: sudo apt-get install -y libcjson-dev')

  const prefix = path.resolve(path.dirname(process.execPath), '..')
  const args = ['rebuild']
  if (fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`)
  // CPROF_SANITIZE=1: a Debug build with ASan + UBSan (binding.gyp's
  // cprof_sanitize); scripts/test-asan.js runs this on a copy in .cache/asan.
  if (process.env.CPROF_SANITIZE) args.push('--debug', '--cprof_sanitize=1')
  const config = process.env.CPROF_SANITIZE ? 'Debug' : 'Release'
  const other = config === 'Release' ? 'Debug' : 'Release'

  const gyp = process.env.npm_config_node_gyp || require.resolve('node-gyp/bin/node-gyp.js', {
    paths: [path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules'), __dirname]
  })

  removeStaleStages()
  const stage = stageDir(process.pid)
  let status = 1
  try {
    fs.rmSync(stage, { recursive: true, force: true })
    fs.mkdirSync(stage, { recursive: true })
    fs.copyFileSync(path.join(ROOT, 'binding.gyp'), path.join(stage, 'binding.gyp'))
    fs.cpSync(path.join(ROOT, 'src'), path.join(stage, 'src'), { recursive: true })
    const r = spawnSync(process.execPath, [gyp, ...args], { stdio: 'inherit', cwd: stage })
    status = r.status ?? 1
    const built = path.join(stage, 'build', config, 'cprof.node')
    if (status === 0 && !fs.existsSync(built)) {
      process.stderr.write(`cprof: node-gyp succeeded but wrote no build/${config}/cprof.node\n`)
      status = 1
    }
    if (status === 0) {
      const dest = path.join(ROOT, 'build', config)
      fs.mkdirSync(dest, { recursive: true })
      fs.renameSync(built, path.join(dest, 'cprof.node'))
      fs.rmSync(path.join(ROOT, 'build', other, 'cprof.node'), { force: true })
      process.stdout.write(`cprof: built build/${config}/cprof.node (compiled in build/${path.basename(stage)}, renamed into place)\n`)
    }
  } catch (err) {
    // The stage or the rename: the package directory must be writable.
    removeStage(stage)
    fail(`cannot build in ${path.join(ROOT, 'build')} (${err.message.split('\n')[0]}): ` +
      'make the package directory writable by this user, or run the install as its owner')
  }
  removeStage(stage)
  process.exit(status)
}

const asked = buildFromSourceAsked()
if (asked) compile()
const prebuild = usablePrebuild()
if (!prebuild) compile()
process.stdout.write(`cprof: using the prebuilt addon ${path.relative(ROOT, prebuild)} ` +
  '(npm install --build-from-source compiles it instead)\n')

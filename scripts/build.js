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
// them (no header download).
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

  const gyp = process.env.npm_config_node_gyp || require.resolve('node-gyp/bin/node-gyp.js', {
    paths: [path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules'), __dirname]
  })
  const r = spawnSync(process.execPath, [gyp, ...args], { stdio: 'inherit', cwd: ROOT })
  process.exit(r.status ?? 1)
}

const asked = buildFromSourceAsked()
if (asked) compile()
const prebuild = usablePrebuild()
if (!prebuild) compile()
process.stdout.write(`cprof: using the prebuilt addon ${path.relative(ROOT, prebuild)} ` +
  '(npm install --build-from-source compiles it instead)\n')

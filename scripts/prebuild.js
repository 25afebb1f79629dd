'use strict'
// npm run prebuild [-- --if-stale] [<target>...]
//
// Builds the prebuilt addons that ship in the npm package, in the layout
// node-gyp-build loads (prebuilds/<platform>-<arch>/cprof.<libc>.node, one
// Node-API binary per platform for every Node version):
//
//   linux-x64   glibc  gcc
//   linux-x64   musl   musl-gcc (Debian's musl-tools)   Alpine
//   linux-arm64 glibc  aarch64-linux-gnu-gcc (cross)
//
// cJSON is linked statically: built per target from Debian's cJSON source
// package at a pinned version (apt-get source, checked by apt against the
// signed archive; never committed), its license shipped as
// prebuilds/cJSON.LICENSE. The Node-API, libuv and zlib headers are the
// running Node's (include/node, as scripts/build.js uses: no download), the
// same for every target; zlib is not linked, the addon binds to the zlib
// Node exports. Each target builds in its own copy under .cache/prebuild, so
// build/Release (what npm test loads) is never touched; prebuildify drives
// node-gyp and names the file, then every binary is checked (architecture,
// the libraries it needs, no cJSON import, glibc symbol versions) before
// prebuilds/ is replaced.
//
// On a fresh Debian 12 machine it installs what it lacks with apt-get (as
// root, or through sudo), enabling deb-src for apt-get source if needed.
// --if-stale (the prepack step): do nothing when prebuilds/ was built from
// the current sources.
const { spawnSync } = require('node:child_process')
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.resolve(__dirname, '..')
const CACHE = path.join(ROOT, '.cache', 'prebuild')
const OUT = path.join(ROOT, 'prebuilds')
const STAMP = path.join(CACHE, 'stamp.json')

// Debian 12's cJSON, the version libcjson-dev has there (security fixes
// applied as Debian patches by dpkg-source). Changing it: check its license.
const CJSON = { source: 'cjson', version: '1.7.15-1+deb12u4' }

// The newest glibc symbol version a glibc prebuild may need: what Node 20
// and later need themselves. Debian 12's headers bind stat/fstat to
// GLIBC_2.33: src/compat/glibc_stat.c (cprof_glibc_compat) binds them to
// the old entry points instead. Were a newer one to slip in, this check
// fails the build; on a glibc too old for a prebuild, the install compiles
// from source (scripts/build.js).
const GLIBC_FLOOR = [2, 28]

const TARGETS = {
  'linux-x64-glibc': {
    arch: 'x64', libc: 'glibc', cc: 'gcc', ar: 'ar', strip: 'strip', machine: /X86-64/,
    needed: ['libc.so.6', 'libm.so.6']
  },
  'linux-x64-musl': {
    arch: 'x64', libc: 'musl', cc: 'musl-gcc', ar: 'ar', strip: 'strip', machine: /X86-64/,
    needed: ['libc.so']
  },
  'linux-arm64-glibc': {
    arch: 'arm64', libc: 'glibc', cc: 'aarch64-linux-gnu-gcc', ar: 'aarch64-linux-gnu-ar',
    strip: 'aarch64-linux-gnu-strip', machine: /AArch64/, needed: ['libc.so.6', 'libm.so.6']
  }
}

// Commands the build needs → the Debian package that has them.
const TOOLS = {
  gcc: 'build-essential',
  make: 'build-essential',
  python3: 'python3',
  'musl-gcc': 'musl-tools',
  'aarch64-linux-gnu-gcc': 'gcc-aarch64-linux-gnu',
  'aarch64-linux-gnu-strip': 'binutils-aarch64-linux-gnu',
  'dpkg-source': 'dpkg-dev',
  readelf: 'binutils'
}

// Progress on stderr: `npm pack --json` runs this (prepack) and its stdout
// must stay JSON.
function log (line) {
  process.stderr.write(`prebuild: ${line}\n`)
}

function fail (line) {
  process.stderr.write(`prebuild: ${line}\n`)
  process.exit(1)
}

function run (cmd, args, opts = {}) {
  // The tools' output to stderr as well (see log).
  const r = spawnSync(cmd, args, { stdio: [0, 2, 2], ...opts })
  if (r.error) fail(`${cmd}: ${r.error.message}`)
  if (r.status !== 0) fail(`${[cmd, ...args].join(' ')} exited with ${r.status ?? r.signal}`)
}

function capture (cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts })
  if (r.error || r.status !== 0) return null
  return r.stdout
}

const has = (cmd) => capture('sh', ['-c', `command -v ${cmd}`]) !== null

function asRoot (cmd, args, opts) {
  if (process.getuid() === 0) return run(cmd, args, opts)
  if (!has('sudo')) fail(`needs root for ${cmd} ${args.join(' ')} (run as root, or install sudo)`)
  return run('sudo', [cmd, ...args], opts)
}

function aptGet (args) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  // Other apt users on the machine: wait for the lock instead of failing.
  asRoot('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], { env })
}

function ensureTools () {
  const missing = [...new Set(Object.keys(TOOLS).filter((cmd) => !has(cmd)).map((cmd) => TOOLS[cmd]))]
  if (missing.length === 0) return
  if (!has('apt-get')) fail(`missing ${missing.join(', ')} and no apt-get: install them (Debian package names)`)
  log(`installing ${missing.join(' ')}`)
  aptGet(['update', '-qq'])
  aptGet(['install', '-y', '-qq', ...missing])
}

// apt-get source needs deb-src entries. Debian 12 ships deb822 sources
// (debian.sources, "Types: deb"); older systems a one-line sources.list.
// Both edits are idempotent: a line already naming deb-src is left alone.
function enableDebSrc () {
  const deb822 = '/etc/apt/sources.list.d/debian.sources'
  const legacy = '/etc/apt/sources.list'
  if (fs.existsSync(deb822) && /^Types: deb$/m.test(fs.readFileSync(deb822, 'utf8'))) {
    log(`enabling deb-src in ${deb822}`)
    asRoot('sed', ['-i', 's/^Types: deb$/Types: deb deb-src/', deb822])
  } else if (fs.existsSync(legacy) && !/^deb-src /m.test(fs.readFileSync(legacy, 'utf8'))) {
    log(`adding deb-src lines to ${legacy}`)
    asRoot('sed', ['-i', '-e', '/^deb /{p;s/^deb /deb-src /}', legacy])
  } else {
    fail('no deb-src entries for apt-get source: add them to your apt sources')
  }
  aptGet(['update', '-qq'])
}

function hasSourceVersion () {
  const out = capture('apt-cache', ['showsrc', '--only-source', CJSON.source])
  return out !== null && out.split('\n').some((l) => l === `Version: ${CJSON.version}`)
}

// cJSON's source tree (Debian patches applied) in .cache/prebuild.
function fetchCjson () {
  const dir = path.join(CACHE, `cjson-${CJSON.version}`)
  if (fs.existsSync(path.join(dir, 'cJSON.c')) && fs.existsSync(path.join(dir, 'LICENSE'))) return dir
  if (!hasSourceVersion()) {
    enableDebSrc()
    if (!hasSourceVersion()) {
      fail(`apt has no source for ${CJSON.source} ${CJSON.version} (apt-cache showsrc cjson lists ` +
        'what it has): update CJSON in scripts/prebuild.js to that version after checking its license')
    }
  }
  const tmp = fs.mkdtempSync(path.join(CACHE, 'apt-source-'))
  log(`apt-get source ${CJSON.source}=${CJSON.version}`)
  run('apt-get', ['-qq', 'source', '--only-source', `${CJSON.source}=${CJSON.version}`], { cwd: tmp })
  const upstream = CJSON.version.replace(/-[^-]+$/, '')
  fs.rmSync(dir, { recursive: true, force: true })
  fs.renameSync(path.join(tmp, `${CJSON.source}-${upstream}`), dir)
  fs.rmSync(tmp, { recursive: true, force: true })
  return dir
}

// libcjson.a for one target, with its own compiler. -fvisibility=hidden:
// cJSON's symbols stay private to cprof.node, so another copy of cJSON in
// the process (another addon) can neither replace nor be replaced by ours.
function buildCjson (src, t, dir) {
  const inc = path.join(dir, 'include', 'cjson')
  const lib = path.join(dir, 'lib')
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(inc, { recursive: true })
  fs.mkdirSync(lib, { recursive: true })
  fs.copyFileSync(path.join(src, 'cJSON.h'), path.join(inc, 'cJSON.h'))
  const obj = path.join(lib, 'cJSON.o')
  run(t.cc, ['-std=c89', '-O2', '-fPIC', '-fvisibility=hidden', '-c', path.join(src, 'cJSON.c'), '-o', obj])
  run(t.ar, ['rcs', path.join(lib, 'libcjson.a'), obj])
  return dir
}

// The headers of the running Node (include/node), as scripts/build.js
// uses them; npm_config_nodedir otherwise. Node-API and libuv headers are
// the same for every target architecture and libc.
function nodeHeaders () {
  const prefix = path.resolve(path.dirname(process.execPath), '..')
  for (const dir of [prefix, process.env.npm_config_nodedir].filter(Boolean)) {
    if (fs.existsSync(path.join(dir, 'include', 'node', 'node_api.h'))) return dir
  }
  fail(`no Node headers in ${prefix}/include/node: use a Node installation that ships them ` +
    '(Debian/NodeSource nodejs, the official tarballs) or set npm_config_nodedir')
}

function nodeGypBin () {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp
  return require.resolve('node-gyp/bin/node-gyp.js', {
    paths: [path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules'), __dirname]
  })
}

// A copy of what node-gyp needs, so each target builds in its own tree.
function stage (dir) {
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  for (const f of ['binding.gyp', 'package.json']) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f))
  fs.cpSync(path.join(ROOT, 'src'), path.join(dir, 'src'), { recursive: true })
}

function buildTarget (name, t, cjsonSrc, out) {
  const dir = path.join(CACHE, name)
  log(`==== ${name} (${t.cc})`)
  const cjson = buildCjson(cjsonSrc, t, path.join(dir, 'cjson'))
  const pkg = path.join(dir, 'pkg')
  stage(pkg)
  const env = {
    ...process.env,
    CC: t.cc,
    // gyp links with $(CXX): the C compiler is enough, cprof has no C++.
    CXX: t.cc,
    LINK: t.cc,
    // node-gyp passes npm_config_* options to gyp as -D variables.
    npm_config_cprof_cjson_static: cjson,
    npm_config_cprof_glibc_compat: t.libc === 'glibc' ? '1' : '0',
    npm_config_nodedir: nodeHeaders(),
    npm_config_jobs: '2'
  }
  delete env.CPROF_SANITIZE
  run(process.execPath, [require.resolve('prebuildify/bin.js'),
    '--napi', '--strip', '--strip-bin', t.strip, '--tag-libc', '--libc', t.libc,
    '--arch', t.arch, '--platform', 'linux', '--target', `node@${process.versions.node}`,
    '--node-gyp', nodeGypBin(), '--out', out, '--cache', path.join(CACHE, 'devdir'), pkg],
  { env, cwd: pkg })
  return path.join(out, 'prebuilds', prebuildPath(t))
}

function glibcTooNew (version) {
  const [major, minor] = version.split('.').map(Number)
  return major > GLIBC_FLOOR[0] || (major === GLIBC_FLOOR[0] && minor > GLIBC_FLOOR[1])
}

// What a user's machine needs to load the file, checked from the ELF
// itself: the right machine, only the C library (no libcjson), no cJSON
// symbol left to import, and for glibc no symbol newer than GLIBC_FLOOR.
function verify (name, t, file) {
  const readelf = t.arch === 'arm64' && has('aarch64-linux-gnu-readelf') ? 'aarch64-linux-gnu-readelf' : 'readelf'
  const header = capture(readelf, ['-h', file]) || fail(`${file}: readelf -h failed`)
  if (!t.machine.test(header)) fail(`${name}: ${file} is not built for ${t.arch}`)
  const dynamic = capture(readelf, ['-d', file]) || ''
  const needed = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1])
  const extra = needed.filter((n) => !t.needed.includes(n))
  if (extra.length > 0) fail(`${name}: links ${extra.join(', ')}; a prebuild may link only ${t.needed.join(', ')}`)
  const symbols = capture(readelf, ['--dyn-syms', '-W', file]) || ''
  // Num: Value Size Type Bind Vis Ndx Name[@version] [(n)]
  const undef = symbols.split('\n').filter((l) => / UND /.test(l)).map((l) => l.trim().split(/\s+/)[7]).filter(Boolean)
  if (undef.some((s) => s.startsWith('cJSON_'))) fail(`${name}: cJSON is not linked in statically`)
  const versions = [...new Set(undef.map((s) => /@GLIBC_([\d.]+)/.exec(s)).filter(Boolean).map((m) => m[1]))]
  if (t.libc === 'glibc') {
    const newer = versions.filter(glibcTooNew)
    if (newer.length > 0) fail(`${name}: needs GLIBC_${newer.join(', GLIBC_')}, newer than the floor ${GLIBC_FLOOR.join('.')}`)
  } else if (versions.length > 0) {
    fail(`${name}: a musl build has glibc symbol versions (${versions.join(', ')})`)
  }
  const size = fs.statSync(file).size
  const newest = versions.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).pop()
  log(`${name}: ok — ${path.relative(ROOT, file)}, ${size} bytes, needs ${needed.join(' ')}` +
    (newest ? ` (symbols up to GLIBC_${newest})` : ''))
}

// Everything the binaries are made of, hashed: --if-stale compares it.
function sourceHash () {
  const h = crypto.createHash('sha256')
  const files = ['binding.gyp', 'scripts/prebuild.js']
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const r = path.join(rel, e.name)
      if (e.isDirectory()) walk(r)
      else files.push(r)
    }
  }
  walk('src')
  for (const f of files) h.update(f).update('\0').update(fs.readFileSync(path.join(ROOT, f))).update('\0')
  h.update(JSON.stringify(CJSON)).update(process.versions.node)
  return h.digest('hex')
}

function upToDate (names, hash) {
  try {
    const stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8'))
    return stamp.hash === hash && names.every((n) => stamp.targets.includes(n)) &&
      names.every((n) => fs.existsSync(path.join(OUT, prebuildPath(TARGETS[n]))))
  } catch {
    return false
  }
}

// npm runs a script named prebuild before `npm run build` too (its pre-hook
// rule), with the same environment as `npm run prebuild`. Only the npm
// process's own arguments tell them apart: `npm run build` must stay the
// quick source build it is, so the hook does nothing.
function hookOfBuild () {
  if (process.env.npm_lifecycle_event !== 'prebuild') return false
  let pid = process.ppid
  for (let depth = 0; depth < 4 && pid > 1; depth++) {
    let argv, status
    try {
      // npm sets its process title ("npm run build"): one string in cmdline.
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().split(/\s+/)
      status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    } catch {
      return false
    }
    const cli = argv.findIndex((a) => /npm(-cli\.js)?$/.test(a))
    if (cli !== -1) {
      const rest = argv.slice(cli + 1).filter((a) => !a.startsWith('-'))
      return rest.includes('build') && !rest.includes('prebuild')
    }
    pid = Number((/^PPid:\s+(\d+)/m.exec(status) || [])[1])
  }
  return false
}

function main () {
  if (hookOfBuild()) return
  const args = process.argv.slice(2)
  const ifStale = args.includes('--if-stale')
  const names = args.filter((a) => !a.startsWith('--'))
  for (const n of names) if (!TARGETS[n]) fail(`unknown target ${n} (${Object.keys(TARGETS).join(', ')})`)
  const targets = names.length > 0 ? names : Object.keys(TARGETS)
  fs.mkdirSync(CACHE, { recursive: true })
  const hash = sourceHash()
  if (ifStale && upToDate(targets, hash)) {
    log('prebuilds/ is up to date with src/ and binding.gyp')
    return
  }
  const started = Date.now()
  ensureTools()
  const cjsonSrc = fetchCjson()
  const out = path.join(CACHE, 'out')
  fs.rmSync(out, { recursive: true, force: true })
  for (const name of targets) verify(name, TARGETS[name], buildTarget(name, TARGETS[name], cjsonSrc, out))
  fs.copyFileSync(path.join(cjsonSrc, 'LICENSE'), path.join(out, 'prebuilds', 'cJSON.LICENSE'))
  if (targets.length === Object.keys(TARGETS).length) {
    fs.rmSync(OUT, { recursive: true, force: true })
    fs.renameSync(path.join(out, 'prebuilds'), OUT)
  } else {
    // Some targets only: replace those files, keep the others.
    fs.cpSync(path.join(out, 'prebuilds'), OUT, { recursive: true })
  }
  fs.writeFileSync(STAMP, JSON.stringify({ hash, targets, cjson: CJSON.version, node: process.versions.node }) + '\n')
  log(`${targets.length} prebuilds in ${path.relative(ROOT, OUT)}/ in ${((Date.now() - started) / 1000).toFixed(0)} s ` +
    `(cJSON ${CJSON.version} from Debian's source package, Node-API headers of Node ${process.versions.node})`)
}

// Debian packages by name (dpkg-query), installed with apt-get when missing:
// scripts/test-prebuild.js uses it for qemu and the arm64 runtime.
function ensurePackages (packages) {
  const missing = packages.filter((p) => !/install ok installed/.test(capture('dpkg-query', ['-W', '-f=${Status}', p]) || ''))
  if (missing.length === 0) return
  if (!has('apt-get')) fail(`missing Debian packages ${missing.join(', ')} and no apt-get`)
  log(`installing ${missing.join(' ')}`)
  aptGet(['update', '-qq'])
  aptGet(['install', '-y', '-qq', ...missing])
}

const prebuildPath = (t) => path.join(`linux-${t.arch}`, `cprof.${t.libc}.node`)

if (require.main === module) main()
module.exports = { TARGETS, CJSON, GLIBC_FLOOR, ensurePackages, prebuildPath }

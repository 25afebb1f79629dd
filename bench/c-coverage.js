'use strict'
// Which C lines each JS test file reaches, and the cheapest set of files
// that reaches them all: the evidence behind test:asan's file list
// (ASAN_FILES in test/js/helpers/test-files.js, docs/reliability.md).
//
// node bench/c-coverage.js [--runs N] [--check] [--reuse] [files…]
//
// The addon is compiled with gcc --coverage into .cache/coverage (the flags
// of binding.gyp; build/ is never touched). Not through scripts/build.js:
// it compiles in a stage directory it then removes, and gcov needs each
// object's notes file where it was compiled. Every test file runs alone
// against it (CPROF_ADDON, two files at a time), with its own GCOV_PREFIX,
// so each file's counters are its own: those of every process it starts
// (children, workers, PM2 apps started from its environment) that exits
// normally; a process killed by a signal writes none. gcov reads them back.
// CPU per file: user + sys of the runner and every child it waited for
// (GNU time), not detached daemons.
//
// A line counts as reached by the suite when some file reached it in every
// one of --runs runs (default 2): lines reached only some of the time (a
// timer won or lost a race) are listed apart. Then a greedy weighted cover:
// the file adding the most lines per CPU-second first, leak.test.js always
// (its 1,000-cycle soak is for LeakSanitizer, not for lines), then files
// made redundant by later picks dropped. --check: the ASAN_FILES list,
// checked against the run (lines it misses), instead of a new cover.
// --reuse: the counters and CPU times the last run left in .cache/coverage,
// read again (no build, no tests). pm2.test.js is never picked (test:asan
// leaves it out: its PM2 apps start too slowly under ASan).
// Writes bench/results/<date>-c-coverage.json.
const { spawn, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { testFiles, ASAN_FILES, CONCURRENCY } = require('../test/js/helpers/test-files.js')

const ROOT = path.resolve(__dirname, '..')
const CACHE = path.join(ROOT, '.cache', 'coverage')
const OBJ = path.join(CACHE, 'obj')
const ADDON = path.join(CACHE, 'cprof.node')
const ALWAYS = ['test/js/api/leak.test.js']
const NEVER = ['test/js/triggers/pm2.test.js']

const { values: opts, positionals } = parseArgs({
  options: { runs: { type: 'string', default: '2' }, check: { type: 'boolean' }, reuse: { type: 'boolean' } },
  allowPositionals: true
})

function sh (cmd, args, o = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...o })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.error}`)
  return r.stdout
}

function nodeHeaders () {
  const dir = path.join(path.dirname(process.execPath), '..', 'include', 'node')
  if (!fs.existsSync(path.join(dir, 'node_api.h'))) throw new Error(`no node_api.h in ${dir}`)
  return dir
}

function build () {
  fs.rmSync(CACHE, { recursive: true, force: true })
  fs.mkdirSync(OBJ, { recursive: true })
  const cflags = ['-std=c11', '-D_GNU_SOURCE', '-fPIC', '-O0', '--coverage', `-I${nodeHeaders()}`,
    ...sh('pkg-config', ['--cflags', 'libcjson']).trim().split(/\s+/).filter(Boolean)]
  const sources = ['core', 'addon'].flatMap((d) =>
    fs.readdirSync(path.join(ROOT, 'src', d)).filter((f) => f.endsWith('.c')).map((f) => path.join(ROOT, 'src', d, f)))
  for (const src of sources) {
    sh('gcc', ['-c', ...cflags, '-o', path.join(OBJ, path.basename(src, '.c') + '.o'), src])
  }
  const objects = fs.readdirSync(OBJ).filter((f) => f.endsWith('.o')).map((f) => path.join(OBJ, f))
  sh('gcc', ['-shared', '--coverage', '-o', ADDON, ...objects, ...sh('pkg-config', ['--libs', 'libcjson']).trim().split(/\s+/)])
}

function cpuOf (prefix) {
  const [u, s] = fs.readFileSync(path.join(prefix, 'time'), 'utf8').trim().split('\n').pop().split(' ').map(Number)
  return u + s
}

// One file alone; resolves { file, cpuS, status, prefix }.
function runFile (file, prefix) {
  if (opts.reuse) return Promise.resolve({ file, cpuS: cpuOf(prefix), status: null, prefix })
  fs.mkdirSync(prefix, { recursive: true })
  return new Promise((resolve) => {
    const c = spawn('/usr/bin/time', ['-f', '%U %S', '-o', path.join(prefix, 'time'), process.execPath, '--test', '--test-reporter=dot', file], {
      cwd: ROOT,
      stdio: 'ignore',
      env: { ...process.env, CPROF_ADDON: ADDON, GCOV_PREFIX: prefix, GCOV_PREFIX_STRIP: '0' }
    })
    c.on('close', (status) => resolve({ file, cpuS: cpuOf(prefix), status, prefix }))
  })
}

// "src/core/x.c:12" for every line of src/ executed at least once.
function linesReached (prefix) {
  const dir = path.join(prefix, OBJ)
  if (!fs.existsSync(dir)) return new Set()
  const gcda = fs.readdirSync(dir).filter((f) => f.endsWith('.gcda'))
  for (const f of gcda) fs.copyFileSync(path.join(OBJ, f.replace(/\.gcda$/, '.gcno')), path.join(dir, f.replace(/\.gcda$/, '.gcno')))
  const out = sh('gcov', ['-j', '-t', ...gcda.map((f) => path.join(dir, f))], { cwd: dir, maxBuffer: 1 << 28 })
  const reached = new Set()
  for (const json of out.split('\n').filter(Boolean)) {
    for (const f of JSON.parse(json).files) {
      const rel = path.relative(ROOT, f.file)
      if (rel.startsWith('..')) continue
      for (const l of f.lines) if (l.count > 0) reached.add(`${rel}:${l.line_number}`)
    }
  }
  return reached
}

async function runAll (files, run) {
  const queue = [...files]
  const results = []
  const worker = async () => {
    for (let f; (f = queue.shift());) {
      const r = await runFile(f, path.join(CACHE, 'runs', String(run), f.replace(/[\\/]/g, '_')))
      r.lines = linesReached(r.prefix)
      results.push(r)
      process.stdout.write(`run ${run}: ${f}: ${r.lines.size} lines, ${r.cpuS.toFixed(1)} CPU-s${r.status ? ` (exit ${r.status})` : ''}\n`)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return results
}

// Greedy weighted set cover of `target` by the files' line sets.
function cover (byFile, cpu, target) {
  const picked = [...ALWAYS.filter((f) => byFile.has(f))]
  const left = new Set(target)
  for (const f of picked) for (const l of byFile.get(f)) left.delete(l)
  while (left.size > 0) {
    let best = null
    let bestScore = 0
    for (const [f, lines] of byFile) {
      if (picked.includes(f) || NEVER.includes(f)) continue
      let gain = 0
      for (const l of lines) if (left.has(l)) gain++
      const score = gain / Math.max(cpu.get(f), 1)
      if (gain > 0 && score > bestScore) [best, bestScore] = [f, score]
    }
    if (!best) break
    picked.push(best)
    for (const l of byFile.get(best)) left.delete(l)
  }
  // A file whose every target line another picked file reaches goes.
  for (const f of [...picked].reverse()) {
    if (ALWAYS.includes(f)) continue
    const others = new Set(picked.filter((g) => g !== f).flatMap((g) => [...byFile.get(g)]))
    if ([...byFile.get(f)].every((l) => !target.has(l) || others.has(l))) picked.splice(picked.indexOf(f), 1)
  }
  return picked
}

// The lines file alone reaches among files.
function onlyIn (file, files, byFile) {
  const others = reachedBy(files.filter((f) => f !== file), byFile)
  return [...byFile.get(file)].filter((l) => !others.has(l))
}

function reachedBy (files, byFile) {
  return new Set(files.flatMap((f) => [...(byFile.get(f) || [])]))
}

async function main () {
  const files = positionals.length ? positionals : testFiles()
  if (!opts.reuse) build()
  const runs = []
  for (let run = 1; run <= Number(opts.runs); run++) runs.push(await runAll(files, run))
  // Per file: the lines it reached in every run; CPU: the mean.
  const byFile = new Map()
  const cpu = new Map()
  for (const f of files) {
    const sets = runs.map((rs) => rs.find((r) => r.file === f).lines)
    byFile.set(f, new Set([...sets[0]].filter((l) => sets.every((s) => s.has(l)))))
    cpu.set(f, runs.reduce((s, rs) => s + rs.find((r) => r.file === f).cpuS, 0) / runs.length)
  }
  const everRun = runs.map((rs) => reachedBy(files, new Map(rs.map((r) => [r.file, r.lines]))))
  const stable = new Set([...everRun[0]].filter((l) => everRun.every((s) => s.has(l))))
  const flaky = new Set(everRun.flatMap((s) => [...s]).filter((l) => !stable.has(l)))
  const chosen = opts.check ? ASAN_FILES : cover(byFile, cpu, stable)
  const got = reachedBy(chosen, byFile)
  const missed = [...stable].filter((l) => !got.has(l)).sort()
  const cpuSum = (list) => list.reduce((s, f) => s + cpu.get(f), 0)
  const only = new Map(chosen.map((f) => [f, onlyIn(f, chosen, byFile)]))
  const summary = {
    node: process.version,
    runs: runs.length,
    linesReachedEveryRun: stable.size,
    linesReachedSometimes: [...flaky].sort(),
    files: files.map((f) => ({ file: f, cpuS: Number(cpu.get(f).toFixed(1)), lines: byFile.get(f).size })),
    suiteCpuS: Number(cpuSum(files).toFixed(1)),
    chosen: opts.check ? 'ASAN_FILES' : 'greedy cover',
    cover: chosen.map((f) => ({ file: f, only: only.get(f) })),
    coverCpuS: Number(cpuSum(chosen).toFixed(1)),
    coverMisses: missed
  }
  const out = path.join(ROOT, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-c-coverage.json`)
  fs.writeFileSync(out, JSON.stringify(summary, null, 2) + '\n')
  process.stdout.write(`\n${stable.size} C lines reached by the suite in every run (${flaky.size} only in some), ` +
    `${summary.suiteCpuS} CPU-s for all ${files.length} files\n${summary.chosen}: ${chosen.length} files, ` +
    `${summary.coverCpuS} CPU-s, misses ${missed.length} lines${missed.length ? ': ' + missed.slice(0, 20).join(' ') : ''}\n` +
    chosen.map((f) => `  ${f} (${cpu.get(f).toFixed(1)} CPU-s, ${only.get(f).length} lines no other reaches)`).join('\n') + `\nwritten ${path.relative(ROOT, out)} (${os.cpus().length} cores)\n`)
}

main().catch((err) => {
  process.stderr.write(`c-coverage: ${err.stack}\n`)
  process.exit(1)
})

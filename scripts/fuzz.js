'use strict'
// npm run fuzz [-- [--target=profile|sourcemap|snapshot] <libFuzzer flags>]
//   e.g. npm run fuzz -- -max_total_time=60
//
// Builds test/fuzz/build/fuzz_profile, fuzz_sourcemap and fuzz_snapshot
// (clang, -fsanitize=fuzzer,address,undefined) and fuzzes the C core from
// the seed corpora (test/fuzz/corpus and test/fixtures;
// test/fuzz/corpus_sourcemap; test/fuzz/corpus_snapshot);
// inputs that add coverage go to test/fuzz/build/corpus*, crashes to
// test/fuzz/build/crashes/. With no flags each target runs 60 s.
// A crash makes the run fail: minimise it (fuzz_profile -minimize_crash=1
// <file>), fix the core, and add the input to test/fuzz/regressions/, which
// `make -C test/c check` replays from then on (regressions_sourcemap/ for
// the source-map target, regressions_snapshot/ for the heap snapshot one).
const { spawn, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.resolve(__dirname, '..')
const FUZZ = path.join(ROOT, 'test', 'fuzz')
const BUILD = path.join(FUZZ, 'build')

function fail (line) {
  process.stderr.write(`fuzz: ${line}\n`)
  process.exit(1)
}

const clang = spawnSync('clang', ['--version'], { encoding: 'utf8' })
if (clang.error || clang.status !== 0) fail('clang is missing: apt-get install -y clang libclang-rt-14-dev')

const make = spawnSync('make', ['-s', '-C', FUZZ, '-j2'], { stdio: 'inherit' })
if (make.status !== 0) fail('building the fuzz target failed (libFuzzer is in libclang-rt-<version>-dev)')

// --target=profile|sourcemap|snapshot picks one target; by default all run,
// each for the time given.
const TARGETS = {
  profile: { bin: 'fuzz_profile', dict: 'profile.dict', corpus: 'corpus', seeds: [path.join(FUZZ, 'corpus'), path.join(ROOT, 'test', 'fixtures')] },
  sourcemap: { bin: 'fuzz_sourcemap', dict: 'sourcemap.dict', corpus: 'corpus_sourcemap', seeds: [path.join(FUZZ, 'corpus_sourcemap')] },
  snapshot: { bin: 'fuzz_snapshot', dict: 'snapshot.dict', corpus: 'corpus_snapshot', seeds: [path.join(FUZZ, 'corpus_snapshot')] }
}
let args = process.argv.slice(2)
const pick = args.find((a) => a.startsWith('--target='))
args = args.filter((a) => a !== pick)
const names = pick ? [pick.slice('--target='.length)] : Object.keys(TARGETS)
for (const n of names) if (!TARGETS[n]) fail(`unknown --target=${n}; known: ${Object.keys(TARGETS).join(', ')}`)
if (!args.some((a) => a.startsWith('-max_total_time') || a.startsWith('-runs'))) args.push('-max_total_time=60')
for (const dir of ['crashes', ...names.map((n) => TARGETS[n].corpus)]) fs.mkdirSync(path.join(BUILD, dir), { recursive: true })

function fuzzOne (t) {
  return new Promise((resolve) => {
    const crashesBefore = new Set(fs.readdirSync(path.join(BUILD, 'crashes')))
    const started = Date.now()
    const child = spawn(path.join(BUILD, t.bin), [
      `-dict=${path.join(FUZZ, t.dict)}`,
      `-artifact_prefix=${path.join(BUILD, 'crashes')}/`,
      '-print_final_stats=1',
      ...args,
      path.join(BUILD, t.corpus),
      ...t.seeds
    ], {
      stdio: ['ignore', 'inherit', 'pipe'],
      env: {
        ...process.env,
        ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=1',
        UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1'
      }
    })
    // libFuzzer reports on stderr: pass it through but for its progress
    // lines (#<n> NEW/REDUCE/pulse) and the recommended dictionary, tens
    // of thousands of lines a minute that would bury a crash report in a
    // CI log; keep the final stats.
    const stats = {}
    let pending = ''
    let inDict = false
    const onLine = (l) => {
      const m = /^stat::(\w+):\s*(\S+)/.exec(l)
      if (m) stats[m[1]] = m[2]
      if (/^###### Recommended dictionary/.test(l)) inDict = true
      const quiet = /^#\d+\t/.test(l) || inDict
      if (/^###### End of recommended dictionary/.test(l)) inDict = false
      if (!quiet) process.stderr.write(l + '\n')
    }
    child.stderr.setEncoding('utf8').on('data', (d) => {
      pending += d
      const lines = pending.split('\n')
      pending = lines.pop()
      lines.forEach(onLine)
    })
    child.on('close', (status, signal) => {
      if (pending) onLine(pending)
      const found = fs.readdirSync(path.join(BUILD, 'crashes')).filter((f) => !crashesBefore.has(f))
      process.stdout.write(`fuzz ${t.bin}: ${stats.number_of_executed_units} inputs in ${((Date.now() - started) / 1000).toFixed(0)} s ` +
        `(${stats.average_exec_per_sec}/s), ${stats.new_units_added} new corpus units, peak RSS ${stats.peak_rss_mb} MB, ` +
        `${found.length} crash${found.length === 1 ? '' : 'es'}, exit ${signal || status}\n`)
      // The input itself, so a crash seen only in a CI log can be replayed:
      // base64 -d > crash && test/fuzz/build/<target> crash
      for (const f of found) {
        const file = path.join(BUILD, 'crashes', f)
        process.stdout.write(`fuzz: crash input: ${file}\n`)
        const bytes = fs.readFileSync(file)
        if (bytes.length <= 64 * 1024) process.stdout.write(`fuzz: ${f} as base64: ${bytes.toString('base64')}\n`)
      }
      resolve(status === 0 && found.length === 0)
    })
  })
}

// Every target runs at once (libFuzzer is single-threaded), each for the
// time given: three 90 s targets on 2 cores take 90 s and get 60 CPU-s each,
// what one per core for 60 s gave in 120 s (the last target alone on a core).
;(async () => {
  const ok = (await Promise.all(names.map((n) => fuzzOne(TARGETS[n])))).every(Boolean)
  process.exit(ok ? 0 : 1)
})()

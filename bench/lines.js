'use strict'
// Line-level detail (issue 28): what `--lines` costs.
//   node bench/lines.js [--rounds N] [--keep DIR]
// 1. `cprof report FILE` against `cprof report FILE --lines` on a synthetic
//    .cpuprofile of 150,000 nodes and 1,000,000 samples whose nodes all
//    carry positionTicks (1-4 lines each): whole
//    processes, alternated, median of N rounds (default 5). Bound: --lines
//    within 1.2x.
// 2. The pprof file size with one Location per function (default) and per
//    line (--lines), on that file and on a real profile of the 2,000-function
//    workload (bench/workload.js) taken for 5 s at 1 ms with cprof.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const ROOT = path.join(__dirname, '..')
const BIN = path.join(ROOT, 'bin', 'cprof.js')
const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def }
const ROUNDS = Number(opt('--rounds', 5))
const dir = opt('--keep') || fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-bench-lines-'))
fs.mkdirSync(dir, { recursive: true })

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] }

function run (argv) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 1 << 28 })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`)
  return { ms, out: r.stdout }
}

// The synthetic profile of bench/report-child.js, with positionTicks.
function makeProfile (file) {
  run([path.join(__dirname, 'report-child.js'), 'make', file, '150000', '1000000'])
  const p = JSON.parse(fs.readFileSync(file, 'utf8'))
  let x = 777
  const rnd = (n) => { x = (x * 1103515245 + 12345) & 0x7fffffff; return x % n }
  let entries = 0
  for (const n of p.nodes) {
    // Every node with a script gets lines (more than V8 writes: it lists
    // only sampled nodes), so the line pass has the most to do.
    if (!n.callFrame.url) continue
    const lines = 1 + rnd(4)
    const base = n.callFrame.lineNumber + 1
    const ticks = []
    let left = Math.max(n.hitCount, lines)
    for (let k = 0; k < lines && left > 0; k++) {
      const t = k === lines - 1 ? left : 1 + rnd(left)
      ticks.push({ line: base + 1 + k * 2, ticks: t })
      left -= t
    }
    n.positionTicks = ticks
    entries += ticks.length
  }
  fs.writeFileSync(file, JSON.stringify(p))
  return { nodes: p.nodes.length, samples: p.samples.length, entries, bytes: fs.statSync(file).size }
}

function pprofSizes (file, tag) {
  const a = path.join(dir, `${tag}-func.pb.gz`)
  const b = path.join(dir, `${tag}-lines.pb.gz`)
  run([BIN, 'convert', file, '--to', 'pprof', '-o', a])
  run([BIN, 'convert', file, '--to', 'pprof', '--lines', '-o', b])
  const sa = fs.statSync(a).size
  const sb = fs.statSync(b).size
  return { tag, functions: sa, lines: sb, ratio: +(sb / sa).toFixed(2) }
}

// A real profile: the 2,000-function workload for 5 s at 1 ms.
function realProfile () {
  const script = `
    const cprof = require(${JSON.stringify(ROOT)})
    const { generate, runFor } = require(${JSON.stringify(path.join(__dirname, 'workload.js'))})
    const fns = generate(2000)
    cprof.start({ dir: ${JSON.stringify(dir)}, name: 'real', interval: 1000 }).then(() =>
      runFor(fns, 5000, async () => { const r = await cprof.stop(); console.log(r.files.cpuprofile) }))`
  return run(['-e', script]).out.trim()
}

function main () {
  const file = path.join(dir, 'big.cpuprofile')
  const made = makeProfile(file)
  const plain = []
  const lines = []
  run([BIN, 'report', file]) // warm the page cache
  for (let i = 0; i < ROUNDS; i++) {
    plain.push(run([BIN, 'report', file]).ms)
    lines.push(run([BIN, 'report', file, '--lines']).ms)
  }
  const report = {
    profile: made,
    rounds: ROUNDS,
    reportMs: +median(plain).toFixed(0),
    reportLinesMs: +median(lines).toFixed(0),
    ratio: +(median(lines) / median(plain)).toFixed(3),
    bound: 1.2
  }
  report.pass = report.ratio <= report.bound
  const sizes = [pprofSizes(file, 'synthetic'), pprofSizes(realProfile(), 'workload')]
  console.log(JSON.stringify({ report, pprof: sizes }, null, 2))
  if (!opt('--keep')) fs.rmSync(dir, { recursive: true, force: true })
}

main()

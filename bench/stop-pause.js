'use strict'
// Main-thread pause caused by stopping a CPU profile, per approach, on the
// same workload. Each measurement runs in a fresh child process; approaches
// alternate (A B C A B C …) so drift hits them alike.
//   node bench/stop-pause.js [--seconds 10] [--rounds 5] [--functions 2000] [--interval 1000]
const { spawnSync } = require('node:child_process')
const { parseArgs } = require('node:util')

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    functions: { type: 'string', default: '2000' },
    interval: { type: 'string', default: '1000' },
    approaches: { type: 'string', default: 'floor,bare,plain,cprof,cprof-session' },
    child: { type: 'string' }
  }
})

if (args.child) {
  require('./stop-pause-child').run(args.child, {
    seconds: Number(args.seconds), functions: Number(args.functions), interval: Number(args.interval)
  })
} else {
  main()
}

function median (xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

function main () {
  const approaches = args.approaches.split(',')
  const rows = Object.fromEntries(approaches.map((a) => [a, []]))
  for (let r = 0; r < Number(args.rounds); r++) {
    for (const a of approaches) {
      const env = { ...process.env }
      if (a === 'cprof-session') env.CPROF_TRANSPORT = 'session'
      const out = spawnSync(process.execPath, ['--expose-gc', __filename, '--child', a,
        '--seconds', args.seconds, '--functions', args.functions, '--interval', args.interval],
      { env, encoding: 'utf8', timeout: 120000 })
      const line = out.stdout.trim().split('\n').pop()
      if (out.status !== 0 || !line) throw new Error(`${a} failed: ${out.stderr}`)
      rows[a].push(JSON.parse(line))
    }
  }
  const plain = median(rows.plain ? rows.plain.map((m) => m.pauseMs) : [NaN])
  const floor = median(rows.floor ? rows.floor.map((m) => m.pauseMs) : [NaN])
  console.log(`node ${process.version}, ${args.functions} functions, ${args.seconds} s at ${args.interval} µs, ${args.rounds} rounds`)
  console.log('approach        pause ms (median, min–max)   probe max gap ms   stop→file ms   nodes   MB    vs plain  vs floor')
  for (const a of approaches) {
    const p = rows[a].map((m) => m.pauseMs)
    const g = rows[a].map((m) => m.probeMaxGapMs)
    const f = rows[a].map((m) => m.toFileMs).filter((x) => x != null)
    const m = median(p)
    const last = rows[a][rows[a].length - 1]
    console.log(`${a.padEnd(15)} ${m.toFixed(1).padStart(7)} (${Math.min(...p).toFixed(1)}–${Math.max(...p).toFixed(1)})`.padEnd(45) +
      `${median(g).toFixed(1).padStart(8)}      ${f.length ? median(f).toFixed(1).padStart(8) : '       -'}   ${String(last.nodes).padStart(6)}  ${(last.bytes / 1e6).toFixed(1).padStart(4)}   ${(m / plain).toFixed(2).padStart(6)}   ${(m / floor).toFixed(2).padStart(6)}`)
  }
}

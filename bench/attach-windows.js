'use strict'
// How long a target's inspector stays open after `cprof attach` is
// interrupted (issue 32, item 1; docs/fleet.md, "When attach is
// interrupted"):
//   node bench/attach-windows.js [--runs N] [--out FILE]
// For each case, N runs (default 5) against a fresh idle target (a Node
// process with --inspect-port=<free port> and a timer, never an inspector
// open before attach):
//   sigint / sigterm   the signal to attach 1 s into a 30 s profile: closed by attach
//   sigkill            SIGKILL of attach 1 s into the profile: closed by its watchdog
//   sigkill-both       SIGKILL of attach and its watchdog 1 s into a 3 s profile:
//                      closed by the target's own timer (--duration + 5 s after it was armed)
// The time is from the kill to the port no longer listening (/proc/net/tcp,
// polled every 10 ms). Prints one JSON document: per case the runs' ms, min,
// median and max.
const { spawn } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { freePort, listening, childrenOf } = require('../test/js/helpers/procs')
const { median } = require('./stats')

const CLI = path.join(__dirname, '..', 'bin', 'cprof.js')
const TARGET = `setInterval(() => {}, 1000); console.log('ready')`

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor (cond, ms, what) {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

// One run: a target, an attach, the interruption; ms from it to the port closed.
async function run (kind) {
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-bench-attach-')) // the profiles attach writes
  const target = spawn(process.execPath, [`--inspect-port=${port}`, '-e', TARGET], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  target.stdout.on('data', (d) => { out += d })
  target.stderr.resume()
  let attach = null
  try {
    await waitFor(() => out.includes('ready'), 10000, 'the target')
    const duration = kind === 'sigkill-both' ? '3' : '30'
    attach = spawn(process.execPath, [CLI, 'attach', String(target.pid), '--duration', duration, '--dir', dir],
      { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    attach.stderr.on('data', (d) => { err += d })
    await waitFor(() => /inspector is open on/.test(err), 30000, 'attach to open the inspector')
    await sleep(1000)
    const dogs = childrenOf(attach.pid)
    const sent = Date.now()
    if (kind === 'sigint') attach.kill('SIGINT')
    else if (kind === 'sigterm') attach.kill('SIGTERM')
    else {
      attach.kill('SIGKILL')
      if (kind === 'sigkill-both') for (const d of dogs) process.kill(d, 'SIGKILL')
    }
    await waitFor(() => !listening(port), 60000, 'the inspector to close')
    return Date.now() - sent
  } finally {
    target.kill('SIGKILL')
    // attach ends once its target is gone; its files go with the dir.
    if (attach && attach.exitCode === null && attach.signalCode === null) await new Promise((resolve) => attach.once('close', resolve))
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

async function main () {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, out: { type: 'string' } } })
  const runs = Number(values.runs)
  const result = { date: new Date().toISOString(), node: process.version, loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' '), runs, cases: {} }
  for (const kind of ['sigint', 'sigterm', 'sigkill', 'sigkill-both']) {
    const ms = []
    for (let i = 0; i < runs; i++) ms.push(await run(kind))
    result.cases[kind] = { ms, min: Math.min(...ms), median: median(ms), max: Math.max(...ms) }
    console.error(`${kind}: closed ${ms.join(', ')} ms after the kill`)
  }
  const text = JSON.stringify(result, null, 2) + '\n'
  if (values.out) fs.writeFileSync(values.out, text)
  process.stdout.write(text)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})

'use strict'
// How often a profiler start deadlocks the app's main thread on Node 20 and 22
// (V8 crbug 41497149, nodejs/node#65140; src/addon/inspector.h "Line ends
// first"): the OpenTelemetry test app (test/js/api/fixtures/otel-app.js: the
// SDK loaded, a server, the recorder and a CPU profile started under
// allocation) run again and again, each run given 20 s; a run still alive then
// is a deadlock (its main thread waits on V8's logger lock forever).
//
//   node bench/start-deadlock.js [--runs 60] [--root CHECKOUT] [--json OUT]
//
// --root: another checkout, built (its app, lib/ and addon), e.g. one without
// the fix. Not CPROF_ADDON: that path loads the addon another way, and the
// app's allocation then rarely lines up with the start (0 of 40 runs).
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { parseArgs } = require('node:util')

const app = (root) => path.join(root, 'test', 'js', 'api', 'fixtures', 'otel-app.js')
const LIMIT_MS = 20000

// One run: 'ok', 'hung' (killed at LIMIT_MS) or 'failed'.
function once (root) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-deadlock-'))
  return new Promise((resolve) => {
    // A push URL nobody listens on: the recorder runs, its pushes fail quietly.
    const child = spawn(process.execPath, [app(root), dir, '3000', '1000', 'http://127.0.0.1:9/'], { stdio: 'ignore' })
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      fs.rmSync(dir, { recursive: true, force: true })
      resolve(signal === 'SIGKILL' ? 'hung' : code === 0 ? 'ok' : 'failed')
    })
  })
}

async function main () {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '60' }, root: { type: 'string' }, json: { type: 'string' } } })
  const root = path.resolve(values.root || path.join(__dirname, '..'))
  const counts = { ok: 0, hung: 0, failed: 0 }
  for (let i = 0; i < Number(values.runs); i++) {
    const r = await once(root)
    counts[r]++
    process.stderr.write(`${i + 1}: ${r}\n`)
  }
  const result = { node: process.version, root, runs: Number(values.runs), ...counts }
  console.log(JSON.stringify(result))
  if (values.json) fs.writeFileSync(values.json, JSON.stringify(result, null, 2) + '\n')
}

main()

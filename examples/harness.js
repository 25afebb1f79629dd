'use strict'

// What demo.js and demo-heap.js share: the example server in this process,
// load against it from another process (a load script of examples/), one
// profile of this process while the load runs, and the result as a table.
//
// Knobs (environment): CPROF_DEMO_LOAD_MS (default 6000), CPROF_DEMO_PROFILE_MS
// (default 5000), CPROF_DEMO_DELAY_MS (default 500, load before profiling,
// counted from the first request); CPROF_DIR says where the profile goes.

const { fork } = require('node:child_process')
const path = require('node:path')
const { once } = require('node:events')
const { setTimeout: sleep } = require('node:timers/promises')

const { createServer } = require('./server.js')
const { formatTop } = require('./table.js')

function envMs (name, dflt) {
  const v = process.env[name]
  return v === undefined || v === '' ? dflt : Number(v)
}

async function listen () {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return server
}

// Forks examples/<script> against url; resolves to [exit code] when it ends.
function startLoad (script, url, loadMs) {
  const load = fork(path.join(__dirname, script), [url, String(loadMs / 1000)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const loadExit = once(load, 'exit')
  load.on('error', (err) => console.error(`demo: load: ${err.message}`))
  return loadExit
}

// Serves the load of examples/<loadScript> and returns what profile(ms)
// resolves to; the server closes once the load has ended.
async function profileUnderLoad (loadScript, profile) {
  const loadMs = envMs('CPROF_DEMO_LOAD_MS', 6000)
  const profileMs = envMs('CPROF_DEMO_PROFILE_MS', 5000)
  const delayMs = envMs('CPROF_DEMO_DELAY_MS', 500)

  const server = await listen()
  const url = `http://127.0.0.1:${server.address().port}`
  console.log(`server listening on ${url}`)

  // Profiling starts once requests arrive: on a busy machine the load
  // process can take a while to get going.
  const firstRequest = once(server, 'request')
  const loadExit = startLoad(loadScript, url, loadMs)
  try {
    await Promise.race([
      firstRequest,
      loadExit.then(() => { throw new Error('the load process ended before sending a request') })
    ])
    await sleep(delayMs)
    return await profile(profileMs)
  } finally {
    const [code] = await loadExit
    server.close()
    server.closeAllConnections()
    if (code !== 0) process.exitCode = 1
  }
}

// detail follows "N samples over T ms"; file and viewers say where the
// profile went and what opens it.
function printResult (result, { detail, file, viewers }) {
  console.log('')
  console.log(`${result.samples} samples over ${result.durationMs.toFixed(0)} ms ${detail}`)
  console.log('')
  console.log(formatTop(result.summary))
  console.log('')
  console.log(`profile written to ${file}`)
  console.log(`open it in ${viewers}`)
}

// Runs a demo: profile(ms) starts the profile, report(result) returns
// printResult's { detail, file, viewers }.
function runDemo ({ loadScript, profile, report }) {
  profileUnderLoad(loadScript, profile)
    .then((result) => printResult(result, report(result)))
    .catch((err) => {
      console.error(`demo failed: ${err.code ? err.code + ': ' : ''}${err.message}`)
      process.exitCode = 1
    })
}

module.exports = { runDemo }

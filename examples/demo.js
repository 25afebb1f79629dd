'use strict'

// npm run demo
//
// Starts the example HTTP server in this process, drives load against it from
// another process (examples/load.js, autocannon), profiles this process for
// 5 s while the load runs, and prints the functions that used the CPU.
//
// Knobs (environment): CPROF_DEMO_LOAD_MS (default 6000), CPROF_DEMO_PROFILE_MS
// (default 5000), CPROF_DEMO_DELAY_MS (default 500, load before profiling);
// CPROF_DIR says where the .cpuprofile goes.

const { fork } = require('node:child_process')
const path = require('node:path')
const { once } = require('node:events')
const { setTimeout: sleep } = require('node:timers/promises')

const cprof = require('..') // require('cprof') in your app
const { createServer } = require('./server.js')
const { formatTop } = require('./table.js')

function envMs (name, dflt) {
  const v = process.env[name]
  return v === undefined || v === '' ? dflt : Number(v)
}

async function main () {
  const loadMs = envMs('CPROF_DEMO_LOAD_MS', 6000)
  const profileMs = envMs('CPROF_DEMO_PROFILE_MS', 5000)
  const delayMs = envMs('CPROF_DEMO_DELAY_MS', 500)

  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${server.address().port}`
  console.log(`server listening on ${url}`)

  // Profiling starts once requests arrive: on a busy machine the load
  // process can take a while to get going.
  const firstRequest = once(server, 'request')
  const load = fork(path.join(__dirname, 'load.js'), [url, String(loadMs / 1000)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const loadExit = once(load, 'exit')
  load.on('error', (err) => console.error(`demo: load: ${err.message}`))

  let result
  try {
    await Promise.race([
      firstRequest,
      loadExit.then(() => { throw new Error('the load process ended before sending a request') })
    ])
    await sleep(delayMs)
    console.log(`profiling for ${profileMs} ms...`)
    result = await cprof.profile({ duration: profileMs })
  } finally {
    const [code] = await loadExit
    server.close()
    server.closeAllConnections()
    if (code !== 0) process.exitCode = 1
  }

  console.log('')
  console.log(
    `${result.samples} samples over ${result.durationMs.toFixed(0)} ms ` +
      `(interval ${result.intervalUs} µs)`
  )
  console.log('')
  console.log(formatTop(result.summary))
  console.log('')
  console.log(`profile written to ${result.files.cpuprofile}`)
  console.log('open it in Chrome DevTools (Performance panel), VS Code or speedscope')
}

main().catch((err) => {
  console.error(`demo failed: ${err.code ? err.code + ': ' : ''}${err.message}`)
  process.exitCode = 1
})

'use strict'

// Drives HTTP load with autocannon against the example server, cycling each
// connection through its routes, then prints requests/s and exits.
//
//   node examples/load.js [url=http://localhost:3000] [seconds=10] [connections=8]

const autocannon = require('autocannon')
const { ROUTES } = require('./server.js')

function parseArgs (argv) {
  const url = argv[0] || 'http://localhost:3000'
  const seconds = argv[1] === undefined ? 10 : Number(argv[1])
  const connections = argv[2] === undefined ? 8 : Number(argv[2])
  if (!(seconds > 0) || !Number.isInteger(connections) || connections < 1) {
    throw new Error('usage: node examples/load.js [url] [seconds > 0] [connections >= 1]')
  }
  return { url: url.replace(/\/+$/, ''), seconds, connections }
}

function runLoad ({ url, seconds, connections }) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    // Each connection cycles through the routes in order.
    requests: ROUTES.map((path) => ({ method: 'GET', path }))
  })
}

async function main () {
  const opts = parseArgs(process.argv.slice(2))
  const result = await runLoad(opts)
  const rps = result.requests.average
  const errors = result.errors + result.timeouts + result.non2xx
  console.log(
    `load: ${result.requests.total} requests in ${opts.seconds}s over ${opts.connections} connections, ` +
      `${rps.toFixed(0)} requests/s, p50 latency ${result.latency.p50} ms, ${errors} errors`
  )
  if (result.requests.total === 0) process.exitCode = 1
}

if (require.main === module) {
  main().catch((err) => {
    console.error(`load: ${err.message}`)
    process.exitCode = 1
  })
}

module.exports = { runLoad }

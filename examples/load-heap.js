'use strict'

// Drives HTTP load with autocannon against the example server for the heap
// demo: each connection cycles through /leak (leaks sessions) and routes that
// only make garbage (/json, /regex, /), then prints requests/s and exits.
//
//   node examples/load-heap.js [url=http://localhost:3000] [seconds=10] [connections=4]

const autocannon = require('autocannon')

const HEAP_ROUTES = ['/leak', '/json', '/regex', '/']

function parseArgs (argv) {
  const url = argv[0] || 'http://localhost:3000'
  const seconds = argv[1] === undefined ? 10 : Number(argv[1])
  const connections = argv[2] === undefined ? 4 : Number(argv[2])
  if (!(seconds > 0) || !Number.isInteger(connections) || connections < 1) {
    throw new Error('usage: node examples/load-heap.js [url] [seconds > 0] [connections >= 1]')
  }
  return { url: url.replace(/\/+$/, ''), seconds, connections }
}

function runLoad ({ url, seconds, connections, routes = HEAP_ROUTES }) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    // Each connection cycles through the routes in order.
    requests: routes.map((path) => ({ method: 'GET', path }))
  })
}

async function main () {
  const opts = parseArgs(process.argv.slice(2))
  const result = await runLoad(opts)
  const rps = result.requests.average
  const errors = result.errors + result.timeouts + result.non2xx
  console.log(
    `load: ${result.requests.total} requests in ${opts.seconds}s over ${opts.connections} connections ` +
      `(${HEAP_ROUTES.join(' ')}), ${rps.toFixed(0)} requests/s, p50 latency ${result.latency.p50} ms, ` +
      `${errors} errors`
  )
  if (result.requests.total === 0) process.exitCode = 1
}

if (require.main === module) {
  main().catch((err) => {
    console.error(`load-heap: ${err.message}`)
    process.exitCode = 1
  })
}

module.exports = { runLoad, HEAP_ROUTES }

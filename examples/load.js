'use strict'

// Drives HTTP load with autocannon against the example server, cycling each
// connection through its routes, then prints requests/s and exits.
//
//   node examples/load.js [url=http://localhost:3000] [seconds=10] [connections=8]
//
// examples/load-heap.js runs the heap demo's load through main() below.

const autocannon = require('autocannon')
const { ROUTES } = require('./server.js')

// The heap demo's routes: /leak leaks sessions, the others only make garbage.
const HEAP_ROUTES = ['/leak', '/json', '/regex', '/']

// What differs between the two loads; `listRoutes` names the routes in the
// summary line, where the heap demo's reader needs to see /leak among them.
const LOADS = {
  cpu: { name: 'load', routes: ROUTES, connections: 8, listRoutes: false },
  heap: { name: 'load-heap', routes: HEAP_ROUTES, connections: 4, listRoutes: true }
}

function parseArgs (argv, load) {
  const url = argv[0] || 'http://localhost:3000'
  const seconds = argv[1] === undefined ? 10 : Number(argv[1])
  const connections = argv[2] === undefined ? load.connections : Number(argv[2])
  if (!(seconds > 0) || !Number.isInteger(connections) || connections < 1) {
    throw new Error(`usage: node examples/${load.name}.js [url] [seconds > 0] [connections >= 1]`)
  }
  return { url: url.replace(/\/+$/, ''), seconds, connections }
}

function runLoad ({ url, seconds, connections, routes = ROUTES }) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    // Each connection cycles through the routes in order.
    requests: routes.map((path) => ({ method: 'GET', path }))
  })
}

async function runCli (load) {
  const opts = parseArgs(process.argv.slice(2), load)
  const result = await runLoad({ ...opts, routes: load.routes })
  const rps = result.requests.average
  const errors = result.errors + result.timeouts + result.non2xx
  const routes = load.listRoutes ? ` (${load.routes.join(' ')})` : ''
  console.log(
    `load: ${result.requests.total} requests in ${opts.seconds}s over ${opts.connections} connections${routes}, ` +
      `${rps.toFixed(0)} requests/s, p50 latency ${result.latency.p50} ms, ${errors} errors`
  )
  if (result.requests.total === 0) process.exitCode = 1
}

// Runs the load named by kind ('cpu' or 'heap') as a command.
function main (kind) {
  const load = LOADS[kind]
  runCli(load).catch((err) => {
    console.error(`${load.name}: ${err.message}`)
    process.exitCode = 1
  })
}

if (require.main === module) main('cpu')

module.exports = { runLoad, main, HEAP_ROUTES }

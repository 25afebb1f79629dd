'use strict'

// An HTTP server whose routes have clearly different CPU costs, each done by a
// named function so a CPU profile shows where the time goes:
//
//   /hash   hashPayload  hand-written FNV-1a over a 64 KiB buffer, many rounds (costliest)
//   /regex  parseLog     parse a few hundred access-log lines with a regex
//   /json   renderJson   build a mid-size object and JSON.stringify it
//   /       (cheap)      a fixed short reply
//
// Run it directly (`node examples/server.js`) to listen on $PORT or 3000, or
// require it and call createServer().

const http = require('node:http')
const { handleLeak } = require('./leak.js') // /leak: a deliberate memory leak (heap demo)

// --- /hash ---------------------------------------------------------------

const PAYLOAD = Buffer.alloc(64 * 1024)
for (let i = 0; i < PAYLOAD.length; i++) PAYLOAD[i] = (i * 2654435761) >>> 24

// FNV-1a (32-bit) over the buffer, then a Murmur3-style finaliser, repeated
// `rounds` times with the previous hash as the seed. Deliberately a plain loop
// over bytes: this is the hot spot the profile should find.
// FNV-1a over the buffer, unrolled by 8 with a murmur-style finish per
// round. The unrolling also keeps it above V8's inlining size limit, so a
// profile shows it as itself rather than charged to handleRequest.
function hashPayload (buf, rounds) {
  let h = 0x811c9dc5
  const n = buf.length
  const end8 = n - (n % 8)
  for (let r = 0; r < rounds; r++) {
    let i = 0
    for (; i < end8; i += 8) {
      h = Math.imul(h ^ buf[i], 0x01000193)
      h = Math.imul(h ^ buf[i + 1], 0x01000193)
      h = Math.imul(h ^ buf[i + 2], 0x01000193)
      h = Math.imul(h ^ buf[i + 3], 0x01000193)
      h = Math.imul(h ^ buf[i + 4], 0x01000193)
      h = Math.imul(h ^ buf[i + 5], 0x01000193)
      h = Math.imul(h ^ buf[i + 6], 0x01000193)
      h = Math.imul(h ^ buf[i + 7], 0x01000193)
    }
    for (; i < n; i++) h = Math.imul(h ^ buf[i], 0x01000193)
    h ^= h >>> 16
    h = Math.imul(h, 0x85ebca6b)
    h ^= h >>> 13
    h = Math.imul(h, 0xc2b2ae35)
    h ^= h >>> 16
  }
  return (h >>> 0).toString(16).padStart(8, '0')
}

// --- /regex --------------------------------------------------------------

const METHODS = ['GET', 'POST', 'PUT', 'DELETE']
const LOG_LINES = []
for (let i = 0; i < 400; i++) {
  const ip = `10.${i % 7}.${i % 13}.${i % 251}`
  const method = METHODS[i % METHODS.length]
  const status = [200, 201, 304, 404, 500][i % 5]
  LOG_LINES.push(
    `${ip} - user${i % 17} [22/Nov/2025:08:${String(i % 60).padStart(2, '0')}:00 +0000] ` +
      `"${method} /api/items/${i}?page=${i % 9} HTTP/1.1" ${status} ${100 + ((i * 37) % 5000)} ` +
      `"-" "agent/${i % 5}.0"`
  )
}
const LOG_RE = /^(\d+\.\d+\.\d+\.\d+) - (\S+) \[([^\]]+)\] "(\w+) ([^ ?"]+)(?:\?([^ "]*))? HTTP\/[\d.]+" (\d{3}) (\d+) "([^"]*)" "([^"]*)"$/

function parseLog (lines) {
  const byStatus = Object.create(null)
  let bytes = 0
  let parsed = 0
  for (const line of lines) {
    const m = LOG_RE.exec(line)
    if (m === null) continue
    parsed++
    byStatus[m[7]] = (byStatus[m[7]] || 0) + 1
    bytes += Number(m[8])
  }
  return { parsed, bytes, byStatus }
}

// --- /json ---------------------------------------------------------------

function renderJson (n) {
  const items = []
  for (let i = 0; i < n; i++) {
    items.push({
      id: i,
      name: `item-${i}`,
      price: Math.round(((i * 7919) % 10000) * 1.07) / 100,
      tags: ['a', 'b', 'c'].slice(0, 1 + (i % 3)),
      stock: { warehouse: i % 4, count: (i * 31) % 97, reserved: i % 2 === 0 }
    })
  }
  return JSON.stringify({ page: 1, total: n, items })
}

// --- server --------------------------------------------------------------

function send (res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

function handleRequest (req, res) {
  const path = req.url.split('?')[0]
  switch (path) {
    case '/hash':
      return send(res, 200, 'text/plain', hashPayload(PAYLOAD, 32) + '\n')
    case '/regex':
      return send(res, 200, 'application/json', JSON.stringify(parseLog(LOG_LINES)))
    case '/json':
      return send(res, 200, 'application/json', renderJson(200))
    case '/leak':
      return handleLeak(req, res)
    case '/':
      return send(res, 200, 'text/plain', 'ok\n')
    default:
      return send(res, 404, 'text/plain', 'not found\n')
  }
}

function createServer () {
  const server = http.createServer(handleRequest)
  // autocannon keeps connections alive; let close() end them promptly.
  server.keepAliveTimeout = 1000
  return server
}

module.exports = { createServer, hashPayload, parseLog, renderJson, LOG_LINES, ROUTES: ['/', '/json', '/regex', '/hash'] }

if (require.main === module) {
  const port = process.env.PORT === undefined ? 3000 : Number(process.env.PORT)
  const server = createServer()
  server.listen(port, () => {
    console.log(`listening on http://localhost:${server.address().port}`)
  })
  const shutdown = () => {
    server.close()
    server.closeAllConnections()
  }
  process.once('SIGINT', shutdown)
  process.once('SIGTERM', shutdown)
}

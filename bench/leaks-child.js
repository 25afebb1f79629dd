'use strict'
// bench/leaks.js's child: an HTTP server on 127.0.0.1 whose handler makes a
// churn of short-lived allocations (a ~20 KB JSON document built, serialized
// and parsed per request), with the flight recorder's heap windows on
// (init({ recorder: { heap: true, window } })). cfg (argv[2], JSON):
//   leakBytesPerMin  > 0: rememberSession() adds ~1 KB objects to a Map at
//                    this rate (every second), for the whole run
//   burstBytes       > 0: fillCacheOnce() fills a cache of this size in 10
//                    one-second steps from burstAtMs, then keeps it
//   windowMs, heapWindowMs, trendWindows, heapInterval  the recorder's (absent: its defaults)
// Prints { port } once listening, then { at, trend } after every heap window.
const http = require('node:http')
const cprof = require('../lib/index.js')

const cfg = JSON.parse(process.argv[2] || '{}')
const sessions = new Map()
let sessionId = 0

// ~1 KB sessions, as many a second as the rate asks (the fraction carried).
let owed = 0
function rememberSession () {
  owed += cfg.leakBytesPerMin / 60 / 1024
  // 124 small integers: a 1,008-byte FixedArray plus the object, real heap
  // bytes (a repeated string would be a few shared ConsStrings, not 1 KB)
  for (; owed >= 1; owed--) sessions.set(++sessionId, { id: sessionId, at: Date.now(), data: new Array(124).fill(sessionId & 0xffff) })
}

const cache = []
function fillCacheOnce () {
  const step = Math.round(cfg.burstBytes / 10 / 1024)
  for (let i = 0; i < step; i++) cache.push({ i, payload: 'c'.repeat(1000) + i })
}

function handle (req, res) {
  const doc = { items: [] }
  for (let i = 0; i < 200; i++) doc.items.push({ i, name: `item-${i}`, tags: ['a', 'b', 'c'], v: Math.random() })
  const body = JSON.stringify(JSON.parse(JSON.stringify(doc)))
  res.end(String(body.length))
}

cprof.init({ recorder: { window: cfg.windowMs, heapWindow: cfg.heapWindowMs, heap: true, trendWindows: cfg.trendWindows, heapInterval: cfg.heapInterval } })
if (cfg.leakBytesPerMin > 0) setInterval(rememberSession, 1000)
if (cfg.burstBytes > 0) {
  setTimeout(() => {
    let n = 0
    const t = setInterval(() => { fillCacheOnce(); if (++n === 10) clearInterval(t) }, 1000)
  }, cfg.burstAtMs)
}
let lastTo = 0
setInterval(() => {
  const t = cprof.recorder.status().heap?.trend
  if (t && t.to !== lastTo) {
    lastTo = t.to
    process.stdout.write(JSON.stringify({ at: Date.now(), trend: t }) + '\n')
  }
}, 500)
const server = http.createServer(handle).listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n')
})

'use strict'
// bench/snapshots.js's app: an HTTP server on 127.0.0.1 with a growing
// session cache of realistic objects (class instances, strings, arrays,
// Maps, Dates), the shape of a leak cprof snapshot is for. Routes:
//   POST /grow?n=N         handles N logins: each adds a Session to the cache
//   GET  /stats            { sessions, heapUsed }
//   POST /snapshot?file=F  v8.writeHeapSnapshot(F), answers { file, bytes }
// Prints { port } once listening. Run with a --max-old-space-size big enough
// for the target (the snapshot's writer needs memory of its own too).
const fs = require('node:fs')
const http = require('node:http')
const v8 = require('node:v8')

class CartItem {
  constructor (sku, qty, price) {
    this.sku = sku
    this.qty = qty
    this.price = price
  }
}

class Session {
  constructor (id) {
    this.id = id
    this.token = `tok-${id.toString(36)}-${Math.random().toString(36).slice(2)}`
    this.user = { name: `user${id}`, email: `user${id}@example.test`, roles: id % 7 ? ['user'] : ['user', 'admin'] }
    this.createdAt = new Date()
    this.cart = []
    for (let i = 0; i < 1 + (id % 4); i++) this.cart.push(new CartItem(`sku-${(id * 31 + i) % 5000}`, 1 + i, 9.99 + i))
    this.prefs = new Map([['lang', id % 2 ? 'en' : 'de'], ['theme', 'dark'], ['last', `/page/${id % 100}`]])
    this.history = Array.from({ length: 4 }, (_, i) => `GET /items/${(id + i) % 1000}?ref=${id}`)
  }
}

const sessionCache = new Map()
let nextId = 0

function login () {
  const s = new Session(++nextId)
  sessionCache.set(s.token, s)
}

function json (res, value) {
  res.setHeader('content-type', 'application/json')
  res.end(JSON.stringify(value))
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x')
  if (url.pathname === '/grow') {
    const n = Number(url.searchParams.get('n')) || 1
    for (let i = 0; i < n; i++) login()
    return json(res, { sessions: sessionCache.size })
  }
  if (url.pathname === '/stats') return json(res, { sessions: sessionCache.size, heapUsed: process.memoryUsage().heapUsed })
  if (url.pathname === '/snapshot') {
    const file = v8.writeHeapSnapshot(url.searchParams.get('file'))
    return json(res, { file, bytes: fs.statSync(file).size })
  }
  res.statusCode = 404
  res.end()
})
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'))

'use strict'
// Uploads the recorder's windows to Grafana Pyroscope's ingest API, as
// grafana/pyroscope's ingest handler reads it
// (pkg/ingester/pyroscope/ingest_handler.go, pkg/og/convert/pprof/profile.go):
//
//   POST {url}/ingest?name=app{k=v,…}&from=<s>&until=<s>&spyName=cprof
//   Content-Type: multipart/form-data; the file field `profile` holds the
//   gzip'd pprof (no `format` parameter: format=pprof would make the server
//   read the whole body as pprof, not as a form).
//
// One upload at a time, in window order, fully asynchronous on the event
// loop; nothing here keeps the process alive (sockets and timers unref'd).
// Network errors, timeouts, 5xx and 429 are retried with jittered
// exponential backoff per endpoint (429/503's Retry-After respected); other 4xx are
// counted as failed and not retried. Windows wait in a queue bounded by
// bytes that drops the oldest.
const http = require('node:http')
const https = require('node:https')
const { cprofError } = require('../errors')
const { createQueue } = require('./queue')

const BACKOFF_BASE_MS = 1000
const BACKOFF_CAP_MS = 10_000
const RETRY_AFTER_CAP_MS = 5 * 60_000
const ERROR_TEXT_MAX = 200
// Pyroscope rejects profiles older than validation.reject-older-than (1 h by
// default, pkg/validation/limits.go): after a long outage such windows are
// dropped (counted) instead of sent to be refused. A margin for clock skew.
const MAX_AGE_MS = 55 * 60_000
const USER_AGENT = `cprof/${require('../../package.json').version} node/${process.versions.node}`

/** The delay before attempt n + 1 (n ≥ 1): base·2^(n-1) up to the cap, drawn
 * from its upper half so that instances restarted together spread out. */
function backoff (attempts, random = Math.random) {
  const d = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempts - 1, 20))
  return Math.round(d / 2 + random() * d / 2)
}

/** Retry-After (seconds or an HTTP date) in ms, or null. */
function retryAfterMs (value, now = Date.now()) {
  if (typeof value !== 'string' || value.trim() === '') return null
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - now
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS) : null
}

function authHeaders (o) {
  const h = {}
  if (o.token) h.authorization = `Bearer ${o.token}`
  else if (o.user) h.authorization = `Basic ${Buffer.from(`${o.user}:${o.password ?? ''}`).toString('base64')}`
  if (o.tenant) h['x-scope-orgid'] = o.tenant
  return h
}

// The multipart body, encoded by the platform's FormData (as fetch sends it).
async function formBody (pprof) {
  const form = new FormData()
  form.append('profile', new Blob([pprof]), 'profile.pprof')
  const res = new Response(form)
  return { body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') }
}

/**
 * o: push options (options.js); series: { name } (labels.js); hooks:
 * { report(err) } for the first error of an outage.
 */
function createPusher (o, series, hooks = {}) {
  const base = new URL(o.url + '/')
  const mod = base.protocol === 'https:' ? https : http
  const agent = new mod.Agent({ keepAlive: true, maxSockets: 1 })
  const headers = { 'user-agent': USER_AGENT, ...authHeaders(o) }
  const queue = createQueue(o.queueBytes)
  const counts = { pushed: 0, retried: 0, dropped: 0, failed: 0 }
  let lastError = null
  let failing = false // an outage is under way: report once
  // Retryable failures in a row, of the endpoint, not of a window: the
  // failing window may be dropped for a newer one (queue full), and the next
  // must wait as long, or a long outage gets a request a second.
  let failures = 0
  let sending = null
  let waitTimer = null
  let closed = false
  let idle = [] // flush() waiters

  function settle () {
    const waiters = idle
    idle = []
    for (const resolve of waiters) resolve()
  }

  function fail (err, status) {
    lastError = { message: err.message, code: err.code || null, status: status ?? null, at: Date.now() }
    if (!failing) {
      failing = true
      if (hooks.report) hooks.report(cprofError('ERR_CPROF_PUSH', `push to ${o.url}: ${err.message}`))
    }
  }

  // One POST; resolves { ok } | { retry, error, wait? } | { error } (not retried).
  async function upload (item) {
    const { body, type } = await formBody(item.body)
    const q = new URLSearchParams({
      name: series.name,
      from: String(Math.floor(item.from / 1000)),
      until: String(Math.floor(item.to / 1000)),
      spyName: 'cprof'
    })
    const target = new URL(`ingest?${q}`, base)
    return new Promise((resolve) => {
      let done = false
      const finish = (r) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resolve(r)
      }
      const req = mod.request(target, {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-type': type, 'content-length': body.length }
      }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => { if (text.length < ERROR_TEXT_MAX) text += chunk })
        res.on('error', (error) => finish({ retry: true, error }))
        res.on('end', () => finish(classify(res, text)))
      })
      const timer = setTimeout(() => {
        const error = cprofError('ERR_CPROF_PUSH', `no answer within ${o.timeout} ms`)
        req.destroy(error)
        finish({ retry: true, error })
      }, o.timeout)
      timer.unref()
      req.on('socket', (socket) => socket.unref()) // an upload never keeps the process alive
      req.on('error', (error) => finish({ retry: true, error }))
      req.end(body)
    })
  }

  function classify (res, text) {
    const s = res.statusCode
    if (s >= 200 && s < 300) return { ok: true }
    const error = cprofError('ERR_CPROF_PUSH', `HTTP ${s}${text ? `: ${text.trim().slice(0, ERROR_TEXT_MAX)}` : ''}`)
    if (s === 429 || s >= 500) return { retry: true, error, status: s, wait: retryAfterMs(res.headers['retry-after']) }
    return { error, status: s }
  }

  function after (item, r) {
    sending = null
    if (r.ok) {
      counts.pushed++
      failing = false
      failures = 0
    } else if (r.retry && !closed) {
      failures++
      counts.retried++
      fail(r.error, r.status)
      const dropped = queue.putBack(item)
      counts.dropped += dropped.length
      waitTimer = setTimeout(() => {
        waitTimer = null
        pump()
      }, r.wait ?? backoff(failures))
      waitTimer.unref()
      return
    } else if (r.retry) {
      counts.dropped++ // closed while it failed
      fail(r.error, r.status)
    } else {
      counts.failed++
      fail(r.error, r.status)
    }
    pump()
  }

  function pump () {
    if (sending || waitTimer || closed) return
    let item = queue.shift()
    while (item && item.from < Date.now() - MAX_AGE_MS) {
      counts.dropped++
      item = queue.shift()
    }
    if (!item) {
      settle()
      return
    }
    sending = item
    upload(item).then((r) => after(item, r), (error) => after(item, { retry: true, error }))
  }

  /** A window's info from the recorder: its push parts go to the queue. */
  function enqueue (info) {
    if (closed || !Array.isArray(info.push)) return
    for (const body of info.push) {
      counts.dropped += queue.add({ kind: info.kind, seq: info.seq, from: info.from, to: info.to, body, bytes: body.length }).length
    }
    pump()
  }

  /** Resolves when every queued window is delivered (or failed), or after ms. */
  function flush (ms) {
    if (!sending && queue.length === 0) return Promise.resolve()
    return new Promise((resolve) => {
      // Ref'd on purpose: whoever awaits stop() asked for the flush, and the
      // process would otherwise end before an unref'd retry comes due.
      const t = setTimeout(resolve, ms)
      idle.push(() => {
        clearTimeout(t)
        resolve()
      })
    })
  }

  /** Stops: what still waits is dropped (counted); an upload under way ends on its own. */
  function close () {
    closed = true
    clearTimeout(waitTimer)
    waitTimer = null
    counts.dropped += queue.clear().length
    settle()
    agent.destroy()
  }

  function status () {
    return { url: o.url, name: series.name, ...counts, queued: queue.length, queuedBytes: queue.bytes, lastError }
  }

  return { enqueue, flush, close, status }
}

module.exports = { createPusher, backoff, retryAfterMs }

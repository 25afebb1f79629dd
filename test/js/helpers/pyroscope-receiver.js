'use strict'
// A stand-in for Grafana Pyroscope's ingest endpoint on 127.0.0.1 (the real
// server cannot be installed from the registries the test machines reach).
// It reads a request as grafana/pyroscope does:
//   - pkg/ingester/pyroscope/ingest_handler.go: `name` parsed by
//     labelset.Parse (app{k=v,…}), `from`/`until` as Unix seconds, spyName;
//     a multipart/form-data Content-Type (and no `format`) means pprof in a
//     form;
//   - pkg/og/convert/pprof/profile.go: the form's file field `profile`
//     holds the pprof (gzip'd or not: pprof.RawFromBytes takes both);
//   - api/model/labelset/validate.go: service name and label name rules;
//   - span profiles, pkg/model/pprofsplit/pprof_split.go VisitSampleSeries:
//     a profile_id sample label is renamed span_id (pprof.RenameLabel); the
//     samples are grouped into series by their labels without span_id and
//     trace_id (pprof.GroupSamplesWithoutLabels), which each sample keeps as
//     columns: pkg/pprof/pprof.go spanIDFromLabels/decodeSpanID (16 hex
//     characters, else 0, read little-endian into a uint64) and
//     traceIDFromLabels (32 hex characters, else none);
//   - pkg/validation/limits.go, the default limits: at most 16,000 samples
//     and 4 MiB of uncompressed pprof per profile, none older than 1 hour
//     (validation.reject-older-than); others are rejected.
// The multipart body is parsed with busboy, every pprof decoded with
// pprof-format. Faults can be switched on: down (port closed), a status
// code (with Retry-After), slow answers, and accepting without answering.
const http = require('node:http')
const https = require('node:https')
const zlib = require('node:zlib')
const Busboy = require('busboy')
const { Profile } = require('pprof-format')

const MAX_SAMPLES = 16_000
const MAX_PROFILE_BYTES = 4 * 1024 * 1024
const REJECT_OLDER_THAN_MS = 3600 * 1000
const LABEL_RUNE = /^[a-zA-Z0-9_.]+$/
const SERVICE_RUNE = /^[a-zA-Z0-9_./-]+$/

// labelset.Parse, its states as in the source: the service name up to '{',
// then key=value pairs separated by ',' until '}'.
function parseName (name) {
  const open = name.indexOf('{')
  const app = (open < 0 ? name : name.slice(0, open)).trim()
  if (!SERVICE_RUNE.test(app)) throw new Error(`invalid service name: ${app}`)
  const labels = {}
  if (open >= 0) {
    const close = name.indexOf('}', open)
    const body = name.slice(open + 1, close < 0 ? undefined : close)
    for (const pair of body.split(',')) {
      if (pair.trim() === '') continue
      const eq = pair.indexOf('=')
      const key = pair.slice(0, eq).trim()
      if (eq < 0 || !LABEL_RUNE.test(key) || key === '__name__') throw new Error(`invalid label name: ${key}`)
      labels[key] = pair.slice(eq + 1).trim()
    }
  }
  return { app, labels }
}

function readForm (req) {
  return new Promise((resolve, reject) => {
    const fields = {}
    let bb
    try {
      bb = Busboy({ headers: req.headers, limits: { fileSize: 32 << 20 } })
    } catch (err) {
      reject(err)
      return
    }
    bb.on('file', (field, stream) => {
      const chunks = []
      stream.on('data', (c) => chunks.push(c))
      stream.on('end', () => { fields[field] = Buffer.concat(chunks) })
    })
    bb.on('close', () => resolve(fields))
    bb.on('error', reject)
    req.pipe(bb)
  })
}

// pprof_split.go's VisitSampleSeries, its span part: per sample its series'
// labels (sample labels but span_id and trace_id, after profile_id is renamed
// span_id), its span id (pprof.go decodeSpanID: a uint64 as a BigInt, 0n
// when not 16 hex characters) and trace id ('' when not 32 hex).
function spanColumns (profile) {
  const st = profile.stringTable.strings
  const hex = (s, n) => typeof s === 'string' && s.length === n && /^[0-9a-fA-F]+$/.test(s)
  return profile.sample.map((sample) => {
    const labels = {}
    let spanId = 0n
    let traceId = ''
    for (const l of sample.label) {
      let key = st[Number(l.key)]
      if (key === 'profile_id') key = 'span_id' // pprof.RenameLabel
      const str = Number(l.str) > 0 ? st[Number(l.str)] : undefined
      if (key === 'span_id') {
        if (spanId === 0n && hex(str, 16)) spanId = Buffer.from(str, 'hex').readBigUInt64LE(0)
      } else if (key === 'trace_id') {
        if (traceId === '' && hex(str, 32)) traceId = str.toLowerCase()
      } else if (str !== undefined) {
        labels[key] = str
      }
    }
    return { labels, spanId, traceId }
  })
}

/** decodeSpanID's uint64 (a BigInt) back to the 16 hex characters sent. */
function spanHex (id) {
  const b = Buffer.alloc(8)
  b.writeBigUInt64LE(id)
  return b.toString('hex')
}

function decodePprof (raw) {
  const bytes = raw[0] === 0x1f && raw[1] === 0x8b ? zlib.gunzipSync(raw) : raw
  return { profile: Profile.decode(bytes), bytes: bytes.length }
}

/** Starts a receiver; port 0 picks one; tls: { key, cert } for HTTPS.
 * → { port, url, profiles, requests, set(faults), close(), down(), up() } */
async function startReceiver ({ port = 0, tls = null } = {}) {
  const profiles = [] // every accepted profile: { app, labels, from, until, spyName, profile, spans, headers, at }
  const requests = [] // every request: { at, status }
  let faults = {} // { status, retryAfter, times, delayMs, hang }
  const hung = new Set()

  async function handle (req, res) {
    const at = Date.now()
    const answer = (status, text, headers = {}) => {
      requests.push({ at, status, url: req.url })
      res.writeHead(status, { 'content-type': 'text/plain', ...headers })
      res.end(text)
    }
    if (faults.hang) {
      hung.add(res)
      requests.push({ at, status: 'hang', url: req.url })
      req.resume()
      return
    }
    if (faults.delayMs) await new Promise((resolve) => setTimeout(resolve, faults.delayMs))
    if (faults.status && (faults.times === undefined || faults.times-- > 0)) {
      req.resume()
      answer(faults.status, `fault ${faults.status}`, faults.retryAfter !== undefined ? { 'retry-after': String(faults.retryAfter) } : {})
      return
    }
    const u = new URL(req.url, 'http://x')
    if (req.method !== 'POST' || u.pathname !== '/ingest') return answer(404, 'not found')
    let meta
    try {
      meta = parseName(u.searchParams.get('name') || '')
    } catch (err) {
      req.resume()
      return answer(400, `failed to parse request metadata: ${err.message}`)
    }
    const type = req.headers['content-type'] || ''
    if (u.searchParams.get('format') || !type.includes('multipart/form-data')) {
      req.resume()
      return answer(400, 'this receiver takes pprof in a multipart form only')
    }
    let fields
    try {
      fields = await readForm(req)
    } catch (err) {
      return answer(400, `bad form: ${err.message}`)
    }
    if (!fields.profile) return answer(400, 'no profile field')
    let decoded
    try {
      decoded = decodePprof(fields.profile)
    } catch (err) {
      return answer(400, `not pprof: ${err.message}`)
    }
    if (decoded.bytes > MAX_PROFILE_BYTES) return answer(400, `profile too large: ${decoded.bytes}`)
    if (decoded.profile.sample.length > MAX_SAMPLES) return answer(400, `too many samples: ${decoded.profile.sample.length}`)
    if (Number(BigInt(decoded.profile.timeNanos) / 1000000n) < Date.now() - REJECT_OLDER_THAN_MS) return answer(400, 'profile too old')
    profiles.push({
      ...meta,
      from: Number(u.searchParams.get('from')),
      until: Number(u.searchParams.get('until')),
      spyName: u.searchParams.get('spyName'),
      profile: decoded.profile,
      spans: spanColumns(decoded.profile), // per sample: { labels, spanId, traceId }
      bytes: decoded.bytes, // uncompressed
      raw: fields.profile.length, // as sent (gzip'd)
      headers: req.headers,
      at
    })
    answer(200, '')
  }

  let server
  let boundPort = port
  function listen () {
    const onRequest = (req, res) => { handle(req, res).catch((err) => { res.statusCode = 500; res.end(String(err)) }) }
    server = tls ? https.createServer(tls, onRequest) : http.createServer(onRequest)
    server.keepAliveTimeout = 1000
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(boundPort, '127.0.0.1', () => {
        boundPort = server.address().port
        resolve()
      })
    })
  }
  function stopListening () {
    for (const res of hung) res.destroy()
    hung.clear()
    return new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
  await listen()
  return {
    get port () { return boundPort },
    get url () { return `${tls ? 'https' : 'http'}://127.0.0.1:${boundPort}` },
    profiles,
    requests,
    set (f) { faults = { ...f } },
    down: stopListening,
    up: listen,
    close: stopListening
  }
}

/** Self and total of each function of a decoded pprof, by sample value index. */
function functionTotals (profile, index) {
  const s = (i) => profile.stringTable.strings[Number(i)]
  const fnName = new Map(profile.function.map((f) => [String(f.id), s(f.name)]))
  const locFn = new Map(profile.location.map((l) => [String(l.id), fnName.get(String(l.line[0].functionId))]))
  const self = new Map()
  for (const sample of profile.sample) {
    const leaf = locFn.get(String(sample.locationId[0]))
    self.set(leaf, (self.get(leaf) || 0) + Number(sample.value[index]))
  }
  return self
}

// Every sample the receiver accepted, window by window: the function names
// on its stack (the push names a function url:name:line; this gives name),
// its span column ({ labels, spanId, traceId }: spanColumns above) and its
// value. Returns { windows, samples: [{ names, col, value }] }.
function pushedSamples (receiver) {
  const samples = []
  for (const p of receiver.profiles) {
    const st = p.profile.stringTable.strings
    const short = (name) => (name.match(/:([^:]+):\d+$/) || [])[1] || name
    const fn = new Map(p.profile.function.map((f) => [String(f.id), short(st[Number(f.name)])]))
    const loc = new Map(p.profile.location.map((l) => [String(l.id), fn.get(String(l.line[0].functionId))]))
    p.profile.sample.forEach((s, i) => {
      samples.push({ names: s.locationId.map((id) => loc.get(String(id))), col: p.spans[i], value: Number(s.value[0]) })
    })
  }
  return { windows: receiver.profiles.length, samples }
}

module.exports = { startReceiver, parseName, functionTotals, spanHex, pushedSamples }

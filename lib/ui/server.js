'use strict'
// cprof ui's HTTP server: node:http on 127.0.0.1 only. Every request must
// start with /<token>/ (a random 192-bit token printed once, compared in
// constant time) and carry a Host of 127.0.0.1/localhost at our port
// (against DNS rebinding); anything else gets 403. Routes under the token:
//   GET  /                 the dashboard
//   GET  api/files         { dir, files: [{ name, kind, pid, time, to, size, why }] }
//                          (to: a recorder window's end, else null; why: cprof
//                          list's WHY, lib/files/profiles.js)
//   GET  api/processes     { processes: [{ pid, signal, heapSignal, row }] }
//                          (cprof ps: lib/fleet/discover.js, nothing pruned;
//                          row: its cells as cprof ps prints them, lib/fleet/ps-rows.js)
//   GET  view?file=NAME    the HTML viewer of a profile in dir (a
//                          .heapsnapshot: its classes and retainers,
//                          lib/viewer/snapshot-page.js)
//   GET  diff?before=A&after=B   the viewer of their diff
//   GET  merge?file=A&file=B…    the viewer of their merge (one kind)
//   POST api/profile       { pid, kind: 'cpu'|'heap', seconds, signal? } → 202 { id }
//   GET  api/jobs          { jobs: [{ id, pid, kind, seconds, state, log, file,
//                          name, error }] } (lib/ui/jobs.js)
// Viewer pages are written by the native core into a private temp dir,
// read back, sent and removed. A snapshot is analysed on a libuv worker
// thread of this process (never in a profiled app, never on the event
// loop) and its page sent as made.
const crypto = require('node:crypto')
const fs = require('node:fs')
const http = require('node:http')
const os = require('node:os')
const path = require('node:path')
const native = require('../native')
const { TEMPLATE_PATH } = require('../viewer')
const { snapshotPage } = require('../viewer/snapshot-page')
const { mergeMarks } = require('../files/merge-marks')
const { readMarks } = require('../viewer/marks-file')
const { withLabels } = require('../viewer/labels-file')
const { termSafe } = require('../term')

// A CPU merge's page shows where each file starts (docs/viewer.md).
function mergeViewerMarks (files) {
  const marks = /\.cpuprofile$/i.test(files[0]) ? mergeMarks(files) : undefined
  return marks ? { viewerMarks: marks } : {}
}
// A recorder dump's page shows its marks (<stem>.marks.json beside it), as
// cprof html does; marks it cannot use are named on stderr and left out.
function dumpViewerMarks (file) {
  const marks = readMarks(file, (m) => process.stderr.write(`cprof ui: ${termSafe(m)}\n`))
  return marks ? { viewerMarks: marks } : {}
}
const { listProfiles, whyText } = require('../files/profiles')
const { discover, withUsage } = require('../fleet/discover')
const { psRow } = require('../fleet/ps-rows')
const { createJobs } = require('./jobs')

const PROFILE_EXTS = /\.(cpuprofile|heapprofile|heapsnapshot)$/
const SNAPSHOT = /\.heapsnapshot$/
const MAX_MERGE = 200

function sha256 (text) {
  return `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`
}

function dashboardPage () {
  const read = (f) => fs.readFileSync(path.join(__dirname, f), 'utf8')
  const style = read('dashboard.css')
  const script = read('dashboard.js')
  const csp = `default-src 'none'; script-src ${sha256(script)}; style-src ${sha256(style)}; connect-src 'self'; form-action 'none'; base-uri 'none'`
  return read('dashboard.html')
    .replace('__CSP__', () => csp)
    .replace('__STYLE__', () => style)
    .replace('__SCRIPT__', () => script)
}

function send (res, status, type, body) {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY'
  })
  res.end(body)
}

const json = (res, status, obj) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(obj))

function tokenOk (token, given) {
  const a = Buffer.from(token)
  const b = Buffer.from(given)
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}

function readBody (req, limit = 4096) {
  return new Promise((resolve, reject) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (d) => {
      body += d
      if (body.length > limit) reject(Object.assign(new Error('request body too large'), { status: 413 }))
    })
    req.on('end', () => resolve(body))
    req.on('error', reject)
  })
}

// CPU % over this many ms, as cprof ps measures it.
const USAGE_WINDOW_MS = 250

// The live processes that run cprof, as cprof ps lists them: its row, and
// the signals the start form sends.
async function processes () {
  const entries = await withUsage(discover({ prune: false }).entries, USAGE_WINDOW_MS)
  return entries.map((e) => ({
    pid: e.pid,
    signal: (e.triggers && e.triggers.signal) || null,
    heapSignal: (e.triggers && e.triggers.heapSignal) || null,
    row: psRow(e)
  }))
}

/**
 * createUiServer({ dir, port = 0 }) → Promise<{ url, token, port, server, close() }>
 */
async function createUiServer ({ dir, port = 0 }) {
  const token = crypto.randomBytes(24).toString('base64url')
  const page = dashboardPage()
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-ui-'))
  const jobs = createJobs(dir)
  let seq = 0
  let actualPort = port

  // A profile of dir named exactly `name` (no paths), or null. lstat: a
  // symbolic link is not served (nor listed: listProfiles keeps regular
  // files), wherever it points, so nobody who can write in dir can make the
  // dashboard show a file outside it.
  function profileFile (name) {
    if (typeof name !== 'string' || name !== path.basename(name) || name.startsWith('.') || !PROFILE_EXTS.test(name)) return null
    const file = path.join(dir, name)
    try {
      return fs.lstatSync(file).isFile() ? file : null
    } catch {
      return null
    }
  }

  // A snapshot's page (one file).
  async function snapshotViewer (res, file) {
    try {
      send(res, 200, 'text/html; charset=utf-8', await snapshotPage(file, path.basename(file)))
    } catch (err) {
      send(res, 422, 'text/plain; charset=utf-8', `cprof ui: ${err.code ? err.code + ': ' : ''}${err.message}\n`)
    }
  }

  // how: 'view' (one file), 'diff' (before, after) or 'merge' (files of one kind).
  async function viewer (res, files, how = files.length === 1 ? 'view' : 'diff') {
    if (how === 'view' && SNAPSHOT.test(files[0])) return snapshotViewer(res, files[0])
    if (files.some((f) => SNAPSHOT.test(f))) {
      return send(res, 400, 'text/plain; charset=utf-8', 'heap snapshots open one at a time: compare two with cprof snapshot diff\n')
    }
    const n = ++seq
    const out = `view-${n}.html`
    const merged = `merged-${n}.${PROFILE_EXTS.exec(files[0])[1]}`
    const title = how === 'merge' ? `${files.length} merged profiles` : files.map((f) => path.basename(f)).join(' \u2192 ')
    const opts = { outs: { html: out }, htmlTemplate: TEMPLATE_PATH, needSamples: true, title }
    try {
      // its labels beside it (<stem>.labels.json): the page's label filter
      if (how === 'view') {
        const warn = (m) => process.stderr.write(`cprof ui: ${termSafe(m)}\n`)
        await withLabels(files[0], warn, (extra) => native.convert(files[0], work, 0, { ...opts, ...dumpViewerMarks(files[0]), ...extra }))
      }
      else if (how === 'merge') await native.merge(files, work, merged, 0, { ...opts, ...mergeViewerMarks(files) })
      else await native.diff(files[0], files[1], work, 0, opts)
      const html = await fs.promises.readFile(path.join(work, out))
      send(res, 200, 'text/html; charset=utf-8', html)
    } catch (err) {
      send(res, 422, 'text/plain; charset=utf-8', `cprof ui: ${err.code ? err.code + ': ' : ''}${err.message}\n`)
    } finally {
      fs.promises.rm(path.join(work, out), { force: true }).catch(() => {})
      if (how === 'merge') fs.promises.rm(path.join(work, merged), { force: true }).catch(() => {})
    }
  }

  async function route (req, res, rest, query) {
    if (req.method === 'GET' && rest === '') return send(res, 200, 'text/html; charset=utf-8', page)
    if (req.method === 'GET' && rest === 'api/files') {
      let files = []
      // A file its name does not explain, that a job of this dashboard got
      // by signal, says so (its name is that of a profile by the API too).
      const bySignal = new Set(jobs.list.map((j) => j.name).filter(Boolean))
      const why = (f, name) => (f.why === null && bySignal.has(name) ? 'signal' : whyText(f))
      try {
        files = listProfiles(dir).filter((f) => PROFILE_EXTS.test(f.file))
          .map((f) => ({ name: path.basename(f.file), kind: f.kind, pid: f.pid || null, time: f.time, to: f.to ?? null, size: f.size, why: why(f, path.basename(f.file)) }))
      } catch (err) {
        return json(res, 500, { error: `cannot list ${dir}: ${err.message}` })
      }
      return json(res, 200, { dir, files })
    }
    if (req.method === 'GET' && rest === 'api/jobs') return json(res, 200, { jobs: jobs.list })
    if (req.method === 'GET' && rest === 'api/processes') return json(res, 200, { processes: await processes() })
    if (req.method === 'GET' && rest === 'view') {
      const file = profileFile(query.get('file'))
      if (!file) return send(res, 404, 'text/plain; charset=utf-8', 'no such profile in the directory\n')
      return viewer(res, [file])
    }
    if (req.method === 'GET' && rest === 'diff') {
      const a = profileFile(query.get('before'))
      const b = profileFile(query.get('after'))
      if (!a || !b) return send(res, 404, 'text/plain; charset=utf-8', 'no such profile in the directory\n')
      return viewer(res, [a, b])
    }
    if (req.method === 'GET' && rest === 'merge') {
      const names = query.getAll('file')
      const files = names.map(profileFile)
      if (names.length === 0 || files.includes(null)) return send(res, 404, 'text/plain; charset=utf-8', 'no such profile in the directory\n')
      if (files.length < 2 || files.length > MAX_MERGE || new Set(files).size !== files.length) {
        return send(res, 400, 'text/plain; charset=utf-8', `merge takes 2 to ${MAX_MERGE} different profiles\n`)
      }
      if (new Set(files.map((f) => PROFILE_EXTS.exec(f)[1])).size !== 1) {
        return send(res, 400, 'text/plain; charset=utf-8', 'merge takes profiles of one kind: all CPU or all heap\n')
      }
      return viewer(res, files, 'merge')
    }
    if (req.method === 'POST' && rest === 'api/profile') {
      if (!/^application\/json\b/.test(req.headers['content-type'] || '')) return json(res, 415, { error: 'send JSON' })
      let body
      try {
        body = JSON.parse(await readBody(req))
      } catch (err) {
        return json(res, err.status || 400, { error: err.status ? err.message : 'the body is not JSON' })
      }
      const r = jobs.start(body)
      return json(res, r.error ? 400 : 202, r)
    }
    return send(res, 404, 'text/plain; charset=utf-8', 'not found\n')
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1')
    const host = req.headers.host || ''
    const hostOk = host === `127.0.0.1:${actualPort}` || host === `localhost:${actualPort}`
    const m = /^\/([^/]+)\/(.*)$/.exec(url.pathname)
    if (!hostOk || !m || !tokenOk(token, m[1])) return send(res, 403, 'text/plain; charset=utf-8', 'forbidden: use the URL cprof ui printed\n')
    route(req, res, m[2], url.searchParams).catch((err) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `cprof ui: ${err.message}\n`)
    })
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  actualPort = server.address().port
  const close = () => new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
    fs.rmSync(work, { recursive: true, force: true })
  })
  return { url: `http://127.0.0.1:${actualPort}/${token}/`, token, port: actualPort, server, close }
}

module.exports = { createUiServer }

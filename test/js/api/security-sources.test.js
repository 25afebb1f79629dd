'use strict'

// Issue 36, item 2: the source pane of a profile another user planted. The
// profile names x.js, a link to a root-only file with a marker (as if to
// /etc/shadow), app-secrets.js in a directory only root may enter, and
// mine.js, root's file of mode 0600; root runs `cprof report --lines` and
// `cprof html` on it. None of the markers may show, each file says
// "source not shown" and why; the planter's own .js file still shows, and
// root's own copy of the profile shows root's files (the control case).
// Multi-user as security.test.js: a throwaway user made with useradd, as
// root (else skipped).

const { test: nodeTest, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { ROOT, childEnv } = require('../helpers/util.js')

const TOOL_ENV = Object.fromEntries(Object.entries(process.env)
  .filter(([k]) => !['LD_PRELOAD', 'ASAN_OPTIONS', 'LSAN_OPTIONS', 'UBSAN_OPTIONS'].includes(k)))
const sys = (cmd, args) => spawnSync(cmd, args, { encoding: 'utf8', env: TOOL_ENV })

function whySkip () {
  if (typeof process.geteuid !== 'function') return 'needs POSIX users'
  if (process.geteuid() !== 0) return 'needs root: it creates a throwaway user and reads as root what it planted'
  if (sys('useradd', ['--help']).error) return 'needs useradd (Debian: apt-get install passwd)'
  return false
}
const SKIP = whySkip()
const test = (name, fn) => nodeTest(name, { timeout: 120000, skip: SKIP }, fn)

const BIN = path.join(ROOT, 'bin', 'cprof.js')
const MARK = { link: 'MARKER-LINKED-SHADOW', closed: 'MARKER-CLOSED-DIR', mode: 'MARKER-MODE-0600', own: 'MARKER-PLANTERS-OWN' }
let user, base, files

function cli (...args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60000, env: childEnv() })
  if (r.error) throw r.error
  return r
}

function fn (id, name, url) {
  return {
    id,
    callFrame: { functionName: name, scriptId: String(id), url: `file://${url}`, lineNumber: 0, columnNumber: 0 },
    hitCount: 3,
    positionTicks: [{ line: 1, ticks: 3 }]
  }
}

// A profile whose four functions are in the four files, 3 samples each.
function profileText () {
  const urls = [files.link, files.closed, files.mode, files.own]
  const nodes = [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [2, 3, 4, 5] }]
  urls.forEach((u, i) => nodes.push(fn(i + 2, `f${i}`, u)))
  const samples = [2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5]
  return JSON.stringify({ nodes, startTime: 0, endTime: 12000, samples, timeDeltas: samples.map(() => 1000) })
}

before(() => {
  if (SKIP) return
  const name = `cprofs${process.pid}`.slice(0, 31)
  const r = sys('useradd', ['-M', '-U', '-s', '/usr/sbin/nologin', name])
  assert.equal(r.status, 0, `useradd ${name}: ${r.stderr}`)
  const id = (flag) => Number(sys('id', [flag, name]).stdout.trim())
  user = { name, uid: id('-u'), gid: id('-g') }
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-security-sources-'))
  fs.chmodSync(base, 0o755)
  // root's: a secret not named like source, a directory closed to others, a file of mode 0600
  const secret = path.join(base, 'shadow')
  fs.writeFileSync(secret, `${MARK.link}\n`, { mode: 0o600 })
  const closedDir = path.join(base, 'closed')
  fs.mkdirSync(closedDir, { mode: 0o700 })
  const closed = path.join(closedDir, 'app-secrets.js')
  fs.writeFileSync(closed, `const key = '${MARK.closed}'\n`, { mode: 0o644 })
  const mode = path.join(base, 'mine.js')
  fs.writeFileSync(mode, `const key = '${MARK.mode}'\n`, { mode: 0o600 })
  // the planter's: a directory, the link, its own source, the profile
  const plant = path.join(base, 'plant')
  fs.mkdirSync(plant, { mode: 0o755 })
  fs.chownSync(plant, user.uid, user.gid)
  const link = path.join(plant, 'x.js')
  fs.symlinkSync(secret, link)
  fs.lchownSync(link, user.uid, user.gid)
  const own = path.join(plant, 'own.js')
  fs.writeFileSync(own, `const mine = '${MARK.own}'\n`, { mode: 0o644 })
  fs.chownSync(own, user.uid, user.gid)
  files = { link, closed, mode, own, plant }
  const prof = path.join(plant, 'planted.cpuprofile')
  fs.writeFileSync(prof, profileText(), { mode: 0o644 })
  fs.chownSync(prof, user.uid, user.gid)
  files.prof = prof
})

after(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true })
  if (user) sys('userdel', [user.name])
})

test('root\'s cprof report --lines on a planted profile: no marker of root\'s files, each says source not shown and why; the planter\'s own file shows', () => {
  const r = cli('report', files.prof, '--lines')
  assert.equal(r.status, 0, r.stderr)
  for (const m of [MARK.link, MARK.closed, MARK.mode]) assert.ok(!r.stdout.includes(m), `${m} shown:\n${r.stdout}`)
  assert.match(r.stdout, /source not shown: .*x\.js: it is a link to a file not named like source code/)
  assert.match(r.stdout, new RegExp(`source not shown: .*app-secrets\\.js: the profile's owner \\(uid ${user.uid}\\) cannot reach it`))
  assert.match(r.stdout, new RegExp(`source not shown: .*mine\\.js: the profile's owner \\(uid ${user.uid}\\) cannot read it`))
  assert.ok(r.stdout.includes(MARK.own), r.stdout)
})

// The page's data: sources.text and sources.why per file.
function pageData (file) {
  const html = fs.readFileSync(file, 'utf8')
  return { html, data: JSON.parse(/id="cprof-data"[^>]*>(.*?)<\/script>/s.exec(html)[1]) }
}

test('root\'s cprof html on the planted profile: no marker in the page, sources.why says why; the planter\'s own file shows', () => {
  const out = path.join(base, 'planted.html')
  const r = cli('html', files.prof, '-o', out)
  assert.equal(r.status, 0, r.stderr)
  const { html, data } = pageData(out)
  for (const m of [MARK.link, MARK.closed, MARK.mode]) assert.ok(!html.includes(m), `${m} in the page`)
  const S = data.sources
  const why = (name) => S.why[S.url.findIndex((u) => u.endsWith(name))]
  assert.match(why('x.js'), /^it is a link to a file not named like source code$/)
  assert.match(why('app-secrets.js'), /cannot reach it/)
  assert.match(why('mine.js'), /cannot read it/)
  assert.equal(why('own.js'), null)
  assert.ok(S.text[S.url.findIndex((u) => u.endsWith('own.js'))].includes(MARK.own))
})

// Root's own copy of a profile: written anew (not fs.copyFileSync: CI's
// copy came out owned by the planter, uid and all) and checked to be root's.
function rootsCopy (from, name) {
  const to = path.join(base, name)
  fs.writeFileSync(to, fs.readFileSync(from), { mode: 0o644 })
  fs.chownSync(to, 0, 0)
  const st = fs.statSync(to)
  assert.equal(st.uid, 0, `${to} is owned by uid ${st.uid}, not root: the control case needs root's own file`)
  return to
}

test('control: root\'s own copy of the profile shows root\'s files (only the link to a non-source file stays refused)', () => {
  const mine = rootsCopy(files.prof, 'roots.cpuprofile')
  const r = cli('report', mine, '--lines')
  assert.equal(r.status, 0, r.stderr)
  for (const m of [MARK.closed, MARK.mode, MARK.own]) assert.ok(r.stdout.includes(m), `${m} not shown:\n${r.stdout}`)
  assert.ok(!r.stdout.includes(MARK.link))
  assert.match(r.stdout, /source not shown: .*x\.js: it is a link/)
})

// With --source-maps: the planter's bundle.js maps (no sourcesContent) to
// root's app-secrets.js in the closed directory, and their other.js names a
// map of root's, mode 0600, whose sourcesContent holds a marker. Neither
// shows: the original file goes through the same rule, the map closed to
// them is not used at all.
test('root\'s --source-maps report and page on the planted profile: no marker through a map\'s sources or a root-only map\'s sourcesContent', () => {
  const chown = (f) => fs.lchownSync(f, user.uid, user.gid)
  const bundle = path.join(files.plant, 'bundle.js')
  fs.writeFileSync(bundle, 'f()\n//# sourceMappingURL=bundle.js.map\n', { mode: 0o644 })
  fs.writeFileSync(bundle + '.map', JSON.stringify({ version: 3, sources: [files.closed], names: [], mappings: 'AAAA' }), { mode: 0o644 })
  const rootMap = path.join(base, 'root.js.map')
  fs.writeFileSync(rootMap, JSON.stringify({ version: 3, sources: ['/nowhere/secret-original.ts'], sourcesContent: ['MARKER-ROOT-MAP-CONTENT'], names: [], mappings: 'AAAA' }), { mode: 0o600 })
  const other = path.join(files.plant, 'other.js')
  fs.writeFileSync(other, `g()\n//# sourceMappingURL=${rootMap}\n`, { mode: 0o644 })
  for (const f of [bundle, bundle + '.map', other]) chown(f)
  const nodes = [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [2, 3] },
    fn(2, 'f', bundle), fn(3, 'g', other)]
  const samples = [2, 2, 2, 3, 3, 3]
  const prof = path.join(files.plant, 'mapped.cpuprofile')
  fs.writeFileSync(prof, JSON.stringify({ nodes, startTime: 0, endTime: 6000, samples, timeDeltas: samples.map(() => 1000) }))
  chown(prof)
  const r = cli('report', prof, '--lines', '--source-maps')
  assert.equal(r.status, 0, r.stderr)
  for (const m of [MARK.closed, 'MARKER-ROOT-MAP-CONTENT']) assert.ok(!r.stdout.includes(m), `${m} shown:\n${r.stdout}`)
  assert.match(r.stdout, /source not shown: .*app-secrets\.js: the profile's owner .* cannot reach it/)
  const out = path.join(base, 'mapped.html')
  const h = cli('html', prof, '-o', out, '--source-maps')
  assert.equal(h.status, 0, h.stderr)
  const html = fs.readFileSync(out, 'utf8')
  for (const m of [MARK.closed, 'MARKER-ROOT-MAP-CONTENT']) assert.ok(!html.includes(m), `${m} in the page`)
  // control: root's own copy maps through both and shows both
  const mine = rootsCopy(prof, 'mapped-roots.cpuprofile')
  const c = cli('report', mine, '--lines', '--source-maps')
  assert.equal(c.status, 0, c.stderr)
  for (const m of [MARK.closed, 'MARKER-ROOT-MAP-CONTENT']) assert.ok(c.stdout.includes(m), `${m} not shown:\n${c.stdout}`)
})

test('root\'s cprof ui on the planter\'s directory: the planted profile\'s page shows no marker, sources.why says why', async () => {
  const { createUiServer } = require('../../../lib/ui/server')
  const ui = await createUiServer({ dir: files.plant })
  try {
    const res = await fetch(ui.url + 'view?file=planted.cpuprofile')
    const html = await res.text()
    assert.equal(res.status, 200, html.slice(0, 300))
    for (const m of [MARK.link, MARK.closed, MARK.mode]) assert.ok(!html.includes(m), `${m} in the page`)
    const S = JSON.parse(/id="cprof-data"[^>]*>(.*?)<\/script>/s.exec(html)[1]).sources
    assert.match(S.why[S.url.findIndex((u) => u.endsWith('mine.js'))], /cannot read it/)
    assert.ok(html.includes(MARK.own))
  } finally {
    await ui.close()
  }
})

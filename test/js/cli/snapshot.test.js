'use strict'

// cprof snapshot: a .heapsnapshot written by Node's own writer in another
// process (a module-level Map, sessionCache, holding N Sessions), read by
// the CLI. The counts and sizes are checked against the snapshot file
// itself, read here with JSON.parse (an independent reader).

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const { pathToFileURL } = require('node:url')

const { makeTmpDir, removeTmpDirs, childEnv } = require('../helpers/util.js')
const { runFixture, FIXTURES } = require('../helpers/util.js').fixturesIn(__dirname)

after(removeTmpDirs)

const BIN = path.join(__dirname, '..', '..', '..', 'bin', 'cprof.js')
const N = 1500

function cli (...args) {
  // maxBuffer: a three-snapshot diff's --json at --top 200 is over 1 MiB
  // (spawnSync's default, past which it kills the child: status null).
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 180000, maxBuffer: 64 << 20, env: childEnv() })
  if (r.error) throw r.error
  return r
}

// Count and summed self size of the object nodes named `name`, straight
// from the file.
function groundTruth (file, name) {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8'))
  const meta = snap.snapshot.meta
  const nf = meta.node_fields.length
  const types = meta.node_types[meta.node_fields.indexOf('type')]
  const sizes = []
  for (let i = 0; i < snap.nodes.length; i += nf) {
    if (types[snap.nodes[i]] === 'object' && snap.strings[snap.nodes[i + 1]] === name) sizes.push(snap.nodes[i + 3])
  }
  return { count: sizes.length, self: sizes.reduce((a, b) => a + b, 0), sizes: new Set(sizes) }
}

let snapshotFile
function leakSnapshot () {
  if (snapshotFile) return snapshotFile
  const dir = makeTmpDir('cprof-snapshot-')
  const r = runFixture('snapshot-leak.js', [path.join(dir, 'leak.heapsnapshot'), String(N)], { timeout: 180000 })
  assert.equal(r.status, 0, r.describe())
  assert.equal(r.json[0].sessions, N)
  snapshotFile = r.json[0].file
  return snapshotFile
}

test('cprof snapshot --json: N Sessions of one size, held by the sessionCache Map', () => {
  const file = leakSnapshot()
  const truth = groundTruth(file, 'Session')
  assert.equal(truth.count, N)
  assert.equal(truth.sizes.size, 1, 'every Session has the same shallow size')
  const [size] = truth.sizes

  const r = cli('snapshot', file, '--json', '--top', '50')
  assert.equal(r.status, 0, r.stderr)
  const rep = JSON.parse(r.stdout)
  const session = rep.classes.find((c) => c.name === 'Session')
  assert.ok(session, `Session among the 50 largest classes: ${rep.classes.map((c) => c.name).join(', ')}`)
  assert.equal(session.count, N)
  assert.equal(session.selfSize, N * size)
  // each Session retains its two strings: more than its own size
  assert.ok(session.retainedSize > session.selfSize + N * 256, JSON.stringify(session))

  // one shortest retainer path, from a root, through the Map
  const steps = session.path
  const at = steps.findIndex((s) => s.edge === 'sessionCache')
  assert.ok(at >= 0, JSON.stringify(steps))
  assert.equal(steps[at].class, 'Map')
  assert.equal(steps.at(-1).class, 'Session')
  assert.equal(steps[at + 1].edge, 'table')

  // the Map itself: among the largest objects, retaining every Session
  const map = rep.objects.find((o) => o.class === 'Map' && o.path.some((s) => s.edge === 'sessionCache'))
  assert.ok(map, 'the sessionCache Map is among the largest objects')
  assert.ok(map.retainedSize >= session.retainedSize, `${map.retainedSize} >= ${session.retainedSize}`)
  assert.ok(rep.totalSize >= map.retainedSize)
  assert.equal(rep.nodes, groundTruthNodes(file))

  // the closure on the path says where it is defined: the fixture's file
  // and line (from 1), as DevTools shows it
  const fn = steps.find((s) => s.type === 'closure' && s.name === 'getSession')
  assert.ok(fn, JSON.stringify(steps))
  const fixture = path.join(FIXTURES, 'snapshot-leak.js')
  assert.ok([fixture, pathToFileURL(fixture).href].includes(fn.location.url), JSON.stringify(fn.location))
  assert.equal(fn.location.line, GET_SESSION_LINE)

  // distances: DevTools' where a user root reaches, else null (never its
  // internal 100,000,000 and up)
  const distances = [...rep.objects, ...rep.classes].map((o) => o.distance)
  assert.ok(distances.every((d) => d === null || (Number.isInteger(d) && d >= 0 && d < 1e8)), distances.join())
  assert.ok(distances.includes(null), 'objects held only by the GC roots have none')
  assert.equal(session.distance, steps.length, "a path's length is its end's distance")
})

// the line of `function getSession` in the fixture, from 1
const GET_SESSION_LINE = fs.readFileSync(path.join(FIXTURES, 'snapshot-leak.js'), 'utf8').split('\n').findIndex((l) => l.startsWith('function getSession')) + 1

function groundTruthNodes (file) {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8'))
  return snap.nodes.length / snap.snapshot.meta.node_fields.length
}

test('cprof snapshot: the text report names the path and the class', () => {
  const r = cli('snapshot', leakSnapshot(), '--top', '50')
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /^Heap snapshot .*: [\d,]+ objects, [\d,]+ references, [\d.]+ [KM]iB reachable/)
  assert.match(r.stdout, /sessionCache → Map → table → \(array\) → \[\d+\] → Session/)
  assert.match(r.stdout, new RegExp(`getSession\\(\\) snapshot-leak\\.js:${GET_SESSION_LINE} → context → system / Context → sessionCache`))
  assert.match(r.stdout, new RegExp(`^\\s*${N.toLocaleString('en-US')}\\s+[\\d.]+ KiB\\s+[\\d.]+ [KM]iB\\s+Session$`, 'm'))
})

test('cprof snapshot: a truncated or foreign file is refused with exit 1 and one line', () => {
  const dir = makeTmpDir('cprof-snapshot-bad-')
  const text = fs.readFileSync(leakSnapshot(), 'utf8')
  const cut = path.join(dir, 'cut.heapsnapshot')
  fs.writeFileSync(cut, text.slice(0, Math.floor(text.length / 2)))
  let r = cli('snapshot', cut)
  assert.equal(r.status, 1)
  assert.match(r.stderr, /^cprof: ERR_CPROF_BAD_PROFILE: .*cut\.heapsnapshot is not a readable V8 heap snapshot: .*truncated/)
  const prof = path.join(dir, 'x.cpuprofile')
  fs.writeFileSync(prof, JSON.stringify({ nodes: [], startTime: 0, endTime: 1, samples: [], timeDeltas: [] }))
  r = cli('snapshot', prof)
  assert.equal(r.status, 1)
  assert.match(r.stderr, /ERR_CPROF_BAD_PROFILE: .*no snapshot\.meta/)
  r = cli('snapshot', path.join(dir, 'missing.heapsnapshot'))
  assert.equal(r.status, 1)
  assert.match(r.stderr, /ERR_CPROF_IO: .*No such file/)
  r = cli('snapshot', prof, '--top', '0')
  assert.equal(r.status, 2)
})

// DevTools' own heap-snapshot code, headless, on the same file: the 20
// largest objects' retained sizes and the class totals within 1%
// (scripts/devtools-snapshot.js; needs the chrome-devtools-frontend package
// unpacked under .cache, as that script says, else skipped).
test('cprof snapshot agrees with DevTools\' heap-snapshot worker within 1%', (t) => {
  const frontend = process.env.CPROF_DEVTOOLS_FRONTEND || path.join(__dirname, '..', '..', '..', '.cache', 'chrome-devtools-frontend', 'package')
  if (!fs.existsSync(path.join(frontend, 'front_end'))) {
    t.skip(`no chrome-devtools-frontend package at ${frontend} (see scripts/devtools-snapshot.js)`)
    return
  }
  const script = path.join(__dirname, '..', '..', '..', 'scripts', 'devtools-snapshot.js')
  const r = spawnSync(process.execPath, [script, leakSnapshot(), '--top', '20', '--json'], { encoding: 'utf8', timeout: 120000, env: childEnv() })
  assert.equal(r.status, 0, r.stdout + r.stderr)
  const out = JSON.parse(r.stdout)
  const objects = out.rows.filter((row) => row.what.startsWith('object'))
  assert.equal(objects.length, 20)
  assert.ok(out.rows.some((row) => row.what === 'class Session retained' && row.diff === 0), 'Session compared, equal')
  assert.ok(out.rows.some((row) => row.what === 'class Map retained'), 'Map compared')
  assert.deepEqual(out.rows.filter((row) => !row.ok), [])
})

test('analyze() on a .heapsnapshot gives what cprof snapshot --json gives', async () => {
  const cprof = require('../../../lib/index.js')
  const file = leakSnapshot()
  const r = cli('snapshot', file, '--json', '--top', '30')
  assert.equal(r.status, 0, r.stderr)
  const { file: _file, ...fromCli } = JSON.parse(r.stdout)
  const fromApi = await cprof.analyze(file, { top: 30 })
  assert.equal(fromApi.kind, 'snapshot')
  delete fromApi.kind
  assert.deepEqual(fromApi, fromCli)
  // a file that cannot be read: the profile analysis's ERR_CPROF_IO
  await assert.rejects(cprof.analyze(path.join(path.dirname(file), 'missing.heapsnapshot')), { code: 'ERR_CPROF_IO' })
})

// cprof snapshot diff: three snapshots of one process
// (fixtures/snapshot-diff-leak.js): sessionCache gains N_DIFF Sessions
// between A and B and keeps them in C; N_DIFF / 2 Jobs are held in B and
// dropped before C; garbage comes and goes between every two.
const N_DIFF = 1000
let diffFiles
function diffSnapshots () {
  if (diffFiles) return diffFiles
  const dir = makeTmpDir('cprof-snapshot-diff-')
  const r = runFixture('snapshot-diff-leak.js', [dir, String(N_DIFF)], { timeout: 180000 })
  assert.equal(r.status, 0, r.describe())
  assert.equal(r.json[0].sessions, N_DIFF)
  diffFiles = r.json[0].files
  return diffFiles
}

const SESSION_PATH = /sessionCache → Map → table → \(array\) → \[\] → Session$/

function diffJson (...files) {
  const r = cli('snapshot', 'diff', ...files, '--json', '--top', '200')
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stderr, '', 'no warning: the snapshots are of one process')
  return JSON.parse(r.stdout)
}

test('cprof snapshot diff A B: Session grew by N, new objects grouped on the path through sessionCache', () => {
  const { a, b } = diffSnapshots()
  const [size] = groundTruth(b, 'Session').sizes
  const rep = diffJson(a, b)
  assert.deepEqual(rep.files, [a, b])
  assert.equal(rep.snapshots.length, 2)
  assert.equal(rep.leaked, undefined)
  const session = rep.classes.find((c) => c.name === 'Session')
  assert.ok(session, rep.classes.map((c) => c.name).join(', '))
  assert.deepEqual([session.a.count, session.b.count, session.countDelta], [0, N_DIFF, N_DIFF])
  assert.equal(session.selfSizeDelta, N_DIFF * size)
  assert.ok(session.retainedSizeDelta > N_DIFF * (size + 256), JSON.stringify(session))
  const job = rep.classes.find((c) => c.name === 'Job')
  assert.equal(job.countDelta, N_DIFF / 2)
  // the classes come by shallow size growth
  const growth = rep.classes.map((c) => c.selfSizeDelta)
  assert.deepEqual(growth, [...growth].sort((x, y) => y - x))

  const held = rep.added.groups.filter((g) => SESSION_PATH.test(g.path))
  assert.equal(held.length, 1, rep.added.groups.map((g) => g.path).join('\n'))
  assert.equal(held[0].count, N_DIFF)
  assert.equal(held[0].selfSize, N_DIFF * size)
  assert.equal(held[0].example.path.at(-1).class, 'Session')
  assert.ok(held[0].example.path.some((s) => s.edge === 'sessionCache'))
  assert.ok(rep.added.groups.some((g) => /→ Job$/.test(g.path) && g.count === N_DIFF / 2), 'the Jobs are new in B')
  assert.ok(rep.added.count >= N_DIFF * 1.5)
})

test('cprof snapshot diff A B C: exactly the N leaked Sessions under sessionCache; the freed Jobs not listed', () => {
  const { a, b, c } = diffSnapshots()
  const rep = diffJson(a, b, c)
  assert.equal(rep.snapshots.length, 3)
  const sessions = rep.leaked.groups.filter((g) => /→ Session$/.test(g.path))
  assert.equal(sessions.length, 1, sessions.map((g) => g.path).join('\n'))
  assert.match(sessions[0].path, SESSION_PATH)
  assert.equal(sessions[0].count, N_DIFF)
  assert.equal(sessions[0].count, groundTruth(c, 'Session').count)
  // the leak comes first: the largest retained size
  assert.equal(rep.leaked.groups[0], sessions[0])
  assert.ok(!rep.leaked.groups.some((g) => /→ Job$|→ Job → steps/.test(g.path)), 'no Job is alive in C')
  assert.ok(rep.leaked.count < rep.added.count)

  const text = cli('snapshot', 'diff', a, b, c, '--top', '10')
  assert.equal(text.status, 0, text.stderr)
  assert.match(text.stdout, new RegExp(`^\\s*0\\s+${N_DIFF.toLocaleString('en-US')}\\s+\\+${N_DIFF.toLocaleString('en-US')}\\s+\\+[\\d.]+ KiB\\s+\\+[\\d.]+ KiB\\s+Session$`, 'm'))
  assert.match(text.stdout, /^Leaked \(memlab's method\): new in B and still alive in C: /m)
  assert.match(text.stdout, new RegExp(`^\\s*${N_DIFF.toLocaleString('en-US')}\\s+[\\d.]+ KiB\\s+[\\d.]+ KiB\\s+.*sessionCache → Map → table → \\(array\\) → \\[\\] → Session$`, 'm'))
})

test('cprof snapshot diff: the classes of A and B are the ones DevTools\' worker computes', async (t) => {
  const { devtools, FRONTEND } = require('../../../scripts/devtools-snapshot.js')
  if (!fs.existsSync(path.join(FRONTEND, 'front_end'))) {
    t.skip(`no chrome-devtools-frontend package at ${FRONTEND} (see scripts/devtools-snapshot.js)`)
    return
  }
  const { a, b } = diffSnapshots()
  const rep = diffJson(a, b)
  const theirs = [await devtools(a, 1), await devtools(b, 1)]
  let compared = 0
  for (const c of rep.classes) {
    if (c.name === 'Object') continue // DevTools names plain objects by their properties
    for (const [side, dt] of [['a', theirs[0]], ['b', theirs[1]]]) {
      const d = dt.classes.get(c.name)
      if (c[side].count === 0) { assert.ok(!d || d.count === 0, `${c.name} absent from ${side}`); continue }
      if (!d || d.keys > 1) continue // named differently by DevTools
      assert.deepEqual([c[side].count, c[side].selfSize, c[side].retainedSize], [d.count, d.selfSize, d.retainedSize], `${c.name} in ${side}`)
      compared++
    }
  }
  assert.ok(compared >= 8, `${compared} class rows compared`)
  assert.ok(rep.classes.some((c) => c.name === 'Session'))
})

test('cprof snapshot diff: snapshots given newest first warn (V8\'s ids only grow), oldest first do not', () => {
  const { a, b, c } = diffSnapshots()
  const older = (later, earlier) => new RegExp(`^cprof snapshot diff: warning: ${later} looks older than ${earlier}: \\d+ of the \\d+ objects of ${later} that ${earlier} lacks have ids below ${earlier}'s largest, .*oldest first$`, 'm')
  let r = cli('snapshot', 'diff', b, a, '--json')
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stderr, older('B', 'A'))
  assert.equal(JSON.parse(r.stdout).warnings.length, 1)
  r = cli('snapshot', 'diff', a, c, b, '--json')
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stderr, older('C', 'B'))
  assert.doesNotMatch(r.stderr, /B looks older than A/)
  assert.equal(JSON.parse(r.stdout).warnings.length, 1)
  // in order: diffJson asserts an empty stderr
  assert.equal(diffJson(a, b, c).warnings.length, 0)
})

test('cprof snapshot diff: a missing file, a file that is no snapshot, snapshots of two processes', () => {
  const { a, b } = diffSnapshots()
  const dir = makeTmpDir('cprof-snapshot-diff-bad-')
  let r = cli('snapshot', 'diff', a, path.join(dir, 'missing.heapsnapshot'))
  assert.equal(r.status, 1)
  assert.match(r.stderr, /^cprof: ERR_CPROF_IO: .*cannot read .*missing\.heapsnapshot: No such file/)
  const prof = path.join(dir, 'x.cpuprofile')
  fs.writeFileSync(prof, JSON.stringify({ nodes: [], startTime: 0, endTime: 1, samples: [], timeDeltas: [] }))
  r = cli('snapshot', 'diff', a, b, prof)
  assert.equal(r.status, 1)
  assert.match(r.stderr, /^cprof: ERR_CPROF_BAD_PROFILE: .*x\.cpuprofile is not a readable V8 heap snapshot: .*no snapshot\.meta/)
  // another process (the single-snapshot fixture): its ids name other objects
  r = cli('snapshot', 'diff', leakSnapshot(), b, '--json')
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stderr, /^cprof snapshot diff: warning: the object ids of A and B do not line up: [\d]+ of the [\d]+ ids found in both .*different processes\?$/m)
  assert.equal(JSON.parse(r.stdout).warnings.length, 1)
  // usage: one file, four files, a bad --top
  for (const args of [[a], [a, b, a, b], [a, b, '--top', '0']]) {
    r = cli('snapshot', 'diff', ...args)
    assert.equal(r.status, 2, args.join(' '))
    assert.match(r.stderr, /^cprof snapshot diff: /)
  }
})

// A string far past V8's own 1,024-character cut (written with a larger
// --heap-snapshot-string-limit, or planted in a file): every output names
// it by its first 1,024 characters and its full length, never whole (a
// 12 MB string made 84 MB of --json, a 37 MB page and 12 MB of text).
test('a 12,000,000-character string is cut to 1,024 with its length in every output', () => {
  const LEN = 12_000_000
  const dir = makeTmpDir('cprof-snapshot-long-')
  const f = runFixture('snapshot-long-string.js', [dir, String(LEN)], { timeout: 180000, execArgv: [`--heap-snapshot-string-limit=${LEN + 1}`] })
  assert.equal(f.status, 0, f.describe())
  const { a, b } = f.json[0]
  assert.ok(fs.statSync(b).size > LEN, 'V8 wrote the string whole')
  const stated = `\u2026(${LEN.toLocaleString('en-US')} chars)`
  const cut = (s) => s.length === 1024 + stated.length && s.startsWith('x'.repeat(1024)) && s.endsWith(stated)

  const json = cli('snapshot', b, '--json')
  assert.equal(json.status, 0, json.stderr)
  assert.ok(json.stdout.length < 200_000, `${json.stdout.length} bytes of --json`)
  const rep = JSON.parse(json.stdout)
  const str = rep.objects.find((o) => o.nameLength === LEN)
  assert.ok(str && cut(str.name) && str.type === 'string', JSON.stringify(str)?.slice(0, 300))
  // the property named by the string, on its path
  assert.ok(str.path.some((s) => cut(s.edge)), JSON.stringify(str.path.map((s) => s.edge.slice(-30))))

  const text = cli('snapshot', b)
  assert.equal(text.status, 0, text.stderr)
  assert.ok(text.stdout.length < 200_000, `${text.stdout.length} bytes of text`)
  assert.ok(text.stdout.includes('x'.repeat(1024) + stated + ' → (string)'), 'the path names the property cut')

  const diff = cli('snapshot', 'diff', a, b, '--json')
  assert.equal(diff.status, 0, diff.stderr)
  assert.ok(diff.stdout.length < 200_000, `${diff.stdout.length} bytes of diff --json`)
  const group = JSON.parse(diff.stdout).added.groups.find((g) => g.path.includes('x'.repeat(1024) + stated + ' → (string)'))
  assert.ok(group, 'the new string\'s group, its path naming the property cut')
  assert.ok(group.example.path.some((s) => cut(s.edge)))

  const page = path.join(dir, 'b.html')
  const html = cli('html', b, '-o', page)
  assert.equal(html.status, 0, html.stderr)
  assert.ok(fs.statSync(page).size < 3_000_000, `${fs.statSync(page).size} bytes of page`)
  const data = JSON.parse(/id="cprof-data">(.*?)<\/script>/s.exec(fs.readFileSync(page, 'utf8'))[1])
  const node = data.table.find((n) => n.nameLength === LEN)
  assert.ok(node && cut(node.name), 'the page\'s data holds the string cut, with its length')
})

'use strict'

// Issue 32, items 4 and 8. A 100,000-deep call chain: `cprof report`,
// `convert --to txt` and `cprof html` write output linear in the depth (it
// was quadratic: 150 MB at 10,000 levels, 8.5 GB of memory and no end at
// 100,000), and the HTML viewer opens it and shows its deepest frame.
// Control characters (ESC, BEL, CR, LF) in function names, urls, file
// names, app names and titles reach no text output raw: report, diff,
// convert --to txt, list, ps, trigger (one process and --app) and attach.

const { test: nodeTest, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

const { ROOT, makeTmpDir, removeTmpDirs, childEnv, cprofAsync } = require('../helpers/util.js')
const { FIXTURES } = require('../helpers/util.js').fixturesIn(__dirname)
const { haveChromium, launch, openPage } = require('../helpers/browser')
const { termSafe } = require('../../../lib/term')
const { topLines } = require('../../../lib/fleet/summary')

const CLI = path.join(ROOT, 'bin', 'cprof.js')
const REGISTER = path.join(ROOT, 'register.js')
const children = []
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  removeTmpDirs()
})

const test = (name, fn) => nodeTest(name, { timeout: 180000 }, fn)

// A control character a terminal acts on: C0 but LF (the line ends), DEL,
// C1. What the outputs print must hold none.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/

function assertNoRawControl (text, what) {
  const m = RAW_CONTROL.exec(text)
  assert.equal(m, null, m && `${what}: raw control character U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 60), m.index + 20))}`)
}

// The CLI with its output capped: maxBuffer is the linear bound, so a
// quadratic output fails fast (ENOBUFS) instead of filling the disk.
function cli (args, { maxBuffer = 16 * 1024 * 1024, env = {} } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120000, maxBuffer, env: childEnv(env) })
  r.describe = () => `cprof ${args.join(' ')} → status ${r.status} ${r.error ? r.error.code : ''}\n--- stdout\n${(r.stdout || '').slice(0, 2000)}\n--- stderr\n${(r.stderr || '').slice(0, 2000)}`
  return r
}

const cliAsync = (args, env = {}) => cprofAsync(args, { env, timeout: 120000 })

// A .cpuprofile of one call chain depth frames deep under the root: f0..f6
// over and over, then leaf with the only sample.
function chainProfile (depth) {
  const nodes = []
  for (let id = 1; id <= depth + 1; id++) {
    const leaf = id === depth + 1
    nodes.push({
      id,
      callFrame: { functionName: id === 1 ? '(root)' : leaf ? 'leaf' : `f${id % 7}`, scriptId: id === 1 ? '0' : '1', url: id === 1 ? '' : 'file:///app/deep.js', lineNumber: id === 1 ? -1 : id % 7, columnNumber: 0 },
      hitCount: leaf ? 1 : 0,
      ...(leaf ? {} : { children: [id + 1] })
    })
  }
  return { nodes, startTime: 0, endTime: 1000, samples: [depth + 1], timeDeltas: [10] }
}

const DEPTH = 100000

test('a 100,000-deep chain: report, convert --to txt and html are linear in the depth, and name what they leave out', async () => {
  const dir = makeTmpDir('cprof-deep-')
  const file = path.join(dir, 'deep.cpuprofile')
  fs.writeFileSync(file, JSON.stringify(chainProfile(DEPTH)))
  const bound = 4 * DEPTH // bytes: 256 levels are printed, not 100,000

  const r = cli(['report', file, '--bottom-up', 'leaf'], { maxBuffer: bound })
  assert.equal(r.status, 0, r.describe())
  assert.ok(r.stdout.length < bound, `${r.stdout.length} bytes`)
  assert.match(r.stdout, /100\.0% {2}leaf \(\/app\/deep\.js:\d+\)\n/, 'the leaf tops the table')
  const tree = r.stdout.slice(r.stdout.indexOf('Call tree (top-down)'), r.stdout.indexOf('Callers of leaf'))
  assert.match(tree, /\[\+192\] └─ … 99744 more levels\n\n$/, 'the top-down tree ends on what it leaves out')
  assert.match(r.stdout, /\[\+192\] └─ … 99743 more levels\n$/, "and so do leaf's callers")
  const longest = Math.max(...r.stdout.split('\n').map((l) => Buffer.byteLength(l)))
  assert.ok(longest < 500, `indentation is bounded: longest line ${longest} bytes`)

  const txt = path.join(dir, 'deep.txt')
  const c = cli(['convert', file, '--to', 'txt', '-o', txt])
  assert.equal(c.status, 0, c.describe())
  assert.ok(fs.statSync(txt).size < bound, `convert --to txt: ${fs.statSync(txt).size} bytes`)

  const html = path.join(dir, 'deep.html')
  const h = cli(['html', file, '-o', html])
  assert.equal(h.status, 0, h.describe())
  assert.ok(fs.statSync(html).size < 32 * DEPTH, `html: ${fs.statSync(html).size} bytes`)
  if (!haveChromium()) return
  const browser = await launch()
  try {
    const { page, problems } = await openPage(browser, 'file://' + html)
    const got = await page.evaluate(() => {
      const v = window.cprofViewer
      const m = v.model
      const canvas = document.getElementById('flame')
      const ctx = canvas.getContext('2d')
      const px = ctx.getImageData(0, canvas.height - 40, 100, 30).data
      let painted = 0
      for (let k = 3; k < px.length; k += 4) if (px[k]) painted++
      // Select the deepest function: the top-down view opens down to it.
      v.select(m.fn[m.n - 1], 'flame')
      const rows = [...document.querySelectorAll('#view-topdown tbody tr')]
      v.flame.zoom(m.n - 10)
      return {
        height: canvas.height,
        painted,
        rows: rows.length,
        first: rows[0].textContent,
        selected: document.querySelector('#view-topdown tr.selected .name')?.textContent,
        zoomedRect: v.flame.rectOf(m.n - 10),
        levels: v.flame.levels(),
        details: document.getElementById('details').textContent
      }
    })
    assert.deepEqual(problems, [])
    assert.ok(got.height <= 32767 && got.painted > 0, `the flame graph draws (canvas ${got.height} px tall, ${got.painted} pixels)`)
    assert.equal(got.selected, 'leaf')
    assert.ok(got.rows < 100, `${got.rows} rows`)
    assert.match(got.first, /^… 99,968 levels above: show the tree from the top$/)
    assert.ok(got.zoomedRect && got.zoomedRect.w > 100, 'a frame 99,990 levels deep is drawn once zoomed into')
    assert.deepEqual(got.levels, { lo: DEPTH - 599, hi: DEPTH, max: DEPTH })
    assert.match(got.details, /Levels 99,401–100,000 of 100,000 drawn\.$/)
  } finally {
    await browser.close()
  }
})

test('termSafe: control characters as visible escapes, the rest unchanged', () => {
  assert.equal(termSafe('\x1b]0;t\x07\x1b[2J'), '\\x1b]0;t\\x07\\x1b[2J')
  assert.equal(termSafe('a\nb\rc\td\x7f'), 'a\\nb\\rc\\td\\x7f')
  assert.equal(termSafe('c1\u009b31m bidi\u202e lone\ud800'), 'c1\\u009b31m bidi\\u202e lone\\ud800')
  assert.equal(termSafe('café → 🔥 C:\\app <b>'), 'café → 🔥 C:\\app <b>')
  assert.equal(termSafe(42), '42')
  // The fleet summary decodes file:// urls: %1B becomes ESC, then is escaped.
  const lines = topLines({
    kind: 'cpu',
    summary: { unit: 'ms', total: 1, top: [{ functionName: 'f\r\nforged line', url: 'file:///app/%1B%5B2J.js', line: 3, self: 1, selfPercent: 100 }] }
  }, 5)
  assertNoRawControl(lines.join('\n'), 'topLines')
  assert.match(lines[2], /f\\r\\nforged line \(\/app\/\\x1b\[2J\.js:3\)$/)
})

const HOSTILE_NAME = '\x1b]0;pwned\x07\x1b[2J\rcr\nlf'
const HOSTILE_URL = 'file:///app/\x1b[31mred\u009b.js'

test('report, diff, convert --to txt and list print hostile names, urls, titles and file names escaped', () => {
  const dir = makeTmpDir('cprof-hostile-')
  const frame = (functionName, url = '', lineNumber = -1) => ({ functionName, scriptId: url ? '1' : '0', url, lineNumber, columnNumber: 0 })
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2] },
      { id: 2, callFrame: frame(HOSTILE_NAME, HOSTILE_URL, 4), children: [3] },
      { id: 3, callFrame: frame('inner\x07', 'file:///app/ok.js', 1) }
    ],
    startTime: 0,
    endTime: 3000,
    samples: [2, 3, 3],
    timeDeltas: [1000, 1000, 1000]
  }
  const file = path.join(dir, 'evil\x1b[2J\x07.cpuprofile') // a file name holds anything but / and NUL
  fs.writeFileSync(file, JSON.stringify(profile))
  const escapedLabel = '\\x1b]0;pwned\\x07\\x1b[2J\\rcr\\nlf (/app/\\x1b[31mred\\u009b.js:5)'

  const r = cli(['report', file, '--bottom-up', 'inner'])
  assert.equal(r.status, 0, r.describe())
  assertNoRawControl(r.stdout + r.stderr, 'report')
  assert.ok(r.stdout.includes(escapedLabel), r.stdout)
  assert.ok(r.stdout.startsWith('/') && r.stdout.split('\n')[0].endsWith('evil\\x1b[2J\\x07.cpuprofile'), 'the title (the file name) escaped')
  assert.ok(r.stdout.includes('Callers of inner\\x07 (/app/ok.js:2)'))
  const none = cli(['report', file, '--bottom-up', '\x1b[K'])
  assert.notEqual(none.status, 0)
  assertNoRawControl(none.stdout + none.stderr, 'report --bottom-up')
  assert.ok(none.stderr.includes('no function named "\\x1b[K"'), none.describe())

  const d = cli(['diff', file, file])
  assert.equal(d.status, 0, d.describe())
  assertNoRawControl(d.stdout + d.stderr, 'diff')
  assert.ok(d.stdout.includes(escapedLabel), d.stdout)
  for (const args of [['--fail-above', '1', '--min-samples', '0', '--sigma', '0'], ['--format', 'md']]) {
    const g = cli(['diff', file, file, ...args])
    assert.equal(g.status, 0, g.describe())
    assertNoRawControl(g.stdout + g.stderr, `diff ${args.join(' ')}`)
  }

  const txt = path.join(dir, 'out.txt')
  assert.equal(cli(['convert', file, '--to', 'txt', '-o', txt]).status, 0)
  assertNoRawControl(fs.readFileSync(txt, 'utf8'), 'convert --to txt')

  const l = cli(['list', dir])
  assert.equal(l.status, 0, l.describe())
  assertNoRawControl(l.stdout + l.stderr, 'list')
  assert.ok(l.stdout.includes('evil\\x1b[2J\\x07.cpuprofile'), l.stdout)

  // An error message naming the file (not a profile) is escaped too.
  const bad = path.join(dir, 'bad\x1b[2J.cpuprofile')
  fs.writeFileSync(bad, 'not json')
  const e = cli(['report', bad])
  assert.notEqual(e.status, 0)
  assertNoRawControl(e.stdout + e.stderr, 'report of a bad file')
})

// The page's data is JSON inside a <script>: a name can neither end the
// script nor break a line there (U+2028 ends a JS line in older engines),
// and a 4-byte UTF-8 character (an emoji) is kept as it is.
test('cprof html embeds a name with </script>, U+2028 and an emoji as data, not markup', () => {
  const dir = makeTmpDir('cprof-hostile-html-')
  const name = 'fire \u{1F525} </script><!-- \u2028x'
  const frame = (functionName, url = '') => ({ functionName, scriptId: url ? '1' : '0', url, lineNumber: url ? 1 : -1, columnNumber: 0 })
  const file = path.join(dir, 'emoji.cpuprofile')
  fs.writeFileSync(file, JSON.stringify({
    nodes: [{ id: 1, callFrame: frame('(root)'), children: [2] }, { id: 2, callFrame: frame(name, 'file:///app/a.js') }],
    startTime: 0,
    endTime: 2000,
    samples: [2, 2],
    timeDeltas: [1000, 1000]
  }))
  const out = path.join(dir, 'emoji.html')
  const r = cli(['html', file, '-o', out])
  assert.equal(r.status, 0, r.describe())
  const html = fs.readFileSync(out, 'utf8')
  assert.ok(html.includes('"fire \u{1F525} \\u003c/script\\u003e\\u003c!-- \\u2028x"'), 'the name, escaped for a script, emoji kept')
  assert.ok(!html.includes('fire \u{1F525} </script>'), 'the name never ends the script')
})

function startTarget (args, env) {
  const c = spawn(process.execPath, [...args, path.join(FIXTURES, 'hostile-names.js'), '60000'], {
    env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe']
  })
  children.push(c)
  let out = ''
  let err = ''
  c.stderr.setEncoding('utf8').on('data', (d) => { err += d })
  const ready = new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`hostile-names.js did not start: ${err}`)), 20000)
    c.stdout.setEncoding('utf8').on('data', (d) => {
      out += d
      if (out.includes('{"ready"')) {
        clearTimeout(t)
        resolve()
      }
    })
  })
  return { child: c, ready }
}

// The app name and the directory come from the target's environment, the
// function's url from its code: all under the control of whoever runs it.
const HOSTILE_APP = 'app\x1b]0;pwned\x07\r\nforged'
const ESCAPED_URL = 'evil\\x1b]0;pwned\\x07\\x1b[2J.js'

test('ps, trigger (a pid and --app) and attach print hostile app names, directories and urls escaped', async () => {
  const base = makeTmpDir('cprof-hostile-live-')
  const runDir = path.join(base, 'run')
  const dir = path.join(base, 'out\x1b[2J')
  fs.mkdirSync(dir, { mode: 0o700 })
  const env = { CPROF_RUN_DIR: runDir, CPROF_APP: HOSTILE_APP, CPROF_DIR: dir, CPROF_PROFILING: 'cpu', CPROF_INTERVAL: '1000' }
  const app = startTarget(['-r', REGISTER], env)
  // Its own inspector port (0: any free one), not 9229, which an attach
  // test or a debugger in another test file may hold at the same time.
  const plain = startTarget(['--inspect-port=0'], {})
  await Promise.all([app.ready, plain.ready])

  let ps
  for (let end = Date.now() + 20000; Date.now() < end;) {
    ps = await cliAsync(['ps'], { CPROF_RUN_DIR: runDir })
    if (ps.stdout.includes(String(app.child.pid))) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  assert.equal(ps.status, 0, ps.describe())
  assertNoRawControl(ps.stdout + ps.stderr, 'ps')
  assert.ok(ps.stdout.includes('app\\x1b]0;pwned\\x07\\r\\nforged'), ps.describe())

  const one = await cliAsync(['trigger', String(app.child.pid), '--duration', '1'], { CPROF_RUN_DIR: runDir })
  assert.equal(one.status, 0, one.describe())
  assertNoRawControl(one.stdout + one.stderr, 'trigger <pid>')
  assert.match(one.stdout, /wrote .*out\\x1b\[2J\/cpu-/, one.describe())

  const fleet = await cliAsync(['trigger', '--app', HOSTILE_APP, '--duration', '1'], { CPROF_RUN_DIR: runDir })
  assert.equal(fleet.status, 0, fleet.describe())
  assertNoRawControl(fleet.stdout + fleet.stderr, 'trigger --app')
  assert.ok(fleet.stdout.includes(ESCAPED_URL), fleet.describe())

  const att = await cliAsync(['attach', String(plain.child.pid), '--duration', '1', '--dir', base])
  assert.equal(att.status, 0, att.describe())
  assertNoRawControl(att.stdout + att.stderr, 'attach')
  assert.ok(att.stdout.includes(ESCAPED_URL), att.describe())
})

// The rest of issue 32's item 8: a dump signal announced in a run-directory
// entry (anyone's own process writes it), and paths the user typed (a
// directory name can hold ESC) in merge, list and ui.
test('trigger (a pid and --app) escapes an announced dump signal; merge, list and ui escape the paths they print', async () => {
  const base = makeTmpDir('cprof-hostile-more-')
  const runDir = path.join(base, 'run')
  fs.mkdirSync(runDir, { mode: 0o700 })
  const target = startTarget([], {})
  await target.ready
  const pid = target.child.pid
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  fs.writeFileSync(path.join(runDir, `${pid}.json`), JSON.stringify({
    v: 1, pid, ppid: process.pid, startTime: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19], app: 'sig', role: null, instance: null,
    triggers: { cpu: true, heap: false, signal: null, heapSignal: null, recorder: true, dumpSignal: 'SIGUSR2\x1b]0;pwned\x07' },
    recorder: { running: true }, running: { cpu: null, heap: null }, last: { cpu: null, heap: null, dump: null }, updated: Date.now()
  }), { mode: 0o600 })
  const escapedSignal = 'SIGUSR2\\x1b]0;pwned\\x07'
  const one = await cliAsync(['trigger', String(pid)], { CPROF_RUN_DIR: runDir })
  assert.equal(one.status, 1, one.describe())
  assertNoRawControl(one.stdout + one.stderr, 'trigger <pid>')
  assert.ok(one.stderr.includes(`${escapedSignal} dumps the recorder`), one.describe())
  const fleet = await cliAsync(['trigger', '--app', 'sig'], { CPROF_RUN_DIR: runDir })
  assert.equal(fleet.status, 1, fleet.describe())
  assertNoRawControl(fleet.stdout + fleet.stderr, 'trigger --app')
  assert.ok(fleet.stderr.includes(`(${escapedSignal}) takes the CPU signal's place`), fleet.describe())

  const hostile = path.join(base, 'dir\x1b[2J\x07')
  const gone = cli(['list', hostile])
  assert.equal(gone.status, 1, gone.describe())
  assertNoRawControl(gone.stdout + gone.stderr, 'list of a missing directory')
  assert.ok(gone.stderr.includes('dir\\x1b[2J\\x07'), gone.describe())
  fs.mkdirSync(hostile, { mode: 0o700 })
  const empty = cli(['list', hostile])
  assert.equal(empty.status, 0, empty.describe())
  assertNoRawControl(empty.stdout + empty.stderr, 'list of an empty directory')

  const profile = {
    nodes: [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: 0 }, children: [2] },
      { id: 2, callFrame: { functionName: 'f', scriptId: '1', url: 'file:///f.js', lineNumber: 0, columnNumber: 0 } }],
    startTime: 0, endTime: 2000, samples: [2, 2], timeDeltas: [1000, 1000]
  }
  const file = path.join(hostile, 'a.cpuprofile')
  fs.writeFileSync(file, JSON.stringify(profile))
  const m = cli(['merge', file, file, '-o', path.join(hostile, 'merged.cpuprofile')])
  assert.equal(m.status, 0, m.describe())
  assertNoRawControl(m.stdout + m.stderr, 'merge')
  assert.ok(m.stdout.includes('dir\\x1b[2J\\x07/merged.cpuprofile'), m.describe())

  const ui = spawn(process.execPath, [CLI, 'ui', hostile], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(ui)
  let said = ''
  ui.stdout.setEncoding('utf8').on('data', (d) => { said += d })
  const end = Date.now() + 20000
  while (!said.includes('\n') && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50))
  ui.kill('SIGINT')
  assertNoRawControl(said, 'ui')
  assert.ok(said.startsWith('cprof ui: serving ') && said.includes('dir\\x1b[2J\\x07'), said)
})

// A heap snapshot's property names (on retainer paths) and its file name
// come from the app: cprof snapshot and cprof snapshot diff print them escaped.
test('snapshot and snapshot diff print hostile property names and file names escaped', () => {
  const dir = makeTmpDir('cprof-hostile-snap-')
  const files = ['a', 'b'].map((n) => path.join(dir, `${n}\x1b[2J.heapsnapshot`))
  const src = `const v8 = require('node:v8')
const Evil = { ['Evil\\x1b]0;pwned\\x07'] : class { constructor (i) { this.payload = 'x'.repeat(64) + i } } }['Evil\\x1b]0;pwned\\x07']
globalThis['held\\x1b[2J'] = []
v8.writeHeapSnapshot(${JSON.stringify(files[0])})
for (let i = 0; i < 2000; i++) globalThis['held\\x1b[2J'].push(new Evil(i))
v8.writeHeapSnapshot(${JSON.stringify(files[1])})`
  const made = spawnSync(process.execPath, ['-e', src], { encoding: 'utf8', env: childEnv() })
  assert.equal(made.status, 0, made.stderr)
  const one = cli(['snapshot', files[1]])
  assert.equal(one.status, 0, one.stderr)
  assertNoRawControl(one.stdout + one.stderr, 'snapshot')
  assert.ok(one.stdout.includes('held\\x1b[2J'), one.stdout)
  assert.ok(one.stdout.includes('b\\x1b[2J.heapsnapshot'), 'the file name escaped')
  const diff = cli(['snapshot', 'diff', ...files])
  assert.equal(diff.status, 0, diff.stderr)
  assertNoRawControl(diff.stdout + diff.stderr, 'snapshot diff')
  assert.ok(diff.stdout.includes('held\\x1b[2J'), diff.stdout)
})

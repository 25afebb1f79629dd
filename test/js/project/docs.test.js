'use strict'

// The docs: every relative link and #anchor in README.md and docs/ works
// (and the checker does catch broken ones), every docs page is reachable
// from the README, the README's setup line and commands are the ones CI
// runs, the source inventory is what its script makes, `cprof --help`
// names what convert writes, and the bench has its table markers to write
// into.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { ROOT } = require('../helpers/util.js')
const docs = require('../helpers/docs-links.js')

before(docs.load)

const read = (f) => fs.readFileSync(path.join(ROOT, f), 'utf8')

test('docs: every relative link, image, #anchor and code path in README.md and docs/ resolves', () => {
  const files = docs.docFiles(ROOT)
  assert.ok(files.includes('docs/api.md'), `found: ${files.join(', ')}`)
  const problems = docs.check(ROOT, files)
  assert.deepEqual(problems, [], `broken links:\n${problems.join('\n')}`)
})

// The benchmarks' history pages (docs/benchmarks.md points at them).
test('docs: the links of bench/results/*.md resolve', () => {
  const dir = path.join(ROOT, 'bench', 'results')
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.md')).map((f) => `bench/results/${f}`)
  assert.ok(files.length > 0, 'bench/results/ holds the history pages')
  const problems = docs.check(ROOT, files)
  assert.deepEqual(problems, [], `broken links:\n${problems.join('\n')}`)
})

test('docs: every page under docs/ is linked from the README', () => {
  const { links } = docs.scan(read('README.md'))
  const linked = new Set(links.map((l) => path.posix.normalize(l.href.split('#')[0])))
  const orphans = docs.docFiles(ROOT).filter((f) => f !== 'README.md' && !linked.has(f))
  assert.deepEqual(orphans, [], 'add a link to each in README.md, "Documentation"')
})

// A checker that accepts everything would pass the test above: feed it
// every kind of break, and one of each kind that works.
let tmp
after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }))

test('docs checker: reports each kind of broken link and accepts the working ones', () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-docs-'))
  fs.mkdirSync(path.join(tmp, 'docs'))
  fs.mkdirSync(path.join(tmp, 'src'))
  fs.writeFileSync(path.join(tmp, 'src', 'real.c'), '')
  fs.writeFileSync(path.join(tmp, 'docs', 'a.md'), [
    '# Page A',
    '## `cprof.stop()` → `Promise<result>`',
    '## Repeated', '## Repeated',
    '<a id="custom"></a>',
    'Back to [the README](../README.md#intro).'
  ].join('\n\n'))
  fs.writeFileSync(path.join(tmp, 'README.md'), [
    '# Intro',
    'ok: [a](docs/a.md), [stop](docs/a.md#cprofstop--promiseresult), [2nd](docs/a.md#repeated-1),',
    '[id](docs/a.md#custom), [self](#intro), [web](https://example.com/x#y), `src/real.c`',
    'broken: [file](docs/missing.md), [anchor](docs/a.md#nope), [self](#nowhere),',
    '![img](docs/img/none.png), [up](../outside.md), `src/gone.c`, <a href="docs/b.md">b</a>'
  ].join('\n\n'))
  const problems = docs.check(tmp, docs.docFiles(tmp))
  assert.deepEqual(problems, [
    'README.md:7: docs/missing.md: no such file docs/missing.md',
    'README.md:7: docs/a.md#nope: docs/a.md has no heading or id "nope"',
    'README.md:7: #nowhere: README.md has no heading or id "nowhere"',
    'README.md:9: docs/img/none.png: no such file docs/img/none.png',
    'README.md:9: ../outside.md: leaves the repository',
    'README.md:9: docs/b.md: no such file docs/b.md',
    'README.md:9: `src/gone.c`: no such file'
  ])
})

test('README: the setup line and the two commands are the ones .ci/run runs', () => {
  const ci = read('.ci/run')
  const readme = read('README.md')
  const apt = [...ci.matchAll(/apt-get install -y -qq ([^>\n]+)/g)].map((m) => m[1].trim())
  assert.ok(apt.length >= 1, '.ci/run has no apt-get install line')
  // .ci/run updates the package lists first, as a fresh machine needs.
  assert.ok(/apt-get update/.test(ci.split('apt-get install')[0]), '.ci/run should run apt-get update before installing')
  // One line that works as root without sudo installed and as a user with it.
  const sudo = '$(command -v sudo)'
  const line = `${sudo} apt-get update && ${sudo} apt-get install -y ${apt[0]}\n`
  assert.ok(readme.includes(line), `README.md should say: ${line}`)
  // The sanitizer and fuzzing tools: in Reliability, where test:asan and fuzz are.
  const tools = apt.find((p) => /\bclang\b/.test(p))
  assert.ok(tools && read('docs/reliability.md').includes(`${sudo} apt-get install -y ${tools}\n`),
    `docs/reliability.md should say: ${sudo} apt-get install -y ${tools}`)
  for (const cmd of ['npm install', 'npm run demo', 'npm test']) {
    assert.match(ci, new RegExp(`^${cmd}\\b`, 'm'), `.ci/run runs ${cmd}`)
    assert.match(readme, new RegExp(`^${cmd}\\b`, 'm'), `README.md shows ${cmd}`)
  }
})

// The README's install lines are what `npm run test:prebuild` (in .ci/run)
// runs as written: npm pack in the clone, then the tarball it writes
// installed in the app and checked. cprof is not in the registry yet, so
// no line may install it by name.
test("README: the install lines pack this version's tarball and install it; CI runs them", () => {
  const { installLines } = require(path.join(ROOT, 'test', 'prebuild', 'readme-install.js'))
  const { clone, app } = installLines(read('README.md'))
  const tgz = `cprof-${JSON.parse(read('package.json')).version}.tgz`
  assert.deepEqual(clone.map((l) => l.replace(/\s+#.*/, '')), ['npm pack'])
  assert.ok(clone[0].includes(tgz), `the npm pack line should say it writes ${tgz}`)
  assert.match(app[0], new RegExp(`^npm install \\S+/${tgz.replace(/\./g, '\\.')}$`), `the first app line installs ${tgz}`)
  assert.ok(app.slice(1).some((l) => /^node -e .*require\('cprof'\)/.test(l)), 'a node -e line checks the install')
  for (const f of ['README.md', 'docs/install.md', 'docs/api.md']) {
    assert.doesNotMatch(read(f), /^npm install cprof\b/m, `${f}: cprof is not in the npm registry`)
  }
  assert.match(read('.ci/run'), /^ci_step npm run test:prebuild\b/m, '.ci/run runs test:prebuild')
})

test('docs/benchmarks.md holds the table markers bench/run.js --docs writes between', () => {
  const text = read('docs/benchmarks.md')
  const a = text.indexOf('<!-- bench:table:begin -->')
  const b = text.indexOf('<!-- bench:table:end -->')
  assert.ok(a >= 0 && b > a, 'both markers, in order')
})

// docs/inventory.md is made, not written: scripts/inventory.js lists every
// folder of src/, lib/, bin/, scripts/ with what it is for and its files
// (--files: every file with its opening comment's first sentence), and a
// file without a comment, or a folder without a purpose, fails here.
const { inventory } = require(path.join(ROOT, 'scripts', 'inventory.js'))

test('docs/inventory.md is what scripts/inventory.js prints; every file opens with a comment', () => {
  const { text, missing } = inventory(ROOT)
  assert.deepEqual(missing, [], 'open each of these files with a comment saying what it is for')
  assert.ok(read('docs/inventory.md') === text, 'docs/inventory.md is stale: run node scripts/inventory.js --write')
})

test('the inventory lists a new file, pairs a C unit, and reports a file without a comment', () => {
  tmp ??= fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-docs-'))
  const root = path.join(tmp, 'inventory')
  const put = (f, text) => {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true })
    fs.writeFileSync(path.join(root, f), text)
  }
  put('src/core/tree.c', '#define _POSIX_C_SOURCE 200809L\n/* The tree (see tree.h). */\n')
  put('src/core/tree.h', '/* The function tree: the call tree,\n * merged. More here. */\n')
  put('lib/a.js', "'use strict'\n// npm run a [-- x]\n//\n// Does a, e.g. b. Then c.\n")
  put('lib/bare.js', "'use strict'\nmodule.exports = 1\n")
  put('bin/cprof.js', '#!/usr/bin/env node\n// The CLI.\n')
  put('scripts/x.supp', '# Suppressions: none.\n')
  put('register.js', '// The preload.\n')
  put('lib/newpart/b.js', '// A part with no purpose line yet.\n')
  const { text, files, missing } = inventory(root)
  assert.deepEqual(missing, ['lib/bare.js', 'lib/newpart/ (no line in FOLDER_PURPOSE)'])
  for (const line of [
    'tree.c/h  The function tree: the call tree, merged.',
    'a.js     npm run a [-- x] — Does a, e.g. b.',
    'bare.js  (no opening comment)',
    'cprof.js  The CLI.',
    'x.supp  Suppressions: none.',
    'register.js  The preload.'
  ]) assert.ok(files.includes(`\n${line}\n`), `${line}\nin:\n${files}`)
  // The page: each folder's purpose, then its files by name, a C unit once.
  for (const line of ['tree.c/h', 'a.js  bare.js', 'cprof.js', 'x.supp', 'register.js', 'b.js']) {
    assert.ok(text.includes(`\n${line}\n`), `${line}\nin:\n${text}`)
  }
  assert.match(text, /## `src\/core\/`\n\nThe pure C core, no Node-API: /)
  assert.match(text, /## `lib\/newpart\/`\n\n\(no opening comment\)\.\n/)
})

// bin/cprof.js's one-line help of convert names every format convert writes
// (the list its own usage line gives).
test('cprof --help: the convert line names each format of cprof convert --to', () => {
  const cprof = (...args) => spawnSync(process.execPath, [path.join(ROOT, 'bin', 'cprof.js'), ...args], { encoding: 'utf8' })
  const help = cprof('--help')
  const usage = cprof('convert', '--help')
  assert.equal(help.status, 0, help.stderr)
  const formats = /--to (\S+)/.exec(usage.stdout)[1].split('|')
  assert.ok(formats.length >= 5, usage.stdout)
  const line = help.stdout.split('\n').find((l) => /^ {2}convert /.test(l))
  const words = { pprof: 'pprof', folded: 'folded', svg: 'SVG', txt: 'text', html: 'HTML' }
  for (const f of formats) {
    assert.ok(words[f], `add a word for --to ${f} here and in bin/cprof.js's help`)
    assert.ok(line.includes(words[f]), `cprof --help's convert line should name ${words[f]}: ${line}`)
  }
})

// Every error code the code raises has its row in docs/api.md's errors
// table, and every row names a code the code raises.
test("docs: api.md's error table lists exactly the ERR_CPROF_* codes in lib/, src/, bin/ and register.js", () => {
  const raised = new Set()
  const walk = (dir) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name)
      if (e.isDirectory()) walk(rel)
      else if (/\.(js|c|h)$/.test(e.name)) for (const m of read(rel).matchAll(/ERR_CPROF_[A-Z_]+[A-Z]/g)) raised.add(m[0])
    }
  }
  for (const dir of ['lib', 'src', 'bin']) walk(dir)
  for (const m of read('register.js').matchAll(/ERR_CPROF_[A-Z_]+[A-Z]/g)) raised.add(m[0])
  const rows = new Set([...read('docs/api.md').matchAll(/^\| `(ERR_CPROF_[A-Z_]+)` \|/gm)].map((m) => m[1]))
  assert.deepEqual([...raised].filter((c) => !rows.has(c)).sort(), [], 'codes raised but not in the table')
  assert.deepEqual([...rows].filter((c) => !raised.has(c)).sort(), [], 'rows for codes nothing raises')
})

// Issue #40: the user's pages say each thing once. docs/*.md stay under
// 250,000 bytes in all, no page a user reads past 30,000 bytes, and
// architecture.md, the map a contributor reads first, under 15 KiB.
test('docs: docs/*.md total at most 250,000 bytes, each page at most 30,000, architecture.md at most 15,360', () => {
  const pages = docs.docFiles(ROOT).filter((f) => f.startsWith('docs/'))
  assert.ok(pages.length >= 10, `found: ${pages.join(', ')}`)
  const sizes = pages.map((f) => [f, fs.statSync(path.join(ROOT, f)).size])
  const total = sizes.reduce((n, [, s]) => n + s, 0)
  assert.ok(total <= 250000, `docs/ is ${total} bytes; say each thing once (250,000 at most):\n${sizes.map(([f, s]) => `${s} ${f}`).join('\n')}`)
  const big = sizes.filter(([f, s]) => s > (f === 'docs/architecture.md' ? 15360 : 30000))
  assert.deepEqual(big, [], 'pages over their limit (30,000 bytes; architecture.md 15,360)')
})

'use strict'

// The docs: every relative link and #anchor in README.md and docs/ works
// (and the checker does catch broken ones), every docs page is reachable
// from the README, the README's setup line and commands are the ones CI
// runs, and the bench has its table markers to write into.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
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
  assert.ok(readme.includes(`sudo apt-get update && sudo apt-get install -y ${apt[0]}\n`),
    `README.md should say: sudo apt-get update && sudo apt-get install -y ${apt[0]}`)
  // The sanitizer and fuzzing tools: in Reliability, where test:asan and fuzz are.
  const tools = apt.find((p) => /\bclang\b/.test(p))
  assert.ok(tools && read('docs/reliability.md').includes(`sudo apt-get install -y ${tools}\n`),
    `docs/reliability.md should say: sudo apt-get install -y ${tools}`)
  for (const cmd of ['npm install', 'npm run demo', 'npm test']) {
    assert.match(ci, new RegExp(`^${cmd}\\b`, 'm'), `.ci/run runs ${cmd}`)
    assert.match(readme, new RegExp(`^${cmd}\\b`, 'm'), `README.md shows ${cmd}`)
  }
})

test('docs/benchmarks.md holds the table markers bench/run.js --docs writes between', () => {
  const text = read('docs/benchmarks.md')
  const a = text.indexOf('<!-- bench:table:begin -->')
  const b = text.indexOf('<!-- bench:table:end -->')
  assert.ok(a >= 0 && b > a, 'both markers, in order')
})

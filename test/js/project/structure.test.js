'use strict'

// scripts/check-cycles.js: the tree has no circles (src/: includes and
// function calls between units; lib/: require), and the check does fail
// when one is made, on a copy of the tree. Needs no addon.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const { makeTmpDir, removeTmpDirs } = require('../helpers/util.js')

after(removeTmpDirs)

const ROOT = path.join(__dirname, '..', '..', '..')
const SCRIPT = path.join(ROOT, 'scripts', 'check-cycles.js')

function check (...args) {
  return spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' })
}

// A copy of src/ and lib/ to break on purpose.
function copyTree () {
  const dir = makeTmpDir('cprof-cycles-')
  for (const d of ['src', 'lib']) fs.cpSync(path.join(ROOT, d), path.join(dir, d), { recursive: true })
  return dir
}

function edit (dir, file, from, to) {
  const p = path.join(dir, file)
  const text = fs.readFileSync(p, 'utf8')
  assert.ok(text.includes(from), `${file} no longer contains ${JSON.stringify(from)}`)
  fs.writeFileSync(p, text.replace(from, to))
}

test('the tree has no circles', () => {
  const r = check()
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /no circles among \d+ units/)
})

test('--graph lists each unit with what it depends on', () => {
  const r = check('--graph')
  assert.equal(r.status, 0, r.stderr)
  // The format dispatch depends on the writers; no writer depends back.
  // A dependency in the unit's own folder is named without it; lib/'s
  // names are under lib/.
  const line = (unit) => r.stdout.split('\n').find((l) => l.includes(' ' + unit + ' -> '))
  assert.match(line('core/format'), / -> .*\bexport_pprof\b/)
  assert.doesNotMatch(line('core/export_pprof'), /\bformat\b/)
  assert.match(line('addon/binding'), / -> addon,/)
  assert.match(line('addon/errors'), / -> core\/cprof$/)
  assert.match(line('index.js'), / -> .*\bcontroller\.js\b/)
  assert.match(r.stdout, /^ {3}1 base: errors\.js,/m)
  assert.match(line('viewer/assets/app.js'), / -> viewer\/assets\/flame\.js,/)
})

test('a function call back into a unit is a circle', () => {
  const dir = copyTree()
  // tree.c uses label.c; make label.c call into tree.c.
  edit(dir, 'src/core/label.c', 'double cprof__pct(int64_t part, int64_t whole) {',
    'double cprof__pct(int64_t part, int64_t whole) {\n  cprof__tree_free(NULL);')
  const r = check('--root', dir)
  assert.equal(r.status, 1)
  assert.match(r.stderr, /circle: core\/label <-> core\/tree/)
  assert.match(r.stderr, /core\/label -> core\/tree: core\/label\.c calls cprof__tree_free\(\)/)
})

test('headers that include each other are a circle', () => {
  const dir = copyTree()
  edit(dir, 'src/core/xml.h', '#include <stdio.h>\n', '#include <stdio.h>\n\n#include "pb.h"\n')
  edit(dir, 'src/core/pb.h', '#include <stdint.h>\n', '#include <stdint.h>\n\n#include "xml.h"\n')
  const r = check('--root', dir)
  assert.equal(r.status, 1)
  assert.match(r.stderr, /circle: core\/pb <-> core\/xml/)
})

test('a longer circle through several units is found', () => {
  const dir = copyTree()
  // errors -> (nothing in addon); make it call the controller, which
  // reaches errors through its own calls.
  edit(dir, 'src/addon/errors.c', 'const char *cprof__js_code(int core_err) {',
    'const char *cprof__js_code(int core_err) {\n  cprof__ctl_reset(NULL, NULL);')
  const r = check('--root', dir)
  assert.equal(r.status, 1)
  assert.match(r.stderr, /circle: .*addon\/ctl.*addon\/errors/)
})

test('a prototype, a comment or a string naming a function is not a use', () => {
  const dir = copyTree()
  edit(dir, 'src/core/label.c', '#include "label.h"\n',
    '#include "label.h"\n\n/* cprof__tree_free() is not called here */\n' +
    'void cprof__tree_free(void *t);\n' +
    'static const char *name_only = "cprof__tree_free()";\n')
  const r = check('--root', dir)
  assert.equal(r.status, 0, r.stderr)
})

test('lib/: a require back is a circle', () => {
  const dir = copyTree()
  edit(dir, 'lib/errors.js', "'use strict'", "'use strict'\nrequire('./options')")
  const r = check('--root', dir)
  assert.equal(r.status, 1)
  // Every unit on the circle is named: options.js also reaches errors.js through dirs.js.
  assert.match(r.stderr, /circle: (\S+ <-> )*lib\/errors\.js <-> (\S+ <-> )*lib\/options\.js\b/)
  assert.match(r.stderr, /lib\/errors\.js -> lib\/options\.js: lib\/errors\.js requires \.\/options/)
})

// lib/'s tiers (scripts/tiers.js): a folder requires only its own tier and
// lower ones, and no two folders depend on each other even when no file
// circle makes them. Each plant below makes no file circle, so only the
// folder rules can fail it.
test('lib/: a require from a lower tier to a higher one fails', () => {
  const dir = copyTree()
  edit(dir, 'lib/identity/rundir.js', "'use strict'", "'use strict'\nrequire('../fleet/summary')")
  const r = check('--root', dir)
  assert.equal(r.status, 1, r.stderr)
  assert.match(r.stderr, /^tier: lib\/identity\/ \(identity\) requires lib\/fleet\/ \(fleet, a higher tier\): lib\/identity\/rundir\.js requires \.\.\/fleet\/summary$/m)
  assert.doesNotMatch(r.stderr, /^circle:/m)
})

test('lib/: two folders that require each other through different files are a folder circle', () => {
  const dir = copyTree()
  // recorder/index.js requires push/; push/queue.js requiring recorder/marks.js
  // (which reaches neither push/ nor queue.js) closes a circle of folders only.
  edit(dir, 'lib/push/queue.js', "'use strict'", "'use strict'\nrequire('../recorder/marks')")
  const r = check('--root', dir)
  assert.equal(r.status, 1, r.stderr)
  assert.match(r.stderr, /^folder circle: lib\/push\/ <-> lib\/recorder\/$/m)
  assert.match(r.stderr, /lib\/push\/ -> lib\/recorder\/: lib\/push\/queue\.js requires \.\.\/recorder\/marks/)
  assert.doesNotMatch(r.stderr, /^circle:/m)
})

test('lib/: a folder no tier names fails', () => {
  const dir = copyTree()
  fs.mkdirSync(path.join(dir, 'lib', 'extra'))
  fs.writeFileSync(path.join(dir, 'lib', 'extra', 'x.js'), "'use strict'\nrequire('../errors')\n")
  const r = check('--root', dir)
  assert.equal(r.status, 1, r.stderr)
  assert.match(r.stderr, /^no tier: lib\/extra\/ is in no tier of scripts\/tiers\.js/m)
})

test('lib/viewer/assets: the page\'s modules are read as lib/ is', () => {
  const dir = copyTree()
  // format.js is required by model.js; format.js requiring model.js is a circle.
  edit(dir, 'lib/viewer/assets/format.js', '// Numbers for people', "const { share } = require('./model')\n// Numbers for people")
  const r = check('--root', dir)
  assert.equal(r.status, 1, r.stderr)
  assert.match(r.stderr, /circle: .*lib\/viewer\/assets\/format\.js <-> .*lib\/viewer\/assets\/model\.js/)
})

// docs/architecture.md: the dependency graph is printed on demand
// (`node scripts/check-cycles.js --graph`, checked above), not pasted into
// the page, where it went stale with every file added; the page says how to
// print it. (The file inventory, docs/inventory.md, is made by
// scripts/inventory.js and checked in test/js/project/docs.test.js.)

const ARCH = path.join(ROOT, 'docs', 'architecture.md')

test('docs/architecture.md names the command that prints the graph, and pastes none of it', () => {
  const text = fs.readFileSync(ARCH, 'utf8')
  assert.ok(text.includes('`node scripts/check-cycles.js --graph`'), 'say how to print the graph')
  const r = check('--graph')
  assert.equal(r.status, 0, r.stderr)
  const pasted = r.stdout.split('\n').filter((l) => / -> /.test(l) && text.includes(l.trim()))
  assert.deepEqual(pasted, [], 'the page should point to the command, not copy its output')
})

test('the addon includes the core only through src/core/cprof.h', () => {
  const addon = path.join(ROOT, 'src', 'addon')
  const bad = []
  for (const f of fs.readdirSync(addon)) {
    const text = fs.readFileSync(path.join(addon, f), 'utf8')
    for (const m of text.matchAll(/^\s*#\s*include\s+"(\.\.\/core\/[^"]+)"/gm))
      if (m[1] !== '../core/cprof.h') bad.push(`src/addon/${f} includes ${m[1]}`)
  }
  assert.deepEqual(bad, [], 'include ../core/cprof.h, or add the header to cprof.h\'s public list')
})

// test/js/README.md: every test file sits in the folder of the part of lib/
// it covers; `npm run test:js` (test/js/*/*.test.js) and the suite runners
// (helpers/test-files.js) find no test file anywhere else.
test('every JS test file is in a folder of test/js, where the runners look', () => {
  const js = path.join(ROOT, 'test', 'js')
  const stray = fs.readdirSync(js).filter((f) => f.endsWith('.test.js'))
  assert.deepEqual(stray, [], 'test files directly under test/js/ are never run: move them into a folder')
  const folders = fs.readdirSync(js, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)
  for (const f of folders) {
    const deeper = fs.readdirSync(path.join(js, f), { recursive: true }).filter((p) => p.includes(path.sep) && p.endsWith('.test.js'))
    assert.deepEqual(deeper, [], `test files below test/js/${f}/ are never run`)
  }
})

// helpers/test-files.js: the order starts with the longest files and loses
// none; the two tiers split the suite, and the runtime tier (what the matrix
// runs on every Node major) holds every folder that starts profiles in a
// live process, but for the files TIER_NOT_FOLDERS names.
test('the suite runners\' file list: longest first, every file once, the tiers a partition, test:asan\'s files real', () => {
  const { testFiles, allFiles, tierOf, TIER_NOT_FOLDERS, LONGEST_FIRST, ASAN_FILES } = require('../helpers/test-files.js')
  const all = allFiles()
  const ordered = testFiles()
  assert.deepEqual([...ordered].sort(), all)
  for (const f of LONGEST_FIRST) assert.ok(all.includes(f), `${f} is in LONGEST_FIRST but is not a test file`)
  assert.deepEqual(ordered.slice(0, LONGEST_FIRST.length), LONGEST_FIRST)
  const runtime = testFiles({ tier: 'runtime' })
  const files = testFiles({ tier: 'files' })
  assert.deepEqual([...runtime, ...files].sort(), all)
  const moved = (f) => TIER_NOT_FOLDERS[f] === 'files'
  for (const folder of ['api', 'recorder', 'incidents', 'push', 'triggers', 'fleet']) {
    assert.ok(all.filter((f) => f.split('/')[2] === folder && !moved(f)).every((f) => tierOf(f) === 'runtime'), folder)
  }
  assert.equal(tierOf('test/js/cli/run.test.js'), 'runtime')
  // The files moved out of the runtime tier, named here so that a move is a choice.
  assert.deepEqual(Object.keys(TIER_NOT_FOLDERS).filter(moved), ['test/js/push/push-outage.test.js'])
  for (const f of Object.keys(TIER_NOT_FOLDERS)) assert.ok(all.includes(f), `${f} is in TIER_NOT_FOLDERS but is not a test file`)
  for (const f of ASAN_FILES) assert.ok(all.includes(f), `${f} is in ASAN_FILES but is not a test file`)
  assert.ok(ASAN_FILES.includes('test/js/api/leak.test.js'), 'test:asan runs the leak soak')
})

// test/js/README.md's table is the test map: each folder's row names every
// test file in it, and only those.
test('test/js/README.md names every test file in its folder\'s row, and no other', () => {
  const js = path.join(ROOT, 'test', 'js')
  const readme = fs.readFileSync(path.join(js, 'README.md'), 'utf8')
  const rows = new Map([...readme.matchAll(/^\| `([a-z-]+)\/` \|.*\| ([^|]+) \|$/gm)].map((m) => [m[1], m[2].split(',').map((t) => t.trim()).sort()]))
  const folders = fs.readdirSync(js, { withFileTypes: true }).filter((d) => d.isDirectory() && fs.readdirSync(path.join(js, d.name)).some((f) => f.endsWith('.test.js')))
  for (const { name } of folders) {
    const files = fs.readdirSync(path.join(js, name)).filter((f) => f.endsWith('.test.js')).map((f) => f.slice(0, -'.test.js'.length)).sort()
    assert.deepEqual(rows.get(name), files, `test/js/README.md's row for ${name}/`)
  }
})

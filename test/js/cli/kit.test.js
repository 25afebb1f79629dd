'use strict'

// The CLI kit (lib/cli/kit.js): every command's option table is the one
// source of its parser, its --help and its options in docs/cli.md
// (scripts/cli-doc.js); numbers are read one way, usage errors printed one way.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { ROOT } = require('../helpers/util.js')
const { generate, commands } = require('../../../scripts/cli-doc.js')
const { command, readNumber, UsageError } = require('../../../lib/cli/kit.js')

const DOC = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8')
const cprof = (...args) => spawnSync(process.execPath, [path.join(ROOT, 'bin', 'cprof.js'), ...args], { encoding: 'utf8' })

test("docs/cli.md: each command's options are its table", () => {
  assert.deepEqual(generate(DOC).problems, [], 'run `node scripts/cli-doc.js --write`')
})

test('an option in the table but not in the page fails, and one in the page but not in the table', () => {
  const [name, ps] = commands().find(([n]) => n === 'ps')
  const more = command({ name, usage: ['x'], about: 'x', options: [...ps.options.values(), { name: 'by', arg: 'KEY', type: 'text', help: 'new' }] })
  assert.deepEqual(generate(DOC, [[name, more]]).problems, ["docs/cli.md: cprof ps's options differ from lib/cli/ps.js's table"])
  const block = ps.docTable()
  const doc = DOC.replace(block, block.replace(/\n$/, '\n| `--gone` | flag | off | removed |\n'))
  assert.notEqual(doc, DOC)
  assert.deepEqual(generate(doc, [[name, ps]]).problems, ["docs/cli.md: cprof ps's options differ from lib/cli/ps.js's table"])
})

test("--help prints every option of the command's table", () => {
  for (const [name, cmd] of commands()) {
    const r = cprof(name, '--help')
    assert.equal(r.status, 0, r.stderr)
    assert.ok(r.stdout.startsWith(`usage: cprof ${name} `), r.stdout)
    for (const o of cmd.options.values()) assert.match(r.stdout, new RegExp(`^ {2}(-\\w, )?--${o.name}\\b`, 'm'), `cprof ${name} --help: --${o.name}`)
  }
})

test('numbers: one reading and one message for seconds, bytes, µs, counts and percentages', () => {
  const cases = [
    [{ name: 'wait', type: 'seconds', above: true, max: 600 }, '2.5', 2.5, '0', '--wait must be a number of seconds > 0 and <= 600, got "0"'],
    [{ name: 'top', type: 'count', min: 1 }, '12', 12, '1.5', '--top must be an integer >= 1, got "1.5"'],
    [{ name: 'heap-interval', type: 'bytes', min: 1 }, '32768', 32768, '-4', '--heap-interval must be an integer of bytes >= 1, got "-4"'],
    [{ name: 'interval', type: 'us', min: 1, max: 1000000 }, '500', 500, '1e3', '--interval must be an integer of µs >= 1 and <= 1000000, got "1e3"'],
    [{ name: 'cut', type: 'percent', max: 100 }, '0.5', 0.5, '200', '--cut must be a percentage >= 0 and <= 100, got "200"']
  ]
  for (const [o, good, value, bad, message] of cases) {
    assert.equal(readNumber(o, good), value)
    assert.throws(() => readNumber(o, bad), (e) => e instanceof UsageError && e.message === message)
  }
})

test('usage errors: one style on stderr, exit 2, for every command', () => {
  for (const [name] of commands()) {
    const r = cprof(name, '--no-such-option')
    assert.equal(r.status, 2, `cprof ${name}: ${r.stderr}`)
    const lines = r.stderr.split('\n')
    assert.match(lines[0], new RegExp(`^cprof ${name}: `))
    assert.match(lines[1], new RegExp(`^usage: cprof ${name} `))
    assert.equal(lines[2], `run \`cprof ${name} --help\` for the options`)
  }
})

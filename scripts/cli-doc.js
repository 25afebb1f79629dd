#!/usr/bin/env node
'use strict'
// docs/cli.md's options tables are made, not written: each command's table
// in lib/cli/<command>.js (lib/cli/kit.js) is the one source of its --help
// and of the block between `<!-- options: cprof <command> -->` and
// `<!-- end options -->` in the page.
//
//   node scripts/cli-doc.js           exit 1, naming each block that differs
//   node scripts/cli-doc.js --write   rewrites the blocks
//
// test/js/cli/cli-doc.test.js runs the check.
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')
const DOC = path.join(ROOT, 'docs', 'cli.md')
const { COMMANDS } = require('../lib/cli/commands')

const open = (name) => `<!-- options: ${name === 'recorder stores' ? name : 'cprof ' + name} -->\n`
const CLOSE = '<!-- end options -->\n'

/** [name, kit command] of every command of bin/cprof.js. */
function commands () {
  return Object.keys(COMMANDS).map((name) => [name, require(`../lib/cli/${name}`).command])
}

// The blocks of the page: each command's, and the store options' (rows
// report, flame, convert and merge share), under "Recorder stores".
function blocks () {
  const { optionsTable } = require('../lib/cli/kit')
  const { STORE_OPTIONS } = require('../lib/cli/store')
  return [...commands(), ['recorder stores', { docTable: () => optionsTable(STORE_OPTIONS) }]]
}

/** The page with every command's block made from its table, and what
 * differed: { text, problems: [string] }. */
function generate (doc, list = blocks()) {
  const problems = []
  let text = doc
  for (const [name, cmd] of list) {
    if (!cmd) {
      problems.push(`lib/cli/${name}.js exports no kit command (lib/cli/kit.js): its options have no table`)
      continue
    }
    const at = text.indexOf(open(name))
    const end = at < 0 ? -1 : text.indexOf(CLOSE, at)
    if (end < 0) {
      problems.push(`docs/cli.md has no block ${open(name).trim()} … ${CLOSE.trim()}`)
      continue
    }
    const want = cmd.docTable()
    const have = text.slice(at + open(name).length, end)
    if (have !== want) {
      problems.push(`docs/cli.md: ${name === 'recorder stores' ? 'the recorder store' : 'cprof ' + name}'s options differ from ${name === 'recorder stores' ? 'lib/cli/store.js' : `lib/cli/${name}.js`}'s table`)
      text = text.slice(0, at + open(name).length) + want + text.slice(end)
    }
  }
  return { text, problems }
}

function main () {
  const doc = fs.readFileSync(DOC, 'utf8')
  const { text, problems } = generate(doc)
  if (process.argv.includes('--write')) {
    if (text !== doc) fs.writeFileSync(DOC, text)
    const left = problems.filter((p) => !p.includes('differ'))
    for (const p of left) process.stderr.write(`cli-doc: ${p}\n`)
    process.exitCode = left.length ? 1 : 0
    return
  }
  for (const p of problems) process.stderr.write(`cli-doc: ${p}\n`)
  if (problems.length) process.stderr.write('cli-doc: run `node scripts/cli-doc.js --write`\n')
  process.exitCode = problems.length ? 1 : 0
}

if (require.main === module) main()
module.exports = { generate, commands, blocks }

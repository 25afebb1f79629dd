#!/usr/bin/env node
'use strict'
// cprof CLI: one module per command under lib/cli/.
const { COMMANDS } = require('../lib/cli/commands')

function usage (out) {
  out.write('usage: cprof <command> [options]\n\ncommands:\n')
  for (const [name, what] of Object.entries(COMMANDS)) out.write(`  ${name.padEnd(9)} ${what}\n`)
  out.write('\nrun `cprof <command> --help` for its options\n')
}

async function main (argv) {
  const [cmd, ...rest] = argv
  if (!cmd || cmd === '--help' || cmd === '-h') {
    usage(process.stdout)
    return 0
  }
  if (!Object.hasOwn(COMMANDS, cmd)) {
    process.stderr.write(`cprof: unknown command ${JSON.stringify(cmd)}\n`)
    usage(process.stderr)
    return 2
  }
  return require(`../lib/cli/${cmd}`).run(rest)
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code ?? 0 },
  (err) => {
    // messages may quote file names and file contents (lib/term.js)
    process.stderr.write(`cprof: ${err.code ? err.code + ': ' : ''}${require('../lib/term').termSafe(err.message)}\n`)
    process.exitCode = 1
  }
)

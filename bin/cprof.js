#!/usr/bin/env node
'use strict'
// cprof CLI: one module per command under lib/cli/.
const COMMANDS = {
  run: 'run a command (node, npm, npx…) and profile each of its node processes to its exit, process.exit() too',
  report: 'report on a profile (or a recorder store): top functions, the call tree, callers',
  flame: 'write an SVG flame graph of a profile',
  convert: 'convert a profile to pprof, folded stacks, SVG, the text report or the HTML viewer',
  diff: 'compare two profiles: per-function deltas and a differential flame graph',
  merge: 'merge profiles of one kind into one (files, or a recorder store\'s windows)',
  snapshot: 'what holds the memory in a .heapsnapshot: largest objects, retainer paths, classes',
  html: 'write a self-contained HTML viewer of a profile (or of a diff of two)',
  ui: 'serve a local dashboard of a directory\'s profiles and the live processes (127.0.0.1, token)',
  trigger: 'signal a live process (or an app\'s instances) to start/stop profiling or dump its recorder',
  list: 'list profile files in a directory',
  ps: 'list the live processes that run cprof: app, instance, role, CPU %, RSS',
  leaks: 'the allocation sites whose live heap keeps growing in a process or app',
  attach: 'profile a running Node process that never loaded cprof (SIGUSR1, inspector)'
}

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

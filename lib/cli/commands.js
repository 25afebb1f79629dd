'use strict'
// bin/cprof.js's commands, one module each under lib/cli/, with the line
// `cprof --help` prints for each. scripts/cli-doc.js reads the same list to
// write each command's options into docs/cli.md.
const COMMANDS = {
  run: 'run a command (node, npm, npx…) and profile each of its node processes to its exit, process.exit() too',
  report: 'report on a profile (or a recorder store): top functions, the call tree, callers',
  flame: 'write an SVG flame graph of a profile',
  convert: 'convert a profile to pprof, folded stacks, SVG, the text report or the HTML viewer',
  diff: 'compare two profiles (or sets of runs) by share of busy time; a CI gate (--fail-above)',
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

module.exports = { COMMANDS }

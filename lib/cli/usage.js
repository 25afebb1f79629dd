'use strict'
// One usage error for every command of bin/cprof.js: `cprof <cmd>: <what is
// wrong>`, the usage's first line and where the options are, on stderr (or
// the command's err stream); exit status 2. A command's argument parser
// throws UsageError; its run() turns it into this message.
const { termSafe } = require('../term')

class UsageError extends Error {}

/** Writes the usage error; returns { exit: 2 }. */
function usageError (cmd, usage, message, err = process.stderr) {
  err.write(`cprof ${cmd}: ${termSafe(message)}\n${usage.split('\n')[0]}\nrun \`cprof ${cmd} --help\` for the options\n`)
  return { exit: 2 }
}

module.exports = { UsageError, usageError }

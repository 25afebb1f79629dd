'use strict'
// Shared by the profile commands (report, flame, convert, diff): argument
// parsing, numbers, output paths. The work itself is the native core's,
// run off the main thread (lib/native: convert, diff): nothing here reads
// or writes a profile.
const fs = require('node:fs')
const path = require('node:path')
const { termSafe } = require('../term')
const { UsageError } = require('./kit')

// Parses argv for cmd (a command of lib/cli/kit.js) that takes the
// positionals names. Returns { values, given, positionals } or { exit }
// when the command is done: --help (0) or a usage error (2).
function parseCommand (cmd, argv, names) {
  let parsed
  try {
    parsed = cmd.parse(argv)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    return cmd.fail(err.message)
  }
  if (parsed.help) {
    process.stdout.write(cmd.help())
    return { exit: 0 }
  }
  const n = parsed.positionals.length
  if (n !== names.length) {
    const want = names.map((p) => `<${p}>`).join(' ')
    return cmd.fail(n < names.length ? `missing ${want}` : `too many arguments: ${parsed.positionals.slice(names.length).join(' ')}`)
  }
  return parsed
}

// Rows every command that writes a profile's file shares (lib/cli/kit.js).
const OUTPUT_OPTION = (ext) => ({
  name: 'output',
  short: 'o',
  arg: 'FILE',
  type: 'file',
  shown: `next to <file>, extension .${ext}`,
  help: 'where to write; -o replaces an existing FILE'
})
const FORCE_OPTION = {
  name: 'force',
  type: 'flag',
  help: 'replace an existing default output (without it, the command stops with exit 1 and names the file in the way)'
}
const SOURCE_MAPS_OPTION = {
  name: 'source-maps',
  type: 'flag',
  help: "map frames through the scripts' source maps (read at the paths the profile names)"
}

// The input path as the user wrote it, and absolute for the native side.
function input (file) {
  return path.resolve(file)
}

// Where a derived file goes: -o as given, else next to the input with its
// profile extension replaced (x.cpuprofile → x.svg).
function outputPath (file, out, ext) {
  if (out !== undefined) return path.resolve(out)
  const abs = path.resolve(file)
  const base = path.basename(abs).replace(/\.(cpuprofile|heapprofile|heapsnapshot|json)$/i, '')
  return path.join(path.dirname(abs), `${base}.${ext}`)
}

// The overwrite rule, for every command that writes files: an existing file
// is replaced only when the user asked, by naming it with -o (explicit) or
// with --force; an input is never replaced without --force, -o or not.
// outs: the absolute paths about to be written; inputs: absolute paths read.
// Returns { keepExisting } to pass to the native writer, or { exit: 1 } after
// naming the file in the way on stderr.
//
// The check here gives the clear message before any work; keepExisting makes
// the native writer itself refuse to replace (link(2), not rename(2): see
// src/core/fsutil.h), so a file that appears between this check and the
// write is not clobbered either: that ends in ERR_CPROF_EXISTS (refused()).
function claimOutputs (cmd, outs, { explicit = false, force = false, inputs = [] } = {}) {
  for (const out of outs) {
    if (!force && inputs.includes(out)) {
      process.stderr.write(`cprof ${cmd}: ${termSafe(out)} is also an input: pick another output file ` +
        '(or pass --force to replace it)\n')
      return { exit: 1 }
    }
  }
  if (explicit || force) return { keepExisting: false }
  for (const out of outs) {
    if (exists(out)) {
      process.stderr.write(`cprof ${cmd}: ${termSafe(out)} exists: pass --force to replace it, ` +
        'or -o FILE to write elsewhere\n')
      return { exit: 1 }
    }
  }
  return { keepExisting: true }
}

function exists (file) {
  try {
    fs.lstatSync(file)
    return true
  } catch {
    return false // absent, or cannot tell: the writer reports what is wrong
  }
}

// The native writer's refusal (a file appeared after claimOutputs) as the
// same one-line message and exit code 1; any other error is rethrown.
function refused (cmd, err) {
  if (!err || err.code !== 'ERR_CPROF_EXISTS') throw err
  process.stderr.write(`cprof ${cmd}: ${termSafe(err.message)} (--force replaces it)\n`)
  return 1
}

module.exports = { parseCommand, input, outputPath, claimOutputs, refused, OUTPUT_OPTION, FORCE_OPTION, SOURCE_MAPS_OPTION }

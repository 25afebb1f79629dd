'use strict'
// Shared by the profile commands (report, flame, convert, diff): argument
// parsing, numbers, output paths. The work itself is the native core's,
// run off the main thread (lib/native: convert, diff): nothing here reads
// or writes a profile.
const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { termSafe } = require('../term')
const { usageError } = require('./usage')

// Parses argv for `cprof <cmd>`. Returns { values, positionals } or
// { exit } when the command is done: --help (0) or a usage error (2).
function parseCommand (cmd, argv, usage, options, positionals) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      options: { help: { type: 'boolean', short: 'h' }, ...options },
      allowPositionals: true,
      strict: true
    })
  } catch (err) {
    return usageError(cmd, usage, err.message)
  }
  if (parsed.values.help) {
    process.stdout.write(usage)
    return { exit: 0 }
  }
  const n = parsed.positionals.length
  if (n !== positionals.length) {
    const want = positionals.map((p) => `<${p}>`).join(' ')
    return usageError(cmd, usage, n < positionals.length ? `missing ${want}` : `too many arguments: ${parsed.positionals.slice(positionals.length).join(' ')}`)
  }
  return parsed
}

// A positive integer option given as text; undefined stays undefined.
function intArg (cmd, name, text, min, max) {
  if (text === undefined) return { value: undefined }
  const v = Number(text)
  if (!/^\d+$/.test(text) || v < min || v > max) {
    return { error: `--${name} must be an integer from ${min} to ${max}, got "${text}"` }
  }
  return { value: v }
}

function percentArg (name, text) {
  if (text === undefined) return { value: undefined }
  const v = Number(text)
  if (text.trim() === '' || !Number.isFinite(v) || v < 0 || v > 100) {
    return { error: `--${name} must be a percentage from 0 to 100, got "${text}"` }
  }
  return { value: v }
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

module.exports = { parseCommand, intArg, percentArg, input, outputPath, claimOutputs, refused }

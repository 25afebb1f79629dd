'use strict'
// Shared by the profile commands (report, flame, convert, diff): argument
// parsing, numbers, output paths. The work itself is the native core's,
// run off the main thread (lib/native: convert, diff): nothing here reads
// or writes a profile.
const path = require('node:path')
const { parseArgs } = require('node:util')

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

function usageError (cmd, usage, message) {
  process.stderr.write(`cprof ${cmd}: ${message}\n${usage.split('\n')[0]}\nrun \`cprof ${cmd} --help\` for the options\n`)
  return { exit: 2 }
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
  const base = path.basename(abs).replace(/\.(cpuprofile|heapprofile|json)$/i, '')
  return path.join(path.dirname(abs), `${base}.${ext}`)
}

module.exports = { parseCommand, usageError, intArg, percentArg, input, outputPath }

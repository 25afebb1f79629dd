'use strict'
// The one kit of bin/cprof.js's commands. A command is a table of its
// options (name, argument, type, default, what it does) and a few lines of
// prose; from the table come its parser (node:util parseArgs), its typed
// values (one way to read seconds, bytes, µs, counts and percentages, one
// message style), its --help and its options table in docs/cli.md
// (`node scripts/cli-doc.js --write`; test/js/cli/cli-doc.test.js fails when
// they differ). Adding an option is one line in the command's table.
// Usage errors have one style and exit status 2: `cprof <cmd>: <what is
// wrong>`, the usage's first line and where the options are, on stderr.
const { parseArgs } = require('node:util')
const { termSafe } = require('../term')

class UsageError extends Error {}

/** Writes the usage error; returns { exit: 2 }. */
function usageError (cmd, usage, message, err = process.stderr) {
  err.write(`cprof ${cmd}: ${termSafe(message)}\n${usage.split('\n')[0]}\nrun \`cprof ${cmd} --help\` for the options\n`)
  return { exit: 2 }
}

// The types an option can have: how parseArgs takes it, how its value is
// read, what docs/cli.md's "type, unit" column says. A number's message is
// `--<name> must be <noun> <range>, got "<text>"`, the vocabulary of
// lib/validate.js.
const TYPES = {
  flag: { doc: 'flag' },
  text: { doc: 'text' },
  dir: { doc: 'directory' },
  file: { doc: 'file' },
  list: { doc: 'comma-separated or repeated' },
  repeated: { doc: 'repeated' },
  count: { number: true, integer: true, noun: 'an integer', doc: 'count' },
  seconds: { number: true, noun: 'a number of seconds', doc: 's' },
  bytes: { number: true, integer: true, noun: 'an integer of bytes', doc: 'bytes' },
  us: { number: true, integer: true, noun: 'an integer of µs', doc: 'µs' },
  percent: { number: true, noun: 'a percentage', doc: '%' },
  number: { number: true, noun: 'a number', doc: 'number' }
}

/** text (an option's value) as the number its type and range allow; throws
 * UsageError. o: { name, type, min = 0, max = Infinity, above }. */
function readNumber (o, text) {
  const t = TYPES[o.type]
  const min = o.min ?? 0
  const max = o.max ?? Infinity
  const v = Number(text)
  const ok = /^\s*\d+(\.\d+)?\s*$/.test(text) && (o.above ? v > min : v >= min) && v <= max &&
    (!t.integer || Number.isInteger(v))
  if (!ok) {
    const range = `${o.above ? '>' : '>='} ${min}${max < Infinity ? ` and <= ${max}` : ''}`
    throw new UsageError(`--${o.name} must be ${t.noun} ${range}, got ${JSON.stringify(text)}`)
  }
  return v
}

// A list option's words: split at commas, trimmed, once each, each one of
// o.choices when it has them.
function readList (o, texts) {
  const words = [...new Set(texts.flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean))]
  const bad = o.choices && words.find((w) => !o.choices.includes(w))
  if (bad) throw new UsageError(`unknown ${o.noun || 'value'} "${bad}" for --${o.name}; known: ${o.choices.join(', ')}`)
  return words
}

function readValue (o, raw) {
  if (raw === undefined) return o.default
  if (o.type === 'flag') return raw
  if (o.type === 'list') return readList(o, raw)
  if (o.type === 'repeated' && raw.includes('')) throw new UsageError(`--${o.name} must not be empty`)
  if (TYPES[o.type].number) return readNumber(o, raw)
  if ((o.type === 'dir' || o.type === 'file') && raw === '') {
    throw new UsageError(`--${o.name} must name a ${o.type === 'dir' ? 'directory' : 'file'}`)
  }
  return raw
}

// Text wrapped at width columns, each line after the first indented.
function wrap (text, width, indent) {
  const lines = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line ? `${line} ${word}` : word
    }
  }
  if (line) lines.push(line)
  return lines.join('\n' + ' '.repeat(indent))
}

const HELP_WIDTH = 92
const COL = 20 // where an option's text starts in --help

function flagText (o) {
  return `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.arg ? ' ' + o.arg : ''}`
}

function defaultText (o) {
  if (o.shown !== undefined) return o.shown
  if (o.type === 'flag') return 'off'
  if (o.default === undefined) return ''
  return Array.isArray(o.default) ? o.default.join(',') : String(o.default)
}

function typeText (o) {
  const t = TYPES[o.type].doc
  return o.choices ? `${t}: ${o.choices.map((c) => '`' + c + '`').join(', ')}` : t
}

/** Options (rows of a command's table) as a Markdown table. */
function optionsTable (options) {
  // | escaped for the table; < and > outside code spans, so that <pid> shows
  const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim()
    .split('`').map((part, i) => i % 2 ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')).join('`')
  const rows = options.map((o) => `| \`${flagText(o)}\` | ${cell(typeText(o))} | ${cell(defaultText(o) || '—')} | ${cell(o.help)} |`)
  return ['| option | type, unit | default | what |', '| --- | --- | --- | --- |', ...rows].join('\n') + '\n'
}

function optionHelp (o) {
  const dflt = defaultText(o)
  const text = o.help + (dflt && o.type !== 'flag' && !o.noDefaultInHelp ? ` (default: ${dflt.replace(/`/g, '')})` : '')
  const head = `  ${flagText(o)}`
  const first = head.length + 1 < COL ? head.padEnd(COL) : head + '\n' + ' '.repeat(COL)
  return first + wrap(text.replace(/`/g, ''), HELP_WIDTH - COL, COL)
}

/**
 * A command of bin/cprof.js. spec: { name, usage: [synopsis lines after
 * `cprof <name> `], about (prose), options: [{ name, arg, type (TYPES),
 * default, shown (the default in words), min, max, above, choices, noun,
 * short, group ({ title, anchor }: rows several commands share, documented
 * once), help }], notes (prose after the options), positionals: [min, max]
 * (without: the command checks them) }.
 */
function command (spec) {
  const options = spec.options
  const byName = new Map(options.map((o) => [o.name, o]))
  const parseOptions = { help: { type: 'boolean', short: 'h' } }
  for (const o of options) {
    parseOptions[o.name] = { type: o.type === 'flag' ? 'boolean' : 'string', ...(o.type === 'list' || o.type === 'repeated' ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) }
  }
  const synopsis = spec.usage.map((u, i) => `${i === 0 ? 'usage:' : '      '} cprof ${spec.name} ${u}`).join('\n')

  function help () {
    return [synopsis, '', spec.about.trim(), '', options.map(optionHelp).join('\n'),
      ...(spec.notes ? ['', spec.notes.trim()] : [])].join('\n') + '\n'
  }

  /** { help: true } or { values (typed, defaults filled in), given (the
   * options on the command line), positionals }; throws UsageError. */
  function parse (argv) {
    let a
    try {
      a = parseArgs({ args: argv, options: parseOptions, allowPositionals: true, strict: true })
    } catch (e) {
      throw new UsageError(e.message)
    }
    if (a.values.help) return { help: true }
    const [min, max] = spec.positionals || [0, Infinity] // without: the command checks them
    const n = a.positionals.length
    if (n > max) throw new UsageError(`too many arguments: ${a.positionals.slice(max).join(' ')}`)
    if (n < min) throw new UsageError(`missing ${spec.usage[0].split(' ')[0]}`)
    const values = {}
    const given = new Set()
    for (const o of options) {
      if (a.values[o.name] !== undefined) given.add(o.name)
      values[o.name] = readValue(o, a.values[o.name])
    }
    return { values, given, positionals: a.positionals }
  }

  /** Runs body({ values, given, positionals }) after parsing argv; --help
   * prints the help (exit 0), a UsageError from either the usage error
   * (exit 2). Resolves the exit status. */
  async function run (argv, io, body) {
    const out = io.out || process.stdout
    const err = io.err || process.stderr
    try {
      const a = parse(argv)
      if (a.help) {
        out.write(help())
        return 0
      }
      return await body(a)
    } catch (e) {
      if (!(e instanceof UsageError)) throw e
      return usageError(spec.name, synopsis, e.message, err).exit
    }
  }

  /** Writes the usage error message; returns { exit: 2 }. */
  function fail (message, err = process.stderr) {
    return usageError(spec.name, synopsis, message, err)
  }

  /** The command's options as docs/cli.md's table; a group's rows (the
   * recorder store's) are named under it, their table is the group's own. */
  function docTable () {
    const groups = [...new Set(options.filter((o) => o.group).map((o) => o.group))]
    const notes = groups.map((g) => `\nAnd [${g.title}](${g.anchor}): ` +
      options.filter((o) => o.group === g).map((o) => `\`--${o.name}\``).join(', ') + '.\n')
    return optionsTable(options.filter((o) => !o.group)) + notes.join('')
  }

  return { name: spec.name, options: byName, synopsis, help, parse, run, fail, docTable }
}

module.exports = { UsageError, usageError, command, optionsTable, readNumber, TYPES }

#!/usr/bin/env node
'use strict'
// Prints the source inventory: every folder of src/, lib/, bin/ and
// scripts/ with what it is for and the files in it. docs/inventory.md is
// this output, so the list of files is made, not copied by hand:
// test/js/project/docs.test.js fails when the page differs from what the
// script prints, when a file has no opening comment, or when a folder has
// no line in FOLDER_PURPOSE below.
//
//   node scripts/inventory.js [--root DIR] [--write | --files]
//
// --write replaces docs/inventory.md; without it the page goes to stdout.
// --files prints every file instead, with the first sentence of the comment
// it opens with (what each file is for, on demand; the page names them).
// Exit status: 0, or 1 when a file has no opening comment or a folder no
// purpose (listed on stderr), 2 on usage errors.

const fs = require('node:fs')
const path = require('node:path')
const util = require('node:util')

const FOLDERS = ['src', 'lib', 'bin', 'scripts']
const ROOT_FILES = ['register.js']
const WIDTH = 100 // of a line in the page's code blocks
const LONGEST = 220 // characters of a description: a longer sentence is cut at a clause
const MISSING = '(no opening comment)'

// What each folder is for: the page's one line per folder (a folder
// without one is reported like a file without a comment).
const FOLDER_PURPOSE = {
  'src/addon': 'the Node-API boundary: registration and per-environment state, the CPU and heap controllers, the inspector driver, V8\'s v8.start*Profile drivers, timer and signal triggers, the recorder\'s engine and binding, the async jobs, argument readers, the mapping of core errors to ERR_CPROF_* codes',
  'src/compat': 'built into the glibc prebuilds only: stat/fstat bound to entry points every glibc has (docs/install.md)',
  'src/core': 'the pure C core, no Node-API: pull reader, parsers, the profile model, aggregation, depth limit, every writer, diff, merge, the recorder\'s window conversion, ring, trend and store, source maps, heap-snapshot analysis (snapshot_*), atomic file writes',
  lib: 'the public API (index.js), the start/stop state machine (controller.js), options and their one vocabulary of checks (validate.js), the result shape, the only loader of the addon (native.js), heap snapshots, the default directory',
  'lib/cli': 'one module per cprof command (bin/cprof.js dispatches to them through commands.js); kit.js is the option tables, parsing, --help and the one usage error, exit 2',
  'lib/cluster': 'node:cluster\'s hand-off and the merged set of several instances\' profiles (features tier)',
  'lib/files': 'profile files on disk shared by the CLI, the fleet and the dashboard: listing, and the marks of a merge',
  'lib/fleet': 'other processes that run cprof, seen from outside (docs/fleet.md): ps rows, the fan-out, signal profiles and snapshots, attach over the inspector',
  'lib/identity': 'who this process is (identity tier): PM2\'s environment and actions, its app name, instance and cluster role, its run-directory entry',
  'lib/incidents': 'the incident triggers (docs/incidents.md): options, limits (cgroup CPU quota, V8\'s heap limit), the unref\'d watchers, the firing engine, heap growth and its snapshot',
  'lib/labels': 'labels per request (docs/labels.md): withLabels/getLabels, the async-context hooks that record each switch into the addon\'s ring, the label sets interned',
  'lib/push': 'push to Grafana Pyroscope (docs/pyroscope.md): options, series labels, the queue bounded by bytes, uploads with timeout and backoff',
  'lib/recorder': 'the flight recorder\'s JS side (docs/recorder.md): options, start/dump/status, a dump\'s viewer marks',
  'lib/run': 'the preload cprof run puts into its command\'s NODE_OPTIONS',
  'lib/triggers': 'what cprof.init() and the preload install (docs/triggers.md): config, signals, CPROF_* environment, PM2 actions, dump requests',
  'lib/ui': 'cprof ui: the loopback server, its jobs and its dashboard page',
  'lib/viewer': 'the HTML viewer (docs/viewer.md): the build that inlines the assets into the committed template.html, the page writers',
  'lib/viewer/assets': 'the viewer page\'s markup, CSS and JS, one concern per file',
  bin: 'the cprof command',
  scripts: 'the addon build (the install script), the prebuilds and their end-to-end test, sanitizer, fuzz and Node-version runners, the cycle check, this inventory'
}

// Files that cannot open with a comment of their own: a build's output,
// and page markup whose head the build or the server fills in.
const DESCRIBED_HERE = {
  'lib/viewer/template.html': 'The built page template: lib/viewer/assets inlined by lib/viewer/build.js (committed; the core fills in the profile).',
  'lib/viewer/assets/shell.html': 'The viewer page\'s markup, with markers for the CSS and JS that lib/viewer/build.js inlines.',
  'lib/ui/dashboard.html': 'The cprof ui dashboard\'s markup, with markers for its CSS and JS that lib/ui/server.js fills in.',
  'lib/ui/dashboard.css': 'The cprof ui dashboard\'s styles.'
}

function walk (root, rel) {
  const out = []
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = `${rel}/${e.name}`
    if (e.isDirectory()) out.push(...walk(root, p))
    else out.push(p)
  }
  return out
}

// The comment's lines, markers stripped, or [] when the file does not open
// with one (after a #! line, 'use strict', a C file's #defines of feature
// macros, and blank lines).
function openingComment (text, file) {
  const c = /\.[ch]$/.test(file)
  const lines = text.split('\n')
  let i = 0
  while (i < lines.length && (/^#!|^\s*$|^'use strict'/.test(lines[i]) || (c && /^#define /.test(lines[i])))) i++
  const first = lines[i] || ''
  const run = (re) => {
    const out = []
    for (; i < lines.length && re.test(lines[i]); i++) out.push(lines[i].replace(re, ''))
    return out
  }
  if (first.startsWith('//')) return run(/^\/\/ ?/)
  if (!c && first.startsWith('#')) return run(/^# ?/)
  const block = { '/*': '*/', '<!--': '-->' }
  const open = Object.keys(block).find((o) => first.startsWith(o))
  if (!open) return []
  const rest = lines.slice(i).join('\n').slice(open.length)
  const end = rest.indexOf(block[open])
  return (end < 0 ? rest : rest.slice(0, end)).split('\n').map((l) => l.replace(/^\s*\*? ?/, ''))
}

function paragraphs (comment) {
  const out = [[]]
  for (const l of comment) {
    if (l.trim() !== '') out[out.length - 1].push(l.trim())
    else if (out[out.length - 1].length) out.push([])
  }
  return out.filter((p) => p.length)
}

// A paragraph of command lines ("npm run fuzz [-- …]"), as scripts open.
const isUsage = (para) => para.every((l) => /^(npm|node|cprof|e\.g\.) /.test(l) && !/: /.test(l))

// The first sentence of a paragraph: up to a full stop that ends one (not
// "e.g." or "i.e."), or the whole paragraph; a long one cut at a clause.
function sentence (para) {
  // A numbered list ("1. npm pack: …") is no sentence: cut before it.
  const text = para.join(' ').replace(/\s+/g, ' ').replace(/(^| )1\. .*$/, '').trim()
  if (!text) return ''
  const m = /^.*?(?<!\be\.g|\bi\.e)[.!?](?=\s|$)/.exec(text)
  const s = (m ? m[0] : text).replace(/:$/, '.')
  return s.length <= LONGEST ? s : cut(s)
}

// s cut after its last "; ", ": " or ", " before LONGEST that is outside
// parentheses, then " …".
function cut (s) {
  let depth = 0
  let at = -1
  for (let i = 0; i < LONGEST; i++) {
    if (s[i] === '(') depth++
    else if (s[i] === ')') depth--
    else if (depth === 0 && /[;:,]/.test(s[i]) && s[i + 1] === ' ') at = i
  }
  return at > 0 ? s.slice(0, at) + ' …' : s.slice(0, LONGEST) + ' …'
}

// What a file is for, from its opening comment: the first sentence, or for
// a comment that opens with command lines, the first of those and the
// first sentence after them.
function firstSentence (comment) {
  const [first, next] = paragraphs(comment)
  if (!first) return ''
  if (!isUsage(first)) return sentence(first)
  const usage = first[0].replace(/\s+/g, ' ').replace(/\.$/, '')
  const then = next ? sentence(next) : ''
  return then ? `${usage} — ${then}` : usage
}

function describe (root, file) {
  if (Object.hasOwn(DESCRIBED_HERE, file)) return DESCRIBED_HERE[file]
  const what = firstSentence(openingComment(fs.readFileSync(path.join(root, file), 'utf8'), file))
  return what || MISSING
}

// A C unit (tree.c and tree.h) is one line, named tree.c/h, described by
// its interface, the .h (by the .c when the .h has no comment).
function entries (root, files) {
  const set = new Set(files)
  const out = []
  for (const f of files) {
    const pair = f.endsWith('.c') && set.has(f.slice(0, -1) + 'h')
    if (f.endsWith('.h') && set.has(f.slice(0, -1) + 'c')) continue
    let what = pair ? describe(root, f.slice(0, -1) + 'h') : describe(root, f)
    if (pair && what === MISSING) what = describe(root, f)
    out.push({ file: pair ? f + '/h' : f, what })
  }
  return out
}

// "name  text", the text wrapped at WIDTH under its own first column.
function row (name, pad, what) {
  const lines = []
  let line = name.padEnd(pad)
  for (const word of what.split(' ')) {
    if (line.length > pad && line.length + 1 + word.length > WIDTH) {
      lines.push(line)
      line = ' '.repeat(pad)
    }
    line += (line.length > pad ? ' ' : '') + word
  }
  return [...lines, line].join('\n')
}

// The full listing (--files): "name  what it is for" per file.
function section (dir, list) {
  const names = list.map((e) => (dir ? e.file.slice(dir.length + 1) : e.file))
  const pad = Math.max(...names.map((n) => n.length)) + 2
  const body = list.map((e, i) => row(names[i], pad, e.what)).join('\n')
  return `## ${dir ? '`' + dir + '/`' : 'The root'}\n\n\`\`\`\n${body}\n\`\`\`\n`
}

// The page: a folder's purpose, then its files' names packed into lines.
function folder (dir, list) {
  const names = list.map((e) => (dir ? e.file.slice(dir.length + 1) : e.file))
  const lines = ['']
  for (const n of names) {
    const last = lines.length - 1
    if (lines[last] && lines[last].length + 2 + n.length > WIDTH) lines.push(n)
    else lines[last] += (lines[last] ? '  ' : '') + n
  }
  const what = dir ? FOLDER_PURPOSE[dir] ?? MISSING : 'the preload (node -r cprof/register)'
  return `## ${dir ? '`' + dir + '/`' : 'The root'}\n\n${what[0].toUpperCase()}${what.slice(1)}.\n\n\`\`\`\n${lines.join('\n')}\n\`\`\`\n`
}

function inventory (root) {
  const byDir = new Map()
  for (const f of FOLDERS.flatMap((d) => walk(root, d))) {
    const dir = path.posix.dirname(f)
    if (!byDir.has(dir)) byDir.set(dir, [])
    byDir.get(dir).push(f)
  }
  const top = (dir) => FOLDERS.indexOf(dir.split('/')[0])
  const dirs = [...byDir.keys()].sort((a, b) => top(a) - top(b) || (a < b ? -1 : 1))
  const list = dirs.map((dir) => [dir, entries(root, byDir.get(dir).sort())])
  list.push(['', entries(root, ROOT_FILES)])
  const head = [
    '# Source inventory',
    '',
    '<!-- Made by `node scripts/inventory.js --write`: do not edit by hand. test/js/project/docs.test.js',
    'fails when this page differs from the script\'s output. -->',
    '',
    'Every folder of `src/`, `lib/`, `bin/` and `scripts/`, what it is for, and its files (a C unit,',
    '`tree.c` and `tree.h`, is one name); `node scripts/inventory.js --files` prints each file\'s',
    'opening comment. How they fit: [Architecture](architecture.md). Elsewhere: `test/c/` (cmocka),',
    '`test/js/` ([its map](../test/js/README.md)), `test/fuzz/`, `bench/` (results in',
    '`bench/results/`), `examples/`, `docs/`; `prebuilds/` is made by `npm run prebuild`.',
    ''
  ].join('\n')
  const body = list.map(([dir, es]) => folder(dir, es)).join('\n')
  const files = `# Source files\n\n${list.map(([dir, es]) => section(dir, es)).join('\n')}`
  const missing = [
    ...list.flatMap(([, es]) => es.filter((e) => e.what === MISSING).map((e) => e.file)),
    ...dirs.filter((d) => !Object.hasOwn(FOLDER_PURPOSE, d)).map((d) => `${d}/ (no line in FOLDER_PURPOSE)`)
  ]
  return { text: `${head}\n${body}`, files, missing }
}

function main () {
  let opts
  try {
    opts = util.parseArgs({ options: { root: { type: 'string' }, write: { type: 'boolean' }, files: { type: 'boolean' } } }).values
  } catch (err) {
    process.stderr.write(`inventory: ${err.message}\nusage: inventory.js [--root DIR] [--write | --files]\n`)
    process.exit(2)
  }
  const root = path.resolve(opts.root ?? path.join(__dirname, '..'))
  const { text, files, missing } = inventory(root)
  if (opts.files) process.stdout.write(files)
  else if (opts.write) fs.writeFileSync(path.join(root, 'docs', 'inventory.md'), text)
  else process.stdout.write(text)
  for (const f of missing) process.stderr.write(`inventory: ${f.endsWith(')') ? f : `${f} has no opening comment`}\n`)
  process.exitCode = missing.length ? 1 : 0
}

if (require.main === module) main()

module.exports = { inventory, openingComment, firstSentence }

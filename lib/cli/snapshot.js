'use strict'
// cprof snapshot <file>: what holds the memory in a V8 .heapsnapshot. The
// native core reads the file (mapped, never into a JS string), builds the
// dominator tree by DevTools' rules and returns a small JSON report; this
// file only renders it (the call: lib/snapshot-report.js). It runs in the
// CLI process, never in a profiled app: an analysis costs memory in
// proportion to the snapshot.
const { parseCommand, input } = require('./profile-io')
const { command } = require('./kit')
const { snapshotReport, snapshotDiff, SNAPSHOT_TOP_MAX: TOP_MAX } = require('../snapshot-report')
const { termSafe } = require('../term')

const TOP_DEFAULT = 20
const PATHS_MAX = 10 // classes whose retainer path the text report shows

const OPTIONS = (what) => [
  { name: 'top', arg: 'N', type: 'count', min: 1, max: TOP_MAX, default: TOP_DEFAULT, help: `${what} to list` },
  { name: 'json', type: 'flag', help: `print the ${what === 'objects and classes' ? 'report' : 'diff'} as JSON (the same rows, sizes in bytes)` }
]

const snapshot = command({
  name: 'snapshot',
  usage: ['<file.heapsnapshot> [--top N] [--json]', 'diff <A> <B> [<C>] [--top N] [--json]'],
  about: `Reads a V8 heap snapshot (cprof's heap.snapshot(), v8.writeHeapSnapshot(),
node --heapsnapshot-signal, Chrome DevTools' Memory panel) and reports what holds
the memory: the totals, the largest objects by retained size, each with one
shortest retainer path from a GC root (global → sessionCache → Map → table → …),
and the classes by count, shallow and retained size. Sizes in bytes (B, KiB, MiB).
Retained sizes follow DevTools' rules: weak edges do not retain (docs/cli.md).`,
  options: OPTIONS('objects and classes'),
  notes: `cprof snapshot diff A B: what grew between two snapshots of one process: the
classes by shallow size growth, and the objects new in B (their id is not in A)
grouped by retainer path. With C, memlab's method: the objects new in B still
alive in C, grouped by their path in C, name the leak by what holds it.`
})

const diff = command({
  name: 'snapshot diff',
  usage: ['<A> <B> [<C>] [--top N] [--json]'],
  about: `Compares heap snapshots of one process taken one after another (V8 keeps an
object's id across them): the classes that changed from A to B (count, shallow
and retained size), and the objects new in B (their id is not in A) grouped by their
shortest retainer path from a root, indexes as [] (one group for the entries of
one Map). With a third snapshot C, memlab's method: the objects new in B that
are still alive in C, grouped by their path in C, largest retained size first:
what leaked, named by what holds it. Sizes in bytes (B, KiB, MiB); the rules:
docs/cli.md.`,
  options: OPTIONS('classes and paths')
})

function fmtBytes (v) {
  if (v >= 1024 ** 3) return (v / 1024 ** 3).toFixed(2) + ' GiB'
  if (v >= 1024 ** 2) return (v / 1024 ** 2).toFixed(2) + ' MiB'
  if (v >= 1024) return (v / 1024).toFixed(1) + ' KiB'
  return v + ' B'
}

// An edge as the path shows it: indexes (element edges, a hash table's
// slots) in brackets, the rest by name.
function edgeLabel (step) {
  return /^\d+$/.test(step.edge) ? `[${step.edge}]` : step.edge
}

// Where a function is defined, as DevTools shows it: the script's last path
// part and the line (from 1); the full URL is in --json's location.
function where (loc) {
  const url = loc.url === undefined ? `script ${loc.scriptId}` : loc.url.slice(loc.url.lastIndexOf('/') + 1) || loc.url
  return `${url}:${loc.line}`
}

// A node on a path: its class; a root group ("(GC roots)") or a function by
// its name and where it is defined, which say more.
function nodeLabel (step) {
  if (step.type === 'synthetic' && step.name) return step.name
  if (step.type === 'closure' && (step.name || step.location)) {
    return `${step.name || '(anonymous)'}()` + (step.location ? ` ${where(step.location)}` : '')
  }
  return step.class
}

// node → edge → node → …: the root's own edge (an index) is left out.
function formatPath (path) {
  if (!path || path.length === 0) return '(root)'
  const parts = [nodeLabel(path[0])]
  for (const step of path.slice(1)) parts.push(edgeLabel(step), nodeLabel(step))
  return parts.join(' → ')
}

function table (rows, header) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells) => cells.map((c, i) => i === cells.length - 1 ? c : String(c).padStart(widths[i])).join('  ')
  return [line(header), ...rows.map(line)].join('\n') + '\n'
}

function render (file, r) {
  let out = `Heap snapshot ${termSafe(file)}: ${r.nodes.toLocaleString('en-US')} objects, ` +
    `${r.edges.toLocaleString('en-US')} references, ${fmtBytes(r.totalSize)} reachable`
  if (r.unreachable) out += ` (${r.unreachable.toLocaleString('en-US')} objects unreachable from the roots)`
  out += '\n\nLargest objects by retained size\n'
  out += table(r.objects.map((o) => [fmtBytes(o.retainedSize), fmtBytes(o.selfSize), termSafe(`${o.class} @${o.id}: ${formatPath(o.path)}`)]),
    ['retained', 'self', 'object: retainer path'])
  out += '\nClasses by retained size\n'
  out += table(r.classes.map((c) => [c.count.toLocaleString('en-US'), fmtBytes(c.selfSize), fmtBytes(c.retainedSize), termSafe(c.name)]),
    ['count', 'shallow', 'retained', 'class'])
  // Where the user's classes are held: V8's own groups ("(array)", "system /
  // Context") say little by themselves.
  const held = r.classes.filter((c) => !/^\(|^system \//.test(c.name) && c.path.length > 0).slice(0, PATHS_MAX)
  if (held.length) {
    out += '\nWhere the largest classes are held (the path to each one\'s largest object)\n'
    for (const c of held) out += `  ${termSafe(`${c.name}: ${formatPath(c.path)}`)}\n`
  }
  return out
}

const count = (n) => n.toLocaleString('en-US')
const signed = (n, fmt) => n > 0 ? `+${fmt(n)}` : n < 0 ? `-${fmt(-n)}` : fmt(0)

function groupTable (groups) {
  return table(groups.map((g) => [count(g.count), fmtBytes(g.selfSize), fmtBytes(g.retainedSize), termSafe(g.path)]),
    ['count', 'shallow', 'retained', 'retainer path'])
}

function renderDiff (files, r) {
  const names = ['A', 'B', 'C']
  let out = 'Heap snapshot diff\n'
  r.snapshots.forEach((s, i) => {
    out += `  ${names[i]} ${termSafe(files[i])}: ${count(s.objects)} objects, ${fmtBytes(s.selfSize)}\n`
  })
  out += '\nClasses that changed from A to B, by shallow size growth\n'
  out += table(r.classes.map((c) => [count(c.a.count), count(c.b.count), signed(c.countDelta, count),
    signed(c.selfSizeDelta, fmtBytes), signed(c.retainedSizeDelta, fmtBytes), termSafe(c.name)]),
  ['A', 'B', 'count', 'shallow', 'retained', 'class'])
  const a = r.added
  out += `\nNew in B (id not in A): ${count(a.count)} objects, ${fmtBytes(a.selfSize)}, ` +
    `on ${count(a.paths)} retainer paths; the largest by retained size\n`
  out += groupTable(a.groups)
  if (r.leaked) {
    const l = r.leaked
    out += `\nLeaked (memlab's method): new in B and still alive in C: ${count(l.count)} objects, ` +
      `${fmtBytes(l.selfSize)}, on ${count(l.paths)} retainer paths in C\n`
    out += groupTable(l.groups)
  }
  return out
}

// The number of positionals, to pick the usage's two or three files
// before parseCommand checks them.
function positionals (argv) {
  try {
    return diff.parse(argv).positionals.length
  } catch {
    return 2
  }
}

async function runDiff (argv) {
  const names = positionals(argv) >= 3 ? ['A', 'B', 'C'] : ['A', 'B']
  const a = parseCommand(diff, argv, names)
  if (a.exit !== undefined) return a.exit
  const files = a.positionals
  const r = await snapshotDiff(files.map(input), a.values.top)
  for (const w of r.warnings) process.stderr.write(`cprof snapshot diff: warning: ${termSafe(w)}\n`)
  if (a.values.json) process.stdout.write(JSON.stringify({ files, ...r }, null, 2) + '\n')
  else process.stdout.write(renderDiff(files, r))
  return 0
}

async function run (argv) {
  if (argv[0] === 'diff') return runDiff(argv.slice(1))
  const a = parseCommand(snapshot, argv, ['file'])
  if (a.exit !== undefined) return a.exit
  const file = a.positionals[0]
  let r
  try {
    r = await snapshotReport(input(file), a.values.top)
  } catch (err) {
    if (err.code === 'ERR_CPROF_BAD_PROFILE') err.message = `${file} is not a readable V8 heap snapshot: ${err.message}`
    throw err
  }
  if (a.values.json) process.stdout.write(JSON.stringify({ file, ...r }, null, 2) + '\n')
  else process.stdout.write(render(file, r))
  return 0
}

module.exports = { run, command: snapshot, formatPath }

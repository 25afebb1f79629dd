#!/usr/bin/env node
'use strict'
// Fails when the source tree has a circle: two units that depend on each
// other, directly or through others. Run by `make -C test/c check` and by
// test/js/project/structure.test.js.
//
//   node scripts/check-cycles.js [--root DIR] [--graph]
//
// C (src/): a unit is a .c file and the .h of the same name (tree.c +
// tree.h); a header without a .c (export.h, job.h, macros.h) is a unit of
// its own, an interface. Unit A depends on unit B when a file of A
// #includes a header of B, or when A's code names a function that B
// defines (not static). Both count: a header-level graph alone misses
// render.c calling the exporters that include render.h.
// JS (lib/): a unit is a file; A depends on B when A require()s B. The
// viewer's assets (lib/viewer/assets, one script in the page) require each
// other too (lib/viewer/build.js joins them). Above the files, lib/ has
// folders (a file directly in lib/ counts as a folder of its own) in tiers,
// declared in scripts/tiers.js: a folder requires only folders of its own
// tier or lower ones, and no two folders depend on each other, even through
// others (a circle between folders fails even when no file circle makes it).
//
// --graph prints every unit's dependencies (the include and call graph),
// by layer: a unit depends only on units of lower layers. docs/architecture.md
// names this command rather than pasting its output.
// Exit status: 0 without circles, 1 with (each one printed, with the
// includes and functions that make its edges) or with a require against the
// tiers, 2 on usage errors.

const fs = require('node:fs')
const path = require('node:path')
const TIERS = require('./tiers')

function parseArgs (argv) {
  const opts = { root: path.join(__dirname, '..'), graph: false }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--graph') opts.graph = true
    else if (argv[i] === '--root' && i + 1 < argv.length) opts.root = path.resolve(argv[++i])
    else {
      process.stderr.write('usage: check-cycles.js [--root DIR] [--graph]\n')
      process.exit(2)
    }
  }
  return opts
}

function walk (dir, exts) {
  if (!fs.existsSync(dir)) return []
  const out = []
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) out.push(...walk(p, exts))
    else if (exts.includes(path.extname(e.name))) out.push(p)
  }
  return out.sort()
}

// Comments, string and character literals blanked (newlines kept), so
// names inside them are not uses and braces inside them do not count.
function stripC (text) {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, (m) =>
    m[0] === '"' ? '""' : m[0] === "'" ? "' '" : m.replace(/[^\n]/g, ' ')
  )
}

// Names of the functions a .c file defines with external linkage: a
// definition at brace depth 0 whose declaration does not say static.
function definedFunctions (code) {
  const names = []
  let depth = 0
  let stmt = 0 // where the current top-level declaration starts
  for (let i = 0; i < code.length; i++) {
    const c = code[i]
    if (c === '{') {
      if (depth === 0) {
        const decl = code.slice(stmt, i).replace(/^\s*#[^\n]*\n/gm, '')
        const m = /([A-Za-z_]\w*)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*$/.exec(decl)
        if (m && !/\bstatic\b/.test(decl) && !/=\s*$/.test(decl)) names.push(m[1])
      }
      depth++
    } else if (c === '}') {
      depth--
      if (depth === 0) stmt = i + 1
    } else if (c === ';' && depth === 0) {
      stmt = i + 1
    } else if (c === '\n' && depth === 0 && code[i + 1] === '#') {
      stmt = i + 1 // a preprocessor line ends any declaration before it
    }
  }
  return names
}

// Names used inside braces: function bodies (also a header's static
// inline functions), not the prototypes that only declare them.
function namesInBodies (code) {
  const names = []
  let depth = 0
  for (const m of code.matchAll(/[{}]|\b[A-Za-z_]\w*\b/g)) {
    if (m[0] === '{') depth++
    else if (m[0] === '}') depth--
    else if (depth > 0) names.push(m[0])
  }
  return names
}

function cGraph (root) {
  const src = path.join(root, 'src')
  const files = walk(src, ['.c', '.h'])
  const unitOf = (f) => path.relative(src, f).replace(/\.[ch]$/, '')
  const edges = new Map() // unit -> Map(dep unit -> [reasons])
  const addEdge = (a, b, why) => {
    if (a === b) return
    if (!edges.has(a)) edges.set(a, new Map())
    const m = edges.get(a)
    if (!m.has(b)) m.set(b, [])
    if (!m.get(b).includes(why)) m.get(b).push(why)
  }
  const texts = new Map()
  const definer = new Map() // function name -> unit
  for (const f of files) {
    const raw = fs.readFileSync(f, 'utf8')
    texts.set(f, { raw, code: stripC(raw) })
    if (!edges.has(unitOf(f))) edges.set(unitOf(f), new Map())
    if (f.endsWith('.c')) for (const n of definedFunctions(texts.get(f).code)) definer.set(n, unitOf(f))
  }
  for (const f of files) {
    const { raw, code } = texts.get(f)
    const rel = path.relative(src, f)
    for (const m of raw.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
      const target = path.resolve(path.dirname(f), m[1])
      if (target.startsWith(src + path.sep) && fs.existsSync(target))
        addEdge(unitOf(f), unitOf(target), `${rel} includes ${m[1]}`)
    }
    for (const name of namesInBodies(code)) {
      const owner = definer.get(name)
      if (owner !== undefined) addEdge(unitOf(f), owner, `${rel} calls ${name}()`)
    }
  }
  return edges
}

function jsGraph (root) {
  const lib = path.join(root, 'lib')
  const files = walk(lib, ['.js'])
  const edges = new Map()
  const unitOf = (f) => path.relative(root, f)
  for (const f of files) {
    const m = new Map()
    edges.set(unitOf(f), m)
    const code = fs.readFileSync(f, 'utf8')
    for (const r of code.matchAll(/\brequire\(\s*['"](\.{1,2}\/[^'"]*)['"]\s*\)/g)) {
      const base = path.resolve(path.dirname(f), r[1])
      const target = [base, base + '.js', path.join(base, 'index.js')].find(
        (p) => fs.existsSync(p) && fs.statSync(p).isFile()
      )
      if (!target || !target.startsWith(lib + path.sep)) continue
      const t = unitOf(target)
      if (t === unitOf(f)) continue
      if (!m.has(t)) m.set(t, [])
      m.get(t).push(`${unitOf(f)} requires ${r[1]}`)
    }
  }
  return edges
}

// lib/'s folders: lib/cli/ for lib/cli/x.js, lib/index.js for itself.
function folderOf (unit) {
  const slash = unit.indexOf('/', 'lib/'.length)
  return slash < 0 ? unit : unit.slice(0, slash + 1)
}

// The file graph folded into folders: an edge between two folders for
// each require from a file of one to a file of the other.
function folderGraph (edges) {
  const out = new Map()
  for (const [a, deps] of edges) {
    const fa = folderOf(a)
    if (!out.has(fa)) out.set(fa, new Map())
    for (const [b, why] of deps) {
      const fb = folderOf(b)
      if (fa === fb) continue
      const m = out.get(fa)
      if (!m.has(fb)) m.set(fb, [])
      m.get(fb).push(...why)
    }
  }
  return out
}

// What breaks the tiers (scripts/tiers.js): a folder no tier names, a
// require from a folder to one of a higher tier.
function tierProblems (folders, tiers = TIERS) {
  const rank = new Map()
  tiers.forEach((t, i) => t.units.forEach((u) => rank.set('lib/' + u, i)))
  const out = []
  for (const [a, deps] of folders) {
    if (!rank.has(a)) {
      out.push(`no tier: ${a} is in no tier of scripts/tiers.js; add it to the lowest tier whose folders are all it needs`)
      continue
    }
    for (const [b, why] of deps) {
      if (!(rank.get(b) > rank.get(a))) continue
      out.push(`tier: ${a} (${tiers[rank.get(a)].tier}) requires ${b} (${tiers[rank.get(b)].tier}, a higher tier): ` +
        why.slice(0, 3).join('; '))
    }
  }
  return out
}

// Tarjan's strongly connected components: a component of more than one
// unit is a circle.
function circles (edges) {
  let index = 0
  const idx = new Map()
  const low = new Map()
  const onStack = new Set()
  const stack = []
  const out = []
  const visit = (v) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of (edges.get(v) || new Map()).keys()) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), idx.get(w)))
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc = []
      let w
      do {
        w = stack.pop()
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1) out.push(scc.sort())
    }
  }
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v)
  return out
}

function describe (edges, scc) {
  const inside = new Set(scc)
  const lines = [`circle: ${scc.join(' <-> ')}`]
  for (const a of scc)
    for (const [b, why] of edges.get(a) || [])
      if (inside.has(b)) lines.push(`  ${a} -> ${b}: ${why.slice(0, 3).join('; ')}`)
  return lines.join('\n')
}

// Units by layer: layer 0 depends on nothing; any other unit depends only
// on units of lower layers (there are layers only without circles).
function layers (edges) {
  const layer = new Map()
  const of = (u) => {
    if (!layer.has(u)) {
      layer.set(u, 0)
      let l = 0
      for (const d of edges.get(u).keys()) l = Math.max(l, of(d) + 1)
      layer.set(u, l)
    }
    return layer.get(u)
  }
  for (const u of edges.keys()) of(u)
  return layer
}

// The graph as --graph prints it:
// a line per unit, "layer unit -> deps", wrapped under its deps at WIDTH
// columns. Names are shortened by what the reader knows from the line:
// in src/ a dependency in the unit's own folder loses its folder (core/tree
// -> label); in lib/ every name loses "lib/".
const WIDTH = 96

function shortName (graph, unit, dep) {
  if (graph === 'lib') return dep.replace(/^lib\//, '')
  const dir = unit.slice(0, unit.indexOf('/') + 1)
  return dep.startsWith(dir) ? dep.slice(dir.length) : dep
}

function graphLines (graph, title, edges) {
  const layer = layers(edges)
  const units = [...edges.keys()].sort((a, b) => layer.get(a) - layer.get(b) || (a < b ? -1 : 1))
  const lines = [title]
  for (const a of units) {
    const deps = [...edges.get(a).keys()].sort().map((d) => shortName(graph, a, d))
    const head = `${String(layer.get(a)).padStart(4)} ${shortName(graph, '', a)} -> `
    if (deps.length === 0) {
      lines.push(head + '(nothing)')
      continue
    }
    lines.push(...wrapped(head, deps))
  }
  return lines
}

// head, then words joined by ", ", wrapped at WIDTH under the first word.
function wrapped (head, words) {
  const out = []
  let line = head
  words.forEach((w, i) => {
    const word = w + (i < words.length - 1 ? ',' : '')
    if (line.length > head.length && line.length + 1 + word.length > WIDTH) {
      out.push(line)
      line = ' '.repeat(head.length) + word
    } else {
      line += (line.length > head.length ? ' ' : '') + word
    }
  })
  out.push(line)
  return out
}

// The tiers, as --graph prints them above lib/'s graph.
function tierLines (tiers = TIERS) {
  const lines = ['lib/ tiers, lowest first (a folder requires only its own tier and lower ones; no folder circle)']
  tiers.forEach((t, i) => lines.push(...wrapped(`${String(i + 1).padStart(4)} ${t.tier}: `, t.units)))
  return lines
}

// lib/'s folder circles and tier breaks, printed; true when there are any.
function folderFailures (edges) {
  const folders = folderGraph(edges)
  const found = circles(folders)
  for (const scc of found) process.stderr.write('folder ' + describe(folders, scc) + '\n')
  const broken = tierProblems(folders)
  for (const line of broken) process.stderr.write(line + '\n')
  return found.length + broken.length > 0
}

function main () {
  const opts = parseArgs(process.argv.slice(2))
  const graphs = [
    ['src', 'src/ (C: includes and function calls)', cGraph(opts.root)],
    ['lib', 'lib/ (JS: require; names under lib/)', jsGraph(opts.root)]
  ]
  let failed = false
  for (const [graph, title, edges] of graphs) {
    const found = circles(edges)
    for (const scc of found) process.stderr.write(describe(edges, scc) + '\n')
    const folderBad = graph === 'lib' && folderFailures(edges)
    if (found.length > 0 || folderBad) failed = true
    else if (opts.graph) {
      if (graph === 'lib') process.stdout.write(tierLines().join('\n') + '\n')
      process.stdout.write(graphLines(graph, title, edges).join('\n') + '\n')
    }
  }
  if (failed) {
    process.stderr.write(
      'check-cycles: units above depend on each other, or a lower tier requires a higher one ' +
        '(scripts/tiers.js); move what both need into a unit of its own, in the tier it belongs to\n'
    )
    process.exit(1)
  }
  const units = graphs.reduce((n, [, , e]) => n + e.size, 0)
  process.stdout.write(`check-cycles: no circles among ${units} units of src/ and lib/, ` +
    `none between lib/'s folders, none against its ${TIERS.length} tiers\n`)
}

if (require.main === module) main()
module.exports = { cGraph, jsGraph, circles, definedFunctions, stripC, graphLines, folderGraph, tierProblems }

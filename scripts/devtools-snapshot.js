#!/usr/bin/env node
'use strict'
// Checks `cprof snapshot` against Chrome DevTools' own heap-snapshot code on
// one .heapsnapshot: the retained sizes of the N largest objects and the
// class totals (count, shallow, retained, least distance) must agree within --tolerance
// (1% by default). DevTools' worker (front_end/entrypoints/
// heap_snapshot_worker/HeapSnapshot.ts in the chrome-devtools-frontend npm
// package) is bundled with esbuild, its UI strings stubbed, and run in this
// process, headless, through its own createJSHeapSnapshotForTesting.
//
//   node scripts/devtools-snapshot.js FILE [--top 20] [--tolerance 1] [--json]
//
// The package is not a dependency (19 MB); fetch it once:
//   mkdir -p .cache/chrome-devtools-frontend && cd .cache/chrome-devtools-frontend &&
//   npm pack chrome-devtools-frontend@1.0.1705227 && tar xzf chrome-devtools-frontend-*.tgz
// or point CPROF_DEVTOOLS_FRONTEND at an unpacked package (the folder with
// front_end/). Exit 0 agree, 1 disagree, 2 usage or no package.
const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')

const ROOT = path.join(__dirname, '..')
const FRONTEND = process.env.CPROF_DEVTOOLS_FRONTEND || path.join(ROOT, '.cache', 'chrome-devtools-frontend', 'package')
const OUT = path.join(ROOT, '.cache', 'devtools-heap')

// i18n pulls in DevTools' whole localisation; the worker only formats
// progress messages with it. heap_snapshot.js's barrel pulls the UI proxy.
const STUBS = {
  'i18n.ts': 'export const i18n = { serializeUIString: (s: string) => s, lockedString: (s: string) => s };\n',
  'heap_snapshot.ts': `import * as HeapSnapshotModel from '${FRONTEND}/front_end/models/heap_snapshot/HeapSnapshotModel.ts';\nexport { HeapSnapshotModel };\n`,
  'entry.ts': `export { createJSHeapSnapshotForTesting } from '${FRONTEND}/front_end/entrypoints/heap_snapshot_worker/HeapSnapshot.ts';\n` +
    `export * as Platform from '${FRONTEND}/front_end/core/platform/platform.ts';\n`
}

async function bundle () {
  fs.mkdirSync(OUT, { recursive: true })
  for (const [name, text] of Object.entries(STUBS)) fs.writeFileSync(path.join(OUT, name), text)
  const outfile = path.join(OUT, 'devtools-heap.mjs')
  await require('esbuild').build({
    entryPoints: [path.join(OUT, 'entry.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
    plugins: [{
      name: 'devtools-paths',
      setup (b) {
        b.onResolve({ filter: /core\/i18n\/i18n\.js$/ }, () => ({ path: path.join(OUT, 'i18n.ts') }))
        b.onResolve({ filter: /models\/heap_snapshot\/heap_snapshot\.js$/ }, () => ({ path: path.join(OUT, 'heap_snapshot.ts') }))
        // DevTools imports its .ts sources by their compiled .js names.
        b.onResolve({ filter: /^\..*\.js$/ }, (a) => {
          const ts = path.resolve(path.dirname(a.importer), a.path.replace(/\.js$/, '.ts'))
          return fs.existsSync(ts) ? { path: ts } : undefined
        })
      }
    }]
  })
  return outfile
}

// DevTools' numbers for FILE: the top objects by retained size (not the
// root, not synthetic nodes, as cprof lists them) and every class.
async function devtools (file, top) {
  if (!Promise.withResolvers) { // Node < 22
    Promise.withResolvers = function () {
      let resolve, reject
      const promise = new Promise((res, rej) => { resolve = res; reject = rej })
      return { promise, resolve, reject }
    }
  }
  const { createJSHeapSnapshotForTesting, Platform } = await import(await bundle())
  const json = JSON.parse(fs.readFileSync(file, 'utf8'))
  const big = (arr) => {
    const a = Platform.TypedArrayUtilities.createFixedBigUint32Array(arr.length)
    for (let i = 0; i < arr.length; i++) a.setValue(i, arr[i])
    return a
  }
  const profile = { ...json, nodes: big(json.nodes), edges: big(json.edges), root_index: json.snapshot.root_index ?? 0 }
  const warn = console.warn
  console.warn = () => {} // its reports of unreachable nodes
  const t0 = process.hrtime.bigint()
  const snap = await createJSHeapSnapshotForTesting(profile)
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  console.warn = warn
  const nf = snap.nodeFieldCount
  const root = snap.rootNodeIndex / nf
  const node = snap.createNode(0)
  const listed = []
  for (let i = 0; i < snap.nodeCount; i++) {
    node.nodeIndex = i * nf
    if (i !== root && node.type() !== 'synthetic') listed.push(i)
  }
  listed.sort((a, b) => snap.retainedSizes[b] - snap.retainedSizes[a])
  const objects = listed.slice(0, top).map((i) => {
    node.nodeIndex = i * nf
    return { id: node.id(), name: node.name(), retainedSize: snap.retainedSizes[i], selfSize: node.selfSize() }
  })
  const classes = new Map() // by name: DevTools splits a name by its source location
  for (const a of Object.values(snap.aggregatesWithFilter({}))) {
    const c = classes.get(a.name) || { name: a.name, count: 0, selfSize: 0, retainedSize: 0, distance: Infinity, keys: 0 }
    c.count += a.count
    c.selfSize += a.self
    c.retainedSize += a.maxRet
    c.distance = Math.min(c.distance, a.distance)
    c.keys++
    classes.set(a.name, c)
  }
  return { totalSize: snap.totalSize, ms, objects, classes }
}

// HeapSnapshotModel.baseSystemDistance: DevTools shows no distance from there
const BASE_SYSTEM_DISTANCE = 100000000

function rel (a, b) {
  return a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b))
}

// cprof's and DevTools' numbers side by side; mismatches over tolerance.
function compare (ours, theirs, tolerance) {
  const rows = []
  rows.push({ what: 'total', ours: ours.totalSize, theirs: theirs.totalSize })
  const byId = new Map(ours.objects.map((o) => [o.id, o]))
  for (const t of theirs.objects) {
    const o = byId.get(t.id)
    rows.push({ what: `object @${t.id} ${t.name.slice(0, 40)} retained`, ours: o ? o.retainedSize : null, theirs: t.retainedSize })
  }
  // Classes cprof names as DevTools does: DevTools renames plain objects by
  // their properties ("{a, b}") and splits a name by source location, which
  // cprof does not yet; those are left out and counted.
  let skipped = 0
  for (const o of ours.classes) {
    const t = theirs.classes.get(o.name)
    if (!t || o.name === 'Object' || t.keys > 1) { skipped++; continue }
    rows.push({ what: `class ${o.name} count`, ours: o.count, theirs: t.count })
    rows.push({ what: `class ${o.name} shallow`, ours: o.selfSize, theirs: t.selfSize })
    rows.push({ what: `class ${o.name} retained`, ours: o.retainedSize, theirs: t.retainedSize })
    // DevTools shows "−" where cprof's JSON has null: no user root reaches it
    const shown = t.distance >= 0 && t.distance < BASE_SYSTEM_DISTANCE ? t.distance : null
    rows.push({ what: `class ${o.name} distance`, ours: o.distance, theirs: shown })
  }
  for (const r of rows) {
    r.diff = r.ours === r.theirs ? 0 : r.ours === null || r.theirs === null ? 1 : rel(r.ours, r.theirs)
    r.ok = r.diff * 100 <= tolerance
  }
  return { rows, skipped }
}

async function main () {
  const { values, positionals } = parseArgs({
    options: { top: { type: 'string', default: '20' }, tolerance: { type: 'string', default: '1' }, json: { type: 'boolean' } },
    allowPositionals: true
  })
  if (positionals.length !== 1) {
    process.stderr.write('usage: node scripts/devtools-snapshot.js FILE [--top 20] [--tolerance 1] [--json]\n')
    return 2
  }
  if (!fs.existsSync(path.join(FRONTEND, 'front_end', 'entrypoints', 'heap_snapshot_worker', 'HeapSnapshot.ts'))) {
    process.stderr.write(`no chrome-devtools-frontend package at ${FRONTEND}: see the comment at the top of this script\n`)
    return 2
  }
  const file = path.resolve(positionals[0])
  const top = Number(values.top)
  const { snapshotReport } = require('../lib/native')
  const t0 = process.hrtime.bigint()
  const ours = JSON.parse(await snapshotReport(file, Math.min(1000, top * 50)))
  const oursMs = Number(process.hrtime.bigint() - t0) / 1e6
  const theirs = await devtools(file, top)
  const { rows, skipped } = compare(ours, theirs, Number(values.tolerance))
  const bad = rows.filter((r) => !r.ok)
  const version = JSON.parse(fs.readFileSync(path.join(FRONTEND, 'package.json'), 'utf8')).version
  if (values.json) {
    process.stdout.write(JSON.stringify({ file, devtools: version, cprofMs: oursMs, devtoolsMs: theirs.ms, skippedClasses: skipped, rows }) + '\n')
  } else {
    for (const r of rows) process.stdout.write(`${r.ok ? '  ' : '!!'} ${r.what.padEnd(60)} ${String(r.ours).padStart(10)} ${String(r.theirs).padStart(10)} ${(r.diff * 100).toFixed(3)}%\n`)
    process.stdout.write(`${rows.length - bad.length}/${rows.length} within ${values.tolerance}% of DevTools ${version}; ` +
      `${skipped} classes not compared (named differently); cprof ${oursMs.toFixed(0)} ms (read + analysis), DevTools ${theirs.ms.toFixed(0)} ms (analysis only)\n`)
  }
  return bad.length ? 1 : 0
}

if (require.main === module) {
  main().then((code) => { process.exitCode = code }, (err) => { process.stderr.write(`${err.stack}\n`); process.exitCode = 2 })
}

// For test/js/cli/snapshot.test.js (cprof snapshot diff's classes of A and B).
module.exports = { devtools, FRONTEND }

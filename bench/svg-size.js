'use strict'
// How big cprof's SVG flame graph is for real profiles (docs/formats.md,
// "SVG flame graph", quotes its figures):
//
//   node bench/svg-size.js FILE.cpuprofile|FILE.heapprofile...
//
// For each profile: its nodes, the frames the graph draws, the SVG file's
// size in bytes and in MiB, and its gzip'd size in KiB (binary units: 1 KiB
// = 1,024 bytes, 1 MiB = 1,048,576 bytes; docs/formats.md quotes the same).
//
// The real profiles in docs/formats.md (bench/results/2026-11-24-svg-size.txt)
// were made with node's own profiler, run from the repository's root. The
// JS builds of TypeScript and prettier go outside the project (TypeScript 7,
// the devDependency, is a native binary node's profiler cannot see):
//
//   npm install --prefix /tmp/ts typescript@5 prettier@3
//   TSC=/tmp/ts/node_modules/typescript/lib/tsc.js
//   # tsc type-checking cprof's lib/ (100 µs interval)
//   node --cpu-prof --cpu-prof-dir=/tmp/prof/tsc --cpu-prof-interval 100 \
//     $TSC --allowJs --checkJs --noEmit --skipLibCheck lib/*.js lib/*/*.js
//   # prettier checking cprof's sources (50 µs interval)
//   node --cpu-prof --cpu-prof-dir=/tmp/prof/prettier --cpu-prof-interval 50 \
//     /tmp/ts/node_modules/prettier/bin/prettier.cjs --check 'lib/**/*.js' 'test/**/*.js' 'bench/*.js'
//   # tsc type-checking PM2's API sources (pm2 is a devDependency; 100 µs)
//   node --cpu-prof --cpu-prof-dir=/tmp/prof/pm2 --cpu-prof-interval 100 \
//     $TSC --allowJs --checkJs --noEmit --skipLibCheck node_modules/pm2/lib/API.js node_modules/pm2/lib/API/*.js
//   node bench/svg-size.js /tmp/prof/*/*.cpuprofile
//
// Node's profiler names its files CPU.<date>.<pid>...cpuprofile; the results
// file renamed them tsc, prettier and pm2.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const zlib = require('node:zlib')
const native = require('../lib/native')

function nodeCount (file) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'))
  if (Array.isArray(p.nodes)) return p.nodes.length
  let n = 0
  const stack = [p.head]
  while (stack.length) {
    const node = stack.pop()
    n++
    stack.push(...(node.children || []))
  }
  return n
}

async function measure (file, dir) {
  const r = await native.convert(path.resolve(file), dir, 0, { outs: { svg: 'out.svg' }, title: path.basename(file) })
  const svg = fs.readFileSync(r.outputs.svg.path)
  const frames = svg.toString('utf8').split('<g class="f"').length - 1
  return { file: path.basename(file), nodes: nodeCount(file), frames, bytes: svg.length, gzip: zlib.gzipSync(svg).length }
}

async function main (files) {
  if (files.length === 0) {
    process.stderr.write('usage: node bench/svg-size.js FILE.cpuprofile|FILE.heapprofile...\n')
    return 2
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-svg-size-'))
  try {
    const kib = (n) => `${(n / 1024).toFixed(0)} KiB`
    const mib = (n) => `${(n / 1048576).toFixed(2)} MiB`
    process.stdout.write(`# node ${process.version}, ${os.platform()}-${os.arch()}\n`)
    process.stdout.write('profile\tnodes\tframes drawn\tSVG bytes\tSVG\tgzip\tbytes/frame\n')
    for (const f of files) {
      const m = await measure(f, dir)
      process.stdout.write(`${m.file}\t${m.nodes}\t${m.frames}\t${m.bytes}\t${mib(m.bytes)}\t${kib(m.gzip)}\t${Math.round(m.bytes / m.frames)}\n`)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return 0
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code })

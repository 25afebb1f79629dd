'use strict'
// How big cprof's SVG flame graph is for real profiles (docs/formats.md,
// "SVG flame graph", quotes its figures):
//
//   node bench/svg-size.js FILE.cpuprofile|FILE.heapprofile...
//
// For each profile: its nodes, the frames the graph draws, the file's size
// and its gzip'd size. Make large real profiles with node's own profiler,
// e.g. TypeScript's compiler type-checking a code base:
//
//   npm install --prefix /tmp/ts typescript
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --cpu-prof-interval 100 \
//     /tmp/ts/node_modules/typescript/lib/tsc.js --allowJs --checkJs --noEmit lib/*.js
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
    const kb = (n) => `${(n / 1024).toFixed(0)} KiB`
    process.stdout.write('profile\tnodes\tframes drawn\tSVG\tgzip\tbytes/frame\n')
    for (const f of files) {
      const m = await measure(f, dir)
      process.stdout.write(`${m.file}\t${m.nodes}\t${m.frames}\t${kb(m.bytes)}\t${kb(m.gzip)}\t${Math.round(m.bytes / m.frames)}\n`)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return 0
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code })

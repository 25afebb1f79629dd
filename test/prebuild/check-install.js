'use strict'
// Run by scripts/test-prebuild.js in a fresh `npm install` of the packed
// tarball, by node x64 and by node arm64 under qemu: require('cprof') as a
// user would, take a real CPU profile (with pprof) and a heap profile, and
// print what was loaded and written as one JSON line for the harness to
// check (which addon file is mapped, that no libcjson is, the files).
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const cprof = require('cprof')

// The function the CPU profile must show. Math.sqrt keeps V8 from folding
// the loop away; the result is returned so it stays live.
function prebuildHotLoop (ms) {
  const end = Date.now() + ms
  let x = 0
  while (Date.now() < end) {
    for (let i = 0; i < 10000; i++) x += Math.sqrt(i + x % 7)
  }
  return x
}

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-prebuild-'))
  await cprof.start({ dir, name: 'cpu', interval: 1000, formats: ['cpuprofile', 'pprof'] })
  prebuildHotLoop(Number(process.env.CPROF_BURN_MS || 1000))
  const cpu = await cprof.stop()
  // Heap: allocations kept alive until stop, so the leak view has them.
  await cprof.heap.start({ dir, name: 'heap', interval: 1024 })
  const keep = []
  for (let i = 0; i < 5000; i++) keep.push({ i, s: `item-${i}`.repeat(8) })
  const heap = await cprof.heap.stop()
  const mapped = new Set()
  for (const line of fs.readFileSync('/proc/self/maps', 'utf8').split('\n')) {
    const file = line.trim().split(/\s+/)[5]
    if (file && file.startsWith('/')) mapped.add(file)
  }
  process.stdout.write(JSON.stringify({
    arch: process.arch,
    node: process.version,
    addons: [...mapped].filter((f) => f.endsWith('.node')),
    cjson: [...mapped].filter((f) => /cjson/i.test(f)),
    cpu: { files: cpu.files, samples: cpu.samples },
    heap: { files: heap.files, kept: keep.length }
  }) + '\n')
}

main().catch((err) => {
  process.stderr.write(`${err.code || ''} ${err.stack}\n`)
  process.exit(1)
})

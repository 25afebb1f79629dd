'use strict'
// A synthetic CPU workload with thousands of distinct functions, so profile
// trees are large (DESIGN.md: a 2,000-function workload). The functions are
// generated into a real file so each has its own url:line, as in an app.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

// With { alloc: true } each function also stores a small object in a shared
// ring of RING slots, so the heap holds a live set allocated from thousands of
// call sites (large heap profiles).
const RING = 1 << 18

function generate (n, { alloc = false } = {}) {
  const lines = ["'use strict'", 'const fns = []', `const ring = new Array(${RING})`]
  for (let i = 0; i < n; i++) {
    // Each function does a little work, then calls 0–2 others picked by its
    // argument: many distinct stacks, as in a real app.
    lines.push(`fns.push(function work${i} (x, depth) {
  let s = 0
  for (let j = 0; j < ${20 + (i % 13) * 5}; j++) s += (x * ${i + 1} + j) % 7
${alloc ? `  ring[(x * 7 + ${i}) & ${RING - 1}] = { f: ${i}, s, a: [x, s, depth] }\n` : ''}  if (depth > 0) {
    s += fns[(x * 31 + ${i}) % ${n}](x + s, depth - 1)
    if ((x + ${i}) % 3 === 0) s += fns[(x * 17 + ${i * 7}) % ${n}](x + 1, depth - 1)
  }
  return s
})`)
  }
  lines.push('module.exports = fns')
  const file = path.join(os.tmpdir(), `cprof-bench-workload-${n}${alloc ? '-alloc' : ''}-${process.pid}.js`)
  fs.writeFileSync(file, lines.join('\n') + '\n')
  process.once('exit', () => { try { fs.unlinkSync(file) } catch {} })
  return require(file)
}

// Runs the workload for `ms` in slices, yielding to the event loop between.
function runFor (fns, ms, done) {
  const end = Date.now() + ms
  let x = 1
  function slice () {
    const until = Date.now() + 5
    while (Date.now() < until) {
      x = (x * 1103515245 + 12345) & 0x7fffffff
      fns[x % fns.length](x, 6)
    }
    if (Date.now() < end) setImmediate(slice)
    else done()
  }
  slice()
}

module.exports = { generate, runFor }

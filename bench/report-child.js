'use strict'
// `cprof report` throughput on a large .cpuprofile against a plain JS reader.
//   node bench/report-child.js make FILE NODES SAMPLES   write a large synthetic .cpuprofile
//   node bench/report-child.js js FILE             read + JSON.parse + self/total per node,
//                                                  flat profile by function, top 20 by self and by total
//   node bench/report-child.js analyze FILE        cprof.analyze(FILE) (the native core)
// js and analyze print one JSON line: { ms, bytes, samples, nodes, top }, ms timed inside
// the process; `top` is the function with the most self time, so both can be compared.
const fs = require('node:fs')
const path = require('node:path')

const now = () => Number(process.hrtime.bigint()) / 1e6

// The reference: what a user would write to get self/total from a .cpuprofile.
function reference (file) {
  const text = fs.readFileSync(file, 'utf8')
  const p = JSON.parse(text)
  const n = p.nodes.length
  const index = new Map()
  for (let i = 0; i < n; i++) index.set(p.nodes[i].id, i)
  const parent = new Int32Array(n).fill(-1)
  for (let i = 0; i < n; i++) {
    for (const c of p.nodes[i].children || []) parent[index.get(c)] = i
  }
  // A sample stands for the time until the next one; the last one up to endTime.
  const self = new Float64Array(n)
  const { samples, timeDeltas } = p
  let t = p.startTime
  for (let i = 0; i < samples.length; i++) {
    t += timeDeltas[i]
    const dt = i + 1 < samples.length ? timeDeltas[i + 1] : p.endTime - t
    const k = index.get(samples[i])
    if (k === undefined) throw new Error(`sample names node ${samples[i]}, which the profile does not have`)
    self[k] += Math.max(dt, 0)
  }
  // Total: children before parents (reverse pre-order from the root).
  const root = parent.indexOf(-1)
  const order = [root]
  for (let i = 0; i < order.length; i++) {
    for (const c of p.nodes[order[i]].children || []) order.push(index.get(c))
  }
  const total = Float64Array.from(self)
  for (let i = order.length - 1; i > 0; i--) total[parent[order[i]]] += total[order[i]]
  // Flat profile by function; a recursive function's total counts each sample once.
  const key = new Array(n)
  for (let i = 0; i < n; i++) {
    const f = p.nodes[i].callFrame
    key[i] = `${f.functionName}\0${f.url}\0${f.lineNumber}\0${f.columnNumber}`
  }
  const flat = new Map()
  const onStack = new Map()
  const stack = [[root, 0]]
  while (stack.length) {
    const top = stack[stack.length - 1]
    const i = top[0]
    if (top[1] === 0) {
      const k = key[i]
      let f = flat.get(k)
      if (!f) flat.set(k, (f = { key: k, self: 0, total: 0 }))
      f.self += self[i]
      const depth = onStack.get(k) || 0
      if (depth === 0) f.total += total[i]
      onStack.set(k, depth + 1)
    }
    const kids = p.nodes[i].children || []
    if (top[1] < kids.length) {
      stack.push([index.get(kids[top[1]++]), 0])
    } else {
      onStack.set(key[i], onStack.get(key[i]) - 1)
      stack.pop()
    }
  }
  const fns = [...flat.values()].filter((f) => !f.key.startsWith('(root)') && !f.key.startsWith('(idle)'))
  const top = [...fns].sort((a, b) => b.self - a.self).slice(0, 20)
  const byTotal = fns.sort((a, b) => b.total - a.total).slice(0, 20)
  if (!byTotal.length) throw new Error('no functions')
  return { bytes: Buffer.byteLength(text), samples: samples.length, nodes: n, top: top[0].key.split('\0')[0] }
}

// A large, deterministic .cpuprofile shaped like a real one: NODES call-tree
// nodes over 5,000 functions in 200 files, SAMPLES samples at ~1 ms.
function make (file, nodes, samples) {
  let x = 12345
  const rnd = (n) => { x = (x * 1103515245 + 12345) & 0x7fffffff; return x % n }
  const fn = (k) => ({
    functionName: k % 97 === 0 ? '' : `handler${k}_${['parse', 'render', 'query', 'hash', 'route'][k % 5]}`,
    scriptId: String(10 + (k % 200)),
    url: `file:///srv/app/src/module-${k % 200}/index.js`,
    lineNumber: (k * 7) % 900,
    columnNumber: (k * 13) % 80
  })
  const special = (name) => ({ functionName: name, scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 })
  const ns = [{ id: 1, callFrame: special('(root)'), hitCount: 0, children: [] }]
  for (const name of ['(program)', '(idle)', '(garbage collector)']) {
    ns.push({ id: ns.length + 1, callFrame: special(name), hitCount: 0, children: [] })
    ns[0].children.push(ns.length)
  }
  const depth = [0, 1, 1, 1]
  while (ns.length < nodes) {
    // Attach under a recent node most of the time (many distinct stacks that
    // share prefixes), at most 64 deep, as in real apps.
    let parent = ns.length < 8 ? 0 : ns.length - 1 - rnd(Math.min(ns.length - 1, 200))
    while (depth[parent] >= 64 || (parent >= 1 && parent <= 3)) parent = rnd(ns.length)
    const id = ns.length + 1
    depth.push(depth[parent] + 1)
    ns.push({ id, callFrame: fn(rnd(5000)), hitCount: 0, children: [] })
    ns[parent].children.push(id)
  }
  const ids = new Array(samples)
  const deltas = new Array(samples)
  for (let i = 0; i < samples; i++) {
    const k = rnd(10) === 0 ? 1 + rnd(3) : rnd(nodes)
    ids[i] = ns[k].id
    ns[k].hitCount++
    deltas[i] = 900 + rnd(250)
  }
  for (const n of ns) if (n.children.length === 0) delete n.children
  const startTime = 1e12
  const endTime = startTime + deltas.reduce((a, b) => a + b, 0) + 1000
  fs.writeFileSync(file, JSON.stringify({ nodes: ns, startTime, endTime, samples: ids, timeDeltas: deltas }))
}

async function main ([mode, file, arg, arg2]) {
  if (mode === 'make') return make(file, Number(arg), Number(arg2))
  let r
  const t0 = now()
  if (mode === 'js') {
    r = reference(file)
  } else if (mode === 'analyze') {
    const a = await require(path.join(__dirname, '..')).analyze(file)
    r = { bytes: fs.statSync(file).size, samples: a.samples, nodes: null, top: a.summary.top[0].functionName }
  } else {
    throw new Error(`unknown mode ${mode}`)
  }
  const ms = now() - t0
  if (!(r.samples > 0)) throw new Error('no samples')
  console.log(JSON.stringify({ ms, ...r }))
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err && err.stack ? err.stack : err)
  process.exitCode = 1
})

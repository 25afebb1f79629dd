'use strict'
// bench/snapshots.js's runner for the two JavaScript tools, one process per
// run so that its peak RSS is the tool's alone:
//   node bench/snapshots-child.js devtools FILE   DevTools' heap-snapshot worker
//       (scripts/devtools-snapshot.js: JSON.parse, its typed arrays, the
//       worker's dominators and retained sizes, the class aggregates)
//   node bench/snapshots-child.js memlab FILE     memlab's getFullHeapFromFile
//       (its streaming parser, dominators and retained sizes), then the 20
//       largest objects and the class totals (count, shallow, retained)
// Both end with what cprof's report has (top objects, class table) and
// print { ms, objects, classes } (ms: from the file's read to the report).
const path = require('node:path')

const TOP = 20

async function devtools (file) {
  const { devtools: analyse } = require('../scripts/devtools-snapshot.js')
  const t0 = process.hrtime.bigint()
  const r = await analyse(file, TOP)
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, objects: r.objects.length, classes: r.classes.size }
}

async function memlab (file) {
  const dir = path.join(__dirname, '.cache', 'memlab', 'node_modules', '@memlab', 'heap-analysis')
  const { getFullHeapFromFile } = require(dir)
  const t0 = process.hrtime.bigint()
  const heap = await getFullHeapFromFile(file)
  const classes = new Map()
  const top = []
  heap.nodes.forEach((node) => {
    const c = classes.get(node.name) || { count: 0, self: 0, retained: 0 }
    c.count++
    c.self += node.self_size
    c.retained += node.retainedSize
    classes.set(node.name, c)
    if (top.length < TOP || node.retainedSize > top[top.length - 1].retained) {
      top.push({ id: node.id, retained: node.retainedSize })
      top.sort((a, b) => b.retained - a.retained)
      if (top.length > TOP) top.pop()
    }
  })
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, objects: top.length, classes: classes.size }
}

const [tool, file] = process.argv.slice(2)
const run = { devtools, memlab }[tool]
if (!run || !file) {
  process.stderr.write('usage: node bench/snapshots-child.js devtools|memlab FILE\n')
  process.exitCode = 2
} else {
  run(path.resolve(file)).then((r) => process.stdout.write(JSON.stringify(r) + '\n'),
    (err) => { process.stderr.write(`${err.stack}\n`); process.exitCode = 1 })
}

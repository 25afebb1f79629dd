'use strict'
// bench/snapshots.js's adversarial snapshots (issue 37): the shapes on
// which a dominator computation that climbs a chain per retainer turns
// quadratic, about MB megabytes each.
//   node bench/snapshots-shapes.js SHAPE FILE MB
//   list       a real Node snapshot (v8.writeHeapSnapshot) of a singly
//              linked list, globalThis.list = head, entries
//              `class Entry { constructor (k, next) }`
//   firstlast  a chain of N, and N nodes each held by its first and last
//   depth      a chain of N, one node held from every depth of it
//   fanin      N nodes held by the global, each holding one node
// The last three are written as V8 writes a snapshot (same meta, root ->
// shortcut -> global), made up, so the shape is exact at any size.
const fs = require('node:fs')
const v8 = require('node:v8')

// a real list: Node's own heap (~4 MB) and ~85 bytes an entry
const BASE_MB = 4
const BYTES_PER_ENTRY = 85

function list (file, mb) {
  class Entry {
    constructor (k, next) {
      this.k = k
      this.next = next
    }
  }
  let head = null
  for (let i = Math.round(Math.max(0, mb - BASE_MB) * 1e6 / BYTES_PER_ENTRY); i-- > 0;) head = new Entry(i, head)
  globalThis.list = head
  v8.writeHeapSnapshot(file)
}

const META = {
  node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'],
  node_types: [['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number', 'native', 'synthetic',
    'concatenated string', 'sliced string', 'symbol', 'bigint', 'object shape'], 'string', 'number', 'number', 'number', 'number', 'number'],
  edge_fields: ['type', 'name_or_index', 'to_node'],
  edge_types: [['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak'], 'string_or_number', 'node'],
  trace_function_info_fields: ['function_id', 'name', 'script_name', 'script_id', 'line', 'column'],
  trace_node_fields: ['id', 'function_info_index', 'count', 'size', 'children'],
  sample_fields: ['timestamp_us', 'last_assigned_id'],
  location_fields: ['object_index', 'script_id', 'line', 'column']
}
const STRINGS = ['', 'global', 'Node', 'next', 'x', '1']
const [SYNTHETIC, OBJECT] = [9, 3]
const [ELEMENT, PROPERTY, SHORTCUT] = [1, 2, 5]

// A made graph: node 0 the root, 1 the global; out[i] node i's edges as
// [type, name, to]. Written in chunks: a 100 MB file is never one string.
function write (file, count, out) {
  const fd = fs.openSync(file, 'w')
  let edges = 0
  for (let i = 0; i < count; i++) edges += out(i).length
  const head = { meta: META, node_count: count, edge_count: edges, trace_function_count: 0 }
  const put = (parts) => fs.writeSync(fd, parts.join(''))
  put([`{"snapshot":${JSON.stringify(head)},\n"nodes":[`])
  for (let lo = 0; lo < count; lo += 65536) {
    const parts = []
    for (let i = lo; i < Math.min(count, lo + 65536); i++) {
      const [type, name, size] = i === 0 ? [SYNTHETIC, 0, 0] : i === 1 ? [OBJECT, 1, 64] : [OBJECT, 2, 32]
      parts.push(`${i ? ',' : ''}${type},${name},${2 * i + 1},${size},${out(i).length},0,0`)
    }
    put(parts)
  }
  put(['],\n"edges":['])
  let first = true
  for (let lo = 0; lo < count; lo += 65536) {
    const parts = []
    for (let i = lo; i < Math.min(count, lo + 65536); i++) {
      for (const [type, name, to] of out(i)) {
        parts.push(`${first ? '' : ','}${type},${name},${to * META.node_fields.length}`)
        first = false
      }
    }
    put(parts)
  }
  put([`],\n"trace_function_infos":[],"trace_tree":[],"samples":[],"locations":[],"strings":${JSON.stringify(STRINGS)}}\n`])
  fs.closeSync(fd)
}

// Node numbers: 0 root, 1 global, chain links 2 .. n + 1, the rest after.
const SHAPES = {
  // per unit: 2 nodes, 3 edges (~75 bytes)
  firstlast (n) {
    const first = 2
    const last = n + 1
    return [2 * n + 2, (i) => {
      if (i === 0) return [[SHORTCUT, 5, 1]]
      if (i === 1) return [[PROPERTY, 1, first]]
      if (i > last) return []
      const edges = i < last ? [[PROPERTY, 3, i + 1]] : []
      if (i === first || i === last) for (let k = 0; k < n; k++) edges.push([ELEMENT, k, last + 1 + k])
      return edges
    }, 75]
  },
  // per unit: 1 node, 2 edges (~40 bytes)
  depth (n) {
    const x = n + 2
    return [n + 3, (i) => {
      if (i === 0) return [[SHORTCUT, 5, 1]]
      if (i === 1) return [[PROPERTY, 1, 2]]
      if (i === x) return []
      return i <= n ? [[PROPERTY, 3, i + 1], [PROPERTY, 4, x]] : [[PROPERTY, 4, x]]
    }, 40]
  },
  // per unit: 1 node, 2 edges (~43 bytes)
  fanin (n) {
    const z = n + 2
    return [n + 3, (i) => {
      if (i === 0) return [[SHORTCUT, 5, 1]]
      if (i === 1) return Array.from({ length: n }, (_, k) => [ELEMENT, k, 2 + k])
      return i === z ? [] : [[PROPERTY, 4, z]]
    }, 43]
  }
}

function made (shape, file, mb) {
  const [, , perUnit] = SHAPES[shape](0)
  const [count, out] = SHAPES[shape](Math.round(mb * 1e6 / perUnit))
  write(file, count, out)
}

const [shape, file, mb] = process.argv.slice(2)
if (!file || !(shape === 'list' || shape in SHAPES) || !(Number(mb) > 0)) {
  process.stderr.write('usage: node bench/snapshots-shapes.js list|firstlast|depth|fanin FILE MB\n')
  process.exitCode = 2
} else {
  if (shape === 'list') list(file, Number(mb))
  else made(shape, file, Number(mb))
  process.stdout.write(JSON.stringify({ file, bytes: fs.statSync(file).size }) + '\n')
}

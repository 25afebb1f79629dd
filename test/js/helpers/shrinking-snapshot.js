'use strict'
// A heap snapshot file made to be truncated while cprof reads it (issue 36,
// item 3): the hand-made nine-node snapshot of test/c/snapshot_tiny.h after
// `padMiB` MiB of leading spaces (JSON whitespace), so reading it takes long
// enough to cut it mid-read; and a watch for the moment a process has the
// file open or mapped (/proc/PID/fd, /proc/PID/maps), to cut it then.
const fs = require('node:fs')

const TINY = JSON.stringify({
  snapshot: {
    meta: {
      node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'],
      node_types: [['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number', 'native', 'synthetic',
        'concatenated string', 'sliced string', 'symbol', 'bigint', 'object shape'], 'string', 'number', 'number', 'number', 'number', 'number'],
      edge_fields: ['type', 'name_or_index', 'to_node'],
      edge_types: [['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak'], 'string_or_number', 'node']
    },
    node_count: 9,
    edge_count: 10
  },
  nodes: [9, 0, 1, 0, 2, 0, 0, 3, 2, 3, 10, 3, 0, 0, 9, 3, 5, 0, 1, 0, 0, 3, 7, 7, 100, 1, 0, 0, 3, 7, 9, 200, 1, 0, 0, 3, 9, 11, 1000, 1, 0, 0,
    3, 9, 13, 50, 0, 0, 0, 3, 11, 15, 7, 0, 0, 0, 3, 12, 17, 30, 1, 0, 0],
  edges: [5, 1, 7, 1, 1, 14, 2, 4, 21, 2, 5, 28, 6, 6, 49, 1, 0, 56, 2, 8, 35, 2, 8, 35, 2, 10, 42, 2, 13, 42],
  strings: ['', 'g', 'Global', '(GC roots)', 'a', 'b', 'w', 'Node', 'c', 'Leaf', 'd', 'Weakly', 'Sys', 'e']
})

function writeShrinkingSnapshot (file, padMiB) {
  const fd = fs.openSync(file, 'w')
  const chunk = Buffer.alloc(1 << 20, 0x20)
  for (let i = 0; i < padMiB; i++) fs.writeSync(fd, chunk)
  fs.writeSync(fd, TINY)
  fs.closeSync(fd)
}

// Whether process pid has file open with its offset (/proc/PID/fdinfo's pos)
// past byte `after` and short of `before`, or mapped. Past `after`: the
// reader took the file's size before its first read, so a cut now is a cut
// mid-read, never a shorter file met from the start; short of `before`: a
// read is still to come, which meets the cut.
function holds (pid, file, after = 0, before = Infinity) {
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) !== file) continue
        const pos = /^pos:\s*(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))
        if (pos && Number(pos[1]) > after && Number(pos[1]) < before) return true
      } catch {}
    }
    return fs.readFileSync(`/proc/${pid}/maps`, 'utf8').includes(file)
  } catch { return false }
}

// Truncates file to `size` bytes as soon as pid holds it past that size (polled on each
// turn of the event loop, so an in-process server keeps answering); resolves
// true when it cut the file while held, false when `done()` came first.
function truncateWhenHeld (pid, file, size, done) {
  const full = fs.statSync(file).size
  return new Promise((resolve) => {
    const poll = () => {
      if (holds(pid, file, size, full)) {
        fs.truncateSync(file, size)
        return resolve(true)
      }
      if (done()) return resolve(false)
      setImmediate(poll)
    }
    poll()
  })
}

module.exports = { TINY, writeShrinkingSnapshot, holds, truncateWhenHeld }

'use strict'
// Processes and ports as Linux shows them, read independently of
// lib/procfs.js (the code under test): a free loopback port, whether
// a port listens, a process's children, a signal pending, and a poll until
// one of those holds. Shared by the attach tests, the recorder's trigger
// tests and bench/attach-windows.js.
const fs = require('node:fs')
const net = require('node:net')

/** A TCP port free on 127.0.0.1 now. */
function freePort () {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

/** Whether a socket listens on port (TCP_LISTEN, 0A, in /proc/net/tcp{,6}). */
function listening (port) {
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = ''
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const c = line.trim().split(/\s+/)
      if (c[3] === '0A' && parseInt(c[1].split(':')[1], 16) === port) return true
    }
  }
  return false
}

/** The processes whose parent is pid, from /proc/<n>/stat. */
function childrenOf (pid) {
  const out = []
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] === String(pid)) out.push(Number(d))
    } catch {}
  }
  return out
}

/** Whether signal number sig waits for process pid (SigPnd or ShdPnd in /proc/<pid>/status). */
function signalPending (pid, sig) {
  let status = ''
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return false
  }
  const bit = 1n << BigInt(sig - 1)
  return ['SigPnd', 'ShdPnd'].some((k) => {
    const m = new RegExp(`^${k}:\\s*([0-9a-f]+)$`, 'm').exec(status)
    return m !== null && (BigInt('0x' + m[1]) & bit) !== 0n
  })
}

/** Polls pred (may be async) every 50 ms for up to ms: whether it came true. */
async function waitUntil (pred, ms) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await pred()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

module.exports = { freePort, listening, childrenOf, signalPending, waitUntil }

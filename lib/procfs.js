'use strict'
// What Linux's /proc says about a process: identity (start time, so a
// reused pid is not mistaken for the process that announced itself), CPU
// time, resident memory, signal dispositions, its executable and command
// line, and the TCP ports it listens on. Every reader returns null/undefined
// when the process is gone or unreadable (another user's): callers decide.
// See proc(5).
const fs = require('node:fs')
const os = require('node:os')

// /proc reports CPU times in USER_HZ ticks, 100 per second on every Linux
// ABI (proc(5): "sysconf(_SC_CLK_TCK)"; the kernel fixes USER_HZ at 100).
const TICKS_PER_S = 100

function read (file) {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

// The fields of /proc/<pid>/stat after "(comm)", which may itself hold
// spaces and parentheses: split after the last ')'. fields[0] is field 3
// (state), so field n is fields[n - 3].
function statFields (pid) {
  const text = read(`/proc/${pid}/stat`)
  if (text === null) return null
  const close = text.lastIndexOf(')')
  if (close < 0) return null
  return text.slice(close + 2).trim().split(' ')
}

/** Field 22, starttime: clock ticks after boot, as a decimal string; null if gone. */
function startTime (pid) {
  const f = statFields(pid)
  return f ? f[22 - 3] : null
}

/** { utime + stime in ticks, ppid, startTime } or null. */
function cpuTicks (pid) {
  const f = statFields(pid)
  if (!f) return null
  return { ticks: Number(f[14 - 3]) + Number(f[15 - 3]), ppid: Number(f[4 - 3]), startTime: f[22 - 3] }
}

/** The process is alive and is the one that started at startTime (field 22). */
function sameProcess (pid, start) {
  const now = startTime(pid)
  return now !== null && now === String(start)
}

function status (pid) {
  const text = read(`/proc/${pid}/status`)
  if (text === null) return null
  const out = {}
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) out[line.slice(0, colon)] = line.slice(colon + 1).trim()
  }
  return out
}

/** Resident set size in bytes (VmRSS), or null. */
function rssBytes (pid) {
  const s = status(pid)
  if (!s || !s.VmRSS) return null
  const m = /^(\d+)\s*kB$/i.exec(s.VmRSS)
  return m ? Number(m[1]) * 1024 : null
}

function maskHas (hex, n) {
  return ((BigInt(`0x${hex}`) >> BigInt(n - 1)) & 1n) === 1n
}

/**
 * How the process disposes of signal n: 'caught' (a handler: SigCgt),
 * 'ignored' (SigIgn), 'blocked' (SigBlk, process-wide mask of the main
 * thread) or 'default'; null when unreadable.
 */
function signalDisposition (pid, n) {
  const s = status(pid)
  if (!s || !s.SigCgt || !s.SigIgn) return null
  if (maskHas(s.SigCgt, n)) return 'caught'
  if (maskHas(s.SigIgn, n)) return 'ignored'
  if (s.SigBlk && maskHas(s.SigBlk, n)) return 'blocked'
  return 'default'
}

/** argv of the process, or null. */
function cmdline (pid) {
  const text = read(`/proc/${pid}/cmdline`)
  if (text === null || text === '') return null
  return text.replace(/\0$/, '').split('\0')
}

/** The executable's path (the /proc/<pid>/exe link), or null. */
function exe (pid) {
  try {
    return fs.readlinkSync(`/proc/${pid}/exe`)
  } catch {
    return null
  }
}

/**
 * Whether the process runs Node.js: its executable is named node or nodejs
 * (as `cprof attach` decides it); null when unreadable.
 */
function isNode (pid) {
  const file = exe(pid)
  if (file === null) return null
  const base = file.replace(/ \(deleted\)$/, '').split('/').pop()
  return base === 'node' || base === 'nodejs'
}

/**
 * Whether the process has cprof's addon loaded (cprof.node, or a prebuild's
 * cprof.<libc>.node, in /proc/<pid>/maps); null when unreadable.
 */
function loadsCprof (pid) {
  const maps = read(`/proc/${pid}/maps`)
  if (maps === null) return null
  return /\/cprof(\.[a-z]+)?\.node( \(deleted\))?$/m.test(maps)
}

function env (pid) {
  const text = read(`/proc/${pid}/environ`)
  if (text === null) return null
  const out = {}
  for (const entry of text.split('\0')) {
    const eq = entry.indexOf('=')
    if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1)
  }
  return out
}

/**
 * The socket inodes among the process's file descriptors (a Set of
 * strings); null if unreadable. socketInodesOr: { inodes } or { error }
 * (the errno code: EACCES for another user's process, ENOENT once gone).
 */
function socketInodesOr (pid) {
  const out = new Set()
  let fds
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`)
  } catch (e) {
    return { error: e.code || 'EIO' }
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m) out.add(m[1])
    } catch (e) {
      if (e.code === 'EACCES' || e.code === 'EPERM') return { error: e.code }
      // ENOENT: that fd closed meanwhile
    }
  }
  return { inodes: out }
}

function socketInodes (pid) {
  return socketInodesOr(pid).inodes || null
}

// /proc/<pid>/net/tcp{,6} (the process's network namespace; without pid,
// ours) rows in state 0A (TCP_LISTEN): [{ port, inode, address }], address
// as in the file (hex).
function tcpListeners (pid) {
  const out = []
  const at = pid === undefined ? '/proc/net' : `/proc/${pid}/net`
  for (const file of [`${at}/tcp`, `${at}/tcp6`]) {
    const text = read(file)
    if (text === null) continue
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      if (cols.length < 10 || cols[3] !== '0A') continue
      const [addr, port] = cols[1].split(':')
      out.push({ address: addr, port: parseInt(port, 16), inode: cols[9] })
    }
  }
  return out
}

/**
 * The TCP sockets the process itself listens on (its fds mapped to the
 * inodes of /proc/<pid>/net/tcp{,6}): { listeners: [{ inode, port, address
 * (decoded) }] } or { error: errno code } when its fds cannot be read.
 */
function ownListeners (pid) {
  const r = socketInodesOr(pid)
  if (r.error) return { error: r.error }
  return {
    listeners: tcpListeners(pid).filter((l) => r.inodes.has(l.inode))
      .map((l) => ({ inode: l.inode, port: l.port, address: decodeAddress(l.address) }))
  }
}

/**
 * The process's network namespace (the /proc/<pid>/ns/net link, e.g.
 * "net:[4026531840]"), or { error: errno code }.
 */
function netNamespace (pid) {
  try {
    return { ns: fs.readlinkSync(`/proc/${pid}/ns/net`) }
  } catch (e) {
    return { error: e.code || 'EIO' }
  }
}

// An address column of /proc/net/tcp{,6} (hex, each 32-bit word in host
// byte order) as text: "127.0.0.1", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1".
function decodeAddress (hex) {
  const words = hex.match(/.{8}/g) || []
  const bytes = words.flatMap((w) => {
    const b = [...Buffer.from(w, 'hex')]
    return os.endianness() === 'LE' ? b.reverse() : b
  })
  if (bytes.length === 4) return bytes.join('.')
  const v4 = bytes.slice(12).join('.')
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${v4}`
  const groups = []
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16))
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::').replace(/:{3,}/, '::')
}

/**
 * CPU use of each pid over about windowMs, in percent of one core (like
 * top(1)): { [pid]: percent | null }. Two reads of utime + stime.
 */
async function cpuPercent (pids, windowMs = 250) {
  const first = new Map(pids.map((pid) => [pid, cpuTicks(pid)]))
  const t0 = process.hrtime.bigint()
  await new Promise((resolve) => setTimeout(resolve, windowMs))
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  const out = {}
  for (const pid of pids) {
    const a = first.get(pid)
    const b = cpuTicks(pid)
    out[pid] = a && b && a.startTime === b.startTime ? ((b.ticks - a.ticks) / TICKS_PER_S / seconds) * 100 : null
  }
  return out
}

module.exports = {
  loadsCprof,
  startTime,
  status,
  sameProcess,
  cpuTicks,
  cpuPercent,
  rssBytes,
  signalDisposition,
  cmdline,
  exe,
  isNode,
  env,
  ownListeners,
  netNamespace,
  decodeAddress,
  tcpListeners
}

'use strict'
// heap.snapshot(): a full .heapsnapshot through Node's own writer. V8 stops the
// app while it walks the heap; that is what a snapshot is. A snapshot holds
// every secret in the process, so no other user may see or redirect it while
// it is written: Node's writer creates the file inside a fresh private
// directory (mkdtemp, mode 0700) in the target directory; once complete it is
// made 0600 and renamed to its final name (rename replaces whatever entry is
// there, never writing through a symlink), and the private directory is
// removed.
//
// The private directory is reached through a descriptor, not its path: in a
// directory another user can write but that is not sticky, they could rename
// it away between mkdtemp and the write and put a symlink to a directory of
// theirs at its name. So it is opened O_DIRECTORY|O_NOFOLLOW, checked with
// fstat (ours, 0700), and the snapshot is written and renamed through
// /proc/self/fd/<fd>/<name>, which names that directory whatever happens to
// its path. Where there is no /proc (macOS, Windows), the path is used.
const fs = require('node:fs')
const path = require('node:path')
const { fileName } = require('./controller')
const { cprofError } = require('./errors')
const { prepareDir } = require('./dirs')
const options = require('./options')
const { timed } = require('./own-time')

const PROC_FD = '/proc/self/fd'
const hasProcFd = () => process.platform === 'linux' && fs.existsSync(PROC_FD)

// Snapshots under way, and when the oldest of them was asked for: a second
// one beside them would need the memory and the pause again (the triggers
// refuse one, the heapGrowth incident skips its own).
let writing = 0
let writingSince = 0

// The free disk a snapshot needs: the file measured 1.3-2.2 times V8's used
// heap size (docs/incidents.md, heapGrowth), so twice the heap in use.
const SPACE_FACTOR = 2
const MIB = 1024 * 1024
const mib = (bytes) => `${(bytes / MIB).toFixed(1)} MiB`

// The private directory priv, pinned: { handle, at, st } where at is the path
// that reaches it from now on; handle null where /proc is missing.
async function pin (priv) {
  if (!hasProcFd()) return { handle: null, at: priv }
  const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants
  const handle = await fs.promises.open(priv, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
  const st = await handle.stat()
  const uid = typeof process.geteuid === 'function' ? process.geteuid() : st.uid
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) {
    await handle.close()
    throw new Error(`${priv} was replaced while cprof was using it (not this user's private directory)`)
  }
  return { handle, at: path.join(PROC_FD, String(handle.fd)), st }
}

// Removes what is left of the private directory: the temp file through the
// descriptor, then the directory by its path only if that path still names
// it (never another user's directory put in its place).
async function unpin (priv, pinned, name) {
  if (!pinned) { // not pinned, so nothing was written in it: only an empty directory goes
    await fs.promises.rmdir(priv).catch(() => {})
    return
  }
  if (!pinned.handle) {
    await fs.promises.rm(priv, { recursive: true, force: true }).catch(() => {})
    return
  }
  await fs.promises.rm(path.join(pinned.at, name), { force: true }).catch(() => {})
  try {
    const st = await fs.promises.lstat(priv)
    if (st.isDirectory() && st.dev === pinned.st.dev && st.ino === pinned.st.ino) await fs.promises.rmdir(priv)
  } catch {}
  await pinned.handle.close().catch(() => {})
}

/**
 * @param {{dir?: string, name?: string}} [opts]
 * @returns {Promise<string>} the .heapsnapshot path
 */
async function snapshot (opts) {
  const o = options.snapshotOptions(opts)
  if (writing++ === 0) writingSince = Date.now()
  try {
    return await write(o)
  } finally {
    if (--writing === 0) writingSince = 0
  }
}

// One snapshot, o from snapshotOptions: the private directory, the write, the rename.
async function write (o) {
  const file = path.join(o.dir, fileName('heap', 'heapsnapshot', o.name, Date.now()))
  const name = path.basename(file)
  await prepareDir(o.dir, o.ownDir)
  let priv, pinned
  try {
    priv = await fs.promises.mkdtemp(path.join(o.dir, '.cprof-snapshot-'))
    pinned = await pin(priv)
    const tmp = path.join(pinned.at, name)
    const v8 = require('node:v8') // loaded on first use: it costs RSS
    timed(() => v8.writeHeapSnapshot(tmp)) // the app is stopped while V8 walks and writes the heap
    await fs.promises.chmod(tmp, 0o600)
    await fs.promises.rename(tmp, file)
  } catch (err) {
    throw cprofError('ERR_CPROF_IO',
      `cannot write the heap snapshot to ${file}: ${err.message}. Check the directory is ` +
      'writable and the disk has room for about the size of the heap', { cause: err })
  } finally {
    if (priv) await unpin(priv, pinned, name)
  }
  return file
}

/** Whether a heap.snapshot() is being written now. */
const isWriting = () => writing > 0

/**
 * The one-at-a-time rail of a snapshot nobody in the app asked for (a
 * trigger, an incident), taken synchronously before anything is awaited:
 * a release function, or null when a snapshot is being written (or another
 * such caller holds the rail) with why. heap.snapshot() itself never waits
 * or refuses: the API leaves that to its caller.
 */
function reserve () {
  if (writing > 0) {
    return { release: null, why: `a heap snapshot is already being written (asked for at ${new Date(writingSince).toISOString()})` }
  }
  writing++
  writingSince = Date.now()
  let held = true
  return {
    release: () => {
      if (held && --writing === 0) writingSince = 0
      held = false
    }
  }
}

/**
 * The disk rail: null when dir's free space (statfs, the blocks available to
 * this user) is at least SPACE_FACTOR times the heap in use, else why.
 * Where statfs fails, the write itself says when the disk is full.
 * deps: { freeBytes(dir), heapBytes() }.
 */
async function room (dir, deps = GUARD_DEPS) {
  const heap = deps.heapBytes()
  let free
  try {
    free = await deps.freeBytes(dir)
  } catch {
    return null
  }
  return free < SPACE_FACTOR * heap
    ? `${dir} has ${mib(free)} free, below twice the ${mib(heap)} heap in use (a snapshot file is 1.3-2.2 times it)`
    : null
}

const GUARD_DEPS = {
  freeBytes: async (dir) => {
    const s = await fs.promises.statfs(dir)
    return s.bavail * s.bsize
  },
  heapBytes: () => require('node:v8').getHeapStatistics().used_heap_size
}

module.exports = { snapshot, isWriting, reserve, room, GUARD_DEPS, SPACE_FACTOR }

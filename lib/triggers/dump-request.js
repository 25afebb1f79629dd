'use strict'
// `cprof trigger <pid> --dump --last <s>` (and the fan-out's): a signal
// carries no value, so the CLI leaves the request in a file the process
// takes (reads and deletes) when the dump signal arrives. The file lives in
// the process's own run directory (lib/identity/rundir.js), dump-<pid>.json,
// { "last": ms }: a directory only the process's user (and root) can write,
// checked on its descriptor (owned by that user, not writable by group or
// others, every component, no symlink) by both sides. So no other user can
// plant, redirect or block a request; the CLI creates it under a random temp
// name (O_EXCL|O_NOFOLLOW, 0600), gives it to the process's user when run as
// root (fchown: the app only trusts a file of its own user), and renames it
// into place, replacing a stale one. The CLI removes a request the process
// did not take (remove()), so none is left to shape a later dump; and should
// the CLI be killed before it could, the request carries its creation time
// ("at", ms since the epoch): the process ignores (and deletes) one older
// than MAX_AGE_MS, the CLI's own wait, so a later plain --dump is not cut
// to a stale --last.
//
// `cprof trigger <pid> --snapshot` asks for a heap snapshot the same way:
// snapshot-<pid>.json, { "at": ms }, under the same rules (putSnapshot,
// takeSnapshot, removeSnapshot); it rides on whichever cprof signal the
// process installed (lib/triggers/index.js).
const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { invalidArg, cprofError } = require('../errors')
const rundir = require('../identity/rundir')

const { O_WRONLY, O_RDONLY, O_CREAT, O_EXCL, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants

// How long a request stays good: the CLI waits WAIT_S = 30 s for the dump
// (lib/cli/trigger.js), then removes what was not taken.
const MAX_AGE_MS = 30000

function requestName (pid, kind = 'dump') {
  return `${kind}-${pid}.json`
}

// The run directory dir of a process of user owner, opened and checked;
// throws ERR_CPROF_IO when refused.
function open (dir, owner) {
  const handle = rundir.openDir(dir, owner)
  if (handle.why) {
    throw cprofError('ERR_CPROF_IO', `the process's run directory ${handle.dir} ` +
      `${handle.why === 'absent' ? 'does not exist' : `is refused: it ${handle.why}`}`)
  }
  return handle
}

/**
 * The CLI side: writes the request for pid into its run directory dir
 * (owner: the uid the process runs as). Returns the request's path. Throws
 * ERR_CPROF_IO (the directory refused, or not writable: another user's).
 */
function put (dir, pid, lastMs, owner) {
  return putRequest(dir, pid, 'dump', { last: lastMs }, owner)
}

// Writes the request body of kind ('dump', 'snapshot') for pid, as put()
// says; exclusive: a fresh request already there (another CLI's, not yet
// taken) is kept and this one refused, ERR_CPROF_BUSY.
function putRequest (dir, pid, kind, body, owner, exclusive = false) {
  const handle = open(dir, owner)
  const tmp = path.join(handle.at, `.${kind}-${pid}.${crypto.randomBytes(6).toString('hex')}.tmp`)
  try {
    const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
    try {
      fs.writeFileSync(fd, JSON.stringify({ ...body, at: Date.now() }) + '\n')
      if (typeof process.geteuid === 'function' && process.geteuid() === 0 && owner !== 0) fs.fchownSync(fd, owner, -1)
    } finally {
      fs.closeSync(fd)
    }
    place(tmp, path.join(handle.at, requestName(pid, kind)), exclusive)
  } catch (err) {
    try { fs.unlinkSync(tmp) } catch {}
    if (err.code === 'ERR_CPROF_BUSY') throw err
    throw cprofError('ERR_CPROF_IO', `cannot write the ${kind} request into ${dir}: ${err.message}`, { cause: err })
  } finally {
    rundir.closeDir(handle)
  }
  return path.join(dir, requestName(pid, kind))
}

// Moves the written tmp to final, replacing a stale request (rename never
// writes through a symlink); with exclusive, link() first, which fails on
// any entry there: one that is fresh stays.
function place (tmp, final, exclusive) {
  if (exclusive) {
    try {
      fs.linkSync(tmp, final)
      fs.unlinkSync(tmp)
      return
    } catch (err) {
      if (err.code !== 'EEXIST') throw err
    }
    if (fresh(final)) {
      throw cprofError('ERR_CPROF_BUSY', 'another heap snapshot request for this process is pending (not yet ' +
        'taken): one at a time, each pauses the app; ask again once it is written')
    }
  }
  fs.renameSync(tmp, final)
}

// The request in file (read without following a link), or null.
function readRequest (file) {
  let fd
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    if (!fs.fstatSync(fd).isFile()) return null
    return JSON.parse(rundir.readBounded(fd))
  } catch {
    return null
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

// Whether file is a request younger than MAX_AGE_MS.
function fresh (file, now = Date.now()) {
  const req = readRequest(file)
  return req !== null && typeof req.at === 'number' && Math.abs(now - req.at) <= MAX_AGE_MS
}

/**
 * The CLI side: removes pid's request if it is still there; true if it was
 * (not taken). id: only if it is that request (the name is pid's, so once
 * the app took ours another CLI's may be waiting there).
 */
function remove (dir, pid, owner, kind = 'dump', id = undefined) {
  let handle
  try {
    handle = open(dir, owner)
  } catch {
    return false
  }
  try {
    const file = path.join(handle.at, requestName(pid, kind))
    if (id !== undefined && (readRequest(file) || {}).id !== id) return false
    fs.unlinkSync(file)
    return true
  } catch {
    return false
  } finally {
    rundir.closeDir(handle)
  }
}

/**
 * The app side: the requested last (ms), or undefined when there is no
 * request; deletes it. dir: this process's run directory (null: it has none,
 * so no request could reach it). Opened without following a symlink (nor
 * waiting on a FIFO), then checked on the open file. Throws
 * ERR_CPROF_INVALID_ARG for a request it refuses (the dump is then not made:
 * the CLI says why). A request older than MAX_AGE_MS (or without "at": from
 * an older CLI) is stale, left by a CLI that died: deleted, undefined.
 */
function take (dir, pid = process.pid, now = Date.now()) {
  const req = takeRequest(dir, pid, 'dump', now)
  if (req === undefined) return undefined
  const last = req.last
  if (typeof last !== 'number' || !Number.isFinite(last) || last < 0) {
    throw invalidArg(`refusing the dump request ${path.join(dir, requestName(pid))}: "last" must be a number of ms >= 0`)
  }
  return last
}

// The fresh request of kind for pid, parsed (undefined: none, or stale),
// deleted; throws for one it refuses (take()).
function takeRequest (dir, pid, kind, now) {
  if (!dir) return undefined
  const handle = rundir.openDir(dir)
  if (handle.why) return undefined // no run directory of ours: nobody could put a request
  const file = path.join(handle.at, requestName(pid, kind))
  const shown = path.join(dir, requestName(pid, kind))
  let fd
  try {
    try {
      fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    } catch (err) {
      if (err.code === 'ENOENT') return undefined
      throw invalidArg(`refusing the ${kind} request ${shown}: not a regular file of this process's user (${err.code})`)
    }
    const st = fs.fstatSync(fd)
    if (!st.isFile() || (typeof process.geteuid === 'function' && st.uid !== process.geteuid())) {
      throw invalidArg(`refusing the ${kind} request ${shown}: not a regular file of this process's user`)
    }
    let req
    try {
      req = JSON.parse(rundir.readBounded(fd)) // a request is a line; a larger file is none
    } catch {}
    if (!req || typeof req.at !== 'number' || !(Math.abs(now - req.at) <= MAX_AGE_MS)) return undefined
    return req
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
    try { fs.unlinkSync(file) } catch {}
    rundir.closeDir(handle)
  }
}

/**
 * The CLI side of --snapshot: as put(), for snapshot-<pid>.json; dir (an
 * absolute path, optional): where the snapshot goes instead of the
 * process's configured directory (it checks it as heap.snapshot() does).
 * Returns the request's id, which the process's entry names beside the
 * snapshot it wrote (or why it refused), so a CLI reads its own outcome.
 * Throws ERR_CPROF_BUSY when another CLI's request waits there untaken.
 */
function putSnapshot (dir, pid, owner, target) {
  const id = crypto.randomBytes(8).toString('hex')
  putRequest(dir, pid, 'snapshot', target !== undefined ? { id, dir: target } : { id }, owner, true)
  return id
}

/** The CLI side: removes request id (putSnapshot's) if still there; true if it was. */
function removeSnapshot (dir, pid, owner, id) {
  return remove(dir, pid, owner, 'snapshot', id)
}

/**
 * The app side of --snapshot: { id, dir? } when a fresh snapshot request
 * was there (deleted); undefined when none or a stale one. Throws
 * ERR_CPROF_INVALID_ARG for one it refuses (a symlink, another user's
 * file, a dir that is not an absolute path), as take().
 */
function takeSnapshot (dir, pid = process.pid, now = Date.now()) {
  const req = takeRequest(dir, pid, 'snapshot', now)
  if (req === undefined) return undefined
  const id = typeof req.id === 'string' ? req.id.slice(0, 64) : null
  if (req.dir === undefined) return { id }
  if (typeof req.dir !== 'string' || !path.isAbsolute(req.dir)) {
    throw Object.assign(invalidArg(`refusing the snapshot request ${path.join(dir, requestName(pid, 'snapshot'))}: ` +
      '"dir" must be an absolute path'), { request: id })
  }
  return { id, dir: req.dir }
}

module.exports = { requestName, put, remove, take, putSnapshot, removeSnapshot, takeSnapshot, MAX_AGE_MS }

'use strict'
// The run directory: where processes with cprof initialised announce
// themselves (one <pid>.json each) for `cprof ps` and the fan-out commands.
// Per user, private: created mode 0700, entries 0600; an existing directory
// is used only if it is a real directory (not a symlink), owned by this
// user, and not writable by group or others — else another local user could
// plant entries (and so steer which pids `cprof trigger --app` signals) or
// read what runs. No network listener: readers list the directory.
//
// Where: $CPROF_RUN_DIR if set; else $XDG_RUNTIME_DIR/cprof; else
// <os.tmpdir()>/cprof-<uid>/run. A process started by a service manager may
// not have the XDG variable the user's shell has (or another TMPDIR), so
// readers look in every candidate place (candidates()).
//
// The owner/mode/symlink check is lib/dirs.js's unsafeOwn, the one for cprof's
// default profile directory.
//
// Readers (openDir, readEntries) make the writers' check on every component
// (cprof-<uid> and run) race-free: each is opened O_DIRECTORY|O_NOFOLLOW
// relative to the one above through /proc/self/fd/<fd>/<name> (Node has no
// openat), checked with fstat on the descriptor, and everything after that
// (listing, reading, pruning) goes through /proc/self/fd/<fd>, which names
// the checked directory whatever happens to its path meanwhile. An entry is
// opened O_NOFOLLOW and trusted only if it is a regular file of the reading
// user (root: or of the user the process it names runs as). Another user
// who swaps a component for a symlink (issue 32: /tmp/cprof-0 -> /, so
// /tmp/cprof-0/run was /run) gets the directory refused, never read.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { cprofError } = require('../errors')
const { startEnv } = require('./pm2')
const { unsafeOwn } = require('../dirs')
const procfs = require('../procfs')
const { writerOf, ENTRY_TEMP } = require('../stale-temps')

function uid () {
  return typeof process.geteuid === 'function' ? process.geteuid() : null
}

function tmpRun (tmp, owner = uid()) {
  return path.join(tmp, `cprof-${owner}`, 'run')
}

/** The run directory this process writes to. */
function runDir (env = startEnv()) {
  if (env.CPROF_RUN_DIR) return path.resolve(env.CPROF_RUN_DIR)
  if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) return path.join(env.XDG_RUNTIME_DIR, 'cprof')
  return tmpRun(os.tmpdir())
}

/** Every place a process of this user may have announced itself in, first the own one. */
function candidates (env = process.env) {
  if (env.CPROF_RUN_DIR) return [path.resolve(env.CPROF_RUN_DIR)]
  const dirs = [runDir(env), path.join(`/run/user/${uid()}`, 'cprof'), tmpRun(os.tmpdir()), tmpRun('/tmp')]
  return [...new Set(dirs)]
}

function refuse (dir, why) {
  return cprofError('ERR_CPROF_IO', `refusing to use ${dir} as cprof's run directory: it ${why}, so ` +
    'another user could plant or read entries there. Remove it, or set CPROF_RUN_DIR to a directory ' +
    'you own (mode 0700)')
}

// The directories a run directory's check covers: dir, and the cprof-<uid>
// directory above it when that is cprof's own.
function chain (dir) {
  return path.basename(dir) === 'run' && /^cprof-/.test(path.basename(path.dirname(dir)))
    ? [path.dirname(dir), dir]
    : [dir]
}

/**
 * Creates dir (0700) or checks it, and the cprof-<uid> directory above it
 * when that is cprof's own. Rejects with ERR_CPROF_IO.
 */
async function prepare (dir) {
  for (const d of chain(dir)) {
    try {
      await fs.promises.mkdir(d, { mode: 0o700 })
    } catch (err) {
      if (err.code !== 'EEXIST') {
        throw cprofError('ERR_CPROF_IO', `cannot create cprof's run directory ${d}: ${err.message}`, { cause: err })
      }
    }
    const why = unsafeOwn(await fs.promises.lstat(d))
    if (why) throw refuse(d, why)
  }
}

const PROC_FD = '/proc/self/fd'
const { O_RDONLY, O_DIRECTORY = 0, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants
const hasProcFd = () => process.platform === 'linux' && fs.existsSync(PROC_FD)

function closeFd (fd) {
  if (fd === null) return
  try {
    fs.closeSync(fd)
  } catch {}
}

// Why opening component at O_DIRECTORY|O_NOFOLLOW failed, in unsafeOwn's
// words. Linux answers ENOTDIR for a symlink there (O_DIRECTORY is checked
// on the link itself); lstat only words the refusal, it decides nothing.
function openWhy (err, at) {
  if (err.code === 'ENOENT') return 'absent'
  if (err.code === 'ELOOP') return 'is a symbolic link, not a directory'
  if (err.code === 'ENOTDIR') {
    try {
      if (fs.lstatSync(at).isSymbolicLink()) return 'is a symbolic link, not a directory'
    } catch {}
    return 'is not a directory'
  }
  return err.message
}

/**
 * Opens run directory dir for reading, each component of chain(dir)
 * checked on its descriptor (owner: the uid it must belong to, default
 * ours). { fd, at } where at names that directory from now on
 * (/proc/self/fd/<fd>; close with closeDir), or { why, dir }: the component
 * refused and why ('absent' when missing). Without /proc (no process
 * announces itself there: lib/fleet/announce.js) the check is by path.
 */
function openDir (dir, owner = uid()) {
  const parts = chain(dir)
  if (!hasProcFd()) return checkByPath(parts, owner)
  let fd = null
  for (let i = 0; i < parts.length; i++) {
    const at = fd === null ? parts[i] : path.join(PROC_FD, String(fd), path.basename(parts[i]))
    let next
    try {
      next = fs.openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    } catch (err) {
      closeFd(fd)
      return { why: openWhy(err, at), dir: parts[i] }
    }
    closeFd(fd)
    fd = next
    const why = unsafeOwn(fs.fstatSync(fd), owner)
    if (why) {
      closeFd(fd)
      return { why, dir: parts[i] }
    }
  }
  return { fd, at: path.join(PROC_FD, String(fd)), dir }
}

function checkByPath (parts, owner) {
  for (const d of parts) {
    let st
    try {
      st = fs.lstatSync(d)
    } catch (err) {
      return { why: err.code === 'ENOENT' ? 'absent' : err.message, dir: d }
    }
    const why = unsafeOwn(st, owner)
    if (why) return { why, dir: d }
  }
  return { fd: null, at: parts[parts.length - 1], dir: parts[parts.length - 1] }
}

function closeDir (handle) {
  if (handle && handle.fd !== undefined) closeFd(handle.fd)
}

function entryPath (dir, pid) {
  return path.join(dir, `${pid}.json`)
}

/**
 * Writes dir/<pid>.json atomically: an exclusive 0600 temp file, then
 * rename, so a reader sees the old entry or the new one, never half.
 */
async function writeEntry (dir, pid, entry) {
  const tmp = path.join(dir, `.${pid}.${process.hrtime.bigint().toString(36)}.tmp`)
  try {
    await fs.promises.writeFile(tmp, JSON.stringify(entry) + '\n', { flag: 'wx', mode: 0o600 })
    await fs.promises.rename(tmp, entryPath(dir, pid))
  } catch (err) {
    await fs.promises.unlink(tmp).catch(() => {})
    throw cprofError('ERR_CPROF_IO', `cannot write ${entryPath(dir, pid)}: ${err.message}`, { cause: err })
  }
}

/** Removes dir/<pid>.json; synchronous because it runs in process 'exit'. */
function removeEntrySync (dir, pid) {
  try {
    fs.unlinkSync(entryPath(dir, pid))
  } catch {}
}

// The owner of /proc/<pid>: the process's effective uid; null if gone.
function processOwner (pid) {
  try {
    return fs.statSync(`/proc/${pid}`).uid
  } catch {
    return null
  }
}

// Why the entry of pid, st its fstat, is not to be trusted, or null: it
// must be a regular file of this user; root also trusts one of the user the
// process it names runs as.
function untrusted (st, pid) {
  if (!st.isFile()) return 'is not a regular file'
  const me = uid()
  if (me === null || st.uid === me) return null
  if (me === 0 && st.uid === processOwner(pid)) return null
  return `is owned by another user (uid ${st.uid}, you are uid ${me})`
}

// An entry is about 600 bytes; with the recorder's heap trend (10 sites,
// each with its series) 1-30 KB. Anything larger is not one of cprof's:
// refused unread (docs/fleet.md, the run directory), so a planted 200 MB
// file costs root's `cprof ps` nothing.
const MAX_ENTRY_BYTES = 256 * 1024

// The text of the regular file open as fd, of at most max bytes: fstat
// first (a larger file is not read at all), then at most its size + 1
// bytes. Throws an Error whose code is 'ETOOBIG' when larger, 'ECHANGED'
// when it grew while read (cprof's writers rename whole files into place).
function readBounded (fd, max = MAX_ENTRY_BYTES) {
  const tooBig = (n) => Object.assign(new Error(`is ${n} bytes, more than the ${max} an entry can be`), { code: 'ETOOBIG' })
  const size = fs.fstatSync(fd).size
  if (size > max) throw tooBig(size)
  const buf = Buffer.alloc(size + 1) // one more: a file that grew since fstat reads as more than size
  let n = 0
  for (let r; n < buf.length && (r = fs.readSync(fd, buf, n, buf.length - n, n)) > 0;) n += r
  if (n > size) throw Object.assign(new Error('changed while it was read'), { code: 'ECHANGED' })
  return buf.toString('utf8', 0, n)
}

// The shape of an entry as its readers use it (cprof ps, leaks, trigger,
// the fan-out, cprof ui): a spec is a predicate, [spec] an array of them,
// or { field: spec } an object; maybe(spec) also takes null or undefined.
const MAYBE = Symbol('maybe')
const maybe = (spec) => ({ [MAYBE]: spec })
const num = (v) => typeof v === 'number' && Number.isFinite(v)
const int = (v) => Number.isInteger(v)
const str = (v) => typeof v === 'string'
const bool = (v) => typeof v === 'boolean'
const strOrNum = (v) => str(v) || num(v)
const any = () => true
const SITE = { functionName: maybe(str), url: maybe(str), line: maybe(num), live: num, perMinute: num, since: maybe(num), share: maybe(num) }
const TREND = {
  windows: num, live: num, perMinute: num, growing: maybe(bool), since: maybe(num), from: maybe(num), to: maybe(num),
  sites: maybe(num), growingSites: maybe(num), top: maybe([SITE])
}
const LAST = { at: maybe(num), startTime: maybe(num), durationMs: maybe(num), samples: maybe(num), files: maybe({}), merged: maybe({}) }
const ERROR = { code: maybe(str), message: maybe(str), at: maybe(num) }
const ENTRY = {
  pid: int,
  ppid: maybe(int),
  startTime: maybe(strOrNum),
  app: str,
  pm2Id: maybe(strOrNum),
  instance: maybe(strOrNum),
  role: maybe(str),
  title: maybe(str),
  script: maybe(str),
  cwd: maybe(str),
  dir: maybe(str),
  triggers: maybe({ signal: maybe(str), heapSignal: maybe(str), dumpSignal: maybe(str), snapshotSignal: maybe(str) }),
  running: maybe({ cpu: maybe({ since: maybe(num) }), heap: maybe({ since: maybe(num) }) }),
  recorder: maybe({
    running: maybe(bool),
    windows: maybe(num),
    from: maybe(num),
    to: maybe(num),
    incidents: maybe({ fired: maybe(num), suppressed: maybe(num), failed: maybe(num) }),
    heapTrend: maybe(TREND)
  }),
  last: maybe({ cpu: maybe(LAST), heap: maybe(LAST), dump: maybe(LAST), snapshot: maybe({}) }),
  errors: maybe({ cpu: maybe(ERROR), heap: maybe(ERROR), dump: maybe(ERROR), snapshot: maybe(ERROR) }),
  updated: num
}

// The first field of v (named from at) that does not fit spec, or null.
function misfit (spec, v, at) {
  if (typeof spec === 'function') return spec(v) ? null : at
  if (spec[MAYBE]) return v === undefined || v === null ? null : misfit(spec[MAYBE], v, at)
  if (Array.isArray(spec)) {
    if (!Array.isArray(v)) return at
    for (let i = 0; i < v.length; i++) {
      const bad = misfit(spec[0], v[i], `${at}[${i}]`)
      if (bad) return bad
    }
    return null
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return at
  for (const [k, s] of Object.entries(spec)) {
    const bad = misfit(s, v[k], at ? `${at}.${k}` : k)
    if (bad) return bad
  }
  return null
}

/** Why entry (parsed JSON) is not an entry cprof's readers can use, or null. */
function malformed (entry) {
  const bad = misfit(ENTRY, entry, '')
  return bad === null ? null : bad === '' ? 'it is not a JSON object' : `its field ${bad} has the wrong type`
}

// The entry <pid>.json read through the open directory at: { entry } or
// { broken } (not JSON: a write cut short by a full disk, say) or
// { untrusted: why } (not a regular file of the right user) or
// { skipped: why } (larger than MAX_ENTRY_BYTES, or of the wrong shape).
function readEntry (at, name, pid) {
  let fd
  try {
    fd = fs.openSync(path.join(at, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (err) {
    if (err.code === 'ENOENT') return null // removed meanwhile
    return { untrusted: err.code === 'ELOOP' ? 'is a symbolic link' : err.message }
  }
  try {
    const why = untrusted(fs.fstatSync(fd), pid)
    if (why) return { untrusted: why }
    let entry
    try {
      entry = JSON.parse(readBounded(fd))
    } catch (err) {
      if (err.code === 'ETOOBIG') return { skipped: `it ${err.message}`, pid }
      return { broken: pid }
    }
    if (entry && typeof entry === 'object' && entry.pid !== pid) return null
    const bad = malformed(entry)
    return bad ? { skipped: bad, pid } : { entry }
  } catch {
    return { broken: pid }
  } finally {
    closeFd(fd)
  }
}

/**
 * The entries in the run directory opened as handle (openDir): [{ file,
 * name, entry }] of every <pid>.json that parses, { file, name, broken } of
 * one that does not, { file, name, untrusted } of one that is not a regular
 * file of ours, { file, name, skipped } of one too large or of the wrong
 * shape (never pruned: its pid may be live), and the temp files left by processes that died mid-write
 * ({ file, name, tmpOf }). file reaches the entry through the descriptor.
 */
function readEntries (handle) {
  let names
  try {
    names = fs.readdirSync(handle.at)
  } catch {
    return []
  }
  const out = []
  for (const name of names) {
    const file = path.join(handle.at, name)
    const tmpOf = writerOf(name, [ENTRY_TEMP])
    if (tmpOf !== null) {
      out.push({ file, name, tmpOf })
      continue
    }
    const m = /^(\d+)\.json$/.exec(name)
    if (!m) continue
    const got = readEntry(handle.at, name, Number(m[1]))
    if (got) out.push({ file, name, ...got })
  }
  return out
}

// The run directories a process may have announced itself in, as it
// computes them from its start environment (env), its user (owner) and
// working directory (cwd): runDir's choice and the other candidates.
function candidatesOf (env, owner, cwd) {
  if (env.CPROF_RUN_DIR) return [path.resolve(cwd, env.CPROF_RUN_DIR)]
  const tmp = (env.TMPDIR || env.TMP || env.TEMP || '/tmp').replace(/(.)\/+$/, '$1') // as os.tmpdir()
  const dirs = [path.join(`/run/user/${owner}`, 'cprof'), tmpRun(path.resolve(cwd, tmp), owner), tmpRun('/tmp', owner)]
  if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) dirs.unshift(path.join(env.XDG_RUNTIME_DIR, 'cprof'))
  return [...new Set(dirs)]
}

/**
 * pid's live entry in run directory dir, checked as owned by owner (the
 * process's user): the entry, or null. warn(text) hears of an entry there
 * that was skipped (too large, of the wrong shape, not the user's).
 */
function entryIn (dir, pid, owner, warn = () => {}) {
  const handle = openDir(dir, owner)
  if (handle.why) return null
  try {
    const got = readEntry(handle.at, `${pid}.json`, pid)
    const why = got && (got.skipped || got.untrusted)
    if (why) warn(`ignoring ${entryPath(dir, pid)}: ${got.skipped ? why : `it ${why}`}`)
    return got && got.entry && procfs.sameProcess(pid, got.entry.startTime) ? got.entry : null
  } finally {
    closeDir(handle)
  }
}

/**
 * Where live process pid (of any user, when root) announced itself:
 * { dir, owner, entry } of the first of its candidate run directories that
 * is its user's, checked, and holds its live entry; null if none does.
 * warn: as entryIn's.
 */
function ofProcess (pid, warn) {
  const owner = processOwner(pid)
  if (owner === null) return null
  let cwd = '/'
  try {
    cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
  } catch {}
  for (const dir of candidatesOf(startEnv(procfs.env(pid) || {}), owner, cwd)) {
    const entry = entryIn(dir, pid, owner, warn)
    if (entry) return { dir, owner, entry }
  }
  return null
}

module.exports = {
  ofProcess,
  entryIn,
  runDir,
  candidates,
  prepare,
  openDir,
  closeDir,
  readEntries,
  processOwner,
  writeEntry,
  removeEntrySync,
  entryPath,
  readBounded,
  malformed,
  MAX_ENTRY_BYTES
}

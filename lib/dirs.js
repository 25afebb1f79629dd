'use strict'
// Where cprof writes, and whether it may. The same rules as the native
// writer's cprof_dir_prepare (src/core/fsutil.c), for the files JavaScript
// writes (heap snapshots), the recorder's store (checked at start) and, via
// unsafeOwn, the fleet run directory (lib/identity/rundir.js):
// - the default directory, <os.tmpdir()>/cprof-<uid>, is this user's private
//   one: created 0700; an existing one must be a real directory (not a
//   symlink), owned by this user, not writable by group or others;
// - a directory the user named (dir, CPROF_DIR) is created 0700 if missing
//   and must be a directory (a symlink to one is fine); its owner and mode are
//   the user's choice.
// Either way, files are created exclusively, mode 0600, never through a
// symlink, and renamed into place.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { cprofError } = require('./errors')

// The effective uid, as the native check compares it; a name where there is
// none (Windows).
function userTag () {
  if (typeof process.geteuid === 'function') return String(process.geteuid())
  return os.userInfo().username.replace(/[^A-Za-z0-9._-]/g, '_')
}

/** <os.tmpdir()>/cprof-<euid>: one per user, so no user writes into another's. */
function defaultDir () {
  return path.join(os.tmpdir(), `cprof-${userTag()}`)
}

// Why st (lstat of cprof's default directory) may not hold the user's files,
// or null. Wording matches src/core/fsutil.c unsafe_dir. owner: the uid it
// must belong to, when not ours (the run directory of another user's
// process that root triggers, lib/identity/rundir.js).
function unsafeOwn (st, owner) {
  if (st.isSymbolicLink()) return 'is a symbolic link, not a directory'
  if (!st.isDirectory()) return 'is not a directory'
  const me = typeof process.geteuid === 'function' ? process.geteuid() : null
  const want = owner === undefined || owner === null ? me : owner
  if (want !== null && st.uid !== want) {
    return `is owned by another user (uid ${st.uid}, ${want === me ? 'you are' : "the process's is"} uid ${want})`
  }
  if (st.mode & 0o022) {
    const who = st.mode & 0o002 ? 'other users' : 'its group'
    return `can be written by ${who} (mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')})`
  }
  return null
}

// The ERR_CPROF_IO for a directory st (from lstat when own, else stat) that
// cprof may not write into, or null. fix: how the user picks another one.
function refusal (dir, st, own, fix) {
  const bad = own ? unsafeOwn(st) : st.isDirectory() ? null : 'is not a directory'
  if (!bad) return null
  return cprofError('ERR_CPROF_IO', `refusing to write into ${dir}: it ${bad}, so another user ` +
    `could read, replace or redirect what cprof writes there. Remove it, or ${fix}`)
}

const FIX_DIR = 'pass dir (or set CPROF_DIR) to a directory you own'

function mkdirError (dir, err) {
  return cprofError('ERR_CPROF_IO', `cannot create directory ${dir}: ${err.message}`, { cause: err })
}

/**
 * Creates dir (0700, with parents) or checks the one there. own: dir is
 * cprof's default (not named by the user). Rejects with ERR_CPROF_IO saying
 * what is wrong and how to fix it (fix: the remedy to name).
 */
async function prepareDir (dir, own, fix = FIX_DIR) {
  let st
  try {
    await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 })
    st = await (own ? fs.promises.lstat(dir) : fs.promises.stat(dir))
  } catch (err) {
    throw mkdirError(dir, err)
  }
  const err = refusal(dir, st, own, fix)
  if (err) throw err
}

/** prepareDir, synchronously (recorder.start() checks its store at once). */
function prepareDirSync (dir, own, fix = FIX_DIR) {
  let st
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    st = own ? fs.lstatSync(dir) : fs.statSync(dir)
  } catch (err) {
    throw mkdirError(dir, err)
  }
  const err = refusal(dir, st, own, fix)
  if (err) throw err
}

module.exports = { defaultDir, prepareDir, prepareDirSync, unsafeOwn }

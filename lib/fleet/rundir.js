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
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { cprofError } = require('../errors')
const { startEnv } = require('../pm2')
const { unsafeOwn } = require('../dirs')

function uid () {
  return typeof process.geteuid === 'function' ? process.geteuid() : null
}

function tmpRun (tmp) {
  return path.join(tmp, `cprof-${uid()}`, 'run')
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

/**
 * Creates dir (0700) or checks it, and the cprof-<uid> directory above it
 * when that is cprof's own. Rejects with ERR_CPROF_IO.
 */
async function prepare (dir) {
  const chain = path.basename(dir) === 'run' && /^cprof-/.test(path.basename(path.dirname(dir)))
    ? [path.dirname(dir), dir]
    : [dir]
  for (const d of chain) {
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

/** Sync check for readers: null when dir is usable, else why not (absent: 'absent'). */
function checkSync (dir) {
  let st
  try {
    st = fs.lstatSync(dir)
  } catch (err) {
    return err.code === 'ENOENT' ? 'absent' : err.message
  }
  return unsafeOwn(st)
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

/**
 * The entries in dir: [{ file, entry }] of every <pid>.json that parses,
 * and the temp files left by processes that died mid-write ({ tmp }).
 */
function readEntries (dir) {
  let names
  try {
    names = fs.readdirSync(dir)
  } catch {
    return []
  }
  const out = []
  for (const name of names) {
    const file = path.join(dir, name)
    const tmp = /^\.(\d+)\.[0-9a-z]+\.tmp$/.exec(name)
    if (tmp) {
      out.push({ file, tmpOf: Number(tmp[1]) })
      continue
    }
    const m = /^(\d+)\.json$/.exec(name)
    if (!m) continue
    let entry
    try {
      entry = JSON.parse(fs.readFileSync(file, 'utf8'))
    } catch {
      out.push({ file, broken: Number(m[1]) }) // a write cut short by a full disk, say
      continue
    }
    if (entry && typeof entry === 'object' && entry.pid === Number(m[1])) out.push({ file, entry })
  }
  return out
}

module.exports = { runDir, candidates, prepare, checkSync, writeEntry, removeEntrySync, readEntries, entryPath }

'use strict'
// The temp files of cprof's writers that were killed mid-write. Every file
// cprof writes whole goes through a private temp file renamed into place
// (docs/reliability.md, files cprof creates); a process killed by SIGKILL
// (or crashing) between the two cannot remove its temp file. Each temp name
// carries its writer's pid, so the next writer in the directory removes the
// ones whose writer is gone: the run directory's readers (lib/fleet/discover.js)
// for entries, stop() / profile() / recorder dumps / cprof html's outputs
// (removeStale) for profiles, their formats and viewer marks.
const fs = require('node:fs')
const path = require('node:path')
const procfs = require('./procfs')

// What cprof writes into a profile directory (lib/options.js FORMAT_EXT, the
// marks and leaks files).
const EXT = '(?:cpuprofile|heapprofile|pb\\.gz|folded|svg|txt|html|json)'
const PROFILE_TEMPS = [
  new RegExp(`^\\..+\\.${EXT}\\.(\\d+)\\.[A-Za-z0-9]{12}$`), // src/core/fsutil.c: .<name>.<pid>.<12 random>
  new RegExp(`^\\..+\\.${EXT}\\.(\\d+)\\.[0-9a-f]{8}$`) // lib/viewer/marks-file.js writeWhole: .<name>.<pid>.<8 hex>
]
const ENTRY_TEMP = /^\.(\d+)\.[0-9a-z]+\.tmp$/ // lib/identity/rundir.js writeEntry: .<pid>.<time>.tmp

// A temp file in a profile directory untouched this long, whose writer is
// gone, is stale. Only the pid is checked in the private run directory; a
// profile directory may be shared with processes this one cannot see (a
// container's own pid namespace), whose writes in progress change the file.
const STALE_MS = 60 * 1000

/** The pid in temp file name (one of patterns), or null. */
function writerOf (name, patterns = PROFILE_TEMPS) {
  for (const re of patterns) {
    const m = re.exec(name)
    if (m) return Number(m[1])
  }
  return null
}

/** Whether process pid is gone (not this one; a process of another user is not gone). */
function writerGone (pid) {
  if (pid === process.pid) return false
  if (process.platform === 'linux') return procfs.startTime(pid) === null
  try {
    process.kill(pid, 0)
    return false
  } catch (err) {
    return err.code === 'ESRCH'
  }
}

/**
 * Removes from dir the temp files of cprof's writers that are gone: a
 * regular file of this user, named as PROFILE_TEMPS, its writer's pid dead,
 * untouched for STALE_MS. Never rejects (a directory it cannot list is left
 * alone); resolves with how many it removed.
 */
async function removeStale (dir, { now = Date.now(), minAgeMs = STALE_MS } = {}) {
  let names
  try {
    names = await fs.promises.readdir(dir)
  } catch {
    return 0
  }
  const me = typeof process.geteuid === 'function' ? process.geteuid() : null
  let removed = 0
  for (const name of names) {
    const pid = writerOf(name)
    if (pid === null || !writerGone(pid)) continue
    const file = path.join(dir, name)
    try {
      const st = await fs.promises.lstat(file)
      if (!st.isFile() || (me !== null && st.uid !== me) || now - st.mtimeMs < minAgeMs) continue
      await fs.promises.unlink(file)
      removed++
    } catch {}
  }
  return removed
}

module.exports = { removeStale, writerOf, writerGone, PROFILE_TEMPS, ENTRY_TEMP, STALE_MS }

'use strict'
// Readers of the run directory: the live processes that announced
// themselves (lib/fleet/announce.js), their stale entries pruned, with what
// /proc says of them now. Used by cprof ps and the fan-out commands.
const fs = require('node:fs')
const path = require('node:path')
const procfs = require('./procfs')
const rundir = require('./rundir')

function unlink (file) {
  try {
    fs.unlinkSync(file)
  } catch {}
}

/**
 * The live entries of every run directory of this user, one per pid:
 * { entries: [entry + { runDir }], warnings: [text], pruned: n }. An entry
 * whose pid is gone, or now names another process (its start time, field
 * 22 of /proc/<pid>/stat, differs), is removed when prune is set. Each
 * directory is opened and checked as lib/fleet/rundir.js openDir says, and
 * read through that descriptor; an entry that is not a regular file of this
 * user is skipped with a warning, never pruned.
 */
function discover ({ prune = true, env = process.env } = {}) {
  const byPid = new Map()
  const warnings = []
  let pruned = 0
  for (const dir of rundir.candidates(env)) {
    const handle = rundir.openDir(dir)
    if (handle.why === 'absent') continue
    if (handle.why) {
      warnings.push(`ignoring ${handle.dir}: it ${handle.why}`)
      continue
    }
    try {
      for (const item of rundir.readEntries(handle)) {
        if (item.untrusted) {
          warnings.push(`ignoring ${path.join(dir, item.name)}: it ${item.untrusted}`)
          continue
        }
        const pid = item.entry ? item.entry.pid : item.tmpOf !== undefined ? item.tmpOf : item.broken
        const live = item.entry ? procfs.sameProcess(pid, item.entry.startTime) : procfs.startTime(pid) !== null
        if (!live) {
          if (prune) {
            unlink(item.file)
            pruned++
          }
          continue
        }
        if (!item.entry) continue // a write in progress, or cut short
        const had = byPid.get(pid)
        if (!had || had.updated < item.entry.updated) byPid.set(pid, { ...item.entry, runDir: dir })
      }
    } finally {
      rundir.closeDir(handle)
    }
  }
  const entries = [...byPid.values()]
  markPrimaries(entries)
  return { entries: entries.sort((a, b) => a.pid - b.pid), warnings, pruned }
}

// A process whose announced children are node:cluster workers is their
// primary, whether or not it had forked them when it last wrote its entry.
function markPrimaries (entries) {
  const byPid = new Map(entries.map((e) => [e.pid, e]))
  for (const e of entries) {
    if (e.role !== 'worker') continue
    const parent = byPid.get(e.ppid)
    if (!parent) continue
    if (parent.role === null) parent.role = 'primary'
    parent.workers = [...(parent.workers || []), e.pid]
  }
}

/** Adds cpuPercent (over windowMs, of one core) and rssBytes from /proc to each entry. */
async function withUsage (entries, windowMs) {
  const cpu = await procfs.cpuPercent(entries.map((e) => e.pid), windowMs)
  for (const e of entries) {
    e.cpuPercent = cpu[e.pid] === null ? null : Math.round(cpu[e.pid] * 10) / 10
    e.rssBytes = procfs.rssBytes(e.pid)
  }
  return entries
}

/** The entries of app `name`, and of the tree under pid (itself and its descendants). */
function byApp (entries, name) {
  return entries.filter((e) => e.app === name)
}

function tree (entries, pid) {
  const out = []
  const want = new Set([pid])
  let grew = true
  while (grew) {
    grew = false
    for (const e of entries) {
      if (!out.includes(e) && (want.has(e.pid) || want.has(e.ppid))) {
        out.push(e)
        want.add(e.pid)
        grew = true
      }
    }
  }
  return out.sort((a, b) => a.pid - b.pid)
}

module.exports = { discover, withUsage, byApp, tree }

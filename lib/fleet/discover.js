'use strict'
// Readers of the run directory: the live processes that announced
// themselves (lib/fleet/announce.js), their stale entries pruned, with what
// /proc says of them now. Used by cprof ps and the fan-out commands.
const fs = require('node:fs')
const path = require('node:path')
const procfs = require('../procfs')
const rundir = require('../identity/rundir')
const { writerGone } = require('../stale-temps')

function unlink (file) {
  try {
    fs.unlinkSync(file)
  } catch {}
}

/**
 * The live entries of every run directory of this user, one per pid:
 * { entries: [entry + { runDir }], warnings: [text], skipped: Map pid -> its
 * warning (the live pids whose entries were skipped), pruned: n }. An entry
 * whose pid is gone, or now names another process (its start time, field
 * 22 of /proc/<pid>/stat, differs), is removed when prune is set. Each
 * directory is opened and checked as lib/identity/rundir.js openDir says, and
 * read through that descriptor; an entry that is not a regular file of this
 * user is skipped with a warning, never pruned; so is one of a live pid
 * that is larger than rundir.MAX_ENTRY_BYTES or of the wrong shape.
 */
function discover ({ prune = true, env = process.env } = {}) {
  const byPid = new Map()
  const warnings = []
  const skipped = new Map() // pid -> why its entry was skipped
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
        if (item.skipped && procfs.startTime(item.pid) !== null) {
          const line = `ignoring ${path.join(dir, item.name)}: ${item.skipped}`
          warnings.push(line)
          skipped.set(item.pid, line)
          continue
        }
        const pid = item.entry ? item.entry.pid : item.tmpOf !== undefined ? item.tmpOf : item.skipped ? item.pid : item.broken
        const live = item.entry ? procfs.sameProcess(pid, item.entry.startTime) : !writerGone(pid)
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
  return { entries: entries.sort((a, b) => a.pid - b.pid), warnings, skipped, pruned }
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

/**
 * Process pid's entry as a reader that names one process finds it: in this
 * user's run directories, else (root, for another user's process) in its
 * owner's, checked as `trigger --dump` checks it (rundir.ofProcess).
 * { entry } or { why } (a sentence: what is missing and what to do).
 * warn(text) hears of pid's entry when it was skipped (too large, of the
 * wrong shape: lib/identity/rundir.js).
 */
function findProcess (pid, warn = () => {}) {
  const d = discover({ prune: false })
  if (d.skipped.has(pid)) warn(d.skipped.get(pid))
  const own = d.entries.find((e) => e.pid === pid)
  if (own) return { entry: own }
  let skipped = d.skipped.get(pid)
  const found = rundir.ofProcess(pid, (w) => { skipped = skipped || w; warn(w) })
  if (found) return { entry: { ...found.entry, runDir: found.dir } }
  if (skipped) return { why: `process ${pid}'s run-directory entry cannot be used (see above); it is rewritten as what runs there changes` }
  return { why: whyNoEntry(pid) }
}

// Why live process pid has no entry a reader could find.
function whyNoEntry (pid) {
  const owner = rundir.processOwner(pid)
  if (owner === null) return `process ${pid} does not run cprof: no such process`
  const me = typeof process.geteuid === 'function' ? process.geteuid() : null
  if (me !== null && me !== 0 && owner !== me) {
    return `process ${pid} runs as uid ${owner}, you are uid ${me}: only its user (or root) can read its ` +
      'run-directory entry; run this as that user'
  }
  if (procfs.isNode(pid) === false) return `process ${pid} is not a Node.js process`
  if (procfs.loadsCprof(pid)) {
    return `process ${pid} has cprof loaded but no run-directory entry: it uses cprof (recorder.start(), ` +
      'start(), …) without cprof.init(), and only init() announces a process. Call cprof.init() in it ' +
      '(init({ recorder: { heap: true } }) also starts the recorder with heap windows), or start it with ' +
      'node -r cprof/register and CPROF_RECORDER=1'
  }
  return `process ${pid} does not run cprof: it has no entry in a run directory of its user (uid ${owner}). ` +
    'Start it with node -r cprof/register (CPROF_RECORDER=1 CPROF_RECORDER_HEAP=1 for heap windows), or call cprof.init()'
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

module.exports = { discover, findProcess, whyNoEntry, withUsage, byApp, tree }

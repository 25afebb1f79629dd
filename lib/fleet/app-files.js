'use strict'
// The profile files of an app's instances, by name: cprof names the file of
// a PM2 instance or a node:cluster process <kind>-<app>.<instance>-<pid>-
// <stamp>.<ext> (lib/identity/process.js fileTag). For `cprof report --app`:
// each instance's newest profile of a kind, in the directories the app's
// live processes write to (their run-directory entries) and any given.
const fs = require('node:fs')
const path = require('node:path')
const { safeName } = require('../identity/process')
const { discover, byApp } = require('./discover')

const EXT = { cpu: 'cpuprofile', heap: 'heapprofile' }

function nameRe (kind, app) {
  return new RegExp(`^${kind}-${safeName(app)}\\.(\\d+|primary|x)-(\\d+)-(\\d{8}T\\d{6}\\.\\d{3}Z)\\.${EXT[kind]}$`)
}

/** The directories to look in: the given ones, else those the app's live processes announce. */
function appDirs (app, given) {
  if (given && given.length) return given.map((d) => path.resolve(d))
  return [...new Set(byApp(discover().entries, app).map((e) => e.dir).filter(Boolean))]
}

/**
 * Each instance's newest <kind> profile of app in dirs, oldest instance
 * label first: [{ instance, pid, stamp, file }].
 */
function latestByInstance (app, kind, dirs) {
  const re = nameRe(kind, app)
  const best = new Map()
  for (const dir of dirs) {
    let names = []
    try {
      names = fs.readdirSync(dir)
    } catch {
      continue
    }
    for (const name of names) {
      const m = re.exec(name)
      if (!m) continue
      const had = best.get(m[1])
      if (!had || had.stamp < m[3]) best.set(m[1], { instance: m[1], pid: Number(m[2]), stamp: m[3], file: path.join(dir, name) })
    }
  }
  return [...best.values()].sort((a, b) => (a.instance < b.instance ? -1 : 1))
}

module.exports = { latestByInstance, appDirs }

'use strict'

// Every test file's process, and every process it starts (fixtures, the
// CLI, PM2 daemons and their apps, node:cluster workers), gets a private
// temp directory: TMPDIR names a fresh directory removed at exit, and
// XDG_RUNTIME_DIR is unset. So cprof's default places — the profile
// directory <os.tmpdir()>/cprof-<uid> and the run directory
// <os.tmpdir()>/cprof-<uid>/run where processes announce themselves
// (lib/identity/rundir.js) — are the test's own, and a process a test kills
// leaves nothing in the user's real ones. Children inherit TMPDIR through
// the environment; CPROF_TEST_TMPDIR marks them, so a fixture that loads
// the helpers keeps the TMPDIR its test gave it (tests of the default
// directory set their own).
//
// At exit, guard() checks that this run left nothing in the real default
// places and fails the file (exit code 1, with the list on stderr) if it
// did. Other processes on the machine (other test runs, the user's apps)
// may write there too: only entries and files that name this checkout or
// this run's private directory, and are newer than this process, count.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const ROOT = path.resolve(__dirname, '..', '..', '..')
const TEST_JS = path.join(ROOT, 'test', 'js')
const MARK = 'CPROF_TEST_TMPDIR'
const MAX_READ = 32 * 1024 * 1024 // a profile bigger than this is not read

// What the real default places are, before setUp() moves them.
const real = {
  tmp: os.tmpdir(),
  xdg: process.env.XDG_RUNTIME_DIR
}

function uid () {
  return typeof process.geteuid === 'function' ? process.geteuid() : null
}

// Process start time in clock ticks since boot (field 22 of
// /proc/<pid>/stat), the unit of a run entry's startTime; null without /proc.
function startTicks (pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[22 - 3])
  } catch {
    return null
  }
}

// The real places cprof defaults to for this user: profile directories
// (with their run/ below) and XDG run directories.
function defaultPlaces () {
  const me = uid()
  const own = [...new Set([path.join(real.tmp, `cprof-${me}`), `/tmp/cprof-${me}`])]
  const runs = own.map((d) => path.join(d, 'run'))
  if (real.xdg && path.isAbsolute(real.xdg)) runs.push(path.join(real.xdg, 'cprof'))
  return { own, runs }
}

function inside (file, dir) {
  return typeof file === 'string' && (file === dir || file.startsWith(dir + path.sep))
}

// A fixture: a script in test/js/fixtures/ or test/js/<folder>/fixtures/.
function isFixture (file) {
  return inside(file, TEST_JS) && path.basename(path.dirname(file)) === 'fixtures'
}

function listFiles (dir) {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isFile()).map((d) => path.join(dir, d.name))
  } catch {
    return []
  }
}

/**
 * What this run left in the real default places: run entries (<pid>.json)
 * of processes started after this one from this checkout or this run's
 * private directory, and files written since this process started that
 * name either (a profile names the scripts it sampled).
 */
function leftovers (privateDir, since = { ms: startMs, ticks: startTicksSelf }) {
  const { own, runs } = defaultPlaces()
  const ours = (text) => typeof text === 'string' && (text.includes(ROOT + path.sep) || text.includes(privateDir))
  const found = []
  for (const dir of runs) {
    for (const file of listFiles(dir)) {
      if (!/^\d+\.json$/.test(path.basename(file))) continue
      let entry
      try {
        entry = JSON.parse(fs.readFileSync(file, 'utf8'))
      } catch {
        continue // being written, or not an entry
      }
      if (since.ticks !== null && !(Number(entry.startTime) >= since.ticks)) continue
      if ([entry.script, entry.cwd, entry.dir].some((p) => inside(p, ROOT) || inside(p, privateDir))) found.push(file)
    }
  }
  for (const dir of own) {
    for (const file of listFiles(dir)) {
      let st
      try {
        st = fs.statSync(file)
      } catch {
        continue
      }
      if (st.mtimeMs < since.ms || st.size > MAX_READ) continue
      try {
        if (ours(fs.readFileSync(file, 'latin1'))) found.push(file)
      } catch {}
    }
  }
  return found
}

let privateDir = null
let startMs = Date.now()
let startTicksSelf = null

function guard () {
  const found = leftovers(privateDir)
  if (found.length === 0) return
  process.stderr.write('# a test process wrote into the real default directories (test/js/helpers/private-tmp.js):\n' +
    found.map((f) => `#   ${f}\n`).join(''))
  process.exitCode = 1
}

function removePrivate () {
  if (privateDir) fs.rmSync(privateDir, { recursive: true, force: true })
}

/** Gives this process and its children a private TMPDIR, once per test file. */
function setUp () {
  // A process a test started (a fixture loads these helpers too): it keeps
  // the environment its test gave it.
  if (process.env[MARK] || (require.main && isFixture(require.main.filename))) return null
  startMs = Date.now() - 1000 // mtimes may be rounded down to the second
  startTicksSelf = startTicks(process.pid)
  privateDir = fs.mkdtempSync(path.join(real.tmp, 'cprof-test-run-'))
  // Traversable, not listable: security.test.js runs other users in
  // directories it makes 0755 or 1777 below this one.
  fs.chmodSync(privateDir, 0o711)
  process.env.TMPDIR = privateDir // os.tmpdir() reads it at each call
  process.env[MARK] = privateDir
  delete process.env.XDG_RUNTIME_DIR
  process.on('exit', () => {
    guard()
    removePrivate()
  })
  return privateDir
}

module.exports = { setUp, leftovers, defaultPlaces, real }

'use strict'

// Real PM2 in tests: the pm2 devDependency's CLI under a PM2_HOME of the
// test's own, `pm2 trigger` read despite PM2 7's exit race, and the daemon
// reaped after `pm2 kill`.

const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { test, before, after } = require('node:test')
const { ROOT, childEnv, removeTmpDirs } = require('./util.js')

let PM2_BIN = null
try {
  PM2_BIN = require.resolve('pm2/bin/pm2', { paths: [ROOT] })
} catch {}
const NO_PM2 = PM2_BIN ? false : 'the pm2 package is not installed (npm install --include=dev)'

// Bounds for a loaded 2-core machine under ASan (npm run test:asan preloads
// the sanitizer into every node, the PM2 CLI and daemon included: one CLI
// call then takes seconds). They are limits on a hang, not timings.
const CLI_TIMEOUT_MS = 60000
const EXIT_AFTER_REPLY_MS = 15000

/**
 * A PM2 of its own in `home`, run from `cwd`. `env`: the base environment
 * (default childEnv()); the test runner's CPROF_* and io are left out but
 * for the names in `keep`. Returns { pm2, pm2Async, trigger, logs }.
 */
function pm2Home ({ home, cwd, env = childEnv(), keep = [] }) {
  const e = { ...env, PM2_HOME: home, PM2_DISABLE_VERSION_CHECK: 'true', NO_COLOR: '1', FORCE_COLOR: '0' }
  for (const k of Object.keys(e)) if ((k.startsWith('CPROF_') || k === 'io') && !keep.includes(k)) delete e[k]
  fs.writeFileSync(path.join(home, 'touch'), String(Date.now())) // no first-run banner or version check

  const logs = () => {
    const dir = path.join(home, 'logs')
    if (!fs.existsSync(dir)) return ''
    return fs.readdirSync(dir).map((f) => `--- ${f}\n${fs.readFileSync(path.join(dir, f), 'utf8').slice(-2000)}`).join('\n')
  }
  const pm2 = (...args) => {
    const r = spawnSync(process.execPath, [PM2_BIN, ...args], { encoding: 'utf8', env: e, cwd, timeout: CLI_TIMEOUT_MS })
    r.describe = () => `pm2 ${args.join(' ')}: status=${r.status}\n${r.stdout}\n${r.stderr}\n${logs()}`
    return r
  }
  // Async, so that a server in the test's own process answers meanwhile.
  const pm2Async = (...args) => new Promise((resolve) => {
    const c = spawn(process.execPath, [PM2_BIN, ...args], { env: e, cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    c.stdout.on('data', (d) => { out += d })
    c.stderr.on('data', (d) => { out += d })
    const timer = setTimeout(() => c.kill('SIGKILL'), CLI_TIMEOUT_MS)
    c.on('close', (status) => { clearTimeout(timer); resolve({ status, out }) })
  })

  /**
   * `pm2 trigger <app> <action> [param]` → the replies it printed (the JSON
   * after `[app:id:namespace]=`), once `replies` of them came. The CLI exits
   * once it has counted as many replies as the daemon says processes got
   * the command; PM2 7 counts a reply that comes before that answer against
   * 0 and then never exits (docs/triggers.md). cprof sends its replies 100
   * ms late for that, but a CLI starved of CPU can read both messages in one
   * turn, in either order. The replies are what is under test: a CLI still
   * running EXIT_AFTER_REPLY_MS after printing them is stopped, and the test
   * `t` says so (a diagnostic).
   */
  const trigger = (t, app, action, param, { replies = 1 } = {}) => {
    const args = [PM2_BIN, 'trigger', app, action, ...(param === undefined ? [] : [param])]
    const prefix = `[${app}:`
    const repliesIn = (text) => text.split('\n').filter((l) => l.startsWith(prefix))
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { env: e, cwd })
      let stdout = ''
      let stderr = ''
      let stoppedAfterReply = false
      let exitTimer = null
      const hang = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS)
      const describe = (how) => `pm2 ${args.slice(1).join(' ')}: ${how}\n${stdout}\n${stderr}\n${logs()}`
      child.stderr.on('data', (d) => { stderr += d })
      child.stdout.on('data', (d) => {
        stdout += d
        if (exitTimer) return
        if (repliesIn(stdout.slice(0, stdout.lastIndexOf('\n') + 1)).length < replies) return
        exitTimer = setTimeout(() => {
          stoppedAfterReply = true
          child.kill('SIGKILL')
        }, EXIT_AFTER_REPLY_MS)
      })
      child.on('close', (code, signal) => {
        clearTimeout(hang)
        clearTimeout(exitTimer)
        const got = repliesIn(stdout)
        if (got.length < replies) return reject(new Error(describe(`${got.length} of ${replies} replies (exit code ${code}, signal ${signal})`)))
        if (stoppedAfterReply) {
          const order = stdout.indexOf(prefix) < stdout.indexOf('processes have received command')
            ? 'a reply came before the daemon\'s answer (PM2\'s race)'
            : 'the daemon\'s answer came first'
          t.diagnostic(`pm2 trigger ${action}: the CLI printed the replies but had not exited ${EXIT_AFTER_REPLY_MS} ms later (${order}); stopped it`)
        } else if (code !== 0) {
          return reject(new Error(describe(`exit code ${code}, signal ${signal}`)))
        }
        resolve(got.map((l) => JSON.parse(l.slice(l.indexOf(']=') + 2))))
      })
    })
  }
  return { pm2, pm2Async, trigger, logs }
}

// After `pm2 kill`: SIGKILLs the daemon of this PM2_HOME and its apps if
// they are still there (under ASan a slow `pm2 kill` can time out, and a
// daemon left running keeps its apps busy through the rest of the suite).
function reapPm2 (home) {
  let pid
  try {
    pid = Number(fs.readFileSync(path.join(home, 'pm2.pid'), 'utf8'))
    // The daemon of this home: its environment names it (its title,
    // "PM2 … God Daemon (<home>)", is cut to the original argv's length,
    // so a long home — a test's private TMPDIR — is not all in cmdline).
    if (!fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`PM2_HOME=${home}`)) return
  } catch {
    return
  }
  const kids = []
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) kids.push(Number(d))
    } catch {}
  }
  for (const p of [pid, ...kids]) {
    try { process.kill(p, 'SIGKILL') } catch {}
  }
}

/**
 * The frame of a PM2 test file: before(), unless pm2 is missing or its
 * `pm2 ping` fails, runs `setUp`; after() kills this PM2_HOME's daemon and
 * its apps and removes the temp dirs. Returns test(name, fn), with
 * `timeout` (ms), skipped when pm2 could not run.
 */
function pm2Suite ({ home, pm2, timeout, setUp }) {
  let skip = NO_PM2
  before(() => {
    if (skip) return
    const ping = pm2('ping')
    if (ping.status !== 0) {
      skip = `pm2 cannot run here: ${ping.describe()}`
      return
    }
    setUp()
  })
  after(() => {
    if (PM2_BIN && fs.existsSync(path.join(home, 'rpc.sock'))) pm2('kill')
    reapPm2(home)
    removeTmpDirs()
  })
  return (name, fn) => test(name, { timeout }, (t) => {
    if (skip) return t.skip(skip)
    return fn(t)
  })
}

module.exports = { PM2_BIN, NO_PM2, pm2Home, pm2Suite, reapPm2 }

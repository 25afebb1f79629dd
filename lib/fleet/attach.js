'use strict'
// Profiles a running Node process that never loaded cprof, from outside:
// SIGUSR1 makes Node open its inspector on 127.0.0.1 (default port 9229);
// over the inspector's WebSocket (the `ws` client) this runs what the
// in-process path runs (Profiler.* or HeapProfiler.*Sampling), then closes
// the target's inspector again, so no debugger port stays open, and returns
// the profile's JSON text. Before anything is sent it checks, and refuses
// with ERR_CPROF_ATTACH and nothing changed, when: its /proc entries are
// not ours to read or it runs in another network namespace, the process is
// not Node, SIGUSR1 is ignored or blocked there, Node runs with
// --disable-sigusr1, the inspector port is already open (someone's
// debugger) or taken, or it is configured (its argv and NODE_OPTIONS, read
// as Node reads them) on an address other than loopback (unless
// opts.force). Where the inspector really opened is not taken from that
// configuration but from the target's own listening sockets, before and
// after the signal (findInspector): argv cannot show process.debugPort set
// in code, and process.title overwrites the argv /proc shows.
//
// The inspector must close even when this process cannot close it (killed
// with SIGKILL): a watchdog process started before the signal
// (attach-watchdog.js) closes it, wherever it opened, as soon as this one dies, and the first
// command sent makes the target arm an unref'd timer of its own that closes
// the inspector after the duration plus GRACE_MS (the guard, below), should
// the watchdog be killed too. opts.signal (an AbortSignal: the CLI's
// SIGINT/SIGTERM) ends the sampling early; the profile is still stopped and
// the inspector closed before attach() returns.
//
// What /proc cannot tell: whether the app installed its own SIGUSR1 handler
// (process.on('SIGUSR1')): it shows as caught either way, like Node's own.
// Then the signal goes to the app's handler and no inspector opens; attach
// says so after waiting (ERR_CPROF_ATTACH, exit 1).
const crypto = require('node:crypto')
const http = require('node:http')
const path = require('node:path')
const { spawn } = require('node:child_process')
const procfs = require('../procfs')
const { cprofError } = require('../errors')

const DEFAULT_PORT = 9229
const SIGUSR1 = 10
const OPEN_WAIT_MS = 10000 // default of opts.openWaitMs
const CLOSE_WAIT_MS = 10000
// What the target's own timer adds to the duration before it closes the
// inspector by itself: room for the commands around the sampling and for
// Profiler.stop's reply. Re-armed to GRACE_MS from now just before the stop.
const GRACE_MS = 5000
// How long after its last reply the target closes its inspector when asked
// to (closeInspector, the watchdog): the asking session disconnects first
// and waits for the close handshake. Node closing its inspector while a
// session is still attached can crash the target (a SIGSEGV seen on a
// loaded machine; nodejs/node#18761, #27637): 50 ms was not always enough
// for the asker to get the CPU back.
const CLOSE_AFTER_MS = 500
// How long a disconnect waits for the close handshake.
const DISCONNECT_WAIT_MS = 2000
// The watchdog: polls every WATCH_POLL_MS for up to WATCH_MAX_MS; leaves
// an inspector it sees open SETTLE_MS to a live attach's guard; waits up to
// ACT_MS for a close attempt before it looks again.
const WATCH_MAX_MS = 60 * 60 * 1000
const WATCH_POLL_MS = 200
const SETTLE_MS = 1000
const ACT_MS = 5000
// After the target armed its close, the watchdog connects no more for
// REARM_MS: a session attached when the close fires crashes the target (a
// watchdog that tried again every poll met its own armed close on a loaded
// machine). Connecting again only after a whole quiet REARM_MS is for a
// target whose timer never fired.
const REARM_MS = 30000
// Node's default inspector host, when --inspect-port names only a port.
const DEFAULT_HOST = '127.0.0.1'

function attachError (message, props) {
  return cprofError('ERR_CPROF_ATTACH', message, props)
}

// p, or undefined after ms, whichever comes first; the timer is cleared
// either way, so a settled race keeps no process alive (a watchdog lingered
// ACT_MS after its target exited).
async function within (p, ms) {
  const ac = new AbortController()
  try {
    return await Promise.race([p, sleep(ms, ac.signal)])
  } finally {
    ac.abort()
  }
}

// Resolves after ms, or at once when signal aborts.
function sleep (ms, signal) {
  return new Promise((resolve) => {
    if (signal && signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      if (signal) signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    if (signal) signal.addEventListener('abort', done, { once: true })
  })
}

// [host:]port as Node's SplitHostPort reads it: "[::1]" or a name is a host
// (port back to 9229), digits are a port, else host and port split at the
// last colon, brackets removed. host '' keeps the one before.
function splitHostPort (v) {
  const bracketed = /^\[(.*)\]$/.exec(v)
  if (bracketed) return { host: bracketed[1], port: DEFAULT_PORT }
  const colon = v.lastIndexOf(':')
  if (colon < 0) return /^\d+$/.test(v) ? { host: '', port: Number(v) } : { host: v, port: DEFAULT_PORT }
  return { host: v.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(v.slice(colon + 1)) }
}

// Node's options that take a value, which may be the next argument
// (`--require mod`): needed to tell an option's value from the script,
// where Node stops reading options. Inspector ones apart (INSPECT_*).
// Options not listed and not known as flags (KNOWN_FLAGS) are taken as
// taking a value too, so an option newer than this list does not end the
// reading early (at worst an app argument is read as Node's: a refusal
// --force overrides, never a missed one).
const VALUE_OPTIONS = new Set([
  '--require', '--import', '--loader', '--experimental-loader', '--eval', '--print', '--input-type',
  '--conditions', '--title', '--max-http-header-size', '--secure-heap', '--secure-heap-min',
  '--unhandled-rejections', '--dns-result-order', '--diagnostic-dir', '--report-dir', '--report-directory',
  '--report-filename', '--report-signal', '--heapsnapshot-signal', '--heapsnapshot-near-heap-limit',
  '--heap-prof-dir', '--heap-prof-name', '--heap-prof-interval', '--cpu-prof-dir', '--cpu-prof-name',
  '--cpu-prof-interval', '--icu-data-dir', '--openssl-config', '--tls-cipher-list', '--tls-keylog',
  '--use-largepages', '--redirect-warnings', '--trace-event-categories', '--trace-event-file-pattern',
  '--es-module-specifier-resolution', '--experimental-specifier-resolution', '--experimental-policy',
  '--policy-integrity', '--disable-proto', '--disable-warning', '--env-file', '--env-file-if-exists',
  '--watch-path', '--test-name-pattern', '--test-skip-pattern', '--test-reporter',
  '--test-reporter-destination', '--test-shard', '--test-concurrency', '--test-timeout',
  '--test-coverage-include', '--test-coverage-exclude', '--test-coverage-branches',
  '--test-coverage-functions', '--test-coverage-lines', '--test-isolation', '--experimental-test-isolation',
  '--test-global-setup', '--test-rerun-failures', '--experimental-config-file', '--experimental-sea-config',
  '--snapshot-blob', '--build-snapshot-config', '--localstorage-file', '--allow-fs-read', '--allow-fs-write',
  '--experimental-default-type', '--inspect-publish-uid', '--network-family-autoselection-attempt-timeout',
  '--trace-require-module', '--v8-pool-size', '--watch-kill-signal', '--run', '--max-old-space-size-percentage',
  '--openssl-legacy-provider-path'
])
// -x aliases (Node has no bundled short flags but -pe).
const SHORT = { '-r': ['--require'], '-e': ['--eval'], '-p': ['--print'], '-pe': ['--print', '--eval'], '-C': ['--conditions'] }
// Where SIGUSR1 opens the inspector: --inspect-port / --debug-port take
// [host:]port (a value, = or the next argument); --inspect, --inspect-brk,
// --inspect-wait and --inspect-brk-node are flags whose =[host:]port form
// sets it too (Node's alias "--inspect=" for "--inspect-port X --inspect").
const INSPECT_PORT = new Set(['--inspect-port', '--debug-port'])
const INSPECT_FLAGS = new Set(['--inspect', '--inspect-brk', '--inspect-wait', '--inspect-brk-node'])
// Flags Node knows (they take no value): the ones allowed in NODE_OPTIONS
// by the Node running cprof, and a few common ones that are not.
const KNOWN_FLAGS = new Set([...(process.allowedNodeEnvironmentFlags || []),
  '--check', '-c', '--interactive', '-i', '--test', '--watch', '--watch-preserve-output', '--prof',
  '--prof-process', '--build-snapshot', '--completion-bash', '--entry-url', '--experimental-strip-types',
  '--expose-internals', '--expose-gc', '--allow-natives-syntax', '--no-opt', '-v', '--version', '-h', '--help']
  .filter((f) => !VALUE_OPTIONS.has(f) && !INSPECT_PORT.has(f)))

// NODE_OPTIONS split as Node splits it: at spaces outside double quotes,
// a backslash in quotes escaping the next character.
function splitNodeOptions (text) {
  const out = []
  let inString = false
  let fresh = true
  for (let i = 0; i < text.length; i++) {
    let c = text[i]
    if (c === '\\' && inString) {
      if (i + 1 === text.length) break // Node: "invalid escape"
      c = text[++i]
    } else if (c === ' ' && !inString) {
      fresh = true
      continue
    } else if (c === '"') {
      inString = !inString
      continue
    }
    if (fresh) out.push(c)
    else out[out.length - 1] += c
    fresh = false
  }
  return out
}

// Node's options in args (argv after argv[0], or NODE_OPTIONS split), read
// as Node's option parser reads them: up to the first argument that is not
// an option (the script, "-") or "--"; "--flag=value" or "--flag value"
// for options that take one (the value may not start with "-"); "_" in a
// "--" name read as "-". Yields [name, value]: value undefined for a flag.
function * nodeOptions (args) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === '--' || a.length <= 1 || a[0] !== '-') return
    let name = a
    let value
    const eq = a.indexOf('=')
    if (a[1] === '-' && eq > 0) {
      name = a.slice(0, eq)
      value = a.slice(eq + 1)
    }
    if (name.startsWith('--')) name = '--' + name.slice(2).replace(/_/g, '-')
    const names = SHORT[name] || [name]
    const last = names[names.length - 1]
    const takes = VALUE_OPTIONS.has(last) || INSPECT_PORT.has(last) ||
      (!KNOWN_FLAGS.has(last) && !INSPECT_FLAGS.has(last) && last !== '--disable-sigusr1')
    if (value === undefined && takes && i + 1 < args.length && !args[i + 1].startsWith('-')) value = args[++i]
    for (const n of names.slice(0, -1)) yield [n, undefined]
    yield [last, value]
  }
}

// --inspect-port [host:]N, --debug-port, --inspect[-brk|-wait|-brk-node]=
// [host:]N in NODE_OPTIONS, then the command line (args: argv after
// argv[0]): the address SIGUSR1 opens, as Node keeps it (each one updates
// the host if it names one, and the port); else 127.0.0.1:9229. Also
// whether --disable-sigusr1 is set.
function inspectorOptions (args, nodeOptionsText) {
  let host = DEFAULT_HOST
  let port = DEFAULT_PORT
  let disabled = false
  const all = [...(nodeOptionsText ? nodeOptions(splitNodeOptions(nodeOptionsText)) : []), ...nodeOptions(args)]
  for (const [name, v] of all) {
    if (name === '--disable-sigusr1') disabled = true
    if (!INSPECT_PORT.has(name) && !INSPECT_FLAGS.has(name)) continue
    if (v === undefined || v === '') continue
    const hp = splitHostPort(v)
    if (hp.host) host = hp.host
    if (Number.isInteger(hp.port)) port = hp.port
  }
  return { host, port, disabled }
}

// Loopback only: 127.0.0.0/8, ::1, their IPv4-mapped form, and the name
// localhost (which Node's inspector also resolves to loopback).
function isLoopback (host) {
  const h = host.toLowerCase()
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(h)
}

// host:port as printed, IPv6 in brackets.
function hostPort (host, port) {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
}

function isNode (pid) {
  return { node: procfs.isNode(pid) === true, exe: procfs.exe(pid), cmd: procfs.cmdline(pid) }
}

// GET http://host:port/json/list: { kind: 'inspector', path } (the
// WebSocket path of its first target, checked to be /<id>), 'other' (an
// answer that is not an inspector's: an app's server) or 'none' (refused,
// reset, no answer within timeoutMs). The inspector answers on a thread of
// its own, even while the target's main thread is blocked.
function probe (port, host = DEFAULT_HOST, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path: '/json/list', timeout: timeoutMs, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { if (body.length < 1 << 20) body += d })
      res.on('end', () => {
        try {
          const list = JSON.parse(body)
          const t = Array.isArray(list) && list.find((x) => x && typeof x.webSocketDebuggerUrl === 'string')
          const p = t && new URL(t.webSocketDebuggerUrl).pathname
          resolve(p && /^\/[\w-]+$/.test(p) ? { kind: 'inspector', path: p } : { kind: 'other' })
        } catch {
          resolve({ kind: 'other' })
        }
      })
      res.on('error', () => resolve({ kind: 'none' }))
    })
    req.on('timeout', () => req.destroy())
    req.on('error', (e) => resolve({ kind: /^HPE_/.test(e.code || '') ? 'other' : 'none' }))
  })
}

// The inspector's targets at host:port, or null when nothing (or no inspector) answers.
async function jsonList (port, host = DEFAULT_HOST, timeoutMs = 1000) {
  return (await probe(port, host, timeoutMs)).kind === 'inspector' ? [] : null
}

// The target's own listening sockets, or throws ERR_CPROF_ATTACH: its fds
// are another user's (EACCES) or it is gone.
function listenersOf (pid) {
  const r = procfs.ownListeners(pid)
  if (r.error) throw procError(pid, r.error, 'fd')
  return r.listeners
}

function procError (pid, code, what) {
  if (code === 'ENOENT' || code === 'ESRCH') return attachError(`process ${pid} exited`)
  if (code === 'EACCES' || code === 'EPERM') {
    const uid = procfs.status(pid)?.Uid?.split(/\s+/)[0]
    const me = typeof process.geteuid === 'function' ? process.geteuid() : '?'
    const who = String(uid) === String(me)
      ? `process ${pid} runs as your uid ${me} but is not dumpable (a setuid or capability binary, or ` +
        'prctl(PR_SET_DUMPABLE, 0)), so only root may read it'
      : `process ${pid} runs as uid ${uid ?? '?'}, you are uid ${me}`
    return attachError(`cannot read /proc/${pid}/${what} (${code}): ${who}, and attach must see its sockets to find ` +
      `where its inspector opens. Nothing was sent. Run cprof attach as ${who.includes('dumpable') ? 'root' : 'that user (or as root)'}`,
    { reason: 'permission' })
  }
  return attachError(`cannot read /proc/${pid}/${what} (${code}); nothing was sent`)
}

// Whether a socket of another process listens on port (in the target's
// network namespace): the target's inspector could not open there.
function portOwners (pid, port, own) {
  const mine = new Set(own.map((l) => l.inode))
  return procfs.tcpListeners(pid).some((l) => l.port === port && !mine.has(l.inode))
}

const BUSY = 'someone else is debugging (or an earlier cprof attach was killed: its inspector closes by itself ' +
  `within its --duration + ${GRACE_MS / 1000} s); attach refuses to share it and sent nothing`

/**
 * The checks made before any signal: { host, port, before (the inodes of
 * the sockets the target listens on now), startTime } or throws
 * ERR_CPROF_ATTACH. force: accept an inspector host other than loopback.
 */
async function preflight (pid, { force = false } = {}) {
  if (procfs.startTime(pid) === null) throw attachError(`no process ${pid} (or not one you may inspect)`)
  // Its sockets first: another user's process says so (not "not node").
  const ns = procfs.netNamespace(pid)
  if (ns.error) throw procError(pid, ns.error, 'ns/net')
  let own = listenersOf(pid)
  const mine = procfs.netNamespace(process.pid)
  if (mine.ns && ns.ns !== mine.ns) {
    throw attachError(`process ${pid} runs in another network namespace (${ns.ns}; a container?): its loopback is not ` +
      'this one, so attach could not reach (or would reach the wrong) inspector. Nothing was sent. Run cprof attach ' +
      `inside its namespace (e.g. nsenter -t ${pid} -n cprof attach ${pid})`)
  }
  const who = isNode(pid)
  if (!who.node) {
    throw attachError(`process ${pid} is not Node.js (its executable is ${who.exe || 'unreadable'}): ` +
      'attach works on node processes only')
  }
  const env = procfs.env(pid)
  if (env === null && procfs.startTime(pid) !== null) throw procError(pid, 'EACCES', 'environ')
  const opts = inspectorOptions((who.cmd || []).slice(1), (env || {}).NODE_OPTIONS)
  if (opts.disabled) {
    throw attachError(`process ${pid} runs with --disable-sigusr1: SIGUSR1 does not open its inspector there`)
  }
  const disp = procfs.signalDisposition(pid, SIGUSR1)
  if (disp === null) throw attachError(`cannot read /proc/${pid}/status: is it your process?`)
  if (disp !== 'caught') {
    throw attachError(`process ${pid} has SIGUSR1 ${disp}, not Node's handler that opens the inspector ` +
      `(${disp === 'default' ? 'the signal would terminate it' : 'the signal would do nothing'}); nothing was sent`)
  }
  const at = (p) => own.find((l) => l.port === p)?.address
  const probeHost = isLoopback(opts.host) && opts.host !== 'localhost' ? opts.host : DEFAULT_HOST
  if (opts.port !== 0 && (at(opts.port) || (await jsonList(opts.port, probeHost)) !== null)) {
    throw attachError(`an inspector already listens on ${hostPort(at(opts.port) || probeHost, opts.port)}` +
      `${at(opts.port) ? ` (process ${pid}'s)` : ''}: ${BUSY}`)
  }
  if (opts.port === 0) {
    // --inspect-port=0: an inspector already open would be on any port of its own.
    for (const p of new Set(own.map((l) => l.port))) {
      if ((await jsonList(p, reachAt(at(p))[0])) !== null) {
        throw attachError(`an inspector already listens on ${hostPort(at(p), p)} (process ${pid}'s): ${BUSY}`)
      }
    }
  }
  if (opts.port !== 0 && portOwners(pid, opts.port, own)) {
    throw attachError(`port ${opts.port} is taken by another process, so process ${pid} could not open its ` +
      'inspector there; nothing was sent (start it with --inspect-port=<free port>)')
  }
  if (!force && !isLoopback(opts.host)) throw exposedError(pid, opts.host, opts.port, 'is configured to open')
  own = listenersOf(pid) // as late as can be: what listens after this is new
  return { host: opts.host, port: opts.port, before: own.map((l) => l.inode), startTime: procfs.startTime(pid) }
}

// Node opens the inspector where --inspect-port says, also on every
// interface (0.0.0.0, ::) or a public address: anyone who can reach it can
// run code in the process. Refused unless --force.
function exposedError (pid, host, port, verb, after = 'Nothing was sent. ') {
  const every = host === '0.0.0.0' || host === '::' ? ', every interface' : ''
  return attachError(`process ${pid}'s inspector ${verb} on ${hostPort(host, port)}${every}, not on loopback (its --inspect-port or ` +
    '--inspect host): other hosts that can reach that address could connect while attached and run code in the ' +
    `process. ${after}Restart it with ` +
    '--inspect-port=127.0.0.1:<port>, or pass --force to attach anyway', { exposed: true })
}

// The inspector's WebSocket, as a small request/reply client.
async function connect (url) {
  const WebSocket = require('ws')
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 2 ** 31 - 1 })
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  let next = 1
  const waiting = new Map()
  ws.on('message', (data) => {
    let msg
    try {
      msg = JSON.parse(data.toString('utf8'))
    } catch {
      return
    }
    const w = msg.id !== undefined && waiting.get(msg.id)
    if (!w) return
    waiting.delete(msg.id)
    if (msg.error) w.reject(attachError(`the inspector refused ${w.method}: ${msg.error.message}`))
    else w.resolve(msg.result)
  })
  ws.on('close', () => {
    for (const w of waiting.values()) w.reject(attachError(`the inspector connection closed during ${w.method}: did the process exit?`))
    waiting.clear()
  })
  ws.on('error', () => {}) // 'close' follows and rejects what waits
  const post = (method, params = {}) => new Promise((resolve, reject) => {
    const id = next++
    waiting.set(id, { resolve, reject, method })
    ws.send(JSON.stringify({ id, method, params }))
  })
  return { ws, post }
}

// Where to reach a listener bound at address, in order of preference:
// loopback for a wildcard (0.0.0.0, ::: it accepts there too), else the
// address itself. A specific non-loopback address is one of this host's:
// the kernel delivers a connection to it locally (over lo), so attach's
// own connection (only ever to close an inspector it refuses, unless
// --force) never leaves the host.
function reachAt (address) {
  if (address === '0.0.0.0') return [DEFAULT_HOST]
  if (address === '::') return ['::1', DEFAULT_HOST]
  return [address]
}

// Probe bookkeeping across polls of findInspector: sockets that answered
// as something other than an inspector (an app's server) are not asked
// again; silent ones again after a backoff (200 ms doubling, up to 10 s).
function probeState () {
  return { other: new Set(), retry: new Map() }
}

/**
 * The inspector the target opened after the signal: a socket it listens on
 * now and did not before (pre.before, inodes) that answers /json/list as an
 * inspector — on whatever port: the configured one, one the kernel picked
 * (port 0), or one set in code (process.debugPort = N), which argv cannot
 * tell. { url, port, address (a non-loopback one if any), addresses,
 * inodes } or null. The configured port is asked first.
 */
async function findInspector (pid, pre, state = probeState()) {
  const r = procfs.ownListeners(pid)
  if (r.error) return null
  const before = new Set(pre.before)
  const now = Date.now()
  const fresh = r.listeners.filter((l) => !before.has(l.inode) && !state.other.has(l.inode))
  const ports = [...new Set(fresh.map((l) => l.port))].sort((a, b) => (b === pre.port) - (a === pre.port))
  for (const port of ports) {
    const socks = fresh.filter((l) => l.port === port)
    const key = socks.map((l) => l.inode).join(',')
    const wait = state.retry.get(key)
    if (wait && wait.at > now) continue
    for (const host of [...new Set(socks.flatMap((l) => reachAt(l.address)))]) {
      const answer = await probe(port, host)
      if (answer.kind === 'inspector') {
        const addresses = socks.map((l) => l.address)
        return {
          url: `ws://${hostPort(host, port)}${answer.path}`,
          port,
          address: addresses.find((a) => !isLoopback(a)) || addresses[0],
          addresses,
          inodes: socks.map((l) => l.inode)
        }
      }
      if (answer.kind === 'other') {
        for (const l of socks) state.other.add(l.inode)
        break
      }
    }
    if (!socks.some((l) => state.other.has(l.inode))) {
      const ms = Math.min((wait ? wait.ms * 2 : 200), 10000)
      state.retry.set(key, { ms, at: Date.now() + ms })
    }
  }
  return null
}

// Whether any of the sockets (inodes) still listens in process pid.
function stillListening (pid, inodes) {
  const r = procfs.ownListeners(pid)
  return !r.error && r.listeners.some((l) => inodes.includes(l.inode))
}

// findInspector once it listens, polled every 10 ms: until the guard is
// armed, only this process (or its watchdog) can close it.
async function waitForInspector (pid, pre, waitMs = OPEN_WAIT_MS, signal) {
  const { host, port } = pre
  const deadline = Date.now() + waitMs
  const state = probeState()
  while (Date.now() < deadline) {
    if (signal && signal.aborted) {
      throw attachError(`interrupted while waiting for process ${pid} to open its inspector; if it still opens, ` +
        "cprof's watchdog closes it", { interrupted: true })
    }
    if (procfs.startTime(pid) === null) throw attachError(`process ${pid} exited after SIGUSR1`)
    const open = await findInspector(pid, pre, state)
    if (open) return open
    await sleep(10)
  }
  throw attachError(`process ${pid} did not open its inspector (configured: ${hostPort(host, port)}; none of its new ` +
    `listening sockets answered as one) within ${waitMs / 1000} s of SIGUSR1: the app may handle SIGUSR1 itself ` +
    '(process.on(\'SIGUSR1\'), which /proc cannot tell from ' +
    "Node's handler), or its event loop is blocked; if it still opens, cprof's watchdog closes it")
}

async function waitClosed (pid, inodes) {
  const deadline = Date.now() + CLOSE_WAIT_MS
  while (Date.now() < deadline) {
    if (!stillListening(pid, inodes)) return true
    await sleep(50)
  }
  return false
}

// node:inspector in the target: process.getBuiltinModule (Node >= 20.16),
// else the main module's require.
const INSPECTOR = `(typeof process.getBuiltinModule === 'function'
  ? process.getBuiltinModule('node:inspector')
  : process.mainModule.require('inspector'))`

// The guard, evaluated in the target as the first command: a function
// guard(ms) that (re)arms one unref'd timer closing the inspector ms from
// now; the first timer is armed at once. It lives in the target, so it
// fires whatever happens to this process (SIGKILL included) as long as the
// target's event loop turns; unref'd, it never keeps the app alive. It
// closes only the inspector it was armed in: inspector.url() holds a new
// id each time the inspector opens, so a later one (the user's own
// debugger) is left alone. Each (re)arm announces itself at
// process[GUARD_KEY] = { url, until, by }: a watchdog leaves an inspector
// guarded there by another attach (by: that attach's random token) alone.
// Never throws into the app.
const GUARD_KEY = "Symbol.for('cprof.attachGuard')"
function guardExpr (ms, by = '') {
  return `(() => {
  const inspector = ${INSPECTOR}
  const url = inspector.url()
  let timer
  const close = () => {
    try {
      if (inspector.url() === url) inspector.close()
    } catch {}
  }
  const guard = (ms) => {
    clearTimeout(timer)
    timer = setTimeout(close, ms)
    timer.unref()
    process[${GUARD_KEY}] = { url, until: Date.now() + ms, by: ${JSON.stringify(String(by))} }
    return true
  }
  guard(${Number(ms)})
  return guard
})()`
}

// Arms the guard: its remote object id, to re-arm it over the same session.
async function armGuard (client, ms, by) {
  const { result, exceptionDetails } = await client.post('Runtime.evaluate', { expression: guardExpr(ms, by) })
  if (exceptionDetails || !result || !result.objectId) {
    throw attachError('the target did not take the guard that closes its inspector by itself: ' +
      `${exceptionDetails ? exceptionDetails.exception?.description || exceptionDetails.text : 'no function returned'}`)
  }
  return result.objectId
}

async function rearm (client, guard, ms) {
  await client.post('Runtime.callFunctionOn', {
    objectId: guard, functionDeclaration: 'function (ms) { return this(ms) }', arguments: [{ value: ms }]
  })
}

/**
 * opts: { pid, durationMs, heap, intervalUs | intervalBytes, stackDepth, includeCollected,
 *         openWaitMs, force, signal (AbortSignal), onOpen({ port, address, loopback }) }.
 * Resolves { text (the profile's JSON; null when aborted before sampling),
 * kind, port, address, closed, interrupted } where closed says the port
 * was seen closed again and interrupted that opts.signal ended it early.
 */
async function attach (opts) {
  const { pid, signal } = opts
  const pre = await preflight(pid, { force: opts.force })
  if (signal && signal.aborted) throw attachError('interrupted before anything was sent', { interrupted: true })
  // Loaded now, not once the inspector is open: the time it listens is
  // the time anyone who can reach it can run code in the target.
  require('ws')
  // Tells this attach's guard from another's (closeOpened).
  const token = crypto.randomBytes(8).toString('hex')
  const watchdog = startWatchdog(pid, pre, token)
  try {
    watchdog.say('open')
    process.kill(pid, 'SIGUSR1')
  } catch (e) {
    watchdog.say('done') // no signal went out: nothing to watch
    throw e
  }
  let open
  try {
    // Interrupted while the inspector is not open yet (an app slow to
    // open it, or that handles SIGUSR1 itself: up to --wait): we stop at
    // once. Not open within --wait: a main thread busy in native code
    // (execSync) opens it when it returns. Either way the watchdog takes
    // the wait over and closes it if it opens.
    open = await waitForInspector(pid, pre, opts.openWaitMs, watchdog.running ? signal : undefined)
  } catch (e) {
    watchdog.leave()
    throw e
  }
  let text = null
  let failed = null
  try {
    text = await attached(open, opts, token)
  } catch (e) {
    failed = e
  }
  // The watchdog stands down only once the port is seen closed; else
  // (closeInspector could not connect, the target is blocked) it stays in
  // charge until the inspector closes or the target exits.
  const closed = await waitClosed(pid, open.inodes)
  if (closed) watchdog.say('done')
  else watchdog.leave()
  if (failed && failed.exposed) {
    failed = exposedError(pid, open.address, open.port, 'opened', closed
      ? 'cprof closed it again at once and profiled nothing. '
      : "cprof could not close it yet: its watchdog closes it. ")
  }
  if (failed) throw failed
  return { text, kind: opts.heap ? 'heap' : 'cpu', port: open.port, address: open.address, closed, interrupted: Boolean(signal && signal.aborted) }
}

// Connected to the open inspector: the guard first, then the profile (none
// when aborted by then); the inspector closed in every case. One that
// listens on an address other than loopback (configured where argv or
// NODE_OPTIONS could not show it: an --env-file, process.title having
// overwritten the command line) is refused without --force, and closed at
// once over a connection of its own (reachAt) that only closes it.
async function attached ({ url, port, address, addresses }, opts, token) {
  const loopback = addresses.every(isLoopback)
  if (!loopback && !opts.force) {
    await closeInspector(null, null, url)
    throw exposedError(opts.pid, address, port, 'opened')
  }
  let client
  let guard
  try {
    client = await connect(url)
    guard = await armGuard(client, opts.durationMs + GRACE_MS, token)
    if (opts.onOpen) opts.onOpen({ port, address, loopback })
    return opts.signal && opts.signal.aborted ? null : await profile(client, guard, opts)
  } finally {
    await closeInspector(client, guard, url)
  }
}

const WATCHDOG = path.join(__dirname, 'attach-watchdog.js')

// The watchdog (attach-watchdog.js): detached (its own session, so a
// terminal's Ctrl-C or a kill of this process group spares it), stdin a
// pipe from us. say('done') ends its job; leave() hands the inspector over
// to it, as dying would. Without one (spawn failed) the target's timer is
// left, and running is false.
function startWatchdog (pid, pre, token) {
  let child
  try {
    child = spawn(process.execPath, [WATCHDOG, String(pid), JSON.stringify(pre), token],
      { detached: true, stdio: ['pipe', 'ignore', 'ignore'] })
  } catch {
    return { running: false, say () {}, leave () {} }
  }
  child.on('error', () => {})
  child.stdin.on('error', () => {})
  child.unref()
  return {
    running: child.pid !== undefined,
    say (word) {
      if (word === 'done') child.stdin.end('done\n')
      else child.stdin.write(word + '\n')
    },
    leave () {
      child.stdin.end()
    }
  }
}

// The watchdog's job once the attaching process died or handed over: the
// inspector of the same process (pid and start time, not a new one with its
// pid), at the port it opens, closed as soon as it listens; watched until
// it is seen closed, the target exits, or maxMs (a target that never opens
// it: an app handling SIGUSR1 itself). An inspector where another attach
// (not token, ours) announced a live guard is left to that attach and its
// guard, and watched until closed. Seen open first, it waits SETTLE_MS so a
// live attach racing us to it arms its guard.
async function closeOpened (pid, pre, token, maxMs = WATCH_MAX_MS) {
  const deadline = Date.now() + maxMs
  const state = probeState()
  let open = null
  let seen = 0
  let pending = null // one close attempt at a time: a blocked target answers none
  let next = 0 // no new connection before then (a close or a guard pending)
  while (Date.now() < deadline && procfs.sameProcess(pid, pre.startTime)) {
    if (open && !stillListening(pid, open.inodes)) return 'closed'
    if (!open) {
      open = await findInspector(pid, pre, state)
      if (open) seen = Date.now()
    }
    if (open && !pending && Date.now() - seen >= SETTLE_MS && Date.now() >= next) {
      pending = closeUnguarded(open.url, token)
        .then((said) => { next = Date.now() + quietAfter(said) })
        .finally(() => { pending = null })
      await within(pending, ACT_MS)
    }
    await sleep(WATCH_POLL_MS)
  }
  return procfs.sameProcess(pid, pre.startTime) ? 'gave up' : 'exited'
}

// How long the watchdog stays off the inspector after closeUnguarded said
// said: 'closing' (its close is armed), 'guarded <ms>' (a live attach's
// guard closes it within ms: until then, and its close after), else (no
// answer) not at all.
function quietAfter (said) {
  if (said === 'closing') return REARM_MS
  const m = /^guarded (\d+)$/.exec(said || '')
  return m ? Number(m[1]) + CLOSE_AFTER_MS + SETTLE_MS : 0
}

// Over a new connection: closes the inspector at url CLOSE_AFTER_MS from
// now (we disconnect first) unless another attach's live guard announced
// itself ('guarded <ms it has left>'). Settles when the target answers (a
// target blocked in native code answers once it returns) and we
// disconnected, or the connection ends (the target exited).
async function closeUnguarded (url, token) {
  const expr = `(() => {
  const inspector = ${INSPECTOR}
  const g = process[${GUARD_KEY}]
  if (g && g.url === inspector.url() && g.until > Date.now() && g.by !== ${JSON.stringify(String(token))}) return 'guarded ' + (g.until - Date.now())
  return ${guardExpr(CLOSE_AFTER_MS)} && 'closing'
})()`
  let c
  try {
    c = await connect(url)
    return (await c.post('Runtime.evaluate', { expression: expr })).result?.value
  } catch {
    return null
  } finally {
    await disconnect(c)
  }
}

// Closes our session and waits (up to DISCONNECT_WAIT_MS) for the target
// to answer the close: its inspector must not close while we are attached.
async function disconnect (c) {
  if (!c || c.ws.readyState === 3) return
  const closed = new Promise((resolve) => c.ws.once('close', resolve))
  c.ws.close()
  await within(closed, DISCONNECT_WAIT_MS)
}

// Whether the target runs Node 22 or older, whose V8 can deadlock its main
// thread as a CPU profiler starts unless every script's line ends exist
// first (crbug 41497149, nodejs/node#65140): Debugger.enable computes them.
async function beforeNode23 (post) {
  const { result } = await post('Runtime.evaluate', { expression: 'process.versions.node', returnByValue: true })
  return Number(String(result?.value).split('.')[0]) <= 22
}

// Samples for opts.durationMs or until opts.signal aborts, then stops: the
// guard is re-armed to GRACE_MS first, so the stop's reply has that long.
async function profile (client, guard, opts) {
  const { post } = client
  if (opts.heap) {
    await post('HeapProfiler.enable')
    // As heap.start() samples in-process; includeCollected keeps the
    // samples of objects a GC has already freed (allocated, not only live).
    const collected = Boolean(opts.includeCollected)
    await post('HeapProfiler.startSampling', {
      samplingInterval: opts.intervalBytes,
      stackDepth: opts.stackDepth,
      includeObjectsCollectedByMajorGC: collected,
      includeObjectsCollectedByMinorGC: collected
    })
    await sleep(opts.durationMs, opts.signal)
    await rearm(client, guard, GRACE_MS)
    const { profile } = await post('HeapProfiler.stopSampling')
    await post('HeapProfiler.disable')
    return JSON.stringify(profile)
  }
  await post('Profiler.enable')
  await post('Profiler.setSamplingInterval', { interval: opts.intervalUs })
  if (await beforeNode23(post)) { // line ends first: src/addon/inspector.h
    await post('Debugger.enable')
    await post('Debugger.disable')
  }
  await post('Profiler.start')
  await sleep(opts.durationMs, opts.signal)
  await rearm(client, guard, GRACE_MS)
  const { profile } = await post('Profiler.stop')
  await post('Profiler.disable')
  return JSON.stringify(profile)
}

// Always runs, also after a failed profile: the port must not stay open.
// Over the same session the guard is re-armed to CLOSE_AFTER_MS; else a new
// connection arms a new guard to that. We disconnect before it fires. The
// old guard's timer then finds its inspector closed and does nothing.
async function closeInspector (client, guard, url) {
  let c = client
  try {
    if (c && guard && c.ws.readyState === 1) return await rearm(c, guard, CLOSE_AFTER_MS)
    if (!c || c.ws.readyState !== 1) c = await connect(url)
    await c.post('Runtime.evaluate', { expression: guardExpr(CLOSE_AFTER_MS) })
  } catch {} finally {
    await disconnect(c)
  }
}

module.exports = { attach, closeOpened, guardExpr, preflight, inspectorOptions, isLoopback, hostPort, DEFAULT_PORT, GRACE_MS }

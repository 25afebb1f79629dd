'use strict'
// Profiles a running Node process that never loaded cprof, from outside:
// SIGUSR1 makes Node open its inspector on 127.0.0.1 (default port 9229);
// over the inspector's WebSocket (the `ws` client) this runs what the
// in-process path runs (Profiler.* or HeapProfiler.*Sampling), then closes
// the target's inspector again, so no debugger port stays open, and returns
// the profile's JSON text. Before anything is sent it checks, and refuses
// with ERR_CPROF_ATTACH and nothing changed, when: the process is not Node,
// SIGUSR1 is ignored or blocked there, Node runs with --disable-sigusr1, or
// the inspector port is already open (someone's debugger) or taken.
//
// What /proc cannot tell: whether the app installed its own SIGUSR1 handler
// (process.on('SIGUSR1')): it shows as caught either way, like Node's own.
// Then the signal goes to the app's handler and no inspector opens; attach
// says so after waiting (ERR_CPROF_ATTACH, exit 1).
const http = require('node:http')
const path = require('node:path')
const procfs = require('./procfs')
const { cprofError } = require('../errors')

const DEFAULT_PORT = 9229
const SIGUSR1 = 10
const OPEN_WAIT_MS = 10000 // default of opts.openWaitMs
const CLOSE_WAIT_MS = 10000

function attachError (message, props) {
  return cprofError('ERR_CPROF_ATTACH', message, props)
}

function sleep (ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

// --inspect-port=N, --inspect[-brk|-wait]=[host:]N, --debug-port=N in the
// command line or NODE_OPTIONS: the port SIGUSR1 opens (last one wins, as in
// Node's option parser); else 9229. Also whether --disable-sigusr1 is set.
function inspectorOptions (argv, nodeOptions) {
  const args = [...(nodeOptions ? nodeOptions.split(/\s+/).filter(Boolean) : []), ...argv]
  let port = DEFAULT_PORT
  let disabled = false
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === '--') break
    if (a === '--disable-sigusr1') disabled = true
    const m = /^--(?:inspect-port|debug-port|inspect|inspect-brk|inspect-wait)(?:=(.*))?$/.exec(a)
    if (!m) continue
    let v = m[1]
    if (v === undefined && /port$/.test(a)) v = args[++i]
    if (v === undefined) continue
    const pm = /(?:^|:)(\d+)$/.exec(v)
    if (pm) port = Number(pm[1])
  }
  return { port, disabled }
}

// argv up to the script (node's own options), so an app's `--inspect-port`
// argument is not taken for Node's.
function nodeArgs (cmd) {
  const out = []
  for (const a of cmd.slice(1)) {
    if (!a.startsWith('-')) break
    out.push(a)
  }
  return out
}

function isNode (pid) {
  const exe = procfs.exe(pid)
  const cmd = procfs.cmdline(pid)
  const base = exe ? path.basename(exe).replace(/ \(deleted\)$/, '') : null
  return { node: base === 'node' || base === 'nodejs', exe, cmd }
}

// GET http://127.0.0.1:port/json/list → the inspector's targets, or null
// when nothing (or no inspector) answers.
function jsonList (port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/json/list', timeout: timeoutMs }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { body += d })
      res.on('end', () => {
        try {
          const list = JSON.parse(body)
          resolve(Array.isArray(list) ? list : null)
        } catch {
          resolve(null)
        }
      })
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(null))
  })
}

function portOwners (port) {
  const inodes = new Set(procfs.tcpListeners().filter((l) => l.port === port).map((l) => l.inode))
  return inodes.size > 0
}

/** The checks made before any signal: { port, cmd } or throws ERR_CPROF_ATTACH. */
async function preflight (pid) {
  if (procfs.startTime(pid) === null) throw attachError(`no process ${pid} (or not one you may inspect)`)
  const who = isNode(pid)
  if (!who.node) {
    throw attachError(`process ${pid} is not Node.js (its executable is ${who.exe || 'unreadable'}): ` +
      'attach works on node processes only')
  }
  const env = procfs.env(pid) || {}
  const opts = inspectorOptions(nodeArgs(who.cmd || []), env.NODE_OPTIONS)
  if (opts.disabled) {
    throw attachError(`process ${pid} runs with --disable-sigusr1: SIGUSR1 does not open its inspector there`)
  }
  const disp = procfs.signalDisposition(pid, SIGUSR1)
  if (disp === null) throw attachError(`cannot read /proc/${pid}/status: is it your process?`)
  if (disp !== 'caught') {
    throw attachError(`process ${pid} has SIGUSR1 ${disp}, not Node's handler that opens the inspector ` +
      `(${disp === 'default' ? 'the signal would terminate it' : 'the signal would do nothing'}); nothing was sent`)
  }
  const own = procfs.listeningPorts(pid) || []
  if (opts.port !== 0 && (own.includes(opts.port) || (await jsonList(opts.port)) !== null)) {
    throw attachError(`an inspector already listens on 127.0.0.1:${opts.port}${own.includes(opts.port) ? ` (process ${pid}'s)` : ''}: ` +
      'someone else is debugging; attach refuses to share it and sent nothing')
  }
  if (opts.port === 0) {
    // --inspect-port=0: an inspector already open would be on any port of its own.
    for (const p of own) {
      if ((await jsonList(p)) !== null) {
        throw attachError(`an inspector already listens on 127.0.0.1:${p} (process ${pid}'s): someone else is ` +
          'debugging; attach refuses to share it and sent nothing')
      }
    }
  }
  if (opts.port !== 0 && portOwners(opts.port)) {
    throw attachError(`port ${opts.port} is taken by another process, so process ${pid} could not open its ` +
      'inspector there; nothing was sent (start it with --inspect-port=<free port>)')
  }
  return { port: opts.port, before: own }
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

// The inspector's WebSocket URL and port once it listens. Port 0
// (--inspect-port=0) is a port the kernel picks: a new listener of the
// process's, not among those it had before the signal.
async function waitForInspector (pid, port, before, waitMs = OPEN_WAIT_MS) {
  const deadline = Date.now() + waitMs
  while (Date.now() < deadline) {
    if (procfs.startTime(pid) === null) throw attachError(`process ${pid} exited after SIGUSR1`)
    const now = procfs.listeningPorts(pid) || []
    const candidates = port === 0 ? now.filter((p) => !before.includes(p)) : now.filter((p) => p === port)
    for (const p of candidates) {
      const list = await jsonList(p)
      const target = list && list.find((t) => t.webSocketDebuggerUrl)
      if (target) return { url: target.webSocketDebuggerUrl, port: p }
    }
    await sleep(50)
  }
  throw attachError(`process ${pid} did not open its inspector on 127.0.0.1:${port} within ${waitMs / 1000} s ` +
    'of SIGUSR1: the app may handle SIGUSR1 itself (process.on(\'SIGUSR1\'), which /proc cannot tell from ' +
    "Node's handler), or its event loop is blocked")
}

async function waitClosed (pid, port) {
  const deadline = Date.now() + CLOSE_WAIT_MS
  while (Date.now() < deadline) {
    if (!(procfs.listeningPorts(pid) || []).includes(port)) return true
    await sleep(50)
  }
  return false
}

// Inspector.close in the target, from a timer so that its reply reaches us
// first; node:inspector through process.getBuiltinModule (Node >= 20.16),
// else the main module's require.
const CLOSE_EXPR = `(() => {
  const get = typeof process.getBuiltinModule === 'function'
    ? () => process.getBuiltinModule('node:inspector')
    : () => process.mainModule.require('inspector')
  setTimeout(() => get().close(), 50)
  return true
})()`

/**
 * opts: { pid, durationMs, heap, intervalUs | intervalBytes, stackDepth, includeCollected,
 *         openWaitMs, onOpen(port) }.
 * Resolves { text (the profile's JSON), kind, port, closed } where closed
 * says the port was seen closed again.
 */
async function attach (opts) {
  const { pid } = opts
  const pre = await preflight(pid)
  process.kill(pid, 'SIGUSR1')
  const { url, port } = await waitForInspector(pid, pre.port, pre.before, opts.openWaitMs)
  if (opts.onOpen) opts.onOpen(port)
  let client
  let text
  try {
    client = await connect(url)
    text = await profile(client, opts)
  } finally {
    await closeInspector(client, url)
  }
  const closed = await waitClosed(pid, port)
  return { text, kind: opts.heap ? 'heap' : 'cpu', port, closed }
}

async function profile ({ post }, opts) {
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
    await sleep(opts.durationMs)
    const { profile } = await post('HeapProfiler.stopSampling')
    await post('HeapProfiler.disable')
    return JSON.stringify(profile)
  }
  await post('Profiler.enable')
  await post('Profiler.setSamplingInterval', { interval: opts.intervalUs })
  await post('Profiler.start')
  await sleep(opts.durationMs)
  const { profile } = await post('Profiler.stop')
  await post('Profiler.disable')
  return JSON.stringify(profile)
}

// Always runs, also after a failed profile: the port must not stay open.
async function closeInspector (client, url) {
  let c = client
  try {
    if (!c || c.ws.readyState !== 1) c = await connect(url)
    await c.post('Runtime.evaluate', { expression: CLOSE_EXPR })
  } catch {} finally {
    if (c) c.ws.close()
  }
}

module.exports = { attach, preflight, inspectorOptions, DEFAULT_PORT }

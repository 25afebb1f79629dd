'use strict'
// npm install → this script: check the system packages, then node-gyp with
// the headers of the running Node when it ships them (no header download).
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

function fail (line) {
  process.stderr.write(`cprof: ${line}\n`)
  process.exit(1)
}

const pc = spawnSync('pkg-config', ['--exists', 'libcjson'])
if (pc.error) fail('pkg-config is missing: sudo apt-get install -y pkg-config libcjson-dev')
if (pc.status !== 0) fail('cJSON is missing: sudo apt-get install -y libcjson-dev')

const prefix = path.resolve(path.dirname(process.execPath), '..')
const args = ['rebuild']
if (fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`)
// CPROF_SANITIZE=1: a Debug build with ASan + UBSan (binding.gyp's
// cprof_sanitize); scripts/test-asan.js runs this on a copy in .cache/asan.
if (process.env.CPROF_SANITIZE) args.push('--debug', '--cprof_sanitize=1')

const gyp = process.env.npm_config_node_gyp || require.resolve('node-gyp/bin/node-gyp.js', {
  paths: [path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules'), __dirname]
})
const r = spawnSync(process.execPath, [gyp, ...args], { stdio: 'inherit', cwd: path.join(__dirname, '..') })
process.exit(r.status ?? 1)

'use strict'
// The only file that touches the compiled addon.
const path = require('node:path')
const { cprofError } = require('./errors')

const ROOT = path.join(__dirname, '..')

// Which file: CPROF_ADDON when set (`npm run test:asan` points it at its
// sanitizer build in .cache/asan, test:prebuild at a prebuild, and the whole
// suite runs against it); otherwise what node-gyp-build picks: a source
// build (build/Release, then build/Debug) before the prebuilt binary for this
// platform, arch and libc (prebuilds/linux-x64/cprof.glibc.node, ...).
function resolve () {
  if (process.env.CPROF_ADDON) return path.resolve(process.env.CPROF_ADDON)
  try {
    return require('node-gyp-build').resolve(ROOT)
  } catch (err) {
    throw cprofError('ERR_CPROF_NOT_BUILT',
      `cprof has no native addon for this machine (${err.message.split('\n')[0].replace(/^No native build was found for /, '')}): ` +
      'reinstall it with `npm install cprof --build-from-source` (it needs ' +
      '`apt-get install -y build-essential python3 pkg-config libcjson-dev`)')
  }
}

function load () {
  const file = resolve()
  try {
    return require(file)
  } catch (err) {
    throw cprofError('ERR_CPROF_NOT_BUILT',
      `cprof's native addon ${file} does not load here (${err.message.split('\n')[0]}): reinstall it ` +
      'with `npm install cprof --build-from-source` (it needs ' +
      '`apt-get install -y build-essential python3 pkg-config libcjson-dev`)', { cause: err })
  }
}

module.exports = load()

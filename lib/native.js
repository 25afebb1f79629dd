'use strict'
// The only file that touches the compiled addon.
const path = require('node:path')
const { cprofError } = require('./errors')

function load () {
  // An addon built elsewhere: `npm run test:asan` points this at its
  // sanitizer build (.cache/asan) so the suite runs against it.
  if (process.env.CPROF_ADDON) return require(path.resolve(process.env.CPROF_ADDON))
  const root = path.join(__dirname, '..', 'build')
  const tried = []
  for (const dir of ['Release', 'Debug']) {
    const file = path.join(root, dir, 'cprof.node')
    try {
      return require(file)
    } catch (err) {
      if (err.code !== 'MODULE_NOT_FOUND') throw err
      tried.push(file)
    }
  }
  throw cprofError('ERR_CPROF_NOT_BUILT',
    `cprof's native addon is not built (looked in ${tried.join(', ')}): run \`npm install\` ` +
    '(it needs `apt-get install -y build-essential python3 pkg-config libcjson-dev`)')
}

module.exports = load()

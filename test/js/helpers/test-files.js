'use strict'
// The JS test files, as `npm run test:js` finds them (test/js/*/*.test.js:
// one folder per part of lib/, test/js/README.md), relative to the
// checkout and sorted. Fixtures and helpers are never test files. For the
// scripts that run the suite (test:asan, test:matrix, test:prebuild).

const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.resolve(__dirname, '..', '..', '..')

function testFiles () {
  const js = path.join(ROOT, 'test', 'js')
  return fs.readdirSync(js, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(js, d.name))
      .filter((f) => f.endsWith('.test.js'))
      .map((f) => path.join('test', 'js', d.name, f)))
    .sort()
}

module.exports = { testFiles }

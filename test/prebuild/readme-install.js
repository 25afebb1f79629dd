'use strict'
// The README's install lines: the two ```sh blocks of its "## Install"
// section, the first run in the clone (npm pack), the second in the app
// (npm install of the tarball, a check with a CPU profile). Comment-only and
// blank lines are dropped; every other line is run as written, by sh.
// scripts/test-prebuild.js runs them; test/js/project/docs.test.js checks
// they name this version's tarball, so neither can drift from the README.
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.resolve(__dirname, '..', '..')

function installLines (readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')) {
  const start = readme.indexOf('\n## Install\n')
  if (start < 0) throw new Error('README.md has no "## Install" section')
  const end = readme.indexOf('\n## ', start + 1)
  const section = readme.slice(start, end < 0 ? undefined : end)
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
    .map((m) => m[1].split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#')))
  if (blocks.length !== 2) {
    throw new Error(`README.md's Install section should hold two sh blocks (in the clone, in the app), not ${blocks.length}`)
  }
  return { clone: blocks[0], app: blocks[1] }
}

module.exports = { installLines }

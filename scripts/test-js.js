'use strict'
// npm run test:js [-- <node --test flags>] [-- <test files>]
//
// The JS suite with node's test runner: every test/js/*/*.test.js (or the
// files given), the longest first, CONCURRENCY files at a time
// (test/js/helpers/test-files.js). Flags, in --flag=value form (for
// example --test-reporter=tap), go to node --test as they are.
const { spawnSync } = require('node:child_process')
const path = require('node:path')
const { testFiles, CONCURRENCY } = require('../test/js/helpers/test-files.js')

const args = process.argv.slice(2)
const flags = args.filter((a) => a.startsWith('--'))
const files = args.filter((a) => !a.startsWith('--'))
const r = spawnSync(process.execPath, ['--test', `--test-concurrency=${CONCURRENCY}`, ...flags, ...(files.length ? files : testFiles())], {
  cwd: path.resolve(__dirname, '..'),
  stdio: 'inherit'
})
process.exit(r.status === null ? 1 : r.status)

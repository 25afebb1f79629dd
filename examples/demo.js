'use strict'

// npm run demo
//
// Starts the example HTTP server in this process, drives load against it from
// another process (examples/load.js, autocannon), profiles this process for
// 5 s while the load runs, and prints the functions that used the CPU.
//
// Knobs (environment): CPROF_DEMO_LOAD_MS (default 6000), CPROF_DEMO_PROFILE_MS
// (default 5000), CPROF_DEMO_DELAY_MS (default 500, load before profiling);
// CPROF_DIR says where the .cpuprofile goes. The plumbing is in harness.js.

const cprof = require('..') // require('cprof') in your app
const { runDemo } = require('./harness.js')

runDemo({
  loadScript: 'load.js',
  profile (ms) {
    console.log(`profiling for ${ms} ms...`)
    return cprof.profile({ duration: ms })
  },
  report: (result) => ({
    detail: `(interval ${result.intervalUs} µs)`,
    file: result.files.cpuprofile,
    viewers: 'Chrome DevTools (Performance panel), VS Code or speedscope'
  })
})

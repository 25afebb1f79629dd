'use strict'

// npm run demo:heap
//
// Starts the example HTTP server in this process, drives load against it from
// another process (examples/load-heap.js, autocannon) that hits /leak among
// other routes, takes a 5 s heap profile of this process while the load runs,
// and prints where the memory still held at the end was allocated: the leak
// view (includeCollected: false), which puts retainSessions (examples/leak.js)
// on top (or the caller V8 inlined it into), while the garbage of /json, /regex and churnBuffers drops out.
// forceGC: true runs a full GC at stop, so garbage that has not been collected
// yet (on a busy server, tens of MiB of /regex's match arrays) is not counted
// as still alive; Node < 26 runs that GC at every stop anyway (docs/api.md).
//
// Knobs (environment): CPROF_DEMO_LOAD_MS (default 6000), CPROF_DEMO_PROFILE_MS
// (default 5000), CPROF_DEMO_DELAY_MS (default 500, load before profiling,
// counted from the first request);
// CPROF_DIR says where the .heapprofile goes. The plumbing is in harness.js.

const cprof = require('..') // require('cprof') in your app
const { runDemo } = require('./harness.js')
const { sessionCount } = require('./leak.js')
const { formatBytes } = require('./table.js')

runDemo({
  loadScript: 'load-heap.js',
  profile (ms) {
    console.log(`heap profiling for ${ms} ms (leak view: objects still alive at the end)...`)
    return cprof.heap.profile({ duration: ms, forceGC: true })
  },
  report: (result) => ({
    detail: `(interval ${formatBytes(result.intervalBytes)}); ${sessionCount()} sessions leaked so far`,
    file: result.files.heapprofile,
    viewers: 'Chrome DevTools (Memory panel, load profile) or VS Code'
  })
})

'use strict'

// Drives HTTP load with autocannon against the example server for the heap
// demo: each connection cycles through /leak (leaks sessions) and routes that
// only make garbage (/json, /regex, /), then prints requests/s and exits.
//
//   node examples/load-heap.js [url=http://localhost:3000] [seconds=10] [connections=4]
//
// The load itself is examples/load.js's, with the heap demo's routes.

if (require.main === module) require('./load.js').main('heap')

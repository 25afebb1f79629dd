'use strict'
// A CPU profile's labels (docs/labels.md) sit beside it: X.cpuprofile's
// X.labels.json. A merge (cprof merge, a fleet's or a cluster's) asks the
// core to read and merge the inputs' sidecars (src/core/labelset.h) when
// any input has one; the merged sidecar goes beside the merged profile.
const fs = require('node:fs')

/** X.cpuprofile → X.labels.json; null for any other name. */
function sidecarPath (file) {
  return /\.cpuprofile$/i.test(file) ? file.replace(/\.cpuprofile$/i, '.labels.json') : null
}

/** The merged profile's sidecar name when any input has labels, else null
 * (out: the merged .cpuprofile's path or name). */
function mergedSidecar (inputs, out) {
  const side = sidecarPath(out)
  if (!side) return null
  return inputs.some((f) => { const s = sidecarPath(f); return s !== null && fs.existsSync(s) }) ? side : null
}

module.exports = { sidecarPath, mergedSidecar }

'use strict'
// Where each input starts in a merged CPU profile, for the html viewer's
// time-order view (docs/formats.md, "Viewer marks"): the merge concatenates
// the inputs' samples in the order given, so input k starts at the sum of
// the samples of the inputs before it. The counts come from a scan of each
// file's "samples" array (a `"samples":[` outside a string is the key: a
// quote inside a JSON string is escaped), not a second full parse.
const fs = require('node:fs')
const path = require('node:path')

function sampleCount (file) {
  const text = fs.readFileSync(file, 'latin1')
  const m = /"samples"\s*:\s*\[/.exec(text)
  if (!m) return -1
  let n = 0
  let any = false
  for (let i = m.index + m[0].length; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 93) return any ? n + 1 : 0 // ]
    if (c === 44) n++ // ,
    else if (c > 32) any = true
  }
  return -1
}

// The JSON text the viewer reads (viewerMarks), or undefined when a count
// cannot be read (the page then shows no boundaries rather than wrong ones).
// names: what to call each input (default: its file name).
function mergeMarks (paths, names) {
  const parts = []
  let first = 0
  for (const [k, p] of paths.entries()) {
    let n
    try { n = sampleCount(p) } catch (_) { return undefined }
    if (n < 0) return undefined
    parts.push({ name: names ? names[k] : path.basename(p), firstSample: first })
    first += n
  }
  return parts.length > 1 ? JSON.stringify({ instances: parts }) : undefined
}

module.exports = { mergeMarks, sampleCount }

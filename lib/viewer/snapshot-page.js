'use strict'
// A heap snapshot's viewer page (cprof html FILE.heapsnapshot, cprof ui's
// view): the core's view data (src/core/heapsnapshot.h: cprof_snapshot_view,
// analysed on a libuv worker thread, never on the event loop) in the viewer
// template's data block, where the page's snapshot.js finds it.
const fs = require('node:fs')
const { TEMPLATE_PATH, MARKER, scriptJson } = require('./index')
const { snapshotView } = require('../snapshot-report')

// The classes the page lists (docs/viewer.md gives every cap).
const VIEW_CLASSES = 500

/** The page's HTML for the snapshot file, titled title. → Promise<string> */
async function snapshotPage (file, title) {
  const [text, template] = await Promise.all([snapshotView(file, VIEW_CLASSES), fs.promises.readFile(TEMPLATE_PATH, 'utf8')])
  const view = JSON.parse(text)
  view.title = title
  return template.replace(MARKER, () => scriptJson(view))
}

module.exports = { snapshotPage, VIEW_CLASSES }

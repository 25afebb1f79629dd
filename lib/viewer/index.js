'use strict'
// Where the HTML viewer's page template lives; the native job reads it on
// its worker thread when a profile is written as 'html'. Built from
// lib/viewer/assets by lib/viewer/build.js.
const path = require('node:path')

const TEMPLATE_PATH = path.join(__dirname, 'template.html')
const MARKER = '__CPROF_PROFILE_JSON__' // CPROF_HTML_MARKER in src/core/export.h

// The page's heap-trend block (lib/viewer/assets/trend.js), empty in the template.
const TREND_BLOCK = '<script type="application/json" id="cprof-trend"></script>'

/** A written viewer page with a heap trend (status().heap.trend's shape) in
 * its trend block: the page then shows a "Heap trend" tab. JSON with <, >
 * and & escaped, so no text in it can close the script element. */
function withTrend (html, trend) {
  if (!html.includes(TREND_BLOCK)) return null // not a page of this viewer
  const json = JSON.stringify(trend).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
  return html.replace(TREND_BLOCK, () => TREND_BLOCK.replace('></', `>${json}</`))
}

module.exports = { TEMPLATE_PATH, MARKER, TREND_BLOCK, withTrend }

'use strict'
// Where the HTML viewer's page template lives; the native job reads it on
// its worker thread when a profile is written as 'html'. Built from
// lib/viewer/assets by lib/viewer/build.js.
const path = require('node:path')

const TEMPLATE_PATH = path.join(__dirname, 'template.html')
const MARKER = '__CPROF_PROFILE_JSON__' // CPROF_HTML_MARKER in src/core/export.h

// The page's heap-trend block (lib/viewer/assets/trend.js), empty in the template.
const TREND_BLOCK = '<script type="application/json" id="cprof-trend"></script>'

/** JSON for a script element: <, >, & and the line separators escaped, so
 * no text in it can close the element. */
function scriptJson (value) {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}

/** A written viewer page with a heap trend (status().heap.trend's shape) in
 * its trend block: the page then shows a "Heap trend" tab. JSON with <, >
 * and & escaped, so no text in it can close the script element. */
function withTrend (html, trend) {
  if (!html.includes(TREND_BLOCK)) return null // not a page of this viewer
  return html.replace(TREND_BLOCK, () => TREND_BLOCK.replace('></', `>${scriptJson(trend)}</`))
}

module.exports = { TEMPLATE_PATH, MARKER, TREND_BLOCK, withTrend, scriptJson }

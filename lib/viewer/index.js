'use strict'
// Where the HTML viewer's page template lives; the native job reads it on
// its worker thread when a profile is written as 'html'. Built from
// lib/viewer/assets by lib/viewer/build.js.
const path = require('node:path')

const TEMPLATE_PATH = path.join(__dirname, 'template.html')
const MARKER = '__CPROF_PROFILE_JSON__' // CPROF_HTML_MARKER in src/core/export.h

module.exports = { TEMPLATE_PATH, MARKER }

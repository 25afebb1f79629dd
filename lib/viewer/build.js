'use strict'
// The HTML viewer's page template (lib/viewer/template.html): the shell
// with the viewer's CSS and JS (lib/viewer/assets, one concern per file)
// inlined, the JS files as modules (each requires what it uses from the
// others, so scripts/check-cycles.js reads them as it reads lib/; joined here
// under a ten-line require, app.js first run), and a Content-Security-Policy that allows exactly those two
// inline blocks (by hash) and nothing else: no network, nothing fetched.
// The native exporter (src/core/export_html.c) puts the profile's JSON in
// place of the marker. The template is generated (`npm run build:viewer`)
// and committed; test/js/viewer/viewer.test.js checks it is up to date.
// Run: node lib/viewer/build.js (npm run build:viewer).
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')

const { TEMPLATE_PATH, MARKER } = require('./index')

const ASSETS = path.join(__dirname, 'assets')
const ENTRY = './app'

// The page's one script: every asset module in a function of its own, run
// once, when first required.
function joinModules (read) {
  const names = fs.readdirSync(ASSETS).filter((f) => f.endsWith('.js')).sort()
  const defs = names.map((f) => `defined['./${f.slice(0, -3)}'] = function (module, require) {\n${read(f)}}\n`)
  return `\n(function () {\n'use strict'\nconst defined = Object.create(null)\nconst loaded = Object.create(null)\n` +
    'function require (name) {\n  if (!loaded[name]) {\n    loaded[name] = { exports: {} }\n' +
    '    defined[name](loaded[name], require)\n  }\n  return loaded[name].exports\n}\n' +
    `${defs.join('')}require('${ENTRY}')\n})()\n`
}

function hash (text) {
  return `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`
}

function buildTemplate () {
  const read = (f) => fs.readFileSync(path.join(ASSETS, f), 'utf8')
  const style = read('style.css')
  const script = joinModules(read)
  for (const [what, text] of [['style', style], ['script', script]]) {
    if (/<\/(script|style)/i.test(text) || text.includes(MARKER)) {
      throw new Error(`viewer ${what} must not contain </script>, </style> or the data marker`)
    }
  }
  const csp = [
    "default-src 'none'",
    `script-src ${hash(script)}`,
    `style-src ${hash(style)}`,
    "img-src 'none'", "connect-src 'none'", "form-action 'none'", "base-uri 'none'"
  ].join('; ')
  const out = read('shell.html')
    .replace('__CPROF_CSP__', () => csp)
    .replace('__CPROF_STYLE__', () => style)
    .replace('__CPROF_SCRIPT__', () => script)
  if (out.split(MARKER).length !== 2) throw new Error('the viewer template must hold the data marker exactly once')
  return out
}

module.exports = { TEMPLATE_PATH, MARKER, buildTemplate }

if (require.main === module) {
  fs.writeFileSync(TEMPLATE_PATH, buildTemplate())
  process.stdout.write(`${TEMPLATE_PATH}\n`)
}

'use strict'

// One category, one colour: the SVG flame graph (src/core/export_svg.c) uses
// the HTML viewer's palette (lib/viewer/assets/flame.js KIND_HUES, the
// legend in app.js). Read from the viewer's own sources, so that a change on
// one side alone fails here.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { ROOT, makeTmpDir, removeTmpDirs } = require('../helpers/util.js')

after(removeTmpDirs)

const ASSETS = path.join(ROOT, 'lib', 'viewer', 'assets')

function hslToRgb (h, s, l) {
  s /= 100
  l /= 100
  const a = s * Math.min(l, 1 - l)
  const f = (n) => {
    const k = (n + h / 30) % 12
    return Math.round((l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))) * 255)
  }
  return [f(0), f(8), f(4)]
}

function rgbToHue ([r, g, b]) {
  const max = Math.max(r, g, b)
  const min = Math.min(r, g, b)
  if (max === min) return null
  const d = max - min
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4
  return (h * 60 + 360) % 360
}

function svgOf (profile) {
  const out = path.join(makeTmpDir(), 'f.svg')
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'cprof.js'), 'flame', profile, '-o', out], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  return fs.readFileSync(out, 'utf8')
}

test('the SVG legend shows the viewer legend\'s colours, category by category', () => {
  const app = fs.readFileSync(path.join(ASSETS, 'app.js'), 'utf8')
  const line = app.split('\n').find((l) => l.includes("'application'"))
  const viewer = [...line.matchAll(/\['hsl\((\d+), (\d+)%, (\d+)%\)', '([^']+)'\]/g)]
    .map((m) => ({ label: m[4], rgb: hslToRgb(+m[1], +m[2], +m[3]) }))
  assert.deepEqual(viewer.map((v) => v.label), ['application', 'node_modules', 'Node.js', 'V8 / native', '(idle)'])
  const svg = svgOf(path.join(ROOT, 'test', 'fixtures', 'small.cpuprofile'))
  const legend = [...svg.matchAll(/<rect x="\d+" y="60" width="12" height="12" fill="rgb\((\d+),(\d+),(\d+)\)"\/><text x="\d+" y="70">([^<]+)<\/text>/g)]
    .map((m) => ({ label: m[4], rgb: [+m[1], +m[2], +m[3]] }))
  assert.ok(legend.length >= 4, svg.slice(0, 2000))
  for (let i = 0; i < legend.length; i++) {
    for (let c = 0; c < 3; c++) {
      assert.ok(Math.abs(legend[i].rgb[c] - viewer[i].rgb[c]) <= 1,
        `${legend[i].label}: rgb(${legend[i].rgb}) in the SVG, rgb(${viewer[i].rgb}) (${viewer[i].label}) in the viewer`)
    }
  }
})

test('SVG frames take their hue from the viewer\'s range for their kind', () => {
  const flame = fs.readFileSync(path.join(ASSETS, 'flame.js'), 'utf8')
  const hues = JSON.parse(/const KIND_HUES = (\[.*\])$/m.exec(flame)[1])
  const svg = svgOf(path.join(ROOT, 'test', 'fixtures', 'small.cpuprofile'))
  const frames = [...svg.matchAll(/<g class="f"><title>([^\n&]*)[^<]*<\/title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"/g)]
    .map((m) => ({ label: m[1], hue: rgbToHue([+m[2], +m[3], +m[4]]) }))
  const node = frames.filter((f) => /\((node:|internal\/)/.test(f.label))
  const app = frames.filter((f) => /^.+ \((?!node:|internal\/)[^)]*\)$/.test(f.label) && !f.label.includes('node_modules'))
  assert.ok(node.length > 0 && app.length > 0, frames.map((f) => f.label).join('\n'))
  for (const [set, [h0, h1]] of [[node, hues[2]], [app, hues[0]]]) {
    for (const f of set) assert.ok(f.hue >= h0 - 1.5 && f.hue <= h1 + 1.5, `${f.label}: hue ${f.hue}, the viewer's ${h0}-${h1}`)
  }
})

// The viewer's own code (its assets are modules: the page joins them,
// Node requires them), run here on a profile where app code calls a
// builtin: (root) → main (app) → map (builtin), and (program).
test('a builtin the app calls (map) is coloured as app code in the viewer, as in the SVG', () => {
  const viewer = { ...require(path.join(ASSETS, 'model.js')), ...require(path.join(ASSETS, 'flame.js')) }
  const d = {
    unit: 'us',
    nodes: { fn: [0, 1, 2, 3], depth: [0, 1, 2, 1], self: [0, 0, 300, 100] },
    fns: { name: ['(root)', 'main', 'map', '(program)'], url: ['', 'file:///app/main.js', '', ''], line: [0, 10, 0, 0], kind: [3, 0, 3, 3] }
  }
  const m = viewer.buildModel(d)
  const colourOf = viewer.nodeColourer(m, viewer.colourTable(m))
  const hue = (c) => Number(/^hsl\(([\d.]+),/.exec(c)[1])
  const sat = (c) => Number(/, ([\d.]+)%,/.exec(c)[1])
  const [h0, h1] = viewer.KIND_HUES[0]
  assert.ok(hue(colourOf(2)) >= h0 && hue(colourOf(2)) <= h1 && sat(colourOf(2)) > 0, `map: ${colourOf(2)}`)
  assert.equal(sat(colourOf(3)), 0, `(program) stays grey: ${colourOf(3)}`)
  // The SVG of the same profile: map in the app's hues too.
  const profile = path.join(makeTmpDir(), 'builtin.cpuprofile')
  const frame = (id, functionName, url, children) => ({ id, callFrame: { functionName, scriptId: url ? '3' : '0', url, lineNumber: url ? 9 : -1, columnNumber: -1 }, children })
  fs.writeFileSync(profile, JSON.stringify({
    nodes: [frame(1, '(root)', '', [2, 4]), frame(2, 'main', 'file:///app/main.js', [3]), frame(3, 'map', ''), frame(4, '(program)', '')],
    startTime: 0, endTime: 400, samples: [3, 3, 3, 4], timeDeltas: [0, 100, 100, 100]
  }))
  const svg = svgOf(profile)
  const m2 = /<title>map[^<]*<\/title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"/.exec(svg)
  const h = rgbToHue([+m2[1], +m2[2], +m2[3]])
  assert.ok(h >= h0 - 1.5 && h <= h1 + 1.5, `map in the SVG: hue ${h}`)
})

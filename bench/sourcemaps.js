'use strict'
// Source maps at stop: stop → files on a real minified bundle with its map,
// with sourceMaps on and off, and the main-thread pause of each. See
// docs/benchmarks.md ("Source maps").
//
//   node bench/sourcemaps.js [--rounds N] [--seconds S] [--node 26] [--out FILE]
//   npm run bench -- --sections sourcemaps      the same inside the suite
//
// The bundle: markdown-it, fast-xml-parser, pm2's API, autocannon and
// pprof-format (all devDependencies) bundled and minified by esbuild with an
// external map, built once into bench/.cache/sourcemaps/. Each measurement is
// a fresh process (bench/sourcemaps-child.js) that stops twice: the first
// stop reads and decodes the map (cold cache), the second finds it cached.
// Processes alternate off, on, off, on, … so drift hits both alike.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { parseArgs } = require('node:util')
const { summary } = require('./stats')

const CACHE_DIR = path.join(__dirname, '.cache', 'sourcemaps')
const BUNDLE = path.join(CACHE_DIR, 'app-bundle.js')

function buildBundle () {
  if (fs.existsSync(BUNDLE) && fs.existsSync(`${BUNDLE}.map`)) return BUNDLE
  fs.mkdirSync(CACHE_DIR, { recursive: true })
  const entry = path.join(CACHE_DIR, 'entry.js')
  fs.writeFileSync(entry, `const MarkdownIt = require('markdown-it')
const { XMLParser, XMLBuilder } = require('fast-xml-parser')
const pm2 = require('pm2')
const autocannon = require('autocannon')
const pprof = require('pprof-format')
module.exports = { MarkdownIt, XMLParser, XMLBuilder, pm2, autocannon, pprof }
`)
  require('esbuild').buildSync({
    entryPoints: [entry],
    nodePaths: [path.join(__dirname, '..', 'node_modules')],
    bundle: true,
    minify: true,
    sourcemap: true,
    platform: 'node',
    format: 'cjs',
    outfile: BUNDLE,
    logLevel: 'silent',
    external: ['term.js', 'pty.js', 'blessed/lib/colors'] // optional requires of pm2's blessed
  })
  return BUNDLE
}

function child (node, bundle, sourceMaps, seconds) {
  return new Promise((resolve, reject) => {
    execFile(node, ['--expose-gc', path.join(__dirname, 'sourcemaps-child.js'), JSON.stringify({ bundle, sourceMaps, seconds })],
      { timeout: (seconds * 2 + 120) * 1000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message}\n${stderr}`))
        try {
          resolve(JSON.parse(stdout.trim().split('\n').pop()))
        } catch (e) {
          reject(new Error(`bad child output: ${stdout}\n${stderr}`))
        }
      })
  })
}

const MEASURES = [
  ['pause at stop (ELD)', 'eldMaxMs', 'ms'],
  ['pause at stop (probe)', 'probeMaxMs', 'ms'],
  ['stop call (sync)', 'syncMs', 'ms'],
  ['stop call CPU time', 'syncCpuMs', 'ms'],
  ['stop → files on disk', 'toFileMs', 'ms'],
  ['main-thread CPU, stop → files + 50 ms', 'mainCpuMs', 'ms']
]

/** Runs the measurements; returns { rows, runs, bundleBytes, mapBytes }. */
async function measure ({ node = process.execPath, rounds = 5, seconds = 5, log = () => {} } = {}) {
  const bundle = buildBundle()
  const res = { off: [], on: [] }
  for (let r = 0; r < rounds; r++) {
    for (const mode of r % 2 ? ['on', 'off'] : ['off', 'on']) {
      const m = await child(node, bundle, mode === 'on', seconds)
      res[mode].push(m)
      log(`  sourcemaps ${mode} ${r + 1}/${rounds}: cold pause ${m.cold.eldMaxMs.toFixed(1)} ms, stop→files ${m.cold.toFileMs.toFixed(1)} ms; ` +
        `warm pause ${m.warm.eldMaxMs.toFixed(1)} ms, stop→files ${m.warm.toFileMs.toFixed(1)} ms; mapped ${m.cold.mapped}, unmapped ${m.cold.unmapped}`)
    }
  }
  const rows = []
  for (const [measure, key, unit] of MEASURES) {
    for (const phase of ['cold', 'warm']) {
      const off = res.off.map((m) => m[phase][key]).filter((x) => x != null)
      const on = res.on.map((m) => m[phase][key]).filter((x) => x != null)
      if (!off.length || !on.length) continue // mainCpuMs before Node 23.9
      const mo = summary(off).median
      const mn = summary(on).median
      rows.push({ measure, phase, unit, off, on, medianOff: mo, medianOn: mn, ratio: mo > 0 ? mn / mo : null })
    }
  }
  const first = res.on[0]
  return { rows, runs: res, bundleBytes: first.bundleBytes, mapBytes: first.mapBytes, mapped: first.cold.mapped, unmapped: first.cold.unmapped }
}

function table (m) {
  const lines = ['| measure | stop | sourceMaps off (median) | sourceMaps on (median) | on / off |', '| --- | --- | --- | --- | --- |']
  for (const r of m.rows) {
    lines.push(`| ${r.measure} | ${r.phase === 'cold' ? 'first (map read)' : 'second (cached)'} | ${r.medianOff.toFixed(1)} ${r.unit} | ${r.medianOn.toFixed(1)} ${r.unit} | ${r.ratio == null ? '-' : r.ratio.toFixed(2) + 'x'} |`)
  }
  return lines.join('\n')
}

module.exports = { measure, table, buildBundle }

if (require.main === module) {
  const { values: opt } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '5' }, out: { type: 'string' }, node: { type: 'string' } } })
  const log = (s) => process.stderr.write(s + '\n')
  const node = opt.node ? require('./nodes').ensureNode(opt.node, log).bin : process.execPath
  const version = require('node:child_process').execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  measure({ node, rounds: Number(opt.rounds), seconds: Number(opt.seconds), log }).then((m) => {
    const date = new Date().toISOString()
    const head = `cprof bench sourcemaps — ${date.slice(0, 16).replace('T', ' ')} UTC, Node ${version}, ${os.cpus().length} cores, ` +
      `load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; bundle ${(m.bundleBytes / 1e6).toFixed(1)} MB, map ${(m.mapBytes / 1e6).toFixed(1)} MB; ` +
      `${opt.rounds} processes each way, ${opt.seconds} s profiles at 1 ms; mapped ${m.mapped} frames, ${m.unmapped} unmapped (Node's own files)`
    const text = `${head}\n\n${table(m)}\n`
    process.stdout.write(text)
    const out = opt.out || path.join(__dirname, 'results', `${date.slice(0, 10)}-sourcemaps.json`)
    fs.mkdirSync(path.dirname(out), { recursive: true })
    fs.writeFileSync(out, JSON.stringify({ date, node: version, load: os.loadavg(), ...m, table: text }, null, 1) + '\n')
    log(`wrote ${path.relative(process.cwd(), out)}`)
  }, (err) => {
    process.stderr.write(`${err.stack}\n`)
    process.exitCode = 1
  })
}

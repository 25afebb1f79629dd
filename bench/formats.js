'use strict'
// A conversion to every format (pprof, folded, SVG, text, HTML) with self time by line,
// as `cprof convert --formats pprof,folded,svg,txt,html --lines` does it: the CPU time of
// the job (process.cpuUsage around native.convert: the worker thread's time is the
// process's), this build's addon against another's, rounds alternating in one run.
//
//   node bench/formats.js --baseline OTHER.node [--file F.cpuprofile] [--rounds 9] [--json OUT]
//
// Without --file it profiles a real app for the input: uglify-js minifying handlebars'
// bundle (its functions, positionTicks and all), 15 s at 100 µs.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { parseArgs } = require('node:util')

const ROOT = path.join(__dirname, '..')
const FORMATS = { pprof: 'pb.gz', folded: 'folded', svg: 'svg', txt: 'txt', html: 'html' }

// In a child: one conversion with the addon CPROF_ADDON names; prints its CPU ms.
async function child (file, dir) {
  const native = require('../lib/native')
  const { TEMPLATE_PATH } = require('../lib/viewer')
  const outs = {}
  for (const [f, ext] of Object.entries(FORMATS)) outs[f] = `out.${ext}`
  const before = process.cpuUsage()
  await native.convert(file, dir, 20, { outs, lines: true, pprofLines: true, htmlTemplate: TEMPLATE_PATH })
  const used = process.cpuUsage(before)
  const sizes = Object.values(outs).map((n) => fs.statSync(path.join(dir, n)).size)
  process.stdout.write(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, sizes }) + '\n')
}

function makeInput (tmp) {
  const app = path.join(tmp, 'app.js')
  fs.writeFileSync(app, `
    const UglifyJS = require(${JSON.stringify(require.resolve('uglify-js'))})
    const code = require('node:fs').readFileSync(${JSON.stringify(require.resolve('handlebars/dist/handlebars.js'))}, 'utf8')
    const end = Date.now() + 15000
    while (Date.now() < end) UglifyJS.minify(code)
  `)
  execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${tmp}`, app])
  return path.join(tmp, fs.readdirSync(tmp).find((f) => f.endsWith('.cpuprofile')))
}

function once (addon, file, tmp) {
  const dir = fs.mkdtempSync(path.join(tmp, 'out-'))
  const out = execFileSync(process.execPath, [__filename, 'child', file, dir], {
    env: { ...process.env, CPROF_ADDON: addon }
  })
  fs.rmSync(dir, { recursive: true })
  return JSON.parse(out)
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

function main () {
  const { values } = parseArgs({
    options: {
      baseline: { type: 'string' },
      file: { type: 'string' },
      rounds: { type: 'string', default: '9' },
      json: { type: 'string' }
    }
  })
  if (!values.baseline) throw new Error('--baseline OTHER.node: the addon to compare with')
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-formats-'))
  const file = values.file ? path.resolve(values.file) : makeInput(tmp)
  const builds = { this: path.join(ROOT, 'build/Release/cprof.node'), baseline: path.resolve(values.baseline) }
  const ms = { this: [], baseline: [] }
  let sizes = null
  for (let i = 0; i < Number(values.rounds); i++) {
    for (const name of i % 2 ? ['baseline', 'this'] : ['this', 'baseline']) {
      const r = once(builds[name], file, tmp)
      ms[name].push(r.cpuMs)
      if (name === 'this') sizes = r.sizes
    }
  }
  const result = {
    file: path.basename(file),
    bytes: fs.statSync(file).size,
    node: process.version,
    rounds: Number(values.rounds),
    cpuMs: { this: median(ms.this), baseline: median(ms.baseline) },
    ratio: +(median(ms.this) / median(ms.baseline)).toFixed(3),
    all: ms,
    outputBytes: sizes
  }
  console.log(JSON.stringify(result, null, 2))
  if (values.json) fs.writeFileSync(values.json, JSON.stringify(result, null, 2) + '\n')
  fs.rmSync(tmp, { recursive: true })
}

if (process.argv[2] === 'child') {
  child(process.argv[3], process.argv[4]).catch((err) => { console.error(err); process.exit(1) })
} else {
  main()
}

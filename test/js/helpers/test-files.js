'use strict'
// The JS test files (test/js/*/*.test.js: one folder per part of lib/,
// test/js/README.md), relative to the checkout, and how the scripts that
// run the suite (npm run test:js, test:asan, test:matrix, test:prebuild)
// order and pick them. Fixtures and helpers are never test files.

const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.resolve(__dirname, '..', '..', '..')

// The files that take longest (wall time, most of it waiting on real
// outages, timers and child processes), started first: the runner starts
// files in the order given, so a long file started last would leave the
// other slots idle at the end of the run. Measured with a per-file reporter
// (test/js/README.md); a missing or renamed file fails project/structure.test.js.
const LONGEST_FIRST = [
  'test/js/push/push.test.js',
  'test/js/push/push-outage.test.js',
  'test/js/fleet/attach.test.js',
  'test/js/incidents/incidents.test.js',
  'test/js/triggers/triggers.test.js',
  'test/js/fleet/fleet.test.js',
  'test/js/api/sourcemaps.test.js',
  'test/js/api/security.test.js',
  'test/js/viewer/viewer-time.test.js',
  'test/js/triggers/pm2.test.js',
  'test/js/ui/ui.test.js',
  'test/js/api/faults.test.js',
  'test/js/incidents/incidents-startup.test.js',
  'test/js/incidents/heap-trend.test.js'
]

// Folders whose files check what cprof does with a profile once it is
// taken — reports, conversions, merges, gates, the viewer's pages in
// Chromium, the dashboard, the docs and the source tree — not how a Node
// major's inspector, V8 profiler, signals or hooks behave: that is api/,
// recorder/, incidents/, push/, triggers/, fleet/ and cli/run.test.js, the
// runtime tier. test:matrix runs the runtime tier on each Node major
// (--tier runtime); every file runs on the system's Node (npm test), and
// ASAN_FILES (below) under ASan.
// Two files sit in the other tier than their folder: cli/run.test.js
// starts profiles (`cprof run`'s preload); push/push-outage.test.js checks
// cprof's own queue and backoff over 84 s of outages, while the windows it
// pushes are made on every major by push.test.js.
const FILES_TIER = ['cli', 'viewer', 'ui', 'project']
const TIER_NOT_FOLDERS = {
  'test/js/cli/run.test.js': 'runtime',
  'test/js/push/push-outage.test.js': 'files'
}

function allFiles () {
  const js = path.join(ROOT, 'test', 'js')
  return fs.readdirSync(js, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(js, d.name))
      .filter((f) => f.endsWith('.test.js'))
      .map((f) => path.join('test', 'js', d.name, f)))
    .sort()
}

function tierOf (file) {
  const rel = file.split(path.sep).join('/')
  return TIER_NOT_FOLDERS[rel] || (FILES_TIER.includes(rel.split('/')[2]) ? 'files' : 'runtime')
}

// tier: 'runtime', 'files' or undefined (all). The longest files first,
// then the rest sorted.
function testFiles ({ tier } = {}) {
  const all = allFiles().filter((f) => !tier || tierOf(f) === tier)
  const first = LONGEST_FIRST.filter((f) => all.includes(f))
  return [...first, ...all.filter((f) => !first.includes(f))]
}

// Files at a time. A quiet run at two left the cores ~40% idle (11.0 min
// of wall time for ~13 min of CPU: the longest files wait on outages,
// timers and child processes); three fill them. The bounds that read the
// load at three beside two hogs (docs/reliability.md) now count CPU time
// or ask a margin a defect breaks by a factor.
const CONCURRENCY = 3

// test:asan's files (unless --all): a set that reaches every C line the
// whole suite reaches (10,205 in src/, gcov) at under half its CPU, chosen
// by bench/c-coverage.js: a greedy cover, most new lines per CPU-second
// first; then incidents.test.js (42 CPU-s for two lines) and viewer.test.js
// (15 for two) gave way to two small tests that reach those lines
// (recorder.test.js's status() before any start, text-safety.test.js's
// emoji in cprof html). Rerun it (--check) when tests move;
// docs/reliability.md has its figures.
const ASAN_FILES = [
  'test/js/api/errors.test.js',
  'test/js/api/exports.test.js',
  'test/js/api/faults.test.js',
  'test/js/api/heap.test.js',
  'test/js/api/labels.test.js',
  'test/js/api/leak.test.js',
  'test/js/api/lines.test.js',
  'test/js/api/otel.test.js',
  'test/js/api/security-sources.test.js',
  'test/js/api/security.test.js',
  'test/js/api/sourcemaps-minified.test.js',
  'test/js/api/sourcemaps.test.js',
  'test/js/api/transport.test.js',
  'test/js/api/v8cpu.test.js',
  'test/js/cli/cli.test.js',
  'test/js/cli/merge.test.js',
  'test/js/cli/snapshot-shapes.test.js',
  'test/js/cli/snapshot.test.js',
  'test/js/cli/text-safety.test.js',
  'test/js/recorder/recorder-triggers.test.js',
  'test/js/recorder/recorder.test.js',
  'test/js/viewer/viewer-labels.test.js',
  'test/js/viewer/viewer-time.test.js'
]

module.exports = { testFiles, allFiles, tierOf, TIER_NOT_FOLDERS, LONGEST_FIRST, CONCURRENCY, ASAN_FILES }

'use strict'

// lib/result.js: the one shape of a profile's result, from a native job's
// result or from files already named (a merge). Needs no addon.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { shapeResult, resultFiles } = require('../../../lib/result')

test('resultFiles: the kind\'s own file first, then each output by format', () => {
  const r = { file: { path: '/d/a.cpuprofile' }, outputs: { svg: { path: '/d/a.svg' }, pprof: { path: '/d/a.pb.gz' } } }
  assert.deepEqual(resultFiles('cpu', r), { cpuprofile: '/d/a.cpuprofile', svg: '/d/a.svg', pprof: '/d/a.pb.gz' })
  assert.deepEqual(resultFiles('heap', { file: { path: '/d/h.heapprofile' } }), { heapprofile: '/d/h.heapprofile' })
  assert.deepEqual(resultFiles('cpu', {}), {})
})

test('shapeResult: kind, files, startTime, the kind\'s fields, summary, sourceMaps when given, then the tail', () => {
  const summary = { total: 1 }
  const r = { file: { path: '/d/a.cpuprofile' }, summary, sourceMaps: { mapped: 2 } }
  const res = shapeResult('cpu', r, { startTime: 5, durationMs: 10, samples: 3 }, { from: 5, to: 15 })
  assert.deepEqual(Object.keys(res), ['kind', 'files', 'startTime', 'durationMs', 'samples', 'summary', 'sourceMaps', 'from', 'to'])
  assert.deepEqual(res, {
    kind: 'cpu', files: { cpuprofile: '/d/a.cpuprofile' }, startTime: 5, durationMs: 10, samples: 3, summary, sourceMaps: { mapped: 2 }, from: 5, to: 15
  })
  assert.equal('sourceMaps' in shapeResult('cpu', { summary }, { startTime: 1 }), false)
})

test('shapeResult: files already named (a merge) are kept as given', () => {
  const files = { heapprofile: '/d/m.heapprofile', svg: '/d/m.svg' }
  const res = shapeResult('heap', { files, summary: null }, { startTime: 1, samples: 2 }, { merged: true, missing: [] })
  assert.equal(res.files, files)
  assert.equal(res.merged, true)
})

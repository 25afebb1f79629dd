'use strict'
// One merged profile from the profiles of several instances (a PM2 app's,
// a node:cluster primary's and workers'), with each instance's share and
// the instances that delivered nothing. The merge itself is the native
// core's (cprof_profile_merge, src/core/merge.h), read, merged and written
// off the main thread; here only names and bookkeeping.
//
// Instances run at the same time, so the merge lays their samples end to
// end, each one's first sample where the previous profile ended: the merged
// file's timeline is the instances one after the other, and its duration
// the sum of the time they covered. Self and total times add up exactly,
// also for a viewer that reads them from the samples (formats.md).
const path = require('node:path')
const native = require('../native')
const { formatNames } = require('../options')
const { safeName } = require('../identity/process')
const { TEMPLATE_PATH } = require('../viewer')
const { mergeMarks } = require('../files/merge-marks')
const { mergedSidecar } = require('../files/labels-sidecar')
const { resultFiles } = require('../result')

const EXT = { cpu: 'cpuprofile', heap: 'heapprofile' }

function label (m) {
  return `${m.app}.${m.instance === null || m.instance === undefined ? (m.role === 'primary' ? 'primary' : 'x') : m.instance}`
}

/** <kind>-<app>.merged-<pid of the merger>-<stamp of the first start>. */
function mergedStem (kind, app, startTime) {
  const stamp = new Date(startTime).toISOString().replace(/[-:]/g, '')
  return `${kind}-${safeName(app)}.merged-${process.pid}-${stamp}`
}

/**
 * members: [{ pid, app, instance, role, file | null, reason }] (file: the
 * instance's profile; reason: why there is none). opts: { kind, app, dir,
 * startTime, formats, top }. Resolves { kind, files ({ cpuprofile |
 * heapprofile: path, <format>: path }, as every result names them:
 * lib/result.js), samples, durationMs,
 * summary, instances: [{ label, pid, file, samples, total (CPU: ms not
 * idle; heap: bytes), share (% of the instances' totals), top }],
 * missing: [{ label, pid, reason }] }; rejects (ERR_CPROF_FLEET) when no
 * instance delivered.
 */
async function mergeSet (members, opts) {
  const delivered = members.filter((m) => m.file)
  const missing = members.filter((m) => !m.file).map((m) => ({ label: label(m), pid: m.pid, reason: m.reason }))
  if (delivered.length === 0) {
    const err = new Error(`no instance of ${opts.app} delivered a profile: ` +
      missing.map((m) => `${m.label} (pid ${m.pid}): ${m.reason}`).join('; '))
    err.code = 'ERR_CPROF_FLEET'
    err.missing = missing
    throw err
  }
  // Each instance's own figures, for its share (parsed off the main thread).
  // An instance may hold no samples (a heap profile of a worker that
  // allocated nothing): it counts 0; the merged profile must hold some.
  const own = await Promise.all(delivered.map((m) => native.convert(m.file, null, 1, { needSamples: false })))
  const dir = opts.dir || path.dirname(delivered[0].file)
  const stem = mergedStem(opts.kind, opts.app, opts.startTime)
  const outs = formatNames(stem, opts.formats)
  const name = `${stem}.${EXT[opts.kind]}`
  const labels = mergedSidecar(delivered.map((m) => m.file), name) // the instances' labels, merged
  const r = await native.merge(delivered.map((m) => m.file), dir, name, opts.top || 10, {
    outs,
    ...(labels ? { labelsFile: labels } : {}),
    title: `${opts.app}: ${delivered.length} instance${delivered.length === 1 ? '' : 's'} merged`,
    needSamples: true,
    keepExisting: true,
    ...(outs.html ? viewerOpts(opts.kind, delivered.map((m) => m.file), delivered.map((m) => `${label(m)} (pid ${m.pid})`)) : {})
  })
  // CPU: the share of the time on CPU (idle left out: an idle primary
  // would otherwise count as much as a busy worker); heap: of the bytes.
  const busy = own.map((o) => o.summary.total - (o.summary.idle ? o.summary.idle.self : 0))
  const sum = busy.reduce((a, b) => a + b, 0)
  const instances = delivered.map((m, i) => ({
    label: label(m),
    pid: m.pid,
    file: m.file,
    samples: own[i].samples,
    total: busy[i],
    unit: own[i].summary.unit,
    share: sum > 0 ? (busy[i] / sum) * 100 : 0,
    top: own[i].summary.top[0] ? own[i].summary.top[0].functionName : null
  }))
  return {
    kind: r.kind,
    files: resultFiles(r.kind, r),
    samples: r.samples,
    durationMs: r.durationMs,
    summary: r.summary,
    instances,
    missing
  }
}

// --formats html: the viewer's page (not the bare data page), and for CPU
// where each instance (files, in the merge's order) starts in the merged
// samples, named by its label and pid (docs/formats.md, "Viewer marks");
// read only when a page is asked for.
function viewerOpts (kind, files, names) {
  const marks = kind === 'cpu' && files.length > 1 ? mergeMarks(files, names) : undefined
  return marks ? { htmlTemplate: TEMPLATE_PATH, viewerMarks: marks } : { htmlTemplate: TEMPLATE_PATH }
}

module.exports = { mergeSet, label, mergedStem, viewerOpts }

'use strict'
// The one shape of a profile's result: what stop(), heap.stop(),
// recorder.dump() and a node:cluster primary's merge resolve with, and what
// their 'profile' events carry (docs/api.md). Kept in one place so every
// source of results says the same thing in the same order:
// { kind, files, startTime, ...the kind's fields, summary, sourceMaps?, ...tail }.

const OWN_FORMAT = { cpu: 'cpuprofile', heap: 'heapprofile' }

/** { cpuprofile | heapprofile: path, <format>: path }: the files a native
 * job wrote, from its { file: { path }, outputs: { <format>: { path } } }. */
function resultFiles (kind, r) {
  const files = {}
  if (r.file) files[OWN_FORMAT[kind]] = r.file.path
  for (const [format, out] of Object.entries(r.outputs || {})) files[format] = out.path
  return files
}

/**
 * kind: 'cpu' | 'heap'; r: the native job's result ({ file, outputs,
 * summary, sourceMaps? }), or { files, summary } when the files are named
 * already (a merge); fields: { startTime, ...the kind's own: durationMs,
 * samples, intervalUs | intervalBytes, ... }; tail: what follows the
 * summary (a dump's from, to, windows; a merge's instances, missing).
 */
function shapeResult (kind, r, fields, tail = {}) {
  return {
    kind,
    files: r.files || resultFiles(kind, r),
    ...fields,
    summary: r.summary,
    ...(r.sourceMaps ? { sourceMaps: r.sourceMaps } : {}),
    ...tail
  }
}

module.exports = { shapeResult, resultFiles }

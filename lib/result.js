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

// A function's name for one line: "fn" or "(anonymous) file.js:12".
function frameName (f) {
  const base = typeof f.url === 'string' && f.url ? f.url.split('/').pop() : ''
  return f.functionName || `(anonymous)${base ? ` ${base}:${f.line}` : ''}`
}

/** One line a person reads first: "wrote <file> (cpu, 1.8 s, 141
 * samples); top self: hashLoop 61.2 %, parse 10.1 %, (anonymous) a.js:3 4.0 %". */
function resultLine (r) {
  const file = Object.values(r.files || {})[0]
  const secs = typeof r.durationMs === 'number' ? ` ${(r.durationMs / 1000).toFixed(1)} s,` : ''
  const top = ((r.summary && r.summary.top) || []).slice(0, 3)
    .map((f) => `${frameName(f)} ${Number(f.selfPercent).toFixed(1)} %`)
  return `wrote ${file} (${r.kind},${secs} ${r.samples} samples)${top.length ? `; top self: ${top.join(', ')}` : ''}`
}

module.exports = { shapeResult, resultFiles, resultLine }

'use strict'
// The heap trend as the CLI shows it (cprof ps, cprof leaks): the trend a
// process's recorder announces in its run-directory entry
// (entry.recorder.heapTrend, status().heap.trend: docs/recorder.md, Heap
// trend), in words, and the sites of several instances of one app summed.

const MIB = 1024 * 1024

function bytes (n) {
  const a = Math.abs(n)
  if (a >= MIB) return `${(n / MIB).toFixed(1)} MiB`
  if (a >= 1024) return `${(n / 1024).toFixed(1)} KiB`
  return `${Math.round(n)} B`
}

function perMinute (n) {
  return `${n >= 0 ? '+' : '-'}${bytes(Math.abs(n))}/min`
}

// A site's script as a reader finds it: file:// dropped, relative to the
// process's working directory when under it.
function script (url, cwd) {
  let file = String(url || '')
  if (file.startsWith('file://')) {
    try { file = decodeURIComponent(new URL(file).pathname) } catch {}
  }
  if (cwd && file.startsWith(cwd + '/')) file = file.slice(cwd.length + 1)
  return file
}

function siteName (s, cwd) {
  const where = script(s.url, cwd)
  const fn = s.functionName || '(anonymous)'
  return where ? `${fn} ${where}${s.line ? ':' + s.line : ''}` : fn
}

function clock (ms) {
  return ms ? new Date(ms).toISOString().slice(11, 19) : '-'
}

/** One line for cprof ps: "+17.7 MiB/min allocated at leakyRemember app.js:20" (where V8
 * allocated the growing bytes, not what holds them: cprof leaks --holders), "heap
 * +1.2 MiB/min, no growing site" (the whole heap grows, no one site does: warm-up, many
 * small sites), "steady", or "-". */
function psText (entry) {
  const t = entry.recorder && entry.recorder.heapTrend
  if (!t || !t.windows) return '-'
  if (!t.top || t.top.length === 0) return t.growing ? `heap ${perMinute(t.perMinute)}, no growing site` : 'steady'
  return `${perMinute(t.top[0].perMinute)} allocated at ${siteName(t.top[0], entry.cwd)}` +
    (t.growingSites > 1 ? ` (+${t.growingSites - 1} more)` : '')
}

/** The growing sites of several instances of one app, summed by site:
 * [{ functionName, url, line, live, perMinute, since, share, instances }],
 * largest growth first; share is of the instances' heaps' growth together. */
function combine (entries) {
  const sites = new Map()
  let heapGrowth = 0
  for (const e of entries) {
    const t = e.recorder && e.recorder.heapTrend
    if (!t) continue
    if (t.perMinute > 0) heapGrowth += t.perMinute
    for (const s of t.top || []) {
      const key = `${s.functionName}\0${script(s.url, e.cwd)}\0${s.line}`
      const c = sites.get(key) || { ...s, url: script(s.url, e.cwd), live: 0, perMinute: 0, since: s.since, instances: 0 }
      c.live += s.live
      c.perMinute += s.perMinute
      c.since = Math.min(c.since, s.since)
      c.instances++
      sites.set(key, c)
    }
  }
  const out = [...sites.values()].sort((a, b) => b.perMinute - a.perMinute)
  for (const s of out) s.share = heapGrowth > 0 ? s.perMinute / heapGrowth : null
  return out
}

module.exports = { bytes, perMinute, script, siteName, clock, psText, combine }

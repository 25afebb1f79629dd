'use strict'
// cprof report FILE --by KEY / --where KEY=VALUE (docs/labels.md): a
// .cpuprofile read with its <stem>.labels.json sidecar (one label set per
// sample). --where keeps the samples whose set has KEY=VALUE, each with its
// own time (the gap to the next sample, as DevTools counts), and hands that
// profile to the native report; --by splits the time by KEY's values, and
// each top function's self and total time with it.
const crypto = require('node:crypto')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { cprofError } = require('../errors')
const { termSafe } = require('../term')
const { sidecarPath } = require('../files/labels-sidecar')

const MAX_BYTES = 512 * 1024 * 1024 // a sidecar is ~1-7 bytes a sample
const NONE = '(none)'

function badSidecar (file, why) {
  return cprofError('ERR_CPROF_INVALID_ARG', `${file}: ${why}; it is the labels of a CPU profile written with labels: true (docs/labels.md)`)
}

function readJson (file, what) {
  let st
  try {
    st = fs.statSync(file)
  } catch (err) {
    if (err.code === 'ENOENT' && what === 'labels') {
      throw cprofError('ERR_CPROF_INVALID_ARG', `--by and --where need the labels beside the profile, ${file}, ` +
        'which a profile started with labels: true writes (docs/labels.md)')
    }
    throw cprofError('ERR_CPROF_IO', `cannot read ${file}: ${err.message}`)
  }
  if (!st.isFile() || st.size > MAX_BYTES) throw cprofError('ERR_CPROF_IO', `cannot read ${file}: not a regular file of at most ${MAX_BYTES} bytes`)
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw cprofError('ERR_CPROF_INVALID_ARG', `${file}: not JSON (${err.message})`)
  }
}

/** The profile and its labels, checked: { profile, sets, samples } */
function readLabeled (file) {
  const side = sidecarPath(file)
  if (!side) throw cprofError('ERR_CPROF_INVALID_ARG', `--by and --where read a .cpuprofile and its .labels.json, not ${file}`)
  const labels = readJson(side, 'labels')
  const profile = readJson(file, 'profile')
  if (!profile || !Array.isArray(profile.nodes) || !Array.isArray(profile.samples) || !Array.isArray(profile.timeDeltas)) {
    throw cprofError('ERR_CPROF_INVALID_ARG', `${file}: not a CPU profile (nodes, samples, timeDeltas)`)
  }
  if (!labels || labels.version !== 1 || !Array.isArray(labels.sets) || !Array.isArray(labels.samples)) {
    throw badSidecar(side, 'not a labels file (version 1, sets, samples)')
  }
  if (labels.samples.length !== profile.samples.length) {
    throw badSidecar(side, `${labels.samples.length} samples, the profile has ${profile.samples.length}: not this profile's labels`)
  }
  for (const s of labels.sets) {
    if (!s || typeof s !== 'object' || Array.isArray(s) || Object.values(s).some((v) => typeof v !== 'string')) throw badSidecar(side, 'a set is not an object of strings')
  }
  for (const id of labels.samples) {
    if (!Number.isInteger(id) || id < 0 || id >= labels.sets.length) throw badSidecar(side, `sample set ${id} is not in sets`)
  }
  return { profile, sets: labels.sets, samples: labels.samples }
}

// Each sample's time in µs: the gap to the next sample; the last one's to endTime.
function weights (p) {
  const t = []
  let at = p.startTime
  for (const d of p.timeDeltas) t.push(at += d)
  return t.map((x, i) => Math.max(0, (i + 1 < t.length ? t[i + 1] : p.endTime) - x))
}

/** "KEY=VALUE" → { key, value }, or null. */
function parseWhere (text) {
  const i = text.indexOf('=')
  return i > 0 ? { key: text.slice(0, i), value: text.slice(i + 1) } : null
}

/**
 * --where: the samples whose set has key=value, as a .cpuprofile in a
 * private temp directory. → { file, kept, keptUs, totalUs, cleanup() }
 */
function whereProfile (file, { key, value }) {
  const { profile: p, sets, samples } = readLabeled(file)
  const w = weights(p)
  const keep = []
  let totalUs = 0
  let keptUs = 0
  samples.forEach((id, i) => {
    totalUs += w[i]
    if (sets[id][key] === value) { keep.push(i); keptUs += w[i] }
  })
  // Each kept sample keeps its time: the deltas are the kept weights.
  const deltas = keep.map((i, j) => (j === 0 ? 0 : w[keep[j - 1]]))
  const out = {
    nodes: p.nodes.map((n) => ({ ...n, hitCount: 0, positionTicks: undefined })),
    startTime: p.startTime,
    endTime: p.startTime + keptUs,
    samples: keep.map((i) => p.samples[i]),
    timeDeltas: deltas
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-where-'))
  const tmp = path.join(dir, `${path.basename(file, '.cpuprofile')}-where-${crypto.randomBytes(3).toString('hex')}.cpuprofile`)
  fs.writeFileSync(tmp, JSON.stringify(out), { mode: 0o600 })
  return { file: tmp, kept: keep.length, keptUs, totalUs, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

// A function's key and name for people: "name (file:line)".
function fnOf (frame) {
  const url = frame.url ? frame.url.replace(/^file:\/\//, '') : ''
  const name = frame.functionName || '(anonymous)'
  return { key: `${frame.functionName}\0${frame.url}\0${frame.lineNumber}`, name: url ? `${name} (${url}:${frame.lineNumber + 1})` : name }
}

/** --by key: { key, totalUs, values: [{ value, samples, us }], functions: [{ name, self: {value: us}, total: {value: us} }] } */
function byLabel (file, key, top) {
  const { profile: p, sets, samples } = readLabeled(file)
  const w = weights(p)
  const node = new Map(p.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id)
  const values = new Map()
  const fns = new Map()
  const fnEntry = (frame) => {
    const f = fnOf(frame)
    if (!fns.has(f.key)) fns.set(f.key, { name: f.name, selfUs: 0, self: {}, total: {} })
    return fns.get(f.key)
  }
  let totalUs = 0
  samples.forEach((id, i) => {
    const v = sets[id][key] !== undefined ? sets[id][key] : NONE
    const row = values.get(v) || { value: v, samples: 0, us: 0 }
    row.samples++
    row.us += w[i]
    values.set(v, row)
    totalUs += w[i]
    const seen = new Set()
    let n = node.get(p.samples[i])
    const leaf = fnEntry(n.callFrame)
    leaf.selfUs += w[i]
    leaf.self[v] = (leaf.self[v] || 0) + w[i]
    for (; n; n = node.get(parent.get(n.id))) {
      const f = fnEntry(n.callFrame)
      if (seen.has(f)) continue
      seen.add(f)
      f.total[v] = (f.total[v] || 0) + w[i]
    }
  })
  const skip = new Set(['(root)', '(idle)', '(program)'])
  const functions = [...fns.values()].filter((f) => !skip.has(f.name) && f.selfUs > 0)
    .sort((a, b) => b.selfUs - a.selfUs).slice(0, top)
    .map(({ name, self, total }) => ({ name, self, total }))
  return { key, totalUs, values: [...values.values()].sort((a, b) => b.us - a.us), functions }
}

const ms = (us) => `${(us / 1000).toFixed(2)} ms`
const pct = (part, whole) => `${whole > 0 ? (100 * part / whole).toFixed(1) : '0.0'} %`

function pad (s, n) {
  return s.length >= n ? s : s + ' '.repeat(n - s.length)
}

/** The --by text: time by value, then each top function's self and total by value. */
function byText (file, r) {
  const cols = r.values.slice(0, 8).map((v) => v.value)
  const w = Math.max(12, ...cols.map((c) => Math.min(24, c.length + 2)))
  const lines = [`${termSafe(file)}: time by ${termSafe(r.key)} (${ms(r.totalUs)} in all)`, '']
  lines.push(`  ${pad('value', 24)} ${pad('samples', 9)} ${pad('time', 14)} share`)
  for (const v of r.values) lines.push(`  ${pad(termSafe(v.value).slice(0, 24), 24)} ${pad(String(v.samples), 9)} ${pad(ms(v.us), 14)} ${pct(v.us, r.totalUs)}`)
  if (r.values.length > cols.length) lines.push(`  (${r.values.length - cols.length} more values; the tables below show the first ${cols.length})`)
  for (const kind of ['self', 'total']) {
    lines.push('', `Top functions by self time, ${kind} time by ${termSafe(r.key)}:`)
    lines.push(`  ${cols.map((c) => pad(termSafe(c).slice(0, w - 2), w)).join('')}function`)
    for (const f of r.functions) lines.push(`  ${cols.map((c) => pad(ms(f[kind][c] || 0), w)).join('')}${termSafe(f.name)}`)
  }
  return lines.join('\n') + '\n'
}

module.exports = { readLabeled, whereProfile, byLabel, byText, parseWhere, sidecarPath }

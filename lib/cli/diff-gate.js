'use strict'
// The regression gate of `cprof diff --fail-above` and its summaries (text
// lines, markdown for a pull request). The figures are the native core's
// (src/core/diff.c, diffJson: every function's self and self samples in
// both profiles, and each profile's busy time); this file only applies the
// rule (docs/cli.md, "Regression gate") and writes it down.
const { termSafe } = require('../term')

const DEFAULTS = { minSamples: 30, sigma: 3 }

// "5%", "5", "5pts", "2.5 pts": percentage points of busy time, above 0 and
// below 100. { value } or { error }.
function pointsArg (name, text) {
  if (text === undefined) return { value: undefined }
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%|pts?|pp)?\s*$/i.exec(text)
  const v = m ? Number(m[1]) : NaN
  if (!m || !(v > 0) || v >= 100) {
    return { error: `--${name} takes percentage points of busy time above 0 and below 100, e.g. 5% or 2.5, got "${text}"` }
  }
  return { value: v }
}

// 100 · p: the share in percent, 0 for an empty whole.
const pct = (part, whole) => (whole > 0 ? 100 * part / whole : 0)

// Each ranked function of the core's JSON with the gate's figures: its
// share of its side's busy samples before and after (%), the change (pts),
// the noise allowance (pts: sigma standard errors of the difference of two
// binomial proportions), and its status against the threshold.
//
// Samples, not time: a sample weighs the gap to the next one, which on a
// loaded machine includes the time the process waited for a CPU, so time
// shares of the same code move by several points between runs where sample
// shares move by about one (docs/cli.md, "Regression gate").
function judge (data, { threshold, minSamples = DEFAULTS.minSamples, sigma = DEFAULTS.sigma } = {}) {
  const [nb, na] = data.busySamples
  const rows = data.functions.map((f) => {
    const before = pct(f.selfSamples[0], nb)
    const after = pct(f.selfSamples[1], na)
    const delta = after - before
    const pb = before / 100
    const pa = after / 100
    const se = Math.sqrt((nb > 0 ? pb * (1 - pb) / nb : 0) + (na > 0 ? pa * (1 - pa) / na : 0))
    const noise = 100 * sigma * se
    // the side the change is measured on: head for a growth, base for a fall
    const samples = delta >= 0 ? f.selfSamples[1] : f.selfSamples[0]
    let status = 'change'
    if (threshold !== undefined && Math.abs(delta) > threshold) {
      if (samples < minSamples) status = 'few samples'
      else if (Math.abs(delta) <= noise || nb === 0 || na === 0) status = 'within noise'
      else status = delta > 0 ? 'regression' : 'improvement'
    }
    return { ...f, before, after, delta, noise, samples, status }
  })
  rows.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta))
  const regressions = rows.filter((r) => r.status === 'regression')
  const improvements = rows.filter((r) => r.status === 'improvement')
  return { rows, regressions, improvements, failed: regressions.length > 0, threshold, minSamples, sigma }
}

const fixed = (v, d = 2) => v.toFixed(d)
const signed = (v) => (v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1') + Math.abs(v).toFixed(2)
const count = (n) => n.toLocaleString('en-US')

function where (f) {
  if (!f.url) return ''
  const file = f.url.startsWith('node:') ? f.url : f.url.replace(/^.*[\\/]/, '')
  return f.line ? `${file}:${f.line}` : file
}

function ruleText (g) {
  return `a function fails when its share of the busy samples (its own samples / all samples but (idle)) ` +
    `grew by more than ${g.threshold} pts, with at least ${g.minSamples} of its samples in head, ` +
    `and by more than ${g.sigma} standard errors of sampling noise`
}

function verdictText (g, kind) {
  const what = kind === 'heap' ? 'the samples' : 'busy samples'
  if (g.failed) {
    const n = g.regressions.length
    return `FAIL: ${n} function${n === 1 ? '' : 's'} grew by more than ${g.threshold} pts of ${what}: ` +
      g.regressions.slice(0, 3).map((r) => r.name).join(', ') + (n > 3 ? ', \u2026' : '')
  }
  return `PASS: no function's share of ${what} grew by more than ${g.threshold} pts beyond noise`
}

// The gate's lines after the text table.
function gateText (g, kind) {
  const lines = ['', `Gate: ${ruleText(g)}.`]
  for (const r of [...g.regressions, ...g.improvements]) {
    lines.push(`${r.status === 'regression' ? 'REGRESSION ' : 'improvement'}  ${termSafe(r.label)}: ` +
      `${fixed(r.before)}% \u2192 ${fixed(r.after)}%, ${signed(r.delta)} pts (noise \u00b1${fixed(r.noise)} pts, ${count(r.samples)} samples)`)
  }
  const held = g.rows.filter((r) => r.status === 'within noise' || r.status === 'few samples')
  for (const r of held.slice(0, 5)) {
    lines.push(`not counted  ${termSafe(r.label)}: ${signed(r.delta)} pts, ${r.status} ` +
      `(noise \u00b1${fixed(r.noise)} pts, ${count(r.samples)} samples)`)
  }
  lines.push(verdictText(g, kind), '')
  return lines.join('\n')
}

// Markdown-safe text for a table cell: control characters escaped as the
// terminal output escapes them, then every character markdown gives a
// meaning to backslash-escaped, so a name never becomes markup or a column.
function mdText (s) {
  return termSafe(String(s)).replace(/[\\`*_{}[\]()<>#+!|~&"-]/g, (c) => '\\' + c)
}

function side (name, data, s, files) {
  const busy = data.kind === 'cpu' ? `busy ${fixed(data.busy[s] / 1e6, 3)} s, ${count(data.busySamples[s])} busy samples` : `${count(data.samples[s])} samples`
  return `**${name}**: ${files.length} profile${files.length === 1 ? '' : 's'}, ${busy}`
}

// The pull-request summary: the verdict (with a gate), what the shares are
// of, then the top changes as a table.
function markdown (data, g, { top = 10, base = [], head = [] } = {}) {
  const of = data.kind === 'cpu' ? 'busy samples (all but `(idle)`)' : 'samples'
  const out = ['### cprof diff', '']
  if (g.threshold !== undefined) out.push(`${g.failed ? '\u274c' : '\u2705'} **${mdText(verdictText(g, data.kind))}**`, '')
  out.push(`${side('Base', data, 0, base)} \u00b7 ${side('Head', data, 1, head)}`, '')
  if (data.kind === 'cpu' && base.length && head.length && data.busy[0] > 0) {
    // Per profile, the unit of work when every run does the same work; not gated:
    // a sample's time includes the time the process waited for a CPU.
    const b = data.busy[0] / base.length
    const h = data.busy[1] / head.length
    out.push(`Busy time per profile: ${fixed(b / 1e6, 3)} s \u2192 ${fixed(h / 1e6, 3)} s ` +
      `(${signed(100 * (h - b) / b).replace(/\.(\d)\d$/, '.$1')}%; comparable when each run does the same work; not gated)`, '')
  }
  out.push(`Base, Head: a function's own samples as % of its side's ${of}; \u0394 in percentage points; ` +
    'Samples: its own, in head (in base for a fall).' + (g.threshold !== undefined
    ? ` Gate: \u0394 above ${g.threshold} pts, at least ${g.minSamples} samples, beyond ${g.sigma} standard errors of sampling noise.`
    : ''), '')
  const shown = [...g.regressions, ...g.improvements]
  for (const r of g.rows) {
    if (shown.length >= Math.max(top, g.regressions.length + g.improvements.length)) break
    if (!shown.includes(r)) shown.push(r)
  }
  if (shown.length === 0) {
    out.push('No function in either profile.', '')
    return out.join('\n')
  }
  out.push('| Function | Where | Base | Head | \u0394 pts | Noise \u00b1 | Samples | |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |')
  for (const r of shown) {
    const mark = r.status === 'regression' ? '\u274c regression' : r.status === 'improvement' ? '\u2705 improvement' : r.status === 'change' ? '' : mdText(r.status)
    out.push(`| ${mdText(r.name)} | ${mdText(where(r))} | ${fixed(r.before)}% | ${fixed(r.after)}% | ` +
      `${signed(r.delta)} | ${fixed(r.noise)} | ${count(r.samples)} | ${mark} |`)
  }
  out.push('')
  return out.join('\n')
}

module.exports = { DEFAULTS, pointsArg, judge, gateText, markdown, mdText, verdictText }

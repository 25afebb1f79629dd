'use strict'

function median (xs) {
  if (!xs.length) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

function summary (xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x))
  return { median: median(v), min: v.length ? Math.min(...v) : NaN, max: v.length ? Math.max(...v) : NaN, n: v.length }
}

module.exports = { median, summary }

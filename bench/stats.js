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

// Two-sided 95% Student t quantiles by degrees of freedom (1..30; normal after).
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
  2.052, 2.048, 2.045, 2.042]

// Half-width of the 95% confidence interval of the mean of ratios around 1
// (A/A: baseline over baseline), as a fraction: 0.02 = ±2%. Infinity below
// 2 values. Unlike the largest deviation it narrows as rounds are added.
function meanInterval (xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x))
  if (v.length < 2) return Infinity
  const mean = v.reduce((a, b) => a + b, 0) / v.length
  const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1))
  const t = T95[Math.min(v.length - 1, T95.length) - 1] || 1.96
  return Math.abs(mean - 1) + t * sd / Math.sqrt(v.length)
}

module.exports = { median, summary, meanInterval }

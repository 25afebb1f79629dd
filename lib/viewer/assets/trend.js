// The heap trend (docs/recorder.md, Heap trend), when the page carries one
// (the heapGrowth incident's page: lib/viewer/index.js withTrend): small
// multiples, one line chart per growing allocation site of its live bytes per window,
// the whole heap first, all on one time axis. Drawn as SVG elements built
// with the DOM (names stay text, never markup).
const { el, fmtValue } = require('./format')
const SVG_NS = 'http://www.w3.org/2000/svg'

function svgEl (name, attrs) {
  const e = document.createElementNS(SVG_NS, name)
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v))
  return e
}

function fmtClock (ms) {
  return new Date(ms).toISOString().slice(11, 19)
}

// One chart: the series against times, its own vertical scale from 0.
function trendChart (times, series, color) {
  const W = 360
  const H = 90
  const t0 = times[0]
  const span = Math.max(1, times[times.length - 1] - t0)
  const top = Math.max(1, ...series)
  const x = (t) => 4 + (W - 8) * (t - t0) / span
  const y = (v) => H - 14 - (H - 22) * v / top
  const svg = svgEl('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: 'trend-chart', role: 'img' })
  svg.appendChild(svgEl('line', { x1: 4, x2: W - 4, y1: y(0), y2: y(0), stroke: '#ccd', 'stroke-width': 1 }))
  const pts = series.map((v, i) => `${x(times[i]).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
  svg.appendChild(svgEl('polyline', { points: pts, fill: 'none', stroke: color, 'stroke-width': 2 }))
  const label = svgEl('text', { x: 4, y: H - 2, 'font-size': 10, fill: '#667' })
  label.textContent = `${fmtClock(times[0])} \u2013 ${fmtClock(times[times.length - 1])} UTC, max ${fmtValue(top, 'bytes')}`
  svg.appendChild(label)
  return svg
}

function trendCard (title, sub, chart) {
  const card = el('div', 'trend-card')
  card.append(el('div', 'trend-title', title), el('div', 'trend-sub dim', sub), chart)
  return card
}

function perMin (v) {
  return (v >= 0 ? '+' : '\u2212') + fmtValue(Math.abs(v), 'bytes') + '/min'
}

/** Fills box with the trend t (status().heap.trend's shape); false when t has no series. */
function renderTrend (t, box) {
  if (!t || !Array.isArray(t.times) || t.times.length < 2) return false
  const head = `${t.windows} windows, live heap ${fmtValue(t.live, 'bytes')}, ` +
    (t.growing ? `growing ${perMin(t.perMinute)} since ${fmtClock(t.since)} UTC` : 'not growing steadily') +
    `; ${t.growingSites} growing allocation site${t.growingSites === 1 ? '' : 's'} of ${t.sites}` +
    (t.top.length ? ': each chart is where V8 allocated the bytes, not what holds them (cprof leaks <pid> --holders)' : '')
  box.appendChild(el('p', 'trend-head', head))
  const grid = el('div', 'trend-grid')
  grid.appendChild(trendCard('Whole live heap', perMin(t.perMinute), trendChart(t.times, t.heapSeries, '#556')))
  for (const s of t.top) {
    const where = s.url ? ` ${s.url}${s.line ? ':' + s.line : ''}` : ''
    const sub = `allocated here ${perMin(s.perMinute)}, live ${fmtValue(s.live, 'bytes')}, since ${fmtClock(s.since)} UTC` +
      (s.share === null ? '' : `, ${Math.round(s.share * 100)}% of the heap's growth`)
    grid.appendChild(trendCard((s.functionName || '(anonymous)') + where, sub, trendChart(t.times, s.series, '#c0392b')))
  }
  box.appendChild(grid)
  return true
}

module.exports = { fmtClock, renderTrend, svgEl }

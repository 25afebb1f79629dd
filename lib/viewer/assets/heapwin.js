// A heap profile's overview: V8's .heapprofile has no time order (its
// samples are live objects, not moments), so instead of the time-order
// view a recorder heap dump's page shows the live heap at the end of each
// of the recorder's last heap windows (marks.heapWindows: the heap
// trend's series, the dumped window last; docs/formats.md, "Viewer
// marks"), one bar per window, and an incident's firing on the same time
// axis. SVG built with the DOM (trend.js's svgEl): text stays text.
const { el, fmtValue } = require('./format')
const { bar } = require('./tree')
const { fmtClock, svgEl } = require('./trend')
const HW_H = 96

// { ends: [ms], live: [bytes] } from the page's marks, or null.
function heapWindowsOf (d) {
  let marks = null
  try { marks = typeof d.marks === 'string' ? JSON.parse(d.marks) : null } catch (_) {}
  const hw = marks && marks.heapWindows
  if (!hw || !Array.isArray(hw.ends) || !Array.isArray(hw.live)) return null
  const ends = []; const live = []
  hw.ends.forEach((t, i) => {
    if (Number.isFinite(t) && Number.isFinite(hw.live[i]) && hw.live[i] >= 0) { ends.push(t); live.push(hw.live[i]) }
  })
  return ends.length ? { ends, live, reason: marks.reason || null } : null
}

function createHeapOverview (d) {
  const hw = heapWindowsOf(d)
  if (!hw) return null
  const panel = el('section')
  panel.id = 'heap-overview'
  const bar = el('div', 'toolbar')
  const n = hw.ends.length
  const last = hw.live[n - 1]
  bar.append(el('b', '', 'Live heap per window'), el('span', 'dim',
    `${n} heap window${n === 1 ? '' : 's'} from ${fmtClock(hw.ends[0])} to ${fmtClock(hw.ends[n - 1])} UTC; ` +
    `live heap at the end of each (the last one is this profile: ${fmtValue(last, 'bytes')}; the top of the chart: ${fmtValue(Math.max(1, ...hw.live), 'bytes')}). ` +
    'A heap profile holds no time order, so this is its overview.'))
  panel.appendChild(bar)
  const W = 800
  const t0 = hw.ends[0]
  // Each bar spans its window: from the previous end (the first one: as
  // wide as the mean window) to its own end.
  const mean = n > 1 ? (hw.ends[n - 1] - t0) / (n - 1) : 1000
  const from = t0 - mean
  const span = Math.max(1, hw.ends[n - 1] - from)
  const top = Math.max(1, ...hw.live)
  const x = (t) => 2 + (W - 4) * (t - from) / span
  const y = (v) => HW_H - 4 - (HW_H - 20) * v / top
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${HW_H}`, preserveAspectRatio: 'none', class: 'heap-windows', role: 'img', 'aria-label': 'live heap per window' })
  svg.appendChild(svgEl('line', { x1: 0, x2: W, y1: y(0), y2: y(0), stroke: '#ccd', 'stroke-width': 1 }))
  hw.ends.forEach((end, i) => {
    const a = x(i ? hw.ends[i - 1] : from) + 0.5
    const r = svgEl('rect', {
      class: 'hw-bar', x: a.toFixed(1), width: Math.max(1, x(end) - a - 1).toFixed(1), y: y(hw.live[i]).toFixed(1), height: (y(0) - y(hw.live[i])).toFixed(1),
      fill: i === n - 1 ? '#c0392b' : 'hsl(210, 55%, 63%)', 'data-end': end, 'data-live': hw.live[i]
    })
    const tip = svgEl('title')
    tip.textContent = `window ending ${fmtClock(end)} UTC: ${fmtValue(hw.live[i], 'bytes')} live`
    r.appendChild(tip)
    svg.appendChild(r)
  })
  // An incident's firing, where it falls on the windows' axis.
  const at = hw.reason && hw.reason.at
  if (at >= from && at <= hw.ends[n - 1] + mean) {
    svg.appendChild(svgEl('rect', { class: 'hw-fired', x: Math.min(W - 2, x(at)).toFixed(1), y: 0, width: 2, height: HW_H, fill: '#e0312b' }))
  }
  panel.appendChild(svg)
  const flamePanel = document.getElementById('flame-panel')
  flamePanel.parentNode.insertBefore(panel, flamePanel)
  return { ends: hw.ends, live: hw.live, bars: n }
}

module.exports = { createHeapOverview }

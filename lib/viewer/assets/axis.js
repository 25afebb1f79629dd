// Time axes for the time-order view (time.js): ticks every 1, 2 or 5 × 10^k
// µs, at least AXIS_MIN_PX apart, labelled in s or ms as the step needs
// ("1.5 s", "250 ms", "12.345 ms"), and, when the profile's wall-clock
// start is known (cprof's own profiles, recorder and incident dumps), a
// second row with the time of day in UTC at round clock times. The ticks
// are DOM elements over the canvas's width (text stays text, and a test
// can read where each sits); the canvas draws the faint grid lines.
const { el } = require('./format')
const AXIS_MIN_PX = 90
// Clock steps (ms): 1/2/5 × 10^k up to 10 s, then what a clock reads.
const CLOCK_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000,
  60000, 120000, 300000, 600000, 900000, 1800000, 3600000, 7200000, 21600000, 43200000, 86400000]

// The smallest 1/2/5 × 10^k (µs, at least 1) with ticks minPx apart when
// span µs take px pixels.
function niceStep (span, px, minPx) {
  const raw = Math.max(1, span * minPx / Math.max(1, px))
  for (let p = 10 ** Math.floor(Math.log10(raw)); ; p *= 10) {
    for (const k of [1, 2, 5]) if (k * p >= raw * (1 - 1e-9)) return k * p
  }
}

// How times read at a given step: s from 0.1 s steps up, else ms, with as
// many decimals as the step has (and `extra` more, for a range's edges):
// one row reads alike ("1.0 s", "1.2 s"), but for its zero ("0 s").
function timeFormat (step, extra = 0) {
  const sec = step >= 100000
  const unit = sec ? 1e6 : 1e3
  const dec = Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9)) + extra
  return (t) => (t === 0 && !extra ? '0' : (t / unit).toFixed(dec)) + (sec ? ' s' : ' ms')
}

// Time of day, UTC, to the precision of a clock step (ms).
function clockText (ms, step) {
  const s = new Date(Math.round(ms)).toISOString().slice(11, 23) // HH:MM:SS.mmm
  if (step >= 60000) return s.slice(0, 5)
  if (step >= 1000) return s.slice(0, 8)
  return s.slice(0, step >= 100 ? 10 : step >= 10 ? 11 : 12)
}

// The time of day t µs after a start of startMs, to the ms: "13:35:47.955".
function clockAt (startMs, t) {
  return new Date(Math.round(startMs + t / 1000)).toISOString().slice(11, 23)
}

// The ticks of [v0, v1) µs on px pixels: { t, x, label }, and the grid
// step. wallMs: the wall-clock ms at time 0, or 0 (no clock row).
function axisTicks (v0, v1, px, wallMs) {
  const span = Math.max(1e-9, v1 - v0)
  const step = niceStep(span, px, AXIS_MIN_PX)
  const fmt = timeFormat(step)
  const X = (t) => (t - v0) * px / span
  const rel = []
  for (let k = Math.ceil(v0 / step); k * step <= v1; k++) rel.push({ t: k * step, x: X(k * step), label: fmt(k * step) })
  const wall = []
  if (wallMs > 0) {
    const want = span / 1000 * (AXIS_MIN_PX + 40) / Math.max(1, px) // the clock labels are wider
    const cs = CLOCK_STEPS.find((s) => s >= want) || CLOCK_STEPS[CLOCK_STEPS.length - 1]
    const a = wallMs + v0 / 1000; const b = wallMs + v1 / 1000
    for (let k = Math.ceil(a / cs); k * cs <= b; k++) {
      const t = (k * cs - wallMs) * 1000
      wall.push({ t, x: X(t), label: clockText(k * cs, cs), ms: k * cs })
    }
  }
  return { step, fmt, rel, wall }
}

// An axis over a canvas: a row of labels and, with a wall-clock start, a
// row of times of day. show() puts axisTicks()'s ticks in place; the page
// computes them (and reads every width) before it writes any, so a redraw
// never forces a layout in between.
function createAxis (parent, id, wallMs, before) {
  const box = el('div', 'time-axis')
  box.id = id
  const rel = el('div', 'axis-row rel')
  box.appendChild(rel)
  let wall = null
  if (wallMs > 0) {
    wall = el('div', 'axis-row wall')
    box.appendChild(wall)
  }
  if (before) parent.insertBefore(box, before)
  else parent.appendChild(box)
  // A label that would run past the right edge (or under "UTC") is left
  // off; its tick stays.
  function row (into, ticks, cls, w) {
    into.replaceChildren()
    for (const tk of ticks) {
      const s = el('span', 'tick ' + cls)
      s.style.left = tk.x.toFixed(2) + 'px'
      s.dataset.t = String(tk.t)
      if (tk.x + 8 + tk.label.length * 6.6 < w) s.appendChild(el('span', 'lbl', tk.label))
      into.appendChild(s)
    }
  }
  let shown = null
  function show (ticks, w) {
    if (shown === ticks) return
    shown = ticks
    row(rel, ticks.rel, 'rel', w)
    if (wall) {
      row(wall, ticks.wall, 'wall', w - 34)
      wall.appendChild(el('span', 'axis-unit', 'UTC'))
    }
  }
  return { el: box, show }
}

// Faint vertical lines at the ticks, under what a canvas draws next.
function drawGrid (ctx, ticks, y0, y1) {
  ctx.fillStyle = '#eceef2'
  for (const tk of ticks.rel) ctx.fillRect(Math.round(tk.x), y0, 1, y1 - y0)
}

module.exports = { axisTicks, clockAt, createAxis, drawGrid, timeFormat }

// The time-order view: the samples in the order they were taken, as a flame
// chart (time on x, the stack downwards on y; one sample per pixel column),
// under an overview of the whole profile (the share of each slice of time
// the CPU was busy, i.e. not (idle), with GC in red, and the markers). Drag
// on the overview to select a range: the page reopens with every view
// (flame graph, trees, flat) counting only the samples of that range, kept
// in the URL's hash (#range=<from>-<to>, µs from the profile's start) so a
// shared file or a reload opens the same way. The exporter writes each
// sample's node and weight as base64 uint16/uint32 (src/core/export_html.c,
// "timeline"). Both canvases have a time axis above them (axis.js), and the
// overview marks where the event loop was blocked (stalls.js).
const { axisTicks, clockAt, createAxis, drawGrid, timeFormat } = require('./axis')
const { colourTable, nodeColourer } = require('./flame')
const { addSwatches, b64uints, el, fmtCount, fmtValue } = require('./format')
const { setHashValues } = require('./hash')
const { tipText } = require('./model')
const { BLOCK_MIN_US, blockingSpans } = require('./stalls')
const { bar } = require('./tree')
const TIME_ROW = 16
const TIME_OVERVIEW_H = 72
const TIME_BAND_H = 6 // the blocking spans' band at the overview's bottom
const TIME_CHART_H = 320

// Decodes the page's timeline: per sample its node and weight, and ts[i],
// its start in µs from the profile's start (ts[n]: the last one's end).
function timeData (d) {
  const tl = d.timeline
  if (!tl || !tl.node) return null
  const node = b64uints(tl.node, tl.nodeBits)
  const weight = b64uints(tl.weight, tl.weightBits)
  tl.node = tl.weight = null // the strings are no longer needed
  const n = node.length
  // A sample's weight is ts[i + 1] - ts[i], in whole µs: 4 bytes a sample
  // up to 71 minutes, a double after that.
  let sum = tl.first || 0
  for (let i = 0; i < n; i++) sum += weight[i]
  const ts = sum < 2 ** 32 ? new Uint32Array(n + 1) : new Float64Array(n + 1)
  ts[0] = tl.first || 0
  for (let i = 0; i < n; i++) ts[i + 1] = ts[i] + weight[i]
  const span = Math.max(d.durationUs || 0, ts[n])
  let marks = null
  if (typeof d.marks === 'string') {
    try { marks = JSON.parse(d.marks) } catch (_) { marks = null }
  }
  // The wall clock at time 0 (ms since the epoch): the page's startTime
  // (cprof's profiles, recorder dumps), else from the marks' endAt (a
  // dump's .cpuprofile opened later: endAt is when its last sample ended).
  // None for a merge: its inputs are laid one after the other, not at
  // their times.
  const merged = marks && Array.isArray(marks.instances)
  const wallMs = merged ? 0 : d.startTime > 0 ? d.startTime : marks && marks.endAt > 0 ? marks.endAt - span / 1000 : 0
  return { node, ts, n, span, marks, startMs: d.startTime || 0, wallMs }
}

// The first sample starting at or after t.
function sampleAt (ts, n, t) {
  let lo = 0; let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (ts[mid] < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

// The range asked for: the URL's #range=a-b, else an incident's default
// (around the firing), else none. [a, b) in µs from the profile's start.
function wantedRange (td) {
  const h = /(?:^#|&)range=(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)/.exec(location.hash)
  if (h) {
    const a = Number(h[1]); const b = Number(h[2])
    if (b > a) return { a, b, from: 'url' }
  }
  if (location.hash.includes('range=all')) return null
  const f = firing(td)
  if (f) return { a: Math.max(0, f.t - f.before), b: Math.min(td.span, f.t + f.after), from: 'incident' }
  return null
}

// Where the incident fired, in µs from the profile's start, and how much
// of the time around it to select: an event-loop stall of v ms ended when
// the trigger fired, so the v ms before it (and a margin) hold it.
function firing (td) {
  const r = td && td.marks && td.marks.reason
  if (!r || !(r.at > 0) || !(td.marks.endAt > 0)) return null
  const t = td.span - (td.marks.endAt - r.at) * 1000
  if (!(t >= 0 && t <= td.span + 1e6)) return null
  const stall = r.trigger === 'eventLoopDelay' && r.value > 0 ? r.value * 1000 : 1e6
  return { t: Math.min(t, td.span), before: stall * 1.2 + 20000, after: 20000, reason: r }
}

// The incident's reason, under the title: why this file was written.
function showReason (d) {
  let marks = null
  try { marks = typeof d.marks === 'string' ? JSON.parse(d.marks) : null } catch (_) {}
  const r = marks && marks.reason
  if (!r || typeof r.trigger !== 'string') return
  const p = el('div', 'reason', reasonText(r))
  p.id = 'reason'
  document.getElementById('title').after(p)
}

function reasonText (r) {
  const units = { eventLoopDelay: ' ms', cpu: '% of a core', rss: ' bytes', heapNearLimit: '% of the heap limit' }
  const u = units[r.trigger] || ''
  // heapGrowth's value and threshold are bytes per minute: shown in MiB.
  const show = r.trigger === 'heapGrowth' ? (v) => fmtValue(Number(v) || 0, 'bytes') + '/min' : (v) => `${v}${u}`
  const when = r.at > 0 && r.at < 8.64e15 ? ' at ' + new Date(r.at).toISOString().replace('T', ' ').replace('Z', ' UTC') : ''
  return `Written by an incident: ${r.trigger} ${show(r.value)} \u2265 ${show(r.threshold)}${when}`
}

// The profile as the range and the label filter see it: each node's self
// is the weight of its samples in [a, b) that keep(i) keeps (labels.js; null:
// all). Called before the model is built; d.nodes.selfAll keeps the whole
// profile's (the source pane's lines are the whole profile's).
function applyRange (d, td, range, keep) {
  if (!td || (!range && !keep)) return null
  const i0 = range ? sampleAt(td.ts, td.n, range.a) : 0
  const i1 = range ? sampleAt(td.ts, td.n, range.b) : td.n
  const self = new Float64Array(d.nodes.fn.length)
  let count = 0
  for (let i = i0; i < i1; i++) {
    if (keep && !keep(i)) continue
    self[td.node[i]] += td.ts[i + 1] - td.ts[i]
    count++
  }
  d.nodes.selfAll = d.nodes.self
  d.nodes.self = self
  d.samples = [count, 0]
  d.spanSamples = i1 - i0 // the mean interval's count: every sample of the span
  if (!range) return null
  d.durationUs = range.b - range.a // the header's Duration and mean interval: the range's
  return { ...range, i0, i1 }
}

// The sample running at time t (ts[i] <= t < ts[i + 1]), or -1.
function sampleCovering (ts, n, t) {
  let lo = 0; let hi = n + 1 // first index with ts[index] > t
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (ts[mid] <= t) lo = mid + 1
    else hi = mid
  }
  return lo - 1 < n ? lo - 1 : -1
}

// Node z's ancestor at depth d (z itself at its own depth), or -1.
function ancestorAt (m, z, d) {
  if (z < 0 || m.depth[z] < d) return -1
  while (m.depth[z] > d) z = m.parent[z]
  return z
}

function timeCanvas (parent, h, cls) {
  const c = el('canvas', cls)
  c.style.height = h + 'px'
  parent.appendChild(c)
  return c
}

function fitCanvas (c, h) {
  const dpr = window.devicePixelRatio || 1
  const w = c.clientWidth || 800
  if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
    c.width = Math.round(w * dpr); c.height = Math.round(h * dpr)
  }
  const ctx = c.getContext('2d')
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
  return { ctx, w, h }
}

// The view: built once the model is (app.js calls it last). range: what
// applyRange returned (null: the whole profile); hooks.keep: the label
// filter's test of a sample (null: none), the samples the overview counts
// as busy and the chart draws.
function createTimeView (m, td, range, hooks) {
  const keep = hooks.keep || null
  const panel = el('section')
  panel.id = 'time-panel'
  const bar = el('div', 'toolbar')
  const title = el('b', '', 'Time order')
  const info = el('span', 'dim')
  info.id = 'time-info'
  const spacer = el('span', 'spacer')
  const useView = el('button', '', 'Select what is shown')
  useView.type = 'button'
  useView.id = 'time-select-view'
  useView.title = 'Make the chart\'s visible time the range every view shows'
  const clear = el('button', '', 'Whole profile')
  clear.type = 'button'
  clear.id = 'time-clear'
  clear.title = 'Every view shows the whole profile again'
  clear.disabled = !range
  bar.append(title, info, spacer, useView, clear)
  const marksLine = el('div', 'legend')
  marksLine.id = 'time-marks'
  const overview = timeCanvas(panel, TIME_OVERVIEW_H, 'time-overview')
  overview.id = 'time-overview'
  const chart = timeCanvas(panel, TIME_CHART_H, 'time-chart')
  chart.id = 'time-chart'
  const overviewAxis = createAxis(panel, 'time-overview-axis', td.wallMs, overview)
  const chartAxis = createAxis(panel, 'time-chart-axis', td.wallMs, chart)
  const ticks = { overview: null, chart: null } // the last drawn, for the tests
  panel.prepend(bar, marksLine)
  const flamePanel = document.getElementById('flame-panel')
  flamePanel.parentNode.insertBefore(panel, flamePanel)

  const phases = {}
  const colourOf = nodeColourer(m, colourTable(m)) // the flame graph's colours (flame.js)
  const idleFn = new Uint8Array(m.nf)
  for (let f = 0; f < m.nf; f++) {
    if (!m.fns.url[f] && m.fns.name[f] === '(idle)') idleFn[f] = 1
    if (!m.fns.url[f] && m.fns.name[f] === '(garbage collector)') idleFn[f] = 2
  }
  // The overview's columns: the busy and GC share of each, from one pass
  // over the samples, made again only when the width changes.
  let columns = null
  function overviewColumns (w) {
    if (columns && columns.w === w) return columns
    const all = new Float64Array(w); const busy = new Float64Array(w); const gc = new Float64Array(w)
    const other = keep ? new Float64Array(w) : null // busy in samples the filter leaves out
    const per = td.span / w
    const ts = td.ts
    for (let i = 0; i < td.n; i++) {
      const kind = idleFn[m.fn[td.node[i]]]
      const a = ts[i]; const b = ts[i + 1]
      if (b <= a) continue
      const kept = !keep || keep(i)
      for (let c = Math.min(w - 1, Math.floor(a / per)); c < w && c * per < b; c++) {
        const part = Math.min(b, (c + 1) * per) - Math.max(a, c * per)
        all[c] += part
        if (!kept) { if (kind !== 1) other[c] += part; continue }
        if (kind !== 1) busy[c] += part
        if (kind === 2) gc[c] += part
      }
    }
    for (let c = 0; c < w; c++) if (all[c] > 0) { busy[c] /= all[c]; gc[c] /= all[c]; if (other) other[c] /= all[c] }
    columns = { w, busy, gc, other }
    return columns
  }
  const blocks = blockingSpans(td, (i) => idleFn[m.fn[td.node[i]]] === 1)
  const fire = firing(td)
  const instances = (td.marks && Array.isArray(td.marks.instances) ? td.marks.instances : [])
    .filter((x) => x && x.firstSample >= 0 && x.firstSample < td.n)
    .map((x) => ({ name: String(x.name), t: td.ts[x.firstSample], firstSample: x.firstSample }))
  // A recorder dump's window edges: its startTime is its first window's
  // start on the same clock as the edges, so the edge before it (an
  // evicted window's end) lands on 0 and older ones before: only the
  // edges inside the profile are kept.
  const windows = (td.marks && Array.isArray(td.marks.windowEnds) && td.startMs > 0 ? td.marks.windowEnds : [])
    .map((x) => (Number(x) - td.startMs) * 1000)
    .filter((t) => t > 0 && t < td.span - 1000)

  // What the chart shows: [v0, v1) µs, and the first depth drawn.
  const pad = range ? (range.b - range.a) * 0.25 : 0
  const view = { v0: range ? Math.max(0, range.a - pad) : 0, v1: range ? Math.min(td.span, range.b + pad) : td.span, top: 1 }
  let hover = null // { row, c0, c1 }: the box under the pointer
  let drag = null
  let pending = 0

  function marksText () {
    const parts = []
    if (fire) parts.push(['#e0312b', 'incident fired (' + fire.reason.trigger + ')'])
    if (windows.length) parts.push(['#7a7f87', 'recorder window edges'])
    if (blocks.length) parts.push(['#e8890c', `event loop blocked > ${BLOCK_MIN_US / 1000} ms: ${blocks.length} span${blocks.length === 1 ? '' : 's'} (hover the band)`])
    if (instances.length) {
      const names = instances.slice(0, 4).map((x) => x.name).join(', ') + (instances.length > 4 ? ', \u2026' : '')
      parts.push(['#2f6fde', `${instances.length} merged profiles, one after the other: ${names}`])
    }
    parts.push(['hsl(210, 55%, 63%)', 'overview: CPU busy (not idle)' + (keep ? ' in the label filter\'s samples' : '')], ['#d2402f', 'GC'])
    if (keep) parts.push(['hsl(0, 0%, 84%)', 'busy in other samples (the chart leaves them out)'])
    marksLine.replaceChildren()
    addSwatches(marksLine, parts)
  }

  // [a, b) in the units of an axis's ticks (a range: those of the
  // overview's), with the time of day when known.
  function spanText (a, b, tk, extra, to = '\u2013') {
    const f = timeFormat(tk.step, extra)
    return `${f(a)}${to}${f(b)}` + (td.wallMs > 0 ? ` (${clockAt(td.wallMs, a)}${to}${clockAt(td.wallMs, b)} UTC)` : '')
  }

  function setInfo () {
    const whole = timeFormat(ticks.overview.step, 1)(td.span)
    info.textContent = (range
      ? `Range ${spanText(range.a, range.b, ticks.overview, 2)} of ${whole} (${fmtCount(range.i1 - range.i0)} samples): every view below counts only this range.`
      : `${fmtCount(td.n)} samples over ${whole}.`) +
      (keep ? ` Label filter: ${fmtCount(m.d.samples[0])} samples${range ? ' of the range' : ''} (the header says which).` : '') +
      ` Shown: ${spanText(view.v0, view.v1, ticks.chart, 1)}. Drag on the overview to select a range; wheel to zoom, drag the chart to pan.`
  }

  function drawOverview () {
    const { ctx, w, h } = fitCanvas(overview, TIME_OVERVIEW_H)
    ctx.clearRect(0, 0, w, h)
    ctx.fillStyle = '#fff'
    ctx.fillRect(0, 0, w, h)
    const per = td.span / w
    const H = h - 14 - TIME_BAND_H - 2
    drawGrid(ctx, ticks.overview, 0, h)
    const cols = overviewColumns(w)
    if (cols.other) { // the filter's other samples: grey, above its own
      ctx.fillStyle = 'hsl(0, 0%, 84%)'
      for (let x = 0; x < w; x++) if (cols.other[x] > 0) ctx.fillRect(x, 14 + H * (1 - cols.busy[x] - cols.other[x]), 1, H * cols.other[x])
    }
    ctx.fillStyle = 'hsl(210, 55%, 63%)'
    for (let x = 0; x < w; x++) if (cols.busy[x] > 0) ctx.fillRect(x, 14 + H * (1 - cols.busy[x]), 1, H * cols.busy[x])
    ctx.fillStyle = '#d2402f'
    for (let x = 0; x < w; x++) if (cols.gc[x] > 0) ctx.fillRect(x, 14 + H * (1 - cols.gc[x]), 1, H * cols.gc[x])
    const X = (t) => t / per
    // The blocking spans: a band at the bottom, each at least 2 px wide.
    ctx.fillStyle = '#e8890c'
    for (const s of blocks) ctx.fillRect(X(s.a), h - TIME_BAND_H - 1, Math.max(2, X(s.b) - X(s.a)), TIME_BAND_H)
    if (range) {
      ctx.fillStyle = 'rgba(47, 111, 222, 0.16)'
      ctx.fillRect(X(range.a), 0, Math.max(1, X(range.b) - X(range.a)), h)
    }
    if (drag && drag.kind === 'select') {
      ctx.fillStyle = 'rgba(214, 58, 214, 0.2)'
      ctx.fillRect(Math.min(drag.x0, drag.x1), 0, Math.abs(drag.x1 - drag.x0), h)
    }
    ctx.strokeStyle = '#1d2127'
    ctx.strokeRect(X(view.v0) + 0.5, 0.5, Math.max(1, X(view.v1) - X(view.v0)) - 1, h - 1)
    ctx.font = '11px system-ui, sans-serif'
    for (const t of windows) { ctx.fillStyle = '#7a7f87'; ctx.fillRect(X(t), 0, 1, h) }
    // Each input of a merge starts at a blue line, named while there is room.
    instances.forEach((x, k) => {
      ctx.fillStyle = '#2f6fde'
      ctx.fillRect(X(x.t), 0, 2, h)
      const room = (k + 1 < instances.length ? X(instances[k + 1].t) : w) - X(x.t) - 8
      if (room > 30) {
        const chars = Math.floor(room / 6.2)
        ctx.fillText(x.name.length > chars ? x.name.slice(0, chars - 1) + '\u2026' : x.name, X(x.t) + 4, 11)
      }
    })
    if (fire) {
      ctx.fillStyle = '#e0312b'
      ctx.fillRect(X(fire.t) - 1, 0, 2, h)
      ctx.fillText('\u25BC ' + fire.reason.trigger, Math.min(X(fire.t) + 3, w - 120), 11)
    }
  }

  // The chart is drawn from one sample per pixel column, the one running
  // at the column's middle: the work per frame is bounded by the canvas
  // (columns × visible depth), not by the samples, however many there are
  // and however often their stacks change. Zoomed in, a sample spans many
  // columns and its edges fall within a pixel of where they are.
  let grid = null // { cols, rows, anc: node per column and row, sample: per column }
  function layout (w, h, scale) {
    const cols = Math.max(1, Math.ceil(w)); const rows = Math.ceil(h / TIME_ROW)
    if (!grid || grid.cols !== cols || grid.rows !== rows) grid = { cols, rows, anc: new Int32Array(cols * rows), sample: new Int32Array(cols) }
    const { anc, sample } = grid
    const top = view.top
    let last = -2
    for (let c = 0; c < cols; c++) {
      const t = view.v0 + (c + 0.5) / scale
      const i = t < td.span ? sampleCovering(td.ts, td.n, t) : -1
      sample[c] = i
      const z0 = i >= 0 && (!keep || keep(i)) ? td.node[i] : -1
      const base = c * rows
      if (z0 === last) { anc.copyWithin(base, base - rows, base); continue }
      last = z0
      anc.fill(-1, base, base + rows)
      for (let z = z0; z >= 0 && m.depth[z] >= top; z = m.parent[z]) {
        const r = m.depth[z] - top
        if (r < rows) anc[base + r] = z
      }
    }
    return grid
  }

  function drawChart () {
    const { ctx, w, h } = fitCanvas(chart, TIME_CHART_H)
    ctx.fillStyle = '#fff'
    ctx.fillRect(0, 0, w, h)
    const scale = w / (view.v1 - view.v0)
    drawGrid(ctx, ticks.chart, 0, h)
    ctx.font = '11px system-ui, sans-serif'
    const { cols, rows, anc } = layout(w, h, scale)
    for (let r = 0; r < rows; r++) {
      const y = r * TIME_ROW
      for (let c = 0; c < cols;) {
        const z = anc[c * rows + r]
        let e = c + 1
        while (e < cols && anc[e * rows + r] === z) e++
        if (z >= 0) {
          const f = m.fn[z]
          ctx.fillStyle = hover && hover.row === r && hover.c0 === c ? '#d63ad6' : colourOf(z)
          ctx.fillRect(c, y, Math.max(1, e - c - 0.5), TIME_ROW - 1)
          if (e - c > 28) {
            const chars = Math.floor((e - c - 6) / 6.2)
            const name = m.fns.name[f]
            ctx.fillStyle = '#1d2127'
            ctx.fillText(name.length > chars ? name.slice(0, Math.max(0, chars - 1)) + '\u2026' : name, c + 3, y + 12)
          }
        }
        c = e
      }
    }
    const X = (t) => (t - view.v0) * scale
    if (range) {
      ctx.fillStyle = 'rgba(255, 255, 255, 0.6)'
      if (X(range.a) > 0) ctx.fillRect(0, 0, X(range.a), h)
      if (X(range.b) < w) ctx.fillRect(X(range.b), 0, w - X(range.b), h)
    }
    for (const t of windows) { ctx.fillStyle = '#7a7f87'; ctx.fillRect(X(t), 0, 1, h) }
    for (const x of instances) { ctx.fillStyle = '#2f6fde'; ctx.fillRect(X(x.t), 0, 2, h) }
    if (fire) { ctx.fillStyle = '#e0312b'; ctx.fillRect(X(fire.t) - 1, 0, 2, h) }
  }

  // Widths are read, then the canvases drawn, then the DOM written: no
  // layout is forced in between. The overview's ticks change only with
  // its width.
  function draw () {
    pending = 0
    const ow = overview.clientWidth || 800
    const cw = chart.clientWidth || 800
    if (!ticks.overview || ticks.overview.w !== ow) ticks.overview = { ...axisTicks(0, td.span, ow, td.wallMs), w: ow }
    ticks.chart = axisTicks(view.v0, view.v1, cw, td.wallMs)
    drawOverview()
    drawChart()
    overviewAxis.show(ticks.overview, ow)
    chartAxis.show(ticks.chart, cw)
    setInfo()
  }
  function schedule () {
    if (!pending) pending = requestAnimationFrame(draw)
  }

  // The box under the pointer, from the last drawn grid.
  function boxAt (x, y) {
    if (!grid) return null
    const c = Math.floor(x); const r = Math.floor(y / TIME_ROW)
    if (c < 0 || c >= grid.cols || r < 0 || r >= grid.rows) return null
    const { anc, rows, cols } = grid
    const z = anc[c * rows + r]
    if (z < 0) return null
    let c0 = c; let c1 = c + 1
    while (c0 > 0 && anc[(c0 - 1) * rows + r] === z) c0--
    while (c1 < cols && anc[c1 * rows + r] === z) c1++
    return { row: r, c0, c1, node: z, sample: grid.sample[c] }
  }

  // How long the node stayed on the stack around sample i: the run of
  // samples with it at its depth (bounded walk: a tooltip, not a scan).
  function runAround (i, z) {
    const d = m.depth[z]
    let a = i; let b = i + 1
    for (let k = 0; k < 50000 && a > 0 && ancestorAt(m, td.node[a - 1], d) === z; k++) a--
    for (let k = 0; k < 50000 && b < td.n && ancestorAt(m, td.node[b], d) === z; k++) b++
    return { a, b }
  }

  // Zoom by factor around time t (µs), kept within the profile.
  function zoomAt (t, factor) {
    const minW = 50 // µs: a few samples
    let w = Math.min(td.span, Math.max(minW, (view.v1 - view.v0) * factor))
    const r = (t - view.v0) / (view.v1 - view.v0)
    let v0 = t - r * w
    v0 = Math.max(0, Math.min(td.span - w, v0))
    view.v0 = v0; view.v1 = v0 + w
    if (w >= td.span) { view.v0 = 0; view.v1 = td.span }
    schedule()
  }
  function panBy (dt, drows) {
    const w = view.v1 - view.v0
    const v0 = Math.max(0, Math.min(td.span - w, view.v0 + dt))
    view.v0 = v0; view.v1 = v0 + w
    view.top = Math.max(1, Math.min(Math.max(1, m.maxDepth - 2), view.top + drows))
    schedule()
  }

  chart.addEventListener('wheel', (ev) => {
    ev.preventDefault()
    const rect = chart.getBoundingClientRect()
    const t = view.v0 + (ev.clientX - rect.left) * (view.v1 - view.v0) / rect.width
    if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) panBy((ev.deltaX || ev.deltaY) * (view.v1 - view.v0) / rect.width, 0)
    else zoomAt(t, Math.exp(ev.deltaY * 0.002))
  }, { passive: false })
  chart.addEventListener('mousedown', (ev) => {
    drag = { kind: 'pan', x: ev.clientX, y: ev.clientY, v0: view.v0, top: view.top, moved: false }
  })
  overview.addEventListener('mousedown', (ev) => {
    const x = ev.clientX - overview.getBoundingClientRect().left
    drag = { kind: 'select', x0: x, x1: x }
  })
  window.addEventListener('mousemove', (ev) => {
    if (drag && drag.kind === 'pan') {
      const dx = ev.clientX - drag.x; const dy = ev.clientY - drag.y
      if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true
      const w = view.v1 - view.v0
      view.v0 = Math.max(0, Math.min(td.span - w, drag.v0 - dx * w / chart.clientWidth))
      view.v1 = view.v0 + w
      view.top = Math.max(1, Math.min(Math.max(1, m.maxDepth - 2), drag.top - Math.round(dy / TIME_ROW)))
      schedule()
      return
    }
    if (drag && drag.kind === 'select') {
      drag.x1 = Math.max(0, Math.min(overview.clientWidth, ev.clientX - overview.getBoundingClientRect().left))
      schedule()
      return
    }
    if (ev.target === overview) return showBlockTip(ev)
    if (ev.target !== chart) return
    const rect = chart.getBoundingClientRect()
    const b = boxAt(ev.clientX - rect.left, ev.clientY - rect.top)
    if (!b !== !hover || (b && (b.row !== hover.row || b.c0 !== hover.c0))) { hover = b; schedule() }
    showTip(b, ev)
  })
  chart.addEventListener('mouseleave', () => { if (hover) { hover = null; schedule() } showTip(null) })
  overview.addEventListener('mouseleave', () => showTip(null))

  // The tooltip (#tip, text only): the frame, when it ran, and its totals.
  const tip = document.getElementById('tip')
  function showTip (b, ev) {
    if (!b) { tip.hidden = true; return }
    const t = tipText(m, b.node)
    const run = runAround(b.sample, b.node)
    const s = td.ts[run.a]; const e = td.ts[run.b]
    tip.replaceChildren(el('b', '', t.name))
    if (t.url) tip.appendChild(el('div', 'u', t.url))
    tip.appendChild(el('div', '', `on the stack ${fmtValue(e - s, 'us')}, ${spanText(s, e, ticks.chart, 1)} (${fmtCount(run.b - run.a)} samples)`))
    tip.appendChild(el('div', '', (range ? 'in the range: ' : '') + t.lines[0]))
    placeTip(ev)
  }
  // Over the overview: the blocking span under the pointer (within 3 px).
  function blockAt (x) {
    const per = td.span / overview.clientWidth
    return blocks.find((s) => x >= s.a / per - 3 && x <= s.b / per + 3) || null
  }
  function blockText (s) {
    return `blocked ${timeFormat(ticks.overview.step, 2)(s.b - s.a)} from ${spanText(s.a, s.b, ticks.overview, 2, ' to ')}`
  }
  function showBlockTip (ev) {
    const s = blockAt(ev.clientX - overview.getBoundingClientRect().left - overview.clientLeft)
    if (!s) { tip.hidden = true; return }
    tip.replaceChildren(el('b', '', blockText(s)))
    tip.appendChild(el('div', '', `${fmtCount(s.i1 - s.i0)} samples, none (idle): the event loop did not turn (GC and (program) inside count as blocked)`))
    placeTip(ev)
  }
  function placeTip (ev) {
    tip.hidden = false
    tip.style.left = Math.max(4, Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8)) + 'px'
    tip.style.top = Math.max(4, ev.clientY + 18 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 10 : ev.clientY + 18) + 'px'
  }
  window.addEventListener('mouseup', (ev) => {
    const d = drag
    drag = null
    if (!d) return
    if (d.kind === 'pan' && !d.moved && ev.target === chart) {
      const rect = chart.getBoundingClientRect()
      const b = boxAt(ev.clientX - rect.left, ev.clientY - rect.top)
      if (b) hooks.select(m.fn[b.node])
    }
    if (d.kind === 'select') {
      const per = td.span / overview.clientWidth
      if (Math.abs(d.x1 - d.x0) >= 3) selectRange(Math.min(d.x0, d.x1) * per, Math.max(d.x0, d.x1) * per)
      else { // a click: centre the chart there
        const w = view.v1 - view.v0
        panBy(d.x0 * per - w / 2 - view.v0, 0)
      }
      schedule()
    }
  })
  window.addEventListener('resize', schedule)
  useView.addEventListener('click', () => selectRange(view.v0, view.v1))
  clear.addEventListener('click', () => setHashValues('range', ['all']))
  window.addEventListener('hashchange', () => location.reload())

  // A range is a new page state: the hash changes, and the page is built
  // again from it (every view counts the range's samples); the label
  // filter's part of the hash stays.
  function selectRange (a, b) {
    setHashValues('range', [`${Math.round(a)}-${Math.round(b)}`])
  }

  marksText()
  let t1 = performance.now()
  overviewColumns(overview.clientWidth || 800)
  phases.overview = Math.round(performance.now() - t1)
  t1 = performance.now()
  draw()
  phases.draw = Math.round(performance.now() - t1)
  // The stack (nodes, root's child first) of the sample running at time t.
  function stackAt (t) {
    const i = sampleCovering(td.ts, td.n, t)
    const out = []
    for (let z = i >= 0 ? td.node[i] : -1; z > 0; z = m.parent[z]) out.unshift(z)
    return out
  }
  return { phases, view, ts: td.ts, draw, zoomAt, panBy, selectRange, stackAt, range, fire, instances, windows, blocks, ticks, wallMs: td.wallMs }
}

module.exports = { applyRange, createTimeView, showReason, timeData, wantedRange }

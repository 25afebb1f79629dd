// Wires the page (a heap snapshot's: snapshot.js): header figures, the flame graph, the three views, search,
// and "focus a function everywhere".
const { createFlame } = require('./flame')
const { createFlatView } = require('./flat')
const { addSwatches, el, fmtCount, fmtPct, fmtValue } = require('./format')
const { showHeader } = require('./header')
const { createHeapOverview } = require('./heapwin')
const { createLabelsPanel, filterText, keeper, labelData, wantedFilter } = require('./labels')
const { createLinesView } = require('./lines')
const { buildModel, matcher, pctOfText, setPctOf, specialShare, tipText } = require('./model')
const { openPath } = require('./open')
const { showSnapshot } = require('./snapshot')
const { applyRange, createTimeView, showReason, timeData, wantedRange } = require('./time')
const { MAX_LEVELS, bottomUpSource, createTreeView, topDownSource } = require('./tree')
const { renderTrend } = require('./trend')
function figures (m) {
  const d = m.d
  const out = []
  const add = (k, v) => out.push([k, v])
  const cpu = d.kind === 'cpu'
  add('Profile', (cpu ? 'CPU' : 'heap') + (m.diff ? ' diff' : ''))
  if (d.durationUs > 0) add('Duration', fmtValue(d.durationUs, 'us'))
  if (m.diff) {
    add('Before', `${fmtValue(m.grand[0], m.unit)}` + (cpu ? `, busy ${fmtValue(m.busy[0], m.unit)}` : '') + `, ${fmtCount(d.samples[0])} samples`)
    add('After', `${fmtValue(m.grand[1], m.unit)}` + (cpu ? `, busy ${fmtValue(m.busy[1], m.unit)}` : '') + `, ${fmtCount(d.samples[1])} samples`)
  } else {
    add(cpu ? 'Sampled time' : 'Sampled size', fmtValue(m.grand[0], m.unit))
    add('Samples', fmtCount(d.samples[0]))
  }
  if (d.interval > 0) add('Interval', cpu ? fmtValue(d.interval, 'us').replace(/\.0 ms$/, ' ms') : fmtValue(d.interval, 'bytes'))
  else if (cpu && (d.spanSamples ?? d.samples[m.main]) > 0 && d.durationUs > 0) add('Interval', '~' + (d.durationUs / (d.spanSamples ?? d.samples[m.main]) / 1000).toFixed(2) + ' ms (mean)')
  if (cpu) {
    for (const [k, name] of [['Idle', '(idle)'], ['Program', '(program)'], ['GC', '(garbage collector)']]) {
      // of the total whatever the percentages below are of: (idle) is no share of busy time
      const pct = (s) => (m.grand[s] ? 100 * specialShare(m, name, s).v / m.grand[s] : 0).toFixed(1) + '%'
      add(k, pct(m.main) + ' of total' + (m.diff ? ` (before ${pct(0)})` : ''))
    }
  } else {
    // A .heapprofile holds no per-sample mark of collected or live (V8's
    // SamplingHeapProfile has none), so the page can only say which set the
    // profile holds, and only when cprof took it (the interval is known).
    add('Contents', d.includeCollected
      ? 'Live and collected objects together (includeCollected; the file does not tell them apart)'
      : d.interval > 0
        ? 'Live objects only (collected ones are not in the profile)'
        : 'Live objects, or live and collected ones if it was taken with includeCollected (the file does not say)')
  }
  add('Functions', fmtCount(m.fnNodes.filter((l) => l.length).length))
  add('Nodes', fmtCount(m.n))
  if (d.startTime > 0) add('Started', new Date(d.startTime).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))
  return out
}

function legend (m, box) {
  const items = m.diff
    ? [['hsl(6, 85%, 52%)', 'grew (share, after vs before)'], ['hsl(218, 85%, 52%)', 'shrank'], ['hsl(220, 8%, 86%)', 'unchanged'], ['#d63ad6', 'search match']]
    : [['hsl(22, 72%, 58%)', 'application'], ['hsl(85, 48%, 50%)', 'node_modules'], ['hsl(210, 55%, 63%)', 'Node.js'], ['hsl(0, 0%, 72%)', 'V8 / native'], ['hsl(0, 0%, 86%)', '(idle)'], ['#d63ad6', 'search match']]
  addSwatches(box, items)
  box.appendChild(el('span', '', m.diff ? 'Width: after.' : 'Width: total ' + (m.unit === 'us' ? 'time.' : 'size.')))
}

function main () {
  const t0 = performance.now()
  const phases = {}
  let tp = t0
  const phase = (name) => { const t = performance.now(); phases[name] = Math.round(t - tp); tp = t }
  const d = JSON.parse(document.getElementById('cprof-data').textContent)
  phase('parse')
  if (d.kind === 'heapsnapshot') return showSnapshot(d) // snapshot.js
  // The samples in time order (time.js): a range in the URL counts only its
  // samples, and a label filter (labels.js) only those it keeps.
  const td = timeData(d)
  const ld = labelData(d, td)
  const filter = ld ? wantedFilter() : []
  const keep = keeper(ld, filter)
  const range = applyRange(d, td, wantedRange(td), keep)
  phase('time')
  const m = buildModel(d)
  // A diff compares code: its shares are of busy time by default, as cprof
  // diff's are; a profile's page starts with the total. (CPU only: a heap
  // profile has no idle.)
  if (d.kind === 'cpu' && m.diff) setPctOf(m, 'busy')
  phase('model')
  showHeader(d.title || 'cprof profile', figures(m))
  const labels = ld ? createLabelsPanel(m, td, ld, filter, range) : null
  if (filter.length) document.title = filterText(filter) + ' \u2014 ' + document.title
  legend(m, document.getElementById('legend'))

  const tip = document.getElementById('tip')
  const details = document.getElementById('details')
  const views = {}
  let current = 'topdown'

  const linesView = createLinesView(m, document.getElementById('lines-panel'))

  function select (f, from) {
    flame.selectFn(f)
    linesView.show(f)
    if (from !== 'flat') views.flat.select(f)
    for (const name of ['topdown', 'bottomup']) {
      if (name === from) continue
      const p = views[name].source.pathTo(f)
      if (p) views[name].view.expand(p.keys, p.select, p.top)
    }
    if (from === 'flat') views.flat.select(f)
  }

  function zoomed (i) {
    const t = tipText(m, i)
    const lv = flame.levels()
    details.textContent = (i === 0 ? 'Whole profile. Click a frame to zoom into it.' : `Zoomed into ${t.name}${t.url ? ' (' + t.url + ')' : ''}: ${t.lines[0]}. Esc or Reset zoom to go back.`) +
      (lv.lo > 0 || lv.hi < lv.max ? ` Levels ${fmtCount(lv.lo)}\u2013${fmtCount(lv.hi)} of ${fmtCount(lv.max)} drawn` + (lv.hi < lv.max ? `: zoom into a frame near the ${flame.state.layout === 'icicle' ? 'bottom' : 'top'} to go deeper.` : '.') : '')
  }

  const flame = createFlame(m, document.getElementById('flame'), {
    onHover (i, ev) {
      if (i < 0) { tip.hidden = true; return }
      const t = tipText(m, i)
      const b = el('b', '', t.name)
      tip.replaceChildren(b)
      if (t.url) tip.appendChild(el('div', 'u', t.url))
      for (const line of t.lines) tip.appendChild(el('div', '', line))
      tip.hidden = false
      const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8)
      const y = ev.clientY + 18 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 10 : ev.clientY + 18
      tip.style.left = Math.max(4, x) + 'px'
      tip.style.top = Math.max(4, y) + 'px'
    },
    onZoom: zoomed,
    onSelect: (f) => select(f, 'flame')
  })

  phase('header')
  for (const [name, source] of [['topdown', topDownSource(m)], ['bottomup', bottomUpSource(m)]]) {
    const view = createTreeView(m, document.getElementById('view-' + name), source, (f, from) => select(f, from))
    views[name] = { source, view }
  }
  views.flat = createFlatView(m, document.getElementById('view-flat'), (f, from) => select(f, from))
  // First look: the heaviest path of the top-down tree, open to the app's
  // code (open.js).
  const first = openPath(m, MAX_LEVELS)
  views.topdown.view.expand(first.keys, undefined, first.top)
  phase('topdown')
  views.bottomup.view.render()
  phase('bottomup')
  views.flat.render()
  phase('flat')
  // The heap trend, when the page carries one (a heapGrowth incident's page).
  const trendText = document.getElementById('cprof-trend').textContent.trim()
  if (trendText && renderTrend(JSON.parse(trendText), document.getElementById('view-trend'))) {
    document.querySelector('#tabs button[data-view="trend"]').hidden = false
  }

  for (const b of document.querySelectorAll('#tabs button')) {
    b.addEventListener('click', () => {
      current = b.dataset.view
      for (const x of document.querySelectorAll('#tabs button')) x.setAttribute('aria-selected', String(x === b))
      for (const v of ['topdown', 'bottomup', 'flat', 'trend']) document.getElementById('view-' + v).hidden = v !== current
    })
  }

  const search = document.getElementById('search')
  const info = document.getElementById('search-info')
  search.addEventListener('input', () => {
    const match = matcher(search.value)
    const r = flame.search(match)
    views.flat.setMatch(match)
    info.textContent = !search.value.trim() ? '' : !r ? 'not a valid search' : `${r.fns} function${r.fns === 1 ? '' : 's'}, ${fmtPct(r.covered, m.denom[m.main])} of the ${m.pctOf === 'busy' ? 'busy time' : 'total'}`
  })
  const pctOf = document.getElementById('pct-of')
  if (d.kind === 'cpu') {
    pctOf.value = m.pctOf
    pctOf.title = pctOfText(m)
    document.getElementById('pct-of-label').hidden = false
    pctOf.addEventListener('change', () => {
      setPctOf(m, pctOf.value)
      pctOf.title = pctOfText(m)
      flame.recolour()
      for (const name of ['topdown', 'bottomup']) views[name].view.render()
      views.flat.render()
      search.dispatchEvent(new Event('input'))
      zoomed(flame.state.zoom)
    })
  }
  document.getElementById('order').addEventListener('change', (e) => flame.setOrder(e.target.value))
  document.getElementById('layout').addEventListener('change', (e) => flame.setLayout(e.target.value))
  document.getElementById('reset').addEventListener('click', () => flame.zoom(0))
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { flame.zoom(0); if (document.activeElement === search) { search.value = ''; search.dispatchEvent(new Event('input')) } }
    if (e.key === '/' && document.activeElement !== search) { e.preventDefault(); search.focus() }
  })
  flame.resize()
  zoomed(0)
  phase('flame')
  showReason(d)
  const time = td ? createTimeView(m, td, range, { select: (f) => select(f, 'time'), keep }) : null
  // A recorder heap dump: the live heap per window instead (heapwin.js).
  const heapWindows = !td && d.kind === 'heap' ? createHeapOverview(d) : null
  phase('timeline')
  // For the tests and bench/viewer-open.js: when the page was usable.
  window.cprofViewer = { model: m, flame, select, time, heapWindows, labels, readyMs: performance.now() - t0, readyAt: performance.now(), phases }
  document.body.dataset.ready = '1'
}

try {
  main()
} catch (err) {
  document.body.prepend(el('pre', 'note', 'cprof viewer: cannot show this profile: ' + (err && err.message)))
  throw err
}

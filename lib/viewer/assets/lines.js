// The source pane: the selected function's self time per line (V8's
// positionTicks, split and summed by the C core: a function's lines add up
// to its self time) beside the source text read when the page was made, as
// `go tool pprof -list` and DevTools' Sources show it: the whole function,
// from its first line (the call frame's) to its last (funcrange.js), each
// line with its heat bar, self time and share, the hot ones highlighted,
// stretches of more than LINES_FOLD lines without ticks folded into one
// row that opens them. Without the text: the line table alone, saying why
// when the file was not shown by rule (sources.why: a link to a file that
// is no source, a file the profile's owner could not read; issue 36). A
// page made without source maps names a script that has one (sources.map).
// Heap profiles have no lines: the pane says so.
const { el, fmtCount, fmtPct, fmtValue } = require('./format')
const { functionEnd } = require('./funcrange')
const { share } = require('./model')
const { bar } = require('./tree')
const LINES_FOLD = 8 // cold lines shown before a stretch is folded
const LINES_CONTEXT = 2 // cold lines kept each side of a fold
const LINES_HOT = 0.1 // a line with this share of the function's self time is hot

function createLinesView (m, box) {
  const L = m.d.lines
  const S = m.d.sources
  const rowsOf = new Map() // function -> row indexes of L
  if (L) {
    for (let i = 0; i < L.fn.length; i++) {
      let a = rowsOf.get(L.fn[i])
      if (!a) rowsOf.set(L.fn[i], (a = []))
      a.push(i)
    }
  }
  const texts = new Map() // file -> its lines
  const textOf = (file) => {
    if (!S || typeof S.text[file] !== 'string') return null
    if (!texts.has(file)) texts.set(file, S.text[file].split(/\r?\n/))
    return texts.get(file)
  }
  const unit = m.unit

  function row (line, self, fnSelf, max, src) {
    const tr = el('tr')
    tr.dataset.line = String(line)
    tr.appendChild(el('td', 'num', line > 0 ? String(line) : '\u2013'))
    const bar = el('td')
    if (self > 0) {
      const b = el('span', 'bar heat')
      b.style.width = '80px'
      const fill = el('span')
      fill.style.width = (max > 0 ? Math.max(1, Math.round(80 * self / max)) : 0) + 'px'
      b.appendChild(fill)
      bar.appendChild(b)
    }
    tr.appendChild(bar)
    const self1 = el('td', 'num self', self > 0 ? fmtValue(self, unit) : '')
    self1.dataset.self = String(self)
    tr.appendChild(self1)
    tr.appendChild(el('td', 'num', self > 0 ? fmtPct(self, fnSelf) : ''))
    const code = el('td', 'src')
    if (src !== null) code.appendChild(el('code', '', src))
    tr.appendChild(code)
    if (self > 0) {
      tr.className = self >= LINES_HOT * fnSelf || self === max ? 'ticked hot' : 'ticked'
      // The heat behind the text: the hottest line the strongest.
      if (max > 0) tr.style.setProperty('--heat', (0.1 + 0.3 * self / max).toFixed(3))
    } else tr.className = 'cold'
    return tr
  }

  // "… 23 lines …": a click puts the folded lines in its place.
  function foldRow (from, to, make) {
    const tr = el('tr', 'fold')
    tr.dataset.from = String(from)
    tr.dataset.to = String(to)
    const td = el('td', 'fold-cell')
    td.colSpan = 5
    const b = el('button', '', `\u2026 ${fmtCount(to - from + 1)} lines \u2026`)
    b.type = 'button'
    b.title = `Show lines ${from}\u2013${to} (no samples in them)`
    b.addEventListener('click', () => {
      const rows = []
      for (let line = from; line <= to; line++) rows.push(make(line))
      tr.replaceWith(...rows)
    })
    td.appendChild(b)
    tr.appendChild(td)
    return tr
  }

  // The lines to show: the function's own file from its first line to its
  // end (read from the text), or to its last sampled line when the end
  // cannot be read; another file (a source map's) its sampled lines' span.
  function extent (f, own, text, lines) {
    let lo = lines[0]
    let hi = lines[lines.length - 1]
    let whole = false
    const start = m.fns.line[f]
    if (own && text && start > 0 && start <= lo) {
      const end = functionEnd(text, start, m.fns.col ? m.fns.col[f] : 0)
      lo = start
      if (end >= hi) { hi = end; whole = true }
    }
    return { lo, hi, whole }
  }

  function fileTable (f, file, idx, fnSelf) {
    const wrap = el('div', 'lines-file')
    const text = textOf(file)
    const url = S.url[file]
    const own = url === m.fns.url[f]
    if (!own) wrap.appendChild(el('div', 'note', 'in ' + url))
    // A page made without source maps, of a script that has one: the
    // minified or compiled lines below are not the ones written.
    if (S.map && S.map[file] === 1) wrap.appendChild(el('div', 'note map-hint', url + ' has a source map: --source-maps (sourceMaps: true) shows the original lines.'))
    const why = S.why && typeof S.why[file] === 'string' ? S.why[file] : null
    if (!text && why) wrap.appendChild(el('div', 'note', 'source not shown: ' + url + ': ' + why + '; the line table alone.'))
    else if (!text) wrap.appendChild(el('div', 'note', 'The source of ' + url + ' could not be read when this page was made: the line table alone.'))
    const table = el('table', 'lines')
    const hr = el('tr')
    for (const t of ['Line', '', 'Self', 'Share']) hr.appendChild(el('th', '', t))
    hr.appendChild(el('th', 'src', text ? 'Source' : ''))
    const thead = el('thead')
    thead.appendChild(hr)
    table.appendChild(thead)
    const tbody = el('tbody')
    const by = new Map()
    let max = 0
    for (const i of idx) {
      by.set(L.line[i], L.self[i])
      if (L.self[i] > max) max = L.self[i]
    }
    const lines = [...by.keys()].filter((x) => x > 0).sort((a, b) => a - b)
    if (by.has(0)) tbody.appendChild(row(0, by.get(0), fnSelf, max, text ? '(no line: samples without positionTicks)' : null))
    const make = (line) => row(line, by.get(line) || 0, fnSelf, max, text ? (text[line - 1] ?? '') : null)
    if (!text) {
      for (const line of lines) tbody.appendChild(make(line))
    } else if (lines.length) {
      const { lo, hi, whole } = extent(f, own, text, lines)
      wrap.dataset.from = String(lo)
      wrap.dataset.to = String(hi)
      wrap.dataset.whole = String(whole)
      if (own) {
        wrap.appendChild(el('div', 'note', whole
          ? `Lines ${lo}\u2013${hi}: the whole function.`
          : `Lines ${lo}\u2013${hi}: from its first line to its last sampled one (where it ends could not be read from the source).`))
      }
      // Each stretch of cold lines between two sampled ones (or the ends):
      // shown when short, else its edges and a fold.
      let at = lo
      for (const h of [...lines, hi + 1]) {
        const cold = h - at
        if (cold > LINES_FOLD) {
          for (let k = 0; k < LINES_CONTEXT; k++) tbody.appendChild(make(at + k))
          tbody.appendChild(foldRow(at + LINES_CONTEXT, h - 1 - LINES_CONTEXT, make))
          for (let k = h - LINES_CONTEXT; k < h; k++) tbody.appendChild(make(k))
        } else {
          for (let k = at; k < h; k++) tbody.appendChild(make(k))
        }
        if (h <= hi) tbody.appendChild(make(h))
        at = h + 1
      }
    }
    table.appendChild(tbody)
    wrap.appendChild(table)
    return wrap
  }

  function show (f) {
    box.hidden = false
    box.replaceChildren(el('h2', '', 'Self time by line: ' + m.label[f]))
    const note = (t) => box.appendChild(el('div', 'note', t))
    if (m.d.kind !== 'cpu') return note('Heap profiles have no per-line data: V8\'s sampling heap profiler records only the function, not a line within it.')
    if (!L) return note('This profile has no line data (V8\'s positionTicks): a merged profile, a diff, or a file without them.')
    const idx = rowsOf.get(f) || []
    // A range or a label filter: the lines are still the whole profile's (V8
    // counts them per call-tree node, not per sample), so are their shares.
    const all = m.d.nodes.selfAll
    const fnSelf = all ? m.fnNodes[f].reduce((n, i) => n + all[i], 0) : m.fnSelf[m.main][f]
    if (!idx.length || !(fnSelf > 0)) return note('This function has no self time: its time is in the functions it calls.')
    note(`${fmtValue(fnSelf, unit)} self; each line's share is of that.` + (all ? ' The whole profile\'s lines: V8 counts them per call path, not per sample, so a range or a label filter does not apply here.' : ''))
    const byFile = new Map()
    for (const i of idx) {
      if (!byFile.has(L.file[i])) byFile.set(L.file[i], [])
      byFile.get(L.file[i]).push(i)
    }
    // The function's own file first.
    const files = [...byFile.keys()].sort((a, b) => (S.url[b] === m.fns.url[f]) - (S.url[a] === m.fns.url[f]))
    for (const file of files) box.appendChild(fileTable(f, file, byFile.get(file), fnSelf))
  }

  return { show }
}

module.exports = { createLinesView }

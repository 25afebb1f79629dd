// The source pane: the selected function's self time per line (V8's
// positionTicks, split and summed by the C core: a function's lines add up
// to its self time), a heat bar per line beside the source text read when
// the page was made, or the line table when the file could not be read, or
// was not shown by rule (sources.why: a link to a file that is no source,
// a file the profile's owner could not read; issue 36).
// Heap profiles have no lines: the pane says so.
const LINES_SPAN = 120 // a function's lines shown as one block up to this span

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
    if (self > 0) tr.className = 'hot'
    return tr
  }

  function fileTable (f, file, idx, fnSelf) {
    const wrap = el('div', 'lines-file')
    const text = textOf(file)
    const url = S.url[file]
    if (url !== m.fns.url[f]) wrap.appendChild(el('div', 'note', 'in ' + url))
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
    const lo = lines[0]
    const hi = lines[lines.length - 1]
    const shown = text && hi - lo < LINES_SPAN ? Array.from({ length: hi - lo + 1 }, (_, k) => lo + k) : lines
    for (const line of shown) tbody.appendChild(row(line, by.get(line) || 0, fnSelf, max, text ? (text[line - 1] ?? '') : null))
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
    const fnSelf = m.fnSelf[m.main][f]
    if (!idx.length || !(fnSelf > 0)) return note('This function has no self time: its time is in the functions it calls.')
    note(`${fmtValue(fnSelf, unit)} self; each line's share is of that.`)
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

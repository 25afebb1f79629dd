// The flat profile: one row per function, sortable by self or total (and,
// in a diff, by the change of share); click a row to focus the function in
// the other views.
const { el, fmtCount, fmtPct, fmtPts, fmtValue } = require('./format')
const { pctOfText, share } = require('./model')
const FLAT_ROWS = 500

function createFlatView (m, container, onSelect) {
  const s = m.main
  const fns = []
  for (let f = 0; f < m.nf; f++) {
    if (!m.fns.url[f] && m.fns.name[f] === '(root)') continue
    if (m.fnTotal.some((t) => t[f]) || m.fnSelf.some((t) => t[f])) fns.push(f)
  }
  const d = (arr, f) => share(m, arr[1][f], 1) - share(m, arr[0][f], 0)
  const cols = [
    { title: 'Self', key: 'self', get: (f) => m.fnSelf[s][f] },
    { title: 'Self %', key: 'selfPct', get: (f) => m.fnSelf[s][f] },
    { title: 'Total', key: 'total', get: (f) => m.fnTotal[s][f] },
    { title: 'Total %', key: 'totalPct', get: (f) => m.fnTotal[s][f] }
  ]
  if (m.diff) {
    cols.splice(2, 0, { title: 'Self before', key: 'selfBefore', get: (f) => share(m, m.fnSelf[0][f], 0) },
      { title: 'Self change', key: 'selfChange', get: (f) => Math.abs(d(m.fnSelf, f)) })
    cols.push({ title: 'Total before', key: 'totalBefore', get: (f) => share(m, m.fnTotal[0][f], 0) },
      { title: 'Total change', key: 'totalChange', get: (f) => Math.abs(d(m.fnTotal, f)) })
  }
  let sortKey = m.diff ? 'selfChange' : 'self'
  let selected = -1
  let match = null
  const note = el('div', 'note')
  const table = el('table')
  const thead = el('thead')
  const hr = el('tr')
  for (const c of cols) {
    const pct = /%|before|change/i.test(c.title)
    const th = el('th', 'sortable' + (pct ? ' pct' : ''), c.title)
    th.dataset.sort = c.key
    th.dataset.sortTitle = 'Sort by ' + c.title.toLowerCase()
    th.title = th.dataset.sortTitle
    hr.appendChild(th)
  }
  hr.appendChild(el('th', 'fn', 'Function'))
  thead.appendChild(hr)
  const tbody = el('tbody')
  table.append(thead, tbody)
  container.append(note, table)

  function cell (tr, c, f) {
    let text
    let cls = 'num'
    switch (c.key) {
      case 'self': text = fmtValue(m.fnSelf[s][f], m.unit); break
      case 'total': text = fmtValue(m.fnTotal[s][f], m.unit); break
      case 'selfPct': text = fmtPct(m.fnSelf[s][f], m.denom[s]); break
      case 'totalPct': text = fmtPct(m.fnTotal[s][f], m.denom[s]); break
      case 'selfBefore': text = fmtPct(m.fnSelf[0][f], m.denom[0]); break
      case 'totalBefore': text = fmtPct(m.fnTotal[0][f], m.denom[0]); break
      default: {
        const v = d(c.key === 'selfChange' ? m.fnSelf : m.fnTotal, f)
        text = fmtPts(v)
        cls += v > 0.005 ? ' grew' : v < -0.005 ? ' shrank' : ''
      }
    }
    tr.appendChild(el('td', cls, text))
  }

  function render () {
    const col = cols.find((c) => c.key === sortKey)
    // Of busy time, (idle) is not a share: not ranked (cprof diff leaves it out too).
    const rows = fns.filter((f) => m.pctOf !== 'busy' || m.fns.kind[f] !== 4).sort((a, b) => col.get(b) - col.get(a) || a - b)
    let shown = rows.slice(0, FLAT_ROWS)
    if (selected >= 0 && !shown.includes(selected) && rows.includes(selected)) shown = [...shown, selected]
    const frag = document.createDocumentFragment()
    for (const f of shown) {
      const tr = el('tr')
      tr.dataset.fn = f
      if (f === selected) tr.classList.add('selected')
      if (match && match(m.label[f])) tr.classList.add('match')
      for (const c of cols) cell(tr, c, f)
      const td = el('td', 'fn')
      td.appendChild(el('span', 'name', m.fns.name[f]))
      if (m.fns.url[f]) td.appendChild(el('span', 'url', m.fns.url[f] + (m.fns.line[f] ? ':' + m.fns.line[f] : '')))
      td.title = m.label[f]
      tr.appendChild(td)
      frag.appendChild(tr)
    }
    tbody.replaceChildren(frag)
    for (const th of hr.children) {
      th.classList.toggle('sorted', th.dataset.sort === sortKey)
      if (th.classList.contains('pct')) th.title = th.dataset.sortTitle + '. ' + pctOfText(m)
    }
    note.textContent = `Flat profile: ${fmtCount(rows.length)} functions` + (rows.length > FLAT_ROWS ? `, the first ${FLAT_ROWS} shown` : '') +
      '. Click a column to sort, a function to focus it in the flame graph and the trees.'
  }

  thead.addEventListener('click', (ev) => {
    const th = ev.target.closest('th')
    if (!th || !th.dataset.sort) return
    sortKey = th.dataset.sort
    render()
  })
  tbody.addEventListener('click', (ev) => {
    const tr = ev.target.closest('tr')
    if (!tr || tr.dataset.fn === undefined) return
    onSelect(Number(tr.dataset.fn), 'flat')
  })
  return {
    render,
    select (f) {
      selected = f
      render()
      const row = tbody.querySelector(`tr[data-fn="${f}"]`)
      if (row && container.offsetParent) row.scrollIntoView({ block: 'nearest' })
    },
    setMatch (fn) { match = fn; render() }
  }
}

module.exports = { createFlatView }

// A tree table (expand/collapse) over a source, and the two sources: the
// top-down call tree and the bottom-up view (a function, then its callers
// with the time each call path contributed).
const { el, fmtCount, fmtPct, fmtPts, fmtValue } = require('./format')
const { pctOfText, share } = require('./model')
const MAX_CHILDREN = 200 // rows per expanded node before a "… more" row
const MAX_ROWS = 4000 // rows per render: a fully expanded 50k tree stays usable
// Levels shown under the view's top: an open node there gets a "… N more
// levels" row that shows the tree from it (and a row above leads back), so
// rows, indentation and recursion stay bounded however deep the profile.
const MAX_LEVELS = 64

function bar (pct) {
  const b = el('span', 'bar')
  b.style.width = '48px'
  const f = el('span')
  f.style.width = Math.max(0, Math.min(100, pct)).toFixed(1) + '%'
  b.appendChild(f)
  return b
}

function nameCell (m, f, depth, toggle) {
  const td = el('td', 'fn')
  td.style.paddingLeft = (8 + 14 * depth) + 'px'
  const t = el('span', 'toggle', toggle)
  td.appendChild(t)
  td.appendChild(el('span', 'name', m.fns.name[f]))
  if (m.fns.url[f]) td.appendChild(el('span', 'url', m.fns.url[f] + (m.fns.line[f] ? ':' + m.fns.line[f] : '')))
  td.title = m.label[f]
  return td
}

// Value cells for the slot(s): a value and its share; in a diff the share
// after and its change in percentage points.
function valueCells (m, tr, v, withBar) {
  const s = m.main
  const td = el('td', 'num')
  if (withBar) td.appendChild(bar(share(m, v[s], s)))
  td.appendChild(document.createTextNode(fmtValue(v[s], m.unit)))
  tr.appendChild(td)
  tr.appendChild(el('td', 'num', fmtPct(v[s], m.denom[s])))
  if (m.diff) {
    const d = share(m, v[1], 1) - share(m, v[0], 0)
    tr.appendChild(el('td', 'num ' + (d > 0.005 ? 'grew' : d < -0.005 ? 'shrank' : ''), fmtPts(d)))
  }
}

function blankCells (m, tr) {
  tr.appendChild(el('td', 'num dim', ''))
  tr.appendChild(el('td', 'num dim', ''))
  if (m.diff) tr.appendChild(el('td', 'num dim', ''))
}

function createTreeView (m, container, source, onSelect) {
  const expanded = new Set()
  let selectedKey = null
  const table = el('table')
  const thead = el('thead')
  const hr = el('tr')
  for (const c of source.columns) {
    const pct = /%|change/.test(c.title)
    hr.appendChild(el('th', (c.cls || '') + (pct ? ' pct' : ''), c.title))
  }
  thead.appendChild(hr)
  const tbody = el('tbody')
  table.appendChild(thead)
  table.appendChild(tbody)
  container.appendChild(el('div', 'note', source.note))
  container.appendChild(table)
  let count = 0
  let base = null // null: the tree from its roots; else the item shown as the top
  const bases = new Map() // key -> item, for the "more levels" rows of a render

  // A row that moves the view's top: to item (or back to the roots: null).
  function moveRow (frag, depth, text, item) {
    const tr = el('tr', 'more')
    const td = el('td', '', text)
    td.colSpan = source.columns.length
    td.style.paddingLeft = (22 + 14 * depth) + 'px'
    tr.dataset.base = item === null ? '' : source.key(item)
    if (item !== null) bases.set(tr.dataset.base, item)
    tr.appendChild(td)
    frag.appendChild(tr)
    count++
  }

  function addRows (items, depth, frag) {
    const shown = items.slice(0, MAX_CHILDREN)
    for (const item of shown) {
      if (count >= MAX_ROWS) return
      const key = source.key(item)
      const open = expanded.has(key)
      const kids = source.hasChildren(item)
      const tr = el('tr')
      tr.dataset.key = key
      tr.dataset.fn = source.fnOf(item)
      if (key === selectedKey) tr.classList.add('selected')
      source.cells(item, tr, nameCell(m, source.fnOf(item), depth, kids ? (open ? '\u25BE' : '\u25B8') : ''))
      frag.appendChild(tr)
      count++
      if (open && kids && depth + 1 < MAX_LEVELS) addRows(source.children(item), depth + 1, frag)
      else if (open && kids) {
        const n = source.levelsBelow ? source.levelsBelow(item) : 0
        moveRow(frag, depth + 1, `\u2026 ${n ? fmtCount(n) + ' more level' + (n === 1 ? '' : 's') : 'more levels'}: show the tree from here`, item)
      }
    }
    if (items.length > shown.length && count < MAX_ROWS) {
      const tr = el('tr', 'more')
      const td = el('td', '', `\u2026 ${items.length - shown.length} more, each smaller than the rows above`)
      td.colSpan = source.columns.length
      td.style.paddingLeft = (22 + 14 * depth) + 'px'
      tr.appendChild(td)
      frag.appendChild(tr)
    }
  }

  function render () {
    for (const th of hr.querySelectorAll('th.pct')) th.title = pctOfText(m)
    count = 0
    bases.clear()
    const frag = document.createDocumentFragment()
    if (base !== null) {
      const n = source.depthOf(base)
      moveRow(frag, 0, `\u2026 ${fmtCount(n)} level${n === 1 ? '' : 's'} above: show the tree from the top`, null)
      addRows([base], 0, frag)
    } else {
      addRows(source.roots(), 0, frag)
    }
    tbody.replaceChildren(frag)
  }

  tbody.addEventListener('click', (ev) => {
    const tr = ev.target.closest('tr')
    if (tr && tr.dataset.base !== undefined) {
      base = tr.dataset.base === '' ? null : bases.get(tr.dataset.base)
      render()
      return
    }
    if (!tr || !tr.dataset.key) return
    const key = tr.dataset.key
    if (ev.target.classList.contains('toggle') || ev.target.closest('td.fn')) {
      if (expanded.has(key)) expanded.delete(key)
      else expanded.add(key)
    }
    selectedKey = key
    render()
    onSelect(Number(tr.dataset.fn), source.name)
  })

  return {
    render,
    // top: the item to show the tree from (undefined: leave it as it is).
    expand (keys, select, top) {
      for (const k of keys) expanded.add(k)
      if (select !== undefined) selectedKey = select
      if (top !== undefined) base = top
      render()
      const row = tbody.querySelector(`tr[data-key="${CSS.escape(String(selectedKey))}"]`)
      if (row && container.offsetParent) row.scrollIntoView({ block: 'nearest' })
    }
  }
}

function topDownSource (m) {
  const cols = [{ title: 'Total' }, { title: 'Total %' }]
  if (m.diff) cols.push({ title: 'Total change' })
  cols.push({ title: 'Self' }, { title: 'Self %' })
  if (m.diff) cols.push({ title: 'Self change' })
  cols.push({ title: 'Function', cls: 'fn' })
  return {
    name: 'topdown',
    note: 'Top-down: the call tree from the root, heaviest calls first. Total includes the callees; self is the function\'s own ' + (m.unit === 'us' ? 'time.' : 'allocations.'),
    columns: cols,
    roots: () => [0],
    key: (i) => String(i),
    fnOf: (i) => m.fn[i],
    hasChildren: (i) => m.end[i] > i + 1,
    children: (i) => m.kidsOf(i, 'heavy'),
    depthOf: (i) => m.depth[i],
    levelsBelow (i) {
      let d = m.depth[i]
      for (let c = i + 1; c < m.end[i]; c++) if (m.depth[c] > d) d = m.depth[c]
      return d - m.depth[i]
    },
    cells (i, tr, name) {
      // the root holds (idle): of busy time, the whole is the busy time
      valueCells(m, tr, m.total.map((t, s) => i === 0 && m.pctOf === 'busy' ? m.busy[s] : t[i]), true)
      valueCells(m, tr, m.self.map((s) => s[i]))
      tr.appendChild(name)
    },
    // The keys to expand to show the heaviest node of function f.
    pathTo (f) {
      let best = -1
      for (const i of m.fnNodes[f]) if (best < 0 || m.total[m.main][i] > m.total[m.main][best]) best = i
      if (best < 0) return null
      const keys = []
      for (let a = m.parent[best]; a >= 0; a = m.parent[a]) keys.push(String(a))
      // Deeper than the view shows: the tree from an ancestor half way up.
      let top = null
      if (m.depth[best] >= MAX_LEVELS - 1) {
        top = best
        for (let k = 0; k < MAX_LEVELS / 2; k++) top = m.parent[top]
      }
      return { keys, select: String(best), top }
    }
  }
}

// Bottom-up items: { fn, nodes, path, v: per slot }. nodes are the call
// tree nodes at this level (the function's own at the top, then its
// callers'); each carries the value its top-level node contributed.
function bottomUpSource (m) {
  const slots = m.self.length
  const isRoot = (f) => !m.fns.url[f] && m.fns.name[f] === '(root)'
  let rootItems = null
  function roots () {
    if (rootItems) return rootItems
    const order = []
    for (let f = 0; f < m.nf; f++) {
      if (isRoot(f)) continue
      let any = false
      for (let s = 0; s < slots; s++) if (m.fnTotal[s][f] || m.fnSelf[s][f]) any = true
      if (any) order.push(f)
    }
    const s = m.main
    order.sort((a, b) => m.fnSelf[s][b] - m.fnSelf[s][a] || m.fnTotal[s][b] - m.fnTotal[s][a] || a - b)
    rootItems = order.map((f) => ({ fn: f, path: 'f' + f, top: true }))
    return rootItems
  }
  // The top-level item's nodes: f's nodes that have no f above them. In
  // depth-first order an f node is inside an earlier outermost one's subtree
  // or outermost itself: one pass, not a walk up from each node (a deep
  // recursive chain made that quadratic).
  function outermost (f) {
    const out = []
    for (const i of m.fnNodes[f]) if (!out.length || i >= m.end[out[out.length - 1]]) out.push(i)
    return { nodes: out, contrib: out.map((i) => m.total.map((t) => t[i])) }
  }
  function children (item) {
    if (!item.nodes) Object.assign(item, outermost(item.fn))
    const groups = new Map()
    item.nodes.forEach((i, k) => {
      const p = m.parent[i]
      if (p < 0 || (p === 0 && isRoot(m.fn[0]))) return
      let g = groups.get(m.fn[p])
      if (!g) { g = { fn: m.fn[p], nodes: [], contrib: [], v: new Array(slots).fill(0) }; groups.set(m.fn[p], g) }
      g.nodes.push(p)
      g.contrib.push(item.contrib[k])
      for (let s = 0; s < slots; s++) g.v[s] += item.contrib[k][s]
    })
    const s = m.main
    const list = [...groups.values()].sort((a, b) => b.v[s] - a.v[s] || a.fn - b.fn)
    for (const g of list) { g.path = item.path + '/' + g.fn; g.depth = (item.depth || 0) + 1 }
    return list
  }
  const cols = [{ title: 'Total' }, { title: 'Total %' }]
  if (m.diff) cols.push({ title: 'Total change' })
  cols.push({ title: 'Self' }, { title: 'Self %' })
  if (m.diff) cols.push({ title: 'Self change' })
  cols.push({ title: 'Function \u2192 its callers', cls: 'fn' })
  return {
    name: 'bottomup',
    note: 'Bottom-up: every function by self ' + (m.unit === 'us' ? 'time' : 'size') + '; expand one to see its callers, each with the total the function had when called through that path.',
    columns: cols,
    roots,
    key: (item) => item.path,
    fnOf: (item) => item.fn,
    depthOf: (item) => item.depth || 0,
    hasChildren (item) {
      if (item.top) return m.fnNodes[item.fn].some((i) => m.parent[i] > 0 || (m.parent[i] === 0 && !isRoot(m.fn[0])))
      return item.nodes.some((i) => m.parent[i] > 0)
    },
    children,
    cells (item, tr, name) {
      if (item.top) {
        valueCells(m, tr, m.fnTotal.map((t) => t[item.fn]), true)
        valueCells(m, tr, m.fnSelf.map((t) => t[item.fn]))
      } else {
        valueCells(m, tr, item.v, true)
        blankCells(m, tr)
      }
      tr.appendChild(name)
    },
    pathTo (f) {
      const k = 'f' + f
      const i = roots().findIndex((r) => r.fn === f)
      if (i < 0) return null
      if (i >= MAX_CHILDREN) { // bring it into the rendered rows
        const [item] = rootItems.splice(i, 1)
        rootItems.unshift(item)
      }
      return { keys: [k], select: k, top: null }
    }
  }
}

module.exports = { MAX_LEVELS, bar, bottomUpSource, createTreeView, topDownSource }

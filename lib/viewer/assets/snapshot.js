// A heap snapshot's page (cprof html FILE.heapsnapshot, cprof ui): the
// header figures, the class table (sortable; a click lists the class's
// largest objects), the objects list and the retainer tree of the selected
// object (retainers.js). The data: src/core/heapsnapshot.h,
// cprof_snapshot_view; every name in it is text, never markup (el()).
const { el, fmtCount, fmtValue } = require('./format')
const { showHeader } = require('./header')
const { createRetainerTree, snapDistanceCell, snapNodeLabel } = require('./retainers')
function snapFigures (d) {
  return [
    ['Heap snapshot', fmtValue(d.totalSize, 'bytes')],
    ['Objects', fmtCount(d.nodes)],
    ['Edges', fmtCount(d.edges)],
    ['Classes', fmtCount(d.classCount)],
    ['Unreachable', fmtCount(d.unreachable)]
  ]
}

const SNAP_COLS = [
  { title: 'Count', key: 'count', fmt: fmtCount },
  { title: 'Shallow', key: 'selfSize', fmt: (v) => fmtValue(v, 'bytes') },
  { title: 'Retained', key: 'retainedSize', fmt: (v) => fmtValue(v, 'bytes') },
  { title: 'Distance', key: 'distance', cell: snapDistanceCell }
]

function snapBox (parent, id, title) {
  const box = el('div', 'snap-box')
  box.id = id
  const h = el('h2', '', title)
  box.appendChild(h)
  parent.appendChild(box)
  return { box, h }
}

function createClassTable (d, box, onClass) {
  let sortKey = 'retainedSize'
  let selected = null
  const table = el('table', 'classes')
  const hr = el('tr')
  hr.appendChild(el('th', 'fn', 'Class'))
  for (const c of SNAP_COLS) {
    const th = el('th', 'sortable', c.title)
    th.dataset.sort = c.key
    th.addEventListener('click', () => { sortKey = c.key; render() })
    hr.appendChild(th)
  }
  const tbody = el('tbody')
  table.append(el('thead'), tbody)
  table.tHead.appendChild(hr)
  const left = d.classCount - d.classes.length
  box.append(el('div', 'note', `The ${fmtCount(d.classes.length)} classes that retain the most` + (left > 0 ? ` (${fmtCount(left)} more not listed)` : '') + '. Click a class for its largest objects; click a column to sort. Distance \u2014: no user root reaches it by strong references (hover for more).'), table)

  function render () {
    for (const th of hr.querySelectorAll('th[data-sort]')) th.classList.toggle('sorted', th.dataset.sort === sortKey)
    // by distance nearest first, those without one last
    const far = (c) => c.distance ?? Number.MAX_SAFE_INTEGER
    const rows = d.classes.slice().sort((a, b) => sortKey === 'distance' ? far(a) - far(b) : b[sortKey] - a[sortKey])
    tbody.replaceChildren()
    for (const c of rows) {
      const tr = el('tr', c === selected ? 'selected' : '')
      const name = tr.appendChild(el('td', 'fn', c.name))
      name.title = c.name
      for (const col of SNAP_COLS) tr.appendChild(col.cell ? col.cell(c[col.key]) : el('td', 'num', col.fmt(c[col.key])))
      tr.addEventListener('click', () => { selected = c; render(); onClass(c) })
      tbody.appendChild(tr)
    }
  }
  render()
  return { render, select (c) { selected = c; render() } }
}

function createObjectList (d, box, title, onObject) {
  const table = el('table', 'objects')
  const hr = el('tr')
  hr.appendChild(el('th', 'fn', 'Object'))
  for (const h of ['Distance', 'Shallow', 'Retained']) hr.appendChild(el('th', '', h))
  const tbody = el('tbody')
  table.append(el('thead'), tbody)
  table.tHead.appendChild(hr)
  box.appendChild(table)
  let selected = -1
  let list = { title: '', objects: [], more: 0 }

  function render () {
    title.textContent = list.title
    tbody.replaceChildren()
    for (const t of list.objects) {
      const n = d.table[t]
      const tr = el('tr', t === selected ? 'selected' : '')
      tr.dataset.t = t
      tr.appendChild(el('td', 'fn', snapNodeLabel(n))).title = snapNodeLabel(n, true)
      tr.append(snapDistanceCell(n.distance), el('td', 'num', fmtValue(n.selfSize, 'bytes')), el('td', 'num', fmtValue(n.retainedSize, 'bytes')))
      tr.addEventListener('click', () => onObject(t))
      tbody.appendChild(tr)
    }
    if (list.more > 0) {
      const tr = el('tr', 'more')
      const td = el('td', '', `${fmtCount(list.more)} more not listed (the page holds the largest ${d.caps.instances} of a class)`)
      td.colSpan = 4
      tr.appendChild(td)
      tbody.appendChild(tr)
    }
  }
  return {
    show (l) { list = l; render() },
    select (t) { selected = t; render() }
  }
}

function showSnapshot (d) {
  showHeader(d.title || 'cprof heap snapshot', snapFigures(d))
  for (const id of ['flame-panel', 'tabs', 'views']) document.getElementById(id).hidden = true
  const panel = document.getElementById('snapshot-panel')
  panel.hidden = false
  const classes = snapBox(panel, 'snap-classes', 'Classes')
  const objects = snapBox(panel, 'snap-objects', 'Largest objects')
  const retainers = snapBox(panel, 'snap-retainers', 'Retainers')
  const tree = createRetainerTree(d, retainers.box)
  const largest = { title: 'Largest objects (by retained size)', objects: d.objects, more: 0 }
  const list = createObjectList(d, objects.box, objects.h, selectObject)
  const classTable = createClassTable(d, classes.box, selectClass)
  function selectObject (t) { list.select(t); tree.show(t) }
  function selectClass (c) {
    classTable.select(c)
    list.show({ title: `Largest objects of ${c.name} (${fmtCount(c.count)} in all)`, objects: c.objects, more: c.more })
    if (c.objects.length > 0) selectObject(c.objects[0])
  }
  list.show(largest)
  if (d.truncated) panel.prepend(el('div', 'note', `The page holds ${fmtCount(d.caps.nodes)} objects at most: some retainers were left out.`))
  window.cprofViewer = {
    snapshot: d,
    selectClass: (name) => selectClass(d.classes.find((c) => c.name === name)),
    selectObject,
    showLargest: () => list.show(largest),
    tree
  }
  document.body.dataset.ready = '1'
}

module.exports = { showSnapshot }
